"""OpenAIProvider against respx-mocked servers whose bodies follow vLLM's and llama-server's
documented replies (tests/openai_bodies.py)."""

from __future__ import annotations

import json

import httpx
import openai_bodies as bodies
import pytest
import respx
from tenacity import wait_none

from rlm_recursive.errors import ConfigError, ModelNotFound, ProviderAuthError, ProviderError
from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message, ToolCall
from rlm_recursive.providers.openai import OpenAIProvider
from rlm_recursive.types import ToolDef

BASE = "http://127.0.0.1:8000/v1"
MODEL = "Qwen/Qwen3-8B"
SEARCH = ToolDef(name="rlm_search_query", description="Search the corpus.", parameters={
    "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})


def _provider(**kwargs) -> OpenAIProvider:
    return OpenAIProvider(BASE, retry_wait=wait_none(), **kwargs)


def _request(tools: list[ToolDef] | None = None, **options) -> ChatRequest:
    return ChatRequest(model=MODEL, messages=[Message(role="system", content="Be brief."),
                                              Message(role="user", content="Where is the key?")],
                       tools=tools or [], options=ChatOptions(max_tokens=256, **options))


@respx.mock
async def test_plain_answer_from_vllm_with_usage_and_bearer_key(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    route = respx.post(f"{BASE}/chat/completions").respond(
        json=bodies.vllm_chat(MODEL, "Under the mat."))
    provider = _provider()
    result = await provider.chat(_request())
    await provider.aclose()
    assert (result.text, result.usage.input_tokens, result.usage.output_tokens) == (
        "Under the mat.", 212, 28)
    sent = route.calls.last.request
    assert sent.headers["authorization"] == "Bearer sk-local-test"
    body = json.loads(sent.content)
    assert body["model"] == MODEL and body["max_tokens"] == 256 and body["stream"] is False
    assert "tools" not in body and "response_format" not in body


@respx.mock
async def test_native_tool_call_and_its_result_go_back_by_id() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=bodies.vllm_chat(
        MODEL, tool_calls=[bodies.vllm_tool_call("rlm_search_query", {"query": "key"})]))
    provider = _provider()
    result = await provider.chat(_request([SEARCH]))
    assert result.tool_calls == [ToolCall(name="rlm_search_query", arguments={"query": "key"},
                                          id="chatcmpl-tool-5f1b0e8a3c")]
    history = _request([SEARCH])
    history.messages += [Message(role="assistant", tool_calls=result.tool_calls),
                         Message(role="tool", content="found", tool_name="rlm_search_query",
                                 tool_call_id="chatcmpl-tool-5f1b0e8a3c")]
    await provider.chat(history)
    body = json.loads(route.calls.last.request.content)
    assert body["tools"][0]["function"]["name"] == "rlm_search_query"
    call = body["messages"][2]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"query": "key"}  # a JSON string
    assert body["messages"][3] == {"role": "tool", "content": "found",
                                   "tool_call_id": "chatcmpl-tool-5f1b0e8a3c"}


@respx.mock
async def test_server_without_tool_support_falls_back_to_json_schema_then_remembers() -> None:
    refusal = bodies.vllm_error('"auto" tool choice requires --enable-auto-tool-choice and '
                                "--tool-call-parser to be set", 400, "BadRequestError")
    replies = iter([httpx.Response(400, json=refusal),
                    httpx.Response(200, json=bodies.vllm_chat(
                        MODEL, '{"tool": "rlm_search_query", "arguments": {"query": "mat"}}')),
                    httpx.Response(200, json=bodies.vllm_chat(
                        MODEL, '{"tool": "rlm_search_query", "arguments": {"query": "b"}}'))])
    route = respx.post(f"{BASE}/chat/completions").mock(side_effect=lambda _: next(replies))
    provider = _provider()
    first = await provider.chat(_request([SEARCH]))
    second = await provider.chat(_request([SEARCH]))
    assert [first.tool_calls[0].arguments, second.tool_calls[0].arguments] == [
        {"query": "mat"}, {"query": "b"}]
    sent = [json.loads(c.request.content) for c in route.calls]
    assert "tools" in sent[0] and "tools" not in sent[1] and "tools" not in sent[2]
    assert sent[1]["response_format"]["type"] == "json_schema"
    schema = sent[1]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["tool"]["enum"] == ["rlm_search_query"]
    assert '{"tool": "<tool name>"' in sent[1]["messages"][0]["content"]  # the prompted path


@respx.mock
async def test_json_schema_refused_falls_to_json_object_then_prompt() -> None:
    # llama-cpp-python's server validates response_format.type as "text" | "json_object".
    detail = {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
                          "msg": "Input should be 'text' or 'json_object'"}]}
    answer = bodies.llama_server_chat('{"tool": "rlm_search_query", "arguments": {"query": "x"}}')
    replies = iter([httpx.Response(422, json=detail), httpx.Response(422, json=detail),
                    httpx.Response(200, json=answer), httpx.Response(200, json=answer)])
    route = respx.post(f"{BASE}/chat/completions").mock(side_effect=lambda _: next(replies))
    provider = _provider()
    await provider.chat(_request([SEARCH], native_tools=False))
    result = await provider.chat(_request([SEARCH], native_tools=False))
    assert result.tool_calls[0].arguments == {"query": "x"}
    formats = [json.loads(c.request.content).get("response_format") for c in route.calls]
    assert [f and f["type"] for f in formats] == ["json_schema", "json_object", None, None]


