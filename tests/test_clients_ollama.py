"""Thinking models, tool-call ids and the window of uncatalogued models, against Ollama
mocked at the HTTP level (respx) with bodies shaped as api/types.go writes them."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx
from fake_ollama import chat_body, show_body

from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import EmptyAnswer
from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message
from rlm_recursive.providers.ollama import MAX_SERVER_NUM_CTX, OllamaProvider

HOST = "http://127.0.0.1:11434"
NEEDLE = "The special magic number for ledger-7 is 48213."
THOUGHT = "Okay, the user wants the magic number. Let me think about where it could be..."


@pytest.fixture
def rt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("o", SessionConfig())["session_id"]
    text = "Weather notes for the week. " * 50 + NEEDLE + " More notes." * 20
    doc = runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                     source="notes.txt", source_type="inline")
    yield runtime, sid, doc
    runtime.close()


def _sent(route: respx.Route) -> list[dict]:
    return [json.loads(call.request.content) for call in route.calls]


def _thought_out(model: str) -> dict:
    """What qwen3 returns when thinking spends the whole `num_predict`."""
    return chat_body(model, "", thinking=THOUGHT, done_reason="length", eval_count=1024)


async def test_think_is_sent_false_and_a_thought_out_reply_is_retried_once_larger(rt):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        route = mock.post("/api/chat").mock(side_effect=[
            httpx.Response(200, json=_thought_out("qwen3:1.7b")),
            httpx.Response(200, json=chat_body("qwen3:1.7b", "48213",
                                               thinking="It says 48213.")),
        ])
        result = await run_query(runtime, sid, "What is the magic number for ledger-7?",
                                 QueryOptions(preset="speed-optimized", strategy="search"))
    first, retry = _sent(route)
    assert first["think"] is False and retry["think"] is False
    assert retry["options"]["num_predict"] > first["options"]["num_predict"]
    assert retry["messages"] == first["messages"]
    assert result.answer == "48213"  # the reasoning is never taken for the answer


async def test_a_reply_that_thinks_out_twice_ends_with_empty_answer(rt):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        route = mock.post("/api/chat").respond(200, json=_thought_out("qwen3:1.7b"))
        with pytest.raises(EmptyAnswer) as info:
            await run_query(runtime, sid, "What is the magic number?",
                            QueryOptions(preset="speed-optimized", strategy="search"))
    assert route.call_count == 2
    err = info.value
    assert err.code == "empty_answer" and err.details["done_reason"] == "length"
    assert "think = false" in err.message


async def test_an_empty_final_answer_is_an_error_not_a_success(rt):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        mock.post("/api/chat").respond(200, json=chat_body("qwen3:1.7b", "  \n"))
        with pytest.raises(EmptyAnswer) as info:
            await run_query(runtime, sid, "What is the magic number?",
                            QueryOptions(preset="speed-optimized", strategy="search"))
    assert info.value.code == "empty_answer"
    audit = (runtime.store.data_dir / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[-1])["error_code"] == "empty_answer"


async def test_a_tier_in_models_toml_turns_thinking_on(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text('[presets.deliberate]\ntiers = [{ model = "gpt-oss:20b", think = "low" },'
                      ' { model = "qwen3:1.7b" }]\n', encoding="utf-8")
    monkeypatch.setenv("RLM_MODELS", str(models))
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    runtime = Runtime(tmp_path / "data")
    try:
        sid = runtime.store.create_session("o", SessionConfig())["session_id"]
        runtime.store.add_document(sid, NEEDLE.encode(), length_chars=len(NEEDLE),
                                   source="n.txt", source_type="inline")
        with respx.mock(base_url=HOST) as mock:
            route = mock.post("/api/chat").respond(
                200, json=chat_body("gpt-oss:20b", "48213", thinking="Look at the note."))
            result = await run_query(runtime, sid, "What is the magic number?",
                                     QueryOptions(preset="deliberate", strategy="search"))
    finally:
        runtime.close()
    assert _sent(route)[0]["think"] == "low"
    assert result.answer == "48213"


async def test_tool_call_ids_are_echoed_on_the_tool_message(rt):
    runtime, sid, _ = rt
    call = {"id": "call_k3j9x0ab", "function": {
        "index": 0, "name": "rlm_search_query", "arguments": {"query": "magic number ledger-7"}}}
    with respx.mock(base_url=HOST) as mock:
        route = mock.post("/api/chat").mock(side_effect=[
            httpx.Response(200, json=chat_body("qwen3:8b", tool_calls=[call])),
            httpx.Response(200, json=chat_body("qwen3:8b", "The number is 48213.")),
        ])
        result = await run_query(runtime, sid, "What is the magic number for ledger-7?",
                                 QueryOptions(preset="fully-local", strategy="agent"))
    _, second = _sent(route)
    assistant, tool = second["messages"][2:4]
    assert assistant["tool_calls"][0]["id"] == "call_k3j9x0ab"
    assert tool == {"role": "tool", "content": tool["content"],
                    "tool_name": "rlm_search_query", "tool_call_id": "call_k3j9x0ab"}
    assert result.answer == "The number is 48213." and not result.uncited


@pytest.mark.parametrize(("trained", "expected"), [(4096, 4096), (131072, MAX_SERVER_NUM_CTX)])
async def test_the_plan_shows_the_num_ctx_an_uncatalogued_model_is_sent(rt, trained, expected):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        show = mock.post("/api/show").respond(200, json=show_body(trained, "mistral"))
        chat = mock.post("/api/chat").respond(200, json=chat_body("mistral-nemo:12b", "48213"))
        result = await run_query(runtime, sid, "What is the magic number for ledger-7?",
                                 QueryOptions(provider="ollama", model="mistral-nemo:12b",
                                              strategy="search"))
    assert show.call_count == 1
    assert result.plan[0]["num_ctx"] == expected
    assert all(body["options"]["num_ctx"] == expected for body in _sent(chat))


async def test_an_answer_that_read_nothing_is_flagged_uncited(rt):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        mock.post("/api/chat").respond(200, json=chat_body("qwen3:8b", "Probably 42."))
        result = await run_query(runtime, sid, "What is the magic number?",
                                 QueryOptions(preset="fully-local", strategy="agent"))
    assert result.citations == [] and result.uncited is True


async def test_provider_reports_thinking_and_done_reason_apart_from_the_answer():
    provider = OllamaProvider(HOST)
    request = ChatRequest(model="qwen3:8b", messages=[Message(role="user", content="hi")],
                          options=ChatOptions(num_ctx=4096, max_tokens=256, think="high"))
    try:
        with respx.mock(base_url=HOST) as mock:
            route = mock.post("/api/chat").respond(
                200, json=chat_body("qwen3:8b", "Hello.", thinking="Greet back."))
            reply = await provider.chat(request)
    finally:
        await provider.aclose()
    assert (reply.text, reply.thinking, reply.done_reason) == ("Hello.", "Greet back.", "stop")
    assert _sent(route)[0]["think"] == "high"


def test_models_does_not_claim_a_window_an_uncatalogued_model_is_not_sent(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from rlm_recursive.cli.app import app

    models = tmp_path / "models.toml"
    models.write_text('[presets.mine]\ntiers = [{ model = "mistral-nemo:12b", provider = '
                      '"ollama" }, { model = "qwen3:1.7b" }]\n', encoding="utf-8")
    monkeypatch.setenv("RLM_MODELS", str(models))
    result = CliRunner().invoke(app, ["models", "--preset", "mine", "--json"])
    assert result.exit_code == 0, result.output
    root, sub = json.loads(result.stdout)["mine"]["tiers"]
    # The run asks the server (test above): the listing must not print the 8192 default.
    assert root["num_ctx"] is None and root["num_ctx_from"] == "server"
    assert sub["num_ctx"] == 32768 and sub["num_ctx_from"] == "catalog"
