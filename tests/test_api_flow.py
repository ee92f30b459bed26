"""The HTTP API through a real uvicorn server on loopback: session → execution → wait →
answer with citations → verify, with Ollama mocked at the HTTP level."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from api_support import auth, live_api, new_key

from rlm_recursive.agent.runtime import Runtime

OLLAMA = "http://127.0.0.1:11434"
NEEDLE = "The special magic number for ledger-7 is 48213."
TEXT = "Weather notes for the week. " * 40 + NEEDLE + " More notes." * 20


def chat_body(model: str, content: str) -> dict:
    """Ollama's /api/chat response, field for field (reference/ollama.md)."""
    return {"model": model, "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content}, "done": True,
            "done_reason": "stop", "total_duration": 123456789, "load_duration": 1000,
            "prompt_eval_count": 169, "prompt_eval_duration": 1000, "eval_count": 18,
            "eval_duration": 1000}


@pytest.fixture
def rt(data_dir, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", OLLAMA)
    runtime = Runtime(data_dir)
    yield runtime
    runtime.close()


def test_session_execution_wait_answer_citations_verify(rt):
    key = new_key(rt, "acme")
    sent: list[dict] = []

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        return httpx.Response(200, json=chat_body(body["model"], "The number is 48213."))

    with live_api(rt) as base, respx.mock(assert_all_called=False) as mock:
        mock.post(f"{OLLAMA}/api/chat").mock(side_effect=respond)
        mock.route(host="127.0.0.1", port=int(base.rsplit(":", 1)[1])).pass_through()
        with httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
            made = client.post("/v1/sessions", json={
                "name": "notes", "docs": [{"text": TEXT, "source_name": "notes.txt"}]})
            assert made.status_code == 201, made.text
            session = made.json()
            assert session["status"] == "READY" and session["readiness"]["ready"] is True
            assert session["docs"][0]["source_name"] == "inline:notes.txt"
            sid = session["session_id"]

            started = client.post(f"/v1/sessions/{sid}/executions", json={
                "question": "What is the magic number for ledger-7?", "preset": "fully-local",
                "options": {"strategy": "search"}})
            assert started.status_code == 202, started.text
            assert started.json()["status"] == "RUNNING"
            eid = started.json()["execution_id"]

            done = client.post(f"/v1/executions/{eid}/wait", json={"timeout_seconds": 20})
            assert done.status_code == 200, done.text
            view = done.json()
            assert view["status"] == "COMPLETED", view
            assert view["answer"] == "The number is 48213."
            assert view["model"] == "qwen3:8b" and view["strategy"] == "search"
            assert view["budgets_consumed"]["input_tokens"] == 169
            assert view["citations"], view
            # The model was shown the cited text and nothing else of the corpus.
            cited = [c for c in view["citations"]
                     if TEXT[c["start_char"]:c["end_char"]].find(NEEDLE) >= 0]
            assert cited and cited[0]["tenant_id"] == "acme" and cited[0]["doc_index"] == 0
            # Where it lies (issue 19): the source and the line the span starts on.
            assert cited[0]["source"] == "inline:notes.txt"
            assert cited[0]["line"] == TEXT[: cited[0]["start_char"]].count("\n") + 1
            assert NEEDLE in sent[0]["messages"][-1]["content"]

            for citation in view["citations"]:
                checked = client.post("/v1/citations/verify", json={"ref": citation})
                assert checked.status_code == 200, checked.text
                out = checked.json()
                assert out["valid"] is True and out["source_name"] == "inline:notes.txt"
                assert out["line"] == citation["line"]
                assert out["text"] == TEXT[citation["start_char"]:citation["end_char"]]
                assert out["char_range"] == {"start_char": citation["start_char"],
                                             "end_char": citation["end_char"]}
            forged = {**view["citations"][0], "end_char": view["citations"][0]["end_char"] - 1}
            assert client.post("/v1/citations/verify",
                               json={"ref": forged}).json()["valid"] is False

            span = client.get(f"/v1/sessions/{sid}/spans",
                              params={"doc_index": 0, "start": 0, "end": 27}).json()
            assert span["text"] == TEXT[:27] and span["ref"]["checksum"].startswith("sha256:")
            assert client.post("/v1/citations/verify",
                               json={"ref": span["ref"]}).json()["valid"] is True

            steps = client.get(f"/v1/executions/{eid}/steps")
            assert steps.status_code == 200 and steps.json()["steps"] == []  # search: no REPL

            metrics = client.get("/v1/metrics").text
            for name in ("rlm_api_requests_total", "rlm_api_latency_seconds_bucket",
                         "rlm_execution_total", "rlm_execution_duration_seconds_bucket",
                         "rlm_execution_turns_bucket", "rlm_execution_subcalls_bucket",
                         "rlm_execution_spans_total", "rlm_llm_requests_total",
                         "rlm_llm_tokens_total", "rlm_llm_errors_total"):
                assert f"\n{name}" in metrics, name  # seed §19.1, dots as underscores
            assert 'rlm_llm_tokens_total{model="qwen3:8b",type="input"} 169.0' in metrics
            assert 'rlm_execution_total{mode="answerer",status="COMPLETED"} 1.0' in metrics
            assert 'rlm_api_requests_total{endpoint="/v1/sessions",status="201"}' in metrics

    audit = [json.loads(line) for line in
             (rt.store.data_dir / "audit.jsonl").read_text().splitlines()]
    api = [r for r in audit if r["tool"] == "http_api"]
    assert {r["route"] for r in api} >= {"POST /v1/sessions",
                                         "POST /v1/executions/{execution_id}/wait"}
    waited = next(r for r in api if r["route"] == "POST /v1/executions/{execution_id}/wait")
    assert waited["tenant_id"] == "acme" and waited["execution_id"] == eid
    assert waited["model_used"] == "qwen3:8b" and waited["tokens"] == 187
    assert waited["status"] == 200 and waited["key_id"].startswith("key_")
    raw = (rt.store.data_dir / "audit.jsonl").read_text()
    assert key not in raw and "48213" not in raw and "ledger" not in raw
