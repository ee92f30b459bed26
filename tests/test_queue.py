"""The execution queue (issue 23) on a real PostgreSQL, with `rlm-recursive worker` as real
subprocesses and an Ollama-shaped model on loopback: the API enqueues and returns at once,
a worker runs the execution, a SIGKILLed worker's execution is finished by another, cancel
reaches queued and running executions, and QUEUED never counts as finished.

The API and the workers share one data dir here (so, one blob folder); everything else is
in PostgreSQL. test_queue_topology.py gives every process a data dir of its own.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import httpx
import pytest
from api_support import auth, live_api, new_key
from fake_ollama import LoopbackServer, serve
from queue_support import HeldModel, ReplModel, job_row, start_worker, until
from serve_support import sse_events

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.queue.client import ExecutionQueue
from rlm_recursive.store.executions import ExecutionStore, is_finished
from rlm_recursive.store.tenancy import TenantStore

NOTES = "Pump room notes.\nThe door keypad code for the chlorine room is 7316.\n"
QUESTION = "What is the keypad code for the chlorine room?"
ANSWER = "The code is 7316."


@pytest.fixture
def workers():
    """Worker subprocesses a test starts; whatever is still alive is killed afterwards."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def shared(postgres_url, data_dir, monkeypatch):
    """The API's runtime on the shared store (RLM_DATABASE_URL) and one key."""
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.setenv("RLM_API_KEY_SALT", "queue-test-salt-0123456789")
    runtime = Runtime(data_dir)
    yield runtime, postgres_url, new_key(runtime, "acme")
    runtime.close()


@contextmanager
def _serving(runtime: Runtime, key: str, model: HeldModel | ReplModel
             ) -> Iterator[tuple[LoopbackServer, httpx.Client]]:
    """The fake model on loopback, the API over the shared store, and a client of it."""
    with serve(model) as server, live_api(runtime) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        yield server, client


def _job_ends(url: str, job_id: int, status: str) -> None:
    """The worker acknowledges a job to procrastinate just after the row's final write."""
    until(lambda: job_row(url, job_id)["status"] == status, 10, f"job {job_id} {status}")


def _enqueue(client: httpx.Client, strategy: str = "agent", **options
             ) -> tuple[str, str, float]:
    made = client.post("/v1/sessions", json={"docs": [{"text": NOTES,
                                                       "source_name": "notes.txt"}]})
    assert made.status_code == 201, made.text
    sid = made.json()["session_id"]
    started = time.monotonic()
    run = client.post(f"/v1/sessions/{sid}/executions", json={
        "question": QUESTION, "preset": "fully-local",
        "options": {"strategy": strategy, **options}})
    assert run.status_code == 202, run.text
    assert run.json()["status"] == "QUEUED"
    return sid, run.json()["execution_id"], time.monotonic() - started


def test_procrastinates_schema_is_migration_0010_verbatim():
    from procrastinate.schema import SchemaManager

    ours = (resources.files("rlm_recursive.store") / "migrations_postgresql" /
            "0010_procrastinate.sql").read_text("utf-8")
    header, marker, body = ours.partition("-- Procrastinate Schema")
    assert marker and "procrastinate 3.10" in header
    assert (marker + body).strip() == SchemaManager.get_schema().strip()


def test_queued_is_not_finished_and_a_stale_attempt_cannot_write(postgres_url, data_dir,
                                                                  monkeypatch):
    assert not is_finished("QUEUED") and not is_finished("RUNNING")
    assert is_finished("COMPLETED") and is_finished("FAILED") and not is_finished(None)
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    runtime = Runtime(data_dir)
    try:
        store = ExecutionStore(runtime.store.sql)
        store.create("exec_1", "ses_1", "answerer", "q?", {}, status="QUEUED")
        assert store.status("exec_1") == "QUEUED"
        assert store.unfinished("ses_1") == ["exec_1"]
        first = store.claim("exec_1")
        second = store.claim("exec_1")  # the job was retried: a new attempt owns the row
        assert (first, second) == (1, 2) and store.status("exec_1") == "RUNNING"
        assert store.finish("exec_1", "COMPLETED", answer="stale", attempt=first) is False
        assert store.get("exec_1")["answer"] is None
        assert store.finish("exec_1", "COMPLETED", answer="kept", attempt=second,
                            result={"citations": []}) is True
        assert store.get("exec_1")["answer"] == "kept"
        assert store.result("exec_1") == {"citations": []}
        assert store.claim("exec_1") is None  # finished: a late retry finds nothing to run
        assert store.unfinished("ses_1") == []
    finally:
        runtime.close()


