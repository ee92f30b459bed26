"""Live step events across processes (issue 23's leftovers): two `api` processes and one
`worker` (real subprocesses, each with a data dir of its own, one PostgreSQL). An SSE client
on the api that did *not* queue the execution sees each step as the worker takes it, in
order, before the answer and the final status. And the process's one listener: it wakes the
waiters of either channel, and without it waiters still poll.
"""

from __future__ import annotations

import asyncio
import queue
import subprocess
import threading
from typing import Any

import httpx
import psycopg
from fake_ollama import serve
from queue_support import HeldModel, start_worker, until
from serve_support import sse_events
from test_queue_topology import ANSWER, QUESTION, _notes_session, _two_apis, team

from rlm_recursive.queue import watch
from rlm_recursive.queue.events import EVENTS_CHANNEL, events_after, prune_events
from rlm_recursive.queue.watch import EXECUTION_CHANNEL, ExecutionWatcher
from rlm_recursive.store.postgres import PostgresConnector

_ = team  # the topology suite's fixture: the shared environment and a key


def _read_events(base: str, headers: dict[str, str], execution_id: str,
                 into: queue.Queue[dict[str, Any] | None]) -> None:
    """Put each SSE event into `into` as it arrives (None when the stream ends)."""
    try:
        with httpx.Client(headers=headers, timeout=120) as http, http.stream(
                "GET", f"{base}/v1/executions/{execution_id}/events") as response:
            assert response.status_code == 200
            lines: list[str] = []
            for line in response.iter_lines():
                lines.append(line)
                if line == "":
                    for event in sse_events(lines):
                        if "comment" not in event:
                            into.put(event)
                    lines = []
    finally:
        into.put(None)


def _next(events: queue.Queue[dict[str, Any] | None], seen: list[dict[str, Any]]
          ) -> dict[str, Any] | None:
    event = events.get(timeout=60)
    if event is not None:
        seen.append(event)
    return event


def test_an_api_that_did_not_queue_the_execution_streams_its_steps_live(team, postgres_url,
                                                                        tmp_path):
    env, key = team
    held = HeldModel(ANSWER)
    held.held.set()
    worker: subprocess.Popen[bytes] | None = None
    try:
        with serve(held) as model:
            env = {**env, "OLLAMA_HOST": model.url}
            with _two_apis(env, key, tmp_path) as (a, b, http):
                run = http.post(f"{a}/v1/sessions/{_notes_session(http, a)}/executions",
                                json={"question": QUESTION, "preset": "fully-local",
                                      "options": {"strategy": "agent"}})
                assert run.status_code == 202, run.text
                eid = run.json()["execution_id"]
                # B did not queue it; its client connects before any worker runs it.
                events: queue.Queue[dict[str, Any] | None] = queue.Queue()
                reader = threading.Thread(target=_read_events, args=(b, key, eid, events),
                                          daemon=True)
                reader.start()
                seen: list[dict[str, Any]] = []
                first = _next(events, seen)
                assert first is not None and first["json"]["status"] == "QUEUED"
                worker = start_worker(tmp_path / "w", postgres_url, model.url,
                                      tmp_path / "w.log", blobs=env["RLM_BLOB_URL"])
                # The worker searches, then asks the model to answer: that call is held.
                # B's client sees those steps while the execution is still running.
                asked = 0
                while asked < 2:
                    event = _next(events, seen)
                    assert event is not None, (seen, (tmp_path / "w.log").read_text())
                    assert event["event"] not in ("answer", "error"), seen
                    if event["event"] == "step" and event["json"]["kind"] == "model":
                        asked += 1
                until(lambda: held.answering >= 1, 30, "the held answering call")
                assert held.answering == 1 and not held.release.is_set()
                assert http.get(f"{a}/v1/executions/{eid}").json()["status"] == "RUNNING"
                live = [e["event"] for e in seen]
                assert "status" in live[1:] and live.count("step") >= 3, seen
                running = next(e for e in seen[1:] if e["event"] == "status")
                assert running["json"]["status"] == "RUNNING"
                assert running["json"]["attempt"] == 1
                tools = [e["json"]["name"] for e in seen if e["event"] == "step"
                         and e["json"]["kind"] == "tool"]
                assert tools == ["rlm_search_query"], seen
                held.release.set()
                while _next(events, seen) is not None:
                    pass
                reader.join(30)
                kinds = [e["event"] for e in seen]
                assert kinds[-2:] == ["answer", "status"], kinds
                assert seen[-2]["json"]["answer"] == ANSWER and seen[-2]["json"]["citations"]
                assert seen[-1]["json"]["status"] == "COMPLETED"
                ids = [int(e["id"]) for e in seen]
                assert ids == list(range(1, len(seen) + 1))  # in order, none skipped
                # A, which queued it, relayed the same steps to its own feed.
                with http.stream("GET", f"{a}/v1/executions/{eid}/events") as response:
                    on_a = [e for e in sse_events(list(response.iter_lines()))
                            if "comment" not in e]
                steps = [(e["event"], e["json"].get("message")) for e in seen[1:]]
                assert [(e["event"], e["json"].get("message")) for e in on_a[1:]] == steps
        # The events stay in the store a while after the end, then a worker prunes them.
        store = PostgresConnector(postgres_url)
        try:
            assert events_after(store, eid, 0)
            assert prune_events(store, keep_s=0) >= 3
            assert events_after(store, eid, 0) == []
        finally:
            store.close()
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.wait(10)


async def test_one_listener_wakes_waiters_on_both_channels_and_polls_without_it(
        postgres_url, monkeypatch):
    monkeypatch.setattr(watch, "POLL_S", 600.0)  # only a notification can wake a waiter
    watcher = ExecutionWatcher(postgres_url)
    woken: list[str] = []

    async def follower(name: str, channels: tuple[str, ...]) -> None:
        async def done() -> bool:
            woken.append(name)
            return woken.count(name) > 1  # the first read is before any notification

        await watcher.wait("exec_1", 60, done, channels=channels)

    both = asyncio.create_task(follower("both", (EXECUTION_CHANNEL, EVENTS_CHANNEL)))
    ending = asyncio.create_task(follower("ending", (EXECUTION_CHANNEL,)))
    conn = await psycopg.AsyncConnection.connect(postgres_url, autocommit=True)
    try:
        for _ in range(200):  # the process's one listener is up, on both channels
            rows = await (await conn.execute(
                "SELECT query FROM pg_stat_activity WHERE application_name = "
                "'rlm-recursive-watch'")).fetchall()
            if rows and EVENTS_CHANNEL in rows[0][0]:
                break
            await asyncio.sleep(0.05)
        assert len(rows) == 1  # one connection for every waiter
        await conn.execute(f"NOTIFY {EVENTS_CHANNEL}, 'exec_1'")
        await asyncio.wait_for(both, 30)
        assert not ending.done()  # a step event does not wake a waiter for the end
        await conn.execute(f"NOTIFY {EXECUTION_CHANNEL}, 'exec_1'")
        await asyncio.wait_for(ending, 30)
    finally:
        await conn.close()
        await watcher.aclose()
    # Without a listener (the server refuses it), the waiter still reads every POLL_S.
    monkeypatch.setattr(watch, "POLL_S", 0.05)
    deaf = ExecutionWatcher("postgresql://rlm@127.0.0.1:9/none?connect_timeout=1")
    reads = 0

    async def third_read() -> bool:
        nonlocal reads
        reads += 1
        return reads >= 3

    try:
        await asyncio.wait_for(deaf.wait("exec_2", 60, third_read), 30)
    finally:
        await deaf.aclose()
    assert reads == 3
