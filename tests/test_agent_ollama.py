"""The whole run against Ollama mocked at the HTTP level, bodies shaped as ollama.md says."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import ModelNotFound

HOST = "http://127.0.0.1:11434"
NEEDLE = "The special magic number for ledger-7 is 48213."


def chat_body(model: str, content: str = "", tool_calls: list | None = None) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"model": model, "created_at": "2026-01-01T00:00:00Z", "message": message,
            "done": True, "done_reason": "stop", "total_duration": 123456789,
            "load_duration": 1000, "prompt_eval_count": 169, "prompt_eval_duration": 1000,
            "eval_count": 18, "eval_duration": 1000}


@pytest.fixture
def rt(tmp_path, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("o", SessionConfig())["session_id"]
    text = "Weather notes for the week. " * 50 + NEEDLE + " More notes." * 20
    doc = runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                     source="notes.txt", source_type="inline")
    yield runtime, sid, doc
    runtime.close()


async def test_root_tool_call_then_plain_sub_call_at_max_depth(rt):
    runtime, sid, doc = rt
    sent: list[dict] = []

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if body["model"] == "qwen3:1.7b":  # the depth-1 tier of fully-local
            return httpx.Response(200, json=chat_body("qwen3:1.7b", "48213"))
        if not any(m["role"] == "tool" for m in body["messages"]):
            call = {"id": "call_k3j9x0ab", "function": {
                "index": 0, "name": "rlm_sub_query",
                # Ollama's OpenAI-compatible style: arguments as a JSON string.
                "arguments": json.dumps({"query": "What is the magic number for ledger-7?",
                                         "doc_id": doc.id})}}
            return httpx.Response(200, json=chat_body("qwen3:8b", tool_calls=[call]))
        return httpx.Response(200, json=chat_body("qwen3:8b", "The number is 48213."))

    with respx.mock(base_url=HOST, assert_all_called=False) as mock:
        mock.post("/api/chat").mock(side_effect=respond)
        result = await run_query(runtime, sid, "What is the magic number for ledger-7?",
                                 QueryOptions(preset="fully-local", max_depth=1,
                                              strategy="agent"))

    assert result.answer == "The number is 48213."
    first, sub, final = sent
    assert first["stream"] is False and first["options"]["num_ctx"] == 32768
    assert {t["function"]["name"] for t in first["tools"]} >= {"rlm_sub_query",
                                                               "rlm_final_answer"}
    # At max depth the sub-call is a plain completion: no tools key at all.
    assert sub["model"] == "qwen3:1.7b" and "tools" not in sub
    assert sub["options"]["num_ctx"] == 32768 and NEEDLE in sub["messages"][-1]["content"]
    roles = [m["role"] for m in final["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    assert final["messages"][1]["content"] == "What is the magic number for ledger-7?"
    assert final["messages"][2]["tool_calls"][0]["function"]["name"] == "rlm_sub_query"
    assert final["messages"][3]["tool_name"] == "rlm_sub_query"
    assert json.loads(final["messages"][3]["content"])["response"] == "48213"
    assert result.recursion["call_trace"][0]["model"] == "qwen3:1.7b"
    assert result.usage["input_tokens"] == 3 * 169 and result.usage["output_tokens"] == 3 * 18
    assert any(c.start <= doc.length_chars and c.doc_id == doc.id for c in result.citations)


async def test_missing_model_ends_the_run_naming_ollama_pull(rt):
    runtime, sid, _ = rt
    with respx.mock(base_url=HOST) as mock:
        mock.post("/api/chat").respond(404, json={"error": "model 'qwen3:8b' not found"})
        with pytest.raises(ModelNotFound) as err:
            await run_query(runtime, sid, "q", QueryOptions(preset="fully-local",
                                                            strategy="agent"))
    assert "ollama pull qwen3:8b" in str(err.value) and err.value.code == "model_not_found"


async def test_repl_run_of_three_steps_with_one_batched_sub_call_at_depth_1(rt):
    runtime, sid, doc = rt
    sent: list[dict] = []
    steps = [
        "print(len(context), len(context[0]))",
        "half = len(context[0]) // 2\n"
        "parts = [context[0][0:half], context[0][half:]]\n"
        "answers = llm_query_batched(['Magic number for ledger-7? ' + p for p in parts])\n"
        "print(answers)",
        "FINAL([a for a in answers if a != 'NOT FOUND'][0])",
    ]

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if body["model"] == "qwen3:1.7b":  # depth 1 of fully-local: the batched sub-calls
            prompt = body["messages"][-1]["content"]
            return httpx.Response(200, json=chat_body(
                "qwen3:1.7b", "48213" if NEEDLE in prompt else "NOT FOUND"))
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        return httpx.Response(200, json=chat_body("qwen3:8b", f"```repl\n{steps[turn]}\n```"))

    with respx.mock(base_url=HOST, assert_all_called=False) as mock:
        mock.post("/api/chat").mock(side_effect=respond)
        result = await run_query(runtime, sid, "What is the magic number for ledger-7?",
                                 QueryOptions(preset="fully-local", max_depth=1,
                                              strategy="repl"))

    assert result.answer == "48213" and result.strategy == "repl"
    roots = [b for b in sent if b["model"] == "qwen3:8b"]
    subs = [b for b in sent if b["model"] == "qwen3:1.7b"]
    assert len(roots) == 3 and len(subs) == 2
    assert all("tools" not in b and b["stream"] is False for b in sent)
    assert roots[1]["messages"][-1]["content"].startswith(f"[step 1] stdout:\n1 {doc.length_chars}")
    assert "['48213', 'NOT FOUND']" in roots[2]["messages"][-1]["content"] or \
        "['NOT FOUND', '48213']" in roots[2]["messages"][-1]["content"]
    assert [c["depth"] for c in result.recursion["call_trace"]] == [1, 1]
    assert result.usage["model_calls"] == 5 and result.usage["input_tokens"] == 5 * 169
    assert any(c.doc_id == doc.id and c.start == 0 for c in result.citations)
