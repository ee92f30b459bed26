"""GET /v1/executions/{id}/events through a real uvicorn server: the run's status, steps,
progress and answer arrive as Server-Sent Events, in order, and end with the final status."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from api_support import auth, live_api, new_key
from serve_support import NOTES, QUESTION, hopper, scripted_runtime, sse_events

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider


@pytest.fixture
def rt(data_dir):
    runtime = scripted_runtime(data_dir)
    yield runtime
    runtime.close()


class SlowHopper(FakeProvider):
    """The hopper, a little slow: the stream is read while the run is still going."""

    def __init__(self) -> None:
        super().__init__(script=hopper)

    async def chat(self, request: ChatRequest) -> ChatResult:
        await asyncio.sleep(0.05)
        return await super().chat(request)


def _start(client: httpx.Client, sid: str | None = None) -> str:
    if sid is None:
        made = client.post("/v1/sessions", json={"docs": [{"text": NOTES,
                                                           "source_name": "notes.txt"}]})
        assert made.status_code == 201, made.text
        sid = made.json()["session_id"]
    started = client.post(f"/v1/sessions/{sid}/executions", json={
        "question": QUESTION, "preset": "scripted", "options": {"strategy": "iterative"}})
    assert started.status_code == 202, started.text
    return started.json()["execution_id"]


def _read(client: httpx.Client, eid: str, **headers: str) -> list[dict]:
    with client.stream("GET", f"/v1/executions/{eid}/events", headers=headers) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return sse_events(list(response.iter_lines()))


def test_events_arrive_in_order_from_running_to_answer(rt):
    key = new_key(rt, "acme")
    pool = ProviderPool({"fake": SlowHopper()})
    with live_api(rt, providers=pool) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        eid = _start(client)
        events = [e for e in _read(client, eid) if "comment" not in e]
        done = client.get(f"/v1/executions/{eid}").json()
    assert done["status"] == "COMPLETED" and done["answer"] == "4821-K"
    ids = [int(e["id"]) for e in events]
    assert ids == list(range(1, len(ids) + 1)), ids
    kinds = [e["event"] for e in events]
    assert kinds[0] == "status" and events[0]["json"]["status"] == "RUNNING"
    assert kinds[-2:] == ["answer", "status"], kinds
    assert events[-1]["json"]["status"] == "COMPLETED"
    answer = events[-2]["json"]
    assert answer["answer"] == "4821-K" and answer["citations"] and answer["grounded"] is True
    assert answer["citations"][0]["tenant_id"] == "acme"
    messages = [e["json"]["message"] for e in events]
    hops = [m for m in messages if m.startswith("hop ")]
    assert hops[1:] == ["hop 2/3: searching 'Lisbon'", "hop 3/3: searching 'Harbour'"]
    steps = [e["json"] for e in events if e["event"] == "step"]
    assert [s["kind"] for s in steps] == ["model"] * 4
    assert messages.index(hops[1]) < messages.index(hops[2]), messages


def test_a_reconnect_resumes_after_last_event_id_and_a_finished_run_replays(rt):
    key = new_key(rt, "acme")
    with live_api(rt, providers=ProviderPool({"fake": FakeProvider(script=hopper)})) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        eid = _start(client)
        client.post(f"/v1/executions/{eid}/wait", json={"timeout_seconds": 20})
        whole = [e for e in _read(client, eid) if "comment" not in e]
        rest = [e for e in _read(client, eid, **{"Last-Event-ID": "3"}) if "comment" not in e]
    assert [e["id"] for e in rest] == [e["id"] for e in whole[3:]]
    assert whole[-1]["json"]["status"] == "COMPLETED"
    # A restarted server no longer follows it: the stored answer and status, at once.
    with live_api(rt) as base, httpx.Client(base_url=base, headers=auth(key),
                                             timeout=30) as client:
        settled = [e for e in _read(client, eid) if "comment" not in e]
    assert [e["event"] for e in settled] == ["answer", "status"]
    assert settled[0]["json"]["answer"] == "4821-K" and settled[0]["json"]["citations"]
    assert settled[1]["json"]["status"] == "COMPLETED"


def test_another_tenants_execution_has_no_events(rt):
    mine, theirs = new_key(rt, "acme"), new_key(rt, "globex")
    with live_api(rt, providers=ProviderPool({"fake": FakeProvider(script=hopper)})) as base, \
            httpx.Client(base_url=base, timeout=30) as client:
        client.headers.update(auth(mine))
        eid = _start(client)
        other = client.get(f"/v1/executions/{eid}/events", headers=auth(theirs))
        anonymous = client.get(f"/v1/executions/{eid}/events", headers={"Authorization": ""})
    assert other.status_code == 404 and other.json()["error"]["code"] == "not_found"
    assert anonymous.status_code == 401