def test_the_api_enqueues_and_a_worker_subprocess_runs_it(shared, data_dir, tmp_path,
                                                          workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    with _serving(runtime, key, HeldModel(ANSWER)) as (model, client):
        sid, execution_id, took = _enqueue(client)
        # No worker yet: the API ran nothing and the row waits, QUEUED, with its job.
        time.sleep(0.5)
        assert store.status(execution_id) == "QUEUED"
        assert model.bodies("/api/chat") == []
        job_id = store.job_id(execution_id)
        assert job_row(url, job_id)["status"] == "todo"
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w1.log"))
        until(lambda: is_finished(store.status(execution_id)), 60, "the worker's answer")
        record = store.get(execution_id)
        assert record["status"] == "COMPLETED", (record, (tmp_path / "w1.log").read_text())
        assert record["answer"] == ANSWER
        cited = store.result(execution_id)["citations"]
        assert cited and all(c["session_id"] == sid and c["tenant_id"] == "acme"
                             for c in cited)
        assert "7316" in NOTES[cited[0]["start_char"]:cited[0]["end_char"]]
        _job_ends(url, job_id, "succeeded")
        assert len(model.bodies("/api/chat")) >= 2  # the worker, not the API, asked the model
        # The API that queued it followed it: its events, from QUEUED through the steps the
        # worker wrote (test_queue_live_events.py) to the stored answer.
        with client.stream("GET", f"/v1/executions/{execution_id}/events") as response:
            events = [e for e in sse_events(list(response.iter_lines())) if "comment" not in e]
        kinds = [e["event"] for e in events]
        assert kinds[:2] == ["status", "status"] and kinds[-2:] == ["answer", "status"], kinds
        assert set(kinds[2:-2]) == {"step"}, kinds
        assert events[0]["json"]["status"] == "QUEUED"
        assert events[1]["json"]["status"] == "RUNNING"
        assert events[-2]["json"]["answer"] == ANSWER and events[-2]["json"]["citations"]
        assert events[-1]["json"]["status"] == "COMPLETED"
        # The OpenAI chat route waits on the same feed: a worker answers, the API replies.
        chat = client.post("/v1/chat/completions", json={
            "model": f"rlm/fully-local/{sid}", "rlm": {"strategy": "agent"},
            "messages": [{"role": "user", "content": QUESTION}]})
        assert chat.status_code == 200, chat.text
        assert chat.json()["choices"][0]["message"]["content"].startswith(ANSWER)
    print(f"enqueue took {took * 1000:.0f} ms")


def _held_by_a_first_worker(client: httpx.Client, held: HeldModel, workers: list, data_dir,
                            url: str, model_url: str, tmp_path, *flags: str):
    """A worker started with `flags` that has taken a new execution and is held in its
    model call; returns the worker's process and the execution's id."""
    first = start_worker(data_dir, url, model_url, tmp_path / "w1.log", *flags)
    workers.append(first)
    _, execution_id, _ = _enqueue(client)
    until(lambda: held.answering >= 1, 60, "the first worker to reach the model")
    return first, execution_id


def test_a_worker_killed_mid_execution_is_finished_by_another(shared, data_dir, tmp_path,
                                                              workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        first, execution_id = _held_by_a_first_worker(
            client, held, workers, data_dir, url, model.url, tmp_path, "--lease-s", "3")
        assert store.status(execution_id) == "RUNNING"
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        held.release.set()  # the next worker's model calls answer at once
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w2.log",
                                    "--lease-s", "3"))
        # Lease 3 s + the 5 s retry tick + start-up of the new worker process; no other
        # path hands a job on within the minute. (How long it takes is not asserted here:
        # under load the new process's start-up alone took 49 s.)
        until(lambda: is_finished(store.status(execution_id)), 90, "the second worker")
        record = store.get(execution_id)
        assert record["status"] == "COMPLETED", (tmp_path / "w2.log").read_text()
        assert record["answer"] == ANSWER
        attempts = store.db.one("SELECT attempt FROM executions WHERE id = ?",
                                (execution_id,))[0]
        assert attempts == 2  # the killed run, then the one that finished
        _job_ends(url, store.job_id(execution_id), "succeeded")
        # Counted once: the killed run never reached its final write.
        usage = TenantStore(runtime.store).usage_today("acme")
        assert usage["executions"] == 1


