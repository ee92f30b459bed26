"""Executions over a real uvicorn server: CONTEXTS mode, the trace, cancel, runtime mode,
background loads and delete (the fake provider answers as Ollama would via the pool)."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from api_support import auth, live_api, new_key

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.providers.base import ChatRequest
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.types import text_checksum

LOG = "\n".join(f"INFO svc=web request {i} ok" for i in range(30)) + \
    "\nERROR svc=auth token expired for user 17\n" + \
    "\n".join(f"INFO svc=web request {i} ok" for i in range(30, 60)) + \
    "\nERROR svc=auth token expired for user 42\n"


def repl_script(steps: list[str]):
    """Root turns reply with the next ```repl step."""
    turns = iter(steps)

    def script(request: ChatRequest):
        assert "Python sandbox" in request.messages[0].content
        return reply(f"```repl\n{next(turns)}\n```")

    return script


@pytest.fixture
def rt(data_dir):
    runtime = Runtime(data_dir)
    yield runtime
    runtime.close()


def _session(client: httpx.Client, docs: list[dict]) -> str:
    made = client.post("/v1/sessions", json={"docs": docs})
    assert made.status_code == 201, made.text
    return made.json()["session_id"]


def test_contexts_mode_returns_the_tagged_spans_and_the_trace(rt):
    steps = ["hits = context[0].find('ERROR svc=auth', max_hits=5)\n"
             "for h in hits:\n"
             "    context[0].slice(h['start_char'], h['end_char'] + 26, tag='context:auth')\n"
             "FINAL('done')"]
    fake = FakeProvider(script=repl_script(steps))
    with live_api(rt, providers=ProviderPool({"ollama": fake})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = _session(c, [{"text": LOG, "source_name": "app.log"}])
        run = c.post(f"/v1/sessions/{sid}/executions", json={
            "question": "Which auth errors happened?", "preset": "fully-local",
            "options": {"output_mode": "CONTEXTS", "synchronous": True, "return_trace": True}})
        assert run.status_code == 200, run.text
        view = run.json()
        assert view["status"] == "COMPLETED" and view["output_mode"] == "CONTEXTS"
        assert view["answer"] is None and view["strategy"] == "repl"
        contexts = view["contexts"]
        assert [c["sequence_index"] for c in contexts] == [0, 1]
        for item in contexts:
            ref = item["ref"]
            assert item["tag"] == "context:auth" and item["text"].startswith("ERROR svc=auth")
            assert item["text"] == LOG[ref["start_char"]:ref["end_char"]]
            assert item["text_char_length"] == len(item["text"])
            assert ref["checksum"] == text_checksum(item["text"])
            assert ref["tenant_id"] == "acme" and ref["session_id"] == sid
            assert c.post("/v1/citations/verify", json={"ref": ref}).json()["valid"] is True
        assert "user 17" in contexts[0]["text"] and "user 42" in contexts[1]["text"]
        # Where each came from: never null (issue 21).
        origins = [(c["turn_index"], c["source_name"]) for c in contexts]
        assert origins == [(1, "inline:app.log")] * 2
        indexes = [c["span_index"] for c in contexts]
        assert all(isinstance(i, int) for i in indexes) and indexes == sorted(set(indexes))
        trace = view["trace"]["steps"]
        assert len(trace) == 1 and trace[0]["final"]["is_final"] is True
        steps_view = c.get(f"/v1/executions/{view['execution_id']}/steps").json()["steps"]
        assert steps_view == trace


def test_cancel_stops_a_running_execution_and_leaves_it_failed(rt):
    started = asyncio.Event()
    finished: list[str] = []

    async def hang(request: ChatRequest):
        started.set()
        await asyncio.sleep(60)
        finished.append("reply")  # never reached: the cancel interrupts the model call
        return reply("```repl\nFINAL('late')\n```")

    fake = FakeProvider(script=hang)
    with live_api(rt, providers=ProviderPool({"ollama": fake})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = _session(c, [{"text": LOG}])
        eid = c.post(f"/v1/sessions/{sid}/executions", json={
            "question": "q", "preset": "fully-local",
            "options": {"strategy": "repl"}}).json()["execution_id"]
        deadline = time.monotonic() + 10
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert fake.requests, "the model was never called"
        assert c.get(f"/v1/executions/{eid}").json()["status"] == "RUNNING"
        cancelled = c.post(f"/v1/executions/{eid}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "FAILED" and cancelled.json()["completed_at"]
        view = c.get(f"/v1/executions/{eid}").json()
        assert view["status"] == "FAILED" and view["error"]["code"] == "cancelled"
        assert c.post(f"/v1/executions/{eid}/cancel").json()["status"] == "FAILED"  # idempotent
        # The REPL run behind it ended too (TIMEOUT, as the seed's cancellation status).
        inner = rt.store.db.execute(
            "SELECT status FROM executions WHERE session_id = ? AND id != ?",
            (sid, eid)).fetchall()
        assert [r[0] for r in inner] == ["TIMEOUT"]
        assert finished == []


def test_runtime_mode_the_client_drives_the_steps(rt):
    with live_api(rt, providers=ProviderPool({"ollama": FakeProvider()})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = _session(c, [{"text": LOG, "source_name": "a"}, {"text": "second doc"}])
        made = c.post(f"/v1/sessions/{sid}/executions/runtime", json={"preset": "fully-local"})
        assert made.status_code == 201, made.text
        eid = made.json()["execution_id"]
        first = c.post(f"/v1/executions/{eid}/steps",
                       json={"code": "```repl\nn = len(context)\nprint(n)\n```"})
        assert first.status_code == 200, first.text
        step = first.json()
        assert step["success"] is True and step["stdout"] == "2\n"
        assert step["final"] == {"is_final": False, "answer": None}
        second = c.post(f"/v1/executions/{eid}/steps",
                        json={"code": "x = context[1][0:6]\nFINAL(x + str(n))"}).json()
        assert second["final"]["is_final"] is True and second["final"]["answer"] == "second2"
        assert second["span_log"][0]["doc_index"] == 1
        view = c.get(f"/v1/executions/{eid}").json()
        assert view["status"] == "COMPLETED" and view["mode"] == "RUNTIME"
        assert [s["turn_index"] for s in c.get(f"/v1/executions/{eid}/steps").json()["steps"]] \
            == [1, 2]
        ended = c.post(f"/v1/executions/{eid}/steps", json={"code": "print(1)"})
        assert ended.status_code == 422 and ended.json()["error"]["code"] == "invalid_args"


def test_paths_load_in_the_background_until_ready_and_delete_hides_the_session(rt, write):
    for i in range(5):
        write(f"corpus/part{i}.txt", f"part {i}: " + "lorem ipsum " * 200)
    with live_api(rt) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        made = c.post("/v1/sessions", json={"docs": [{"path": "corpus", "type": "directory"}]})
        assert made.status_code == 201 and made.json()["status"] in ("CREATING", "READY")
        sid = made.json()["session_id"]
        deadline = time.monotonic() + 20
        while (view := c.get(f"/v1/sessions/{sid}").json())["status"] == "CREATING":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert view["status"] == "READY" and len(view["docs"]) == 5
        assert rt.store.indexes.get(sid) is not None  # indexed before READY
        assert [d["doc_index"] for d in view["docs"]] == [0, 1, 2, 3, 4]
        assert c.delete(f"/v1/sessions/{sid}").json()["status"] == "DELETED"
        assert c.get(f"/v1/sessions/{sid}").status_code == 404
        assert c.delete(f"/v1/sessions/{sid}").status_code == 404
        assert c.get("/v1/sessions").json()["sessions"] == []


def test_runtime_mode_tools_resolve_answers_sub_calls_and_searches(rt):
    def sub(request: ChatRequest):
        assert request.model == "qwen3:1.7b"  # the sub-call tier of fully-local
        return reply(f"summary of: {request.messages[-1].content[:12]}")

    with live_api(rt, providers=ProviderPool({"ollama": FakeProvider(script=sub)})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = _session(c, [{"text": LOG, "source_name": "app.log"}])
        eid = c.post(f"/v1/sessions/{sid}/executions/runtime",
                     json={"preset": "fully-local"}).json()["execution_id"]
        got = c.post(f"/v1/executions/{eid}/tools/resolve", json={"tool_requests": {
            "llm": [{"key": "k1", "prompt": "ERROR svc=auth token expired"}],
            "search": [{"key": "s1", "query": "auth token expired", "k": 2}]}})
        assert got.status_code == 200, got.text
        out = got.json()
        assert out["statuses"] == {"k1": "resolved", "s1": "resolved"}
        assert out["tool_results"]["llm"]["k1"]["text"] == "summary of: ERROR svc=au"
        assert out["tool_results"]["llm"]["k1"]["meta"]["model"] == "qwen3:1.7b"
        hits = out["tool_results"]["search"]["s1"]["hits"]
        assert 1 <= len(hits) <= 2
        for hit in hits:
            assert hit["snippet"] == LOG[hit["start"]:hit["end"]] and hit["doc_index"] == 0
        assert any("auth" in hit["snippet"] for hit in hits)


def test_deleting_a_session_stops_its_running_executions(rt):
    async def hang(request: ChatRequest):
        await asyncio.sleep(60)

    fake = FakeProvider(script=hang)
    with live_api(rt, providers=ProviderPool({"ollama": fake})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = _session(c, [{"text": LOG}])
        eid = c.post(f"/v1/sessions/{sid}/executions", json={
            "question": "q", "preset": "fully-local",
            "options": {"strategy": "search"}}).json()["execution_id"]
        deadline = time.monotonic() + 10
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert c.delete(f"/v1/sessions/{sid}").status_code == 200
        row = rt.store.db.execute("SELECT status, error FROM executions WHERE id = ?",
                                  (eid,)).fetchone()
        assert row[0] == "FAILED" and "cancelled" in row[1]
        assert c.get(f"/v1/executions/{eid}").status_code == 404  # gone with its session
