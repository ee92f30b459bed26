"""Model and probe traffic over real loopback sockets: no proxies, no redirects, and the
S-NIAH bench under the same egress check as every other model call (issue 15 §2)."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from fake_ollama import chat_body, recording_proxy, serve, show_body, tags_body
from tenacity import wait_none
from typer.testing import CliRunner

from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import ProviderError
from rlm_recursive.providers.auto import detect_provider
from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message
from rlm_recursive.providers.ollama import OllamaProvider

MODEL = "qwen3:8b"
REMOTE = "gpu-box.invalid"
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
               "all_proxy")


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name this process tries to resolve (the conftest guard still refuses remote)."""
    names: list[str] = []
    guarded = socket.getaddrinfo

    def record(host: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(host.decode() if isinstance(host, bytes) else str(host))
        return guarded(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", record)
    return names


def _ollama(method: str, path: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    if path == "/api/version":
        return 200, {"version": "0.12.3"}, {}
    if path == "/api/tags":
        return 200, tags_body(MODEL, "qwen3:1.7b"), {}
    if path == "/api/show":
        return 200, show_body(40960), {}
    return 200, chat_body(body.get("model", MODEL), "The keypad code is 7316."), {}


def _request() -> ChatRequest:
    return ChatRequest(model=MODEL, messages=[Message(role="user", content="secret text")],
                       options=ChatOptions(num_ctx=4096))


async def test_proxy_variables_never_see_model_or_probe_traffic(monkeypatch, data_dir):
    with recording_proxy() as proxy, serve(_ollama) as ollama:
        for name in _PROXY_VARS:
            monkeypatch.setenv(name, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)

        provider = OllamaProvider(retry_wait=wait_none())
        try:
            reply = await provider.chat(_request())
        finally:
            await provider.aclose()
        assert reply.text == "The keypad code is 7316."
        assert (await detect_provider(root_model=MODEL))[0] == "ollama"

        # The whole restricted run: auto-detection, the window probe and the model calls.
        runtime = Runtime(data_dir, "restricted")
        try:
            sid = runtime.store.create_session("p", SessionConfig())["session_id"]
            text = "The door keypad code is 7316."
            runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                       source="notes.txt", source_type="inline")
            result = await run_query(runtime, sid, "What is the keypad code?",
                                     QueryOptions(strategy="search"))
        finally:
            runtime.close()
        assert "7316" in result.answer
    assert proxy.requests == []
    paths = [r.path for r in ollama.requests]
    assert paths.count("/api/chat") == 2 and "/api/version" in paths and "/api/tags" in paths
    # The prompt went to the endpoint the policy checked, and only there.
    assert any("secret text" in json.dumps(b) for b in ollama.bodies("/api/chat"))


def _redirecting(method: str, path: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    return 307, None, {"Location": f"http://{REMOTE}:11434{path}"}


async def test_a_redirect_from_the_checked_endpoint_is_not_followed(resolved):
    with serve(_redirecting) as ollama:
        provider = OllamaProvider(ollama.url, retry_wait=wait_none())
        try:
            with pytest.raises(ProviderError) as info:
                await provider.chat(_request())
        finally:
            await provider.aclose()
    err = info.value
    assert err.code == "provider_error" and err.retryable is False
    assert err.details["status"] == 307 and "redirect" in err.message
    assert [r.path for r in ollama.requests] == ["/api/chat"]  # one request, never retried
    assert not any(REMOTE in name for name in resolved)


async def test_auto_detection_does_not_follow_a_redirect(resolved, monkeypatch):
    monkeypatch.setattr("rlm_recursive.providers.auto.embedded_available", lambda: True)
    with serve(_redirecting) as ollama:
        name, _ = await detect_provider(ollama_host=ollama.url)
    assert name == "embedded"
    assert not any(REMOTE in n for n in resolved)


@pytest.mark.parametrize("method", ["direct", "runner"])
def test_bench_sniah_honours_the_restricted_profile(method, monkeypatch, resolved):
    monkeypatch.setenv("OLLAMA_HOST", f"http://{REMOTE}:11434")
    result = CliRunner().invoke(app, [
        "--profile", "restricted", "bench", "sniah", "--lengths", "2k", "-n", "1",
        "--method", method, "--provider", "ollama", "--model", MODEL, "--json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["meta"]["error_code"] == "egress_denied"
    assert not any(REMOTE in n for n in resolved)