def test_a_worker_stopped_by_sigterm_gives_its_execution_back(shared, data_dir, tmp_path,
                                                              workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        first, execution_id = _held_by_a_first_worker(
            client, held, workers, data_dir, url, model.url, tmp_path, "--shutdown-grace-s", "0")
        first.send_signal(signal.SIGTERM)
        assert first.wait(30) == 0
        # Back in the queue at once (no lease to wait for); the row is not failed.
        assert job_row(url, store.job_id(execution_id))["status"] == "todo"
        assert store.status(execution_id) == "RUNNING"
        held.release.set()
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w2.log"))
        until(lambda: is_finished(store.status(execution_id)), 60, "the second worker")
        assert store.get(execution_id)["answer"] == ANSWER


def test_a_retried_repl_execution_resumes_from_its_last_saved_step(shared, data_dir,
                                                                    tmp_path, workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    model = ReplModel()
    model.held.set()
    with _serving(runtime, key, model) as (server, client):
        first = start_worker(data_dir, url, server.url, tmp_path / "w1.log", "--lease-s", "3")
        workers.append(first)
        _, execution_id, _ = _enqueue(client, "repl", grounding=False)
        until(lambda: model.steps_seen.get(2), 60, "the first worker to ask for step 2")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        model.release.set()
        workers.append(start_worker(data_dir, url, server.url, tmp_path / "w2.log",
                                    "--lease-s", "3"))
        until(lambda: is_finished(store.status(execution_id)), 60, "the second worker")
        record = store.get(execution_id)
        assert record["status"] == "COMPLETED", (tmp_path / "w2.log").read_text()
        assert record["answer"] == "The code is 7316."
        # Step 1 ran once, in the killed worker; the second worker went on from it: it asked
        # the model for step 2 only, and step 2 used the variable step 1 had saved.
        assert model.steps_seen == {1: 1, 2: 2}
        repl_id = store.result(execution_id)["repl_execution_id"]
        steps = store.steps(repl_id)
        assert [s.turn_index for s in steps] == [1, 2]
        assert "step one ran 1" in steps[0].stdout and steps[1].error is None
        assert store.status(repl_id) == "COMPLETED"


def test_over_the_tenant_cap_an_execution_waits_queued_not_refused(shared, data_dir,
                                                                     tmp_path, workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w.log",
                                    "--concurrency", "2", "--concurrent-executions", "1"))
        _, first, _ = _enqueue(client)
        until(lambda: held.answering >= 1, 60, "the first execution to reach the model")
        _, second, _ = _enqueue(client)  # accepted (202), not refused with a 429
        time.sleep(3)  # the worker has a free job slot, but the tenant's cap is 1
        assert (store.status(first), store.status(second)) == ("RUNNING", "QUEUED")
        assert held.answering == 1
        held.release.set()
        until(lambda: is_finished(store.status(second)), 60, "the second execution")
        assert store.status(first) == store.status(second) == "COMPLETED"


def test_cancel_reaches_a_queued_and_a_running_execution(shared, data_dir, tmp_path,
                                                         workers):
    runtime, url, key = shared
    queue = ExecutionQueue(url, runtime.store.sql)  # what the API's cancel and wait call
    store = queue.executions
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        # Queued, no worker: cancelled at once, and no worker will ever take it.
        _, queued, _ = _enqueue(client)
        assert queue.cancel(queued) is True
        record = store.get(queued)
        assert record["status"] == "FAILED" and record["error"]["code"] == "cancelled"
        assert job_row(url, store.job_id(queued))["status"] == "cancelled"
        # Running in a worker: aborted there, and the worker writes the ending.
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w.log"))
        _, running, _ = _enqueue(client)
        until(lambda: held.answering >= 1, 60, "the worker to reach the model")
        assert queue.cancel(running) is False  # asked; the worker stops it
        asyncio.run(queue.wait(running, 20))
        record = store.get(running)
        assert record["status"] == "FAILED", (tmp_path / "w.log").read_text()
        assert record["error"]["code"] == "cancelled"
        _job_ends(url, store.job_id(running), "aborted")
        held.release.set()


def test_a_cancel_asked_after_its_worker_died_ends_the_execution(shared, data_dir, tmp_path,
                                                                 workers):
    runtime, url, key = shared
    queue = ExecutionQueue(url, runtime.store.sql)
    store = queue.executions
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        first = start_worker(data_dir, url, model.url, tmp_path / "w1.log", "--lease-s", "3")
        workers.append(first)
        _, execution_id, _ = _enqueue(client)
        until(lambda: held.answering >= 1, 60, "the worker to reach the model")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        # Nobody runs it now: the abort is only recorded, the row still says RUNNING.
        assert queue.cancel(execution_id) is False
        assert store.status(execution_id) == "RUNNING"
        held.release.set()
        # The next worker finds the stalled job, does not run it again, and ends the row.
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w2.log",
                                    "--lease-s", "3"))
        until(lambda: is_finished(store.status(execution_id)), 60, "the stalled-job check")
        assert store.get(execution_id)["error"]["code"] == "cancelled"
        assert job_row(url, store.job_id(execution_id))["status"] == "failed"
        assert held.answering == 1  # never asked again


def test_the_worker_needs_the_shared_store(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RLM_")}
    proc = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "d"),
         "worker"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "error[invalid_args]" in proc.stderr and "RLM_DATABASE_URL" in proc.stderr
    assert not list(Path(tmp_path / "d").glob("*.db-wal"))