@respx.mock
async def test_streamed_text_and_tool_call_fragments_are_assembled() -> None:
    respx.post(f"{BASE}/chat/completions").mock(side_effect=[
        httpx.Response(200, content=bodies.vllm_stream(MODEL, ["Under ", "the ", "mat."]),
                       headers={"content-type": "text/event-stream"}),
        httpx.Response(200, content=bodies.vllm_stream(
            MODEL, [], tool={"name": "rlm_search_query", "arguments": {"query": "mat"}}),
            headers={"content-type": "text/event-stream"})])
    provider = _provider(stream=True)
    text = await provider.chat(_request())
    call = await provider.chat(_request([SEARCH]))
    assert text.text == "Under the mat." and text.usage.output_tokens == 10
    assert call.tool_calls == [ToolCall(name="rlm_search_query", arguments={"query": "mat"},
                                        id="chatcmpl-tool-9")]
    assert call.done_reason == "tool_calls"


@respx.mock
async def test_context_window_from_vllm_and_llama_server_model_lists() -> None:
    respx.get(f"{BASE}/models").respond(json=bodies.vllm_models(MODEL, 40960))
    assert await _provider().context_window(MODEL) == 40960
    # llama-server: the window it allocated per slot (/props) wins over the trained one ...
    respx.get(f"{BASE}/models").respond(json=bodies.llama_server_models("q.gguf", 131072))
    props = respx.get("http://127.0.0.1:8000/props").respond(
        json=bodies.llama_server_props(4096))
    assert await _provider().context_window("q.gguf") == 4096
    # ... and without /props the trained window of a 128k model is capped.
    props.respond(404, json=bodies.llama_server_error("File Not Found", 404, "not_found_error"))
    assert await _provider().context_window("q.gguf") == 32768


@respx.mock
async def test_401_is_auth_error_at_once() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(401, json={"error": "Unauthorized"})
    with pytest.raises(ProviderAuthError, match="OPENAI_API_KEY") as err:
        await _provider().chat(_request())
    assert route.call_count == 1 and err.value.code == "auth_error"


@respx.mock
async def test_unknown_model_is_model_not_found_naming_the_served_ones() -> None:
    respx.post(f"{BASE}/chat/completions").respond(404, json=bodies.vllm_error(
        "The model `qwen9` does not exist.", 404, "NotFoundError"))
    respx.get(f"{BASE}/models").respond(json=bodies.vllm_models(MODEL))
    with pytest.raises(ModelNotFound, match="Qwen/Qwen3-8B"):
        await _provider().chat(_request())


@respx.mock
async def test_base_url_without_v1_gets_a_fix() -> None:
    respx.post(f"{BASE}/chat/completions").respond(404, text="Not Found")
    with pytest.raises(ProviderError, match="must include /v1") as err:
        await _provider().chat(_request())
    assert err.value.code == "provider_error"


@respx.mock
async def test_5xx_is_retried_then_answers() -> None:
    route = respx.post(f"{BASE}/chat/completions").mock(side_effect=[
        httpx.Response(503, json=bodies.llama_server_error("Loading model", 503,
                                                           "unavailable_error")),
        httpx.Response(200, json=bodies.llama_server_chat("ok"))])
    assert (await _provider().chat(_request())).text == "ok"
    assert route.call_count == 2


@respx.mock
async def test_5xx_that_persists_ends_with_provider_error() -> None:
    respx.post(f"{BASE}/chat/completions").respond(500, json=bodies.llama_server_error(
        "boom", 500, "server_error"))
    with pytest.raises(ProviderError, match="HTTP 500") as err:
        await _provider(retry_attempts=2).chat(_request())
    assert err.value.retryable


def test_missing_base_url_is_a_config_error(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        OpenAIProvider()


@respx.mock
async def test_thinking_is_off_unless_a_tier_asks_and_an_effort_level_is_sent() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=bodies.vllm_chat(MODEL, "ok"))
    provider = _provider()
    await provider.chat(_request())
    await provider.chat(_request(think=True))
    await provider.chat(_request(think="high"))
    await provider.aclose()
    sent = [json.loads(call.request.content) for call in route.calls]
    assert [b["chat_template_kwargs"] for b in sent] == [
        {"enable_thinking": False}, {"enable_thinking": True}, {"enable_thinking": True}]
    assert [b.get("reasoning_effort") for b in sent] == [None, None, "high"]


@respx.mock
async def test_a_server_that_refuses_the_thinking_fields_gets_the_request_without_them() -> None:
    """OpenAI's own API answers 400 to fields it does not know; the request goes again
    without them, and the model is remembered (one refused request, not one per call)."""
    refused = {"error": {"message": "Unrecognized request argument supplied: "
                         "chat_template_kwargs", "type": "invalid_request_error",
                         "param": None, "code": None}}

    def answer(request: httpx.Request) -> httpx.Response:
        if "chat_template_kwargs" in json.loads(request.content):
            return httpx.Response(400, json=refused)
        return httpx.Response(200, json=bodies.vllm_chat(MODEL, "Under the mat."))

    route = respx.post(f"{BASE}/chat/completions").mock(side_effect=answer)
    provider = _provider()
    first = await provider.chat(_request())
    second = await provider.chat(_request())
    await provider.aclose()
    assert first.text == second.text == "Under the mat."
    assert len(route.calls) == 3  # refused once, then never sent again


@respx.mock
async def test_a_400_about_something_else_is_not_retried_without_thinking() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(400, json={
        "object": "error", "message": "max_tokens must be at least 1", "type": "BadRequestError",
        "param": None, "code": 400})
    provider = _provider()
    with pytest.raises(ProviderError):
        await provider.chat(_request())
    await provider.aclose()
    assert len(route.calls) == 1
