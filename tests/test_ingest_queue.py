"""Queued loads (issue 23's ingestion jobs) on a real PostgreSQL with `rlm-recursive worker`
subprocesses: an api enqueues a folder load and answers CREATING at once, a worker parses a
real PDF, DOCX and text file, and another api process reads READY and the documents; a worker
SIGKILLed mid-load is replaced and nothing is duplicated; a load of nothing loadable ends
FAILED with its codes; the CLI's `load --queue [--wait]`; the fence and the orphan sweep.

Every process has a data dir of its own; they share the database and a blob folder
(`RLM_BLOB_URL=file://…`). The folders live under the test's cwd, the allowed root of the
api and of the workers alike (the shared volume, mounted at the same place).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from api_support import api_process, auth, live_api, new_key
from doc_writers import write_docx, write_pdf
from queue_support import job_row, start_worker, stop_processes, until

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api.state import ApiSettings
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source
from rlm_recursive.queue.loads import LoadQueue
from rlm_recursive.store.loads import SessionLoads, sweep_lost_loads
from rlm_recursive.store.tenancy import TenantStore

NO_MODEL = "http://127.0.0.1:9"  # loads never ask a model
FAR_FUTURE = "2999-01-01T00:00:00.000+00:00"
"""As the sweep's cutoff: every CREATING session counts as old enough to be an orphan."""


@pytest.fixture
def team(postgres_url, data_dir, tmp_path, monkeypatch):
    """The api's runtime (data dir `api-a`) on the shared store and blob folder, a key, and
    the environment other processes get."""
    blobs = (tmp_path / "shared-blobs").as_uri()
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.setenv("RLM_API_KEY_SALT", "ingest-queue-test-salt-0123")
    monkeypatch.setenv("RLM_BLOB_URL", blobs)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(RLM_DATABASE_URL=postgres_url, RLM_API_KEY_SALT="ingest-queue-test-salt-0123",
               RLM_BLOB_URL=blobs, NO_COLOR="1")
    runtime = Runtime(tmp_path / "api-a")
    yield runtime, new_key(runtime, "acme"), env
    runtime.close()


@pytest.fixture
def workers():
    """Worker subprocesses a test starts; stopped afterwards (those still alive)."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    stop_processes(procs, grace_s=10)


def _worker(tmp_path: Path, name: str, url: str, *extra: str) -> subprocess.Popen[bytes]:
    return start_worker(tmp_path / name, url, NO_MODEL, tmp_path / f"{name}.log", *extra,
                        blobs=(tmp_path / "shared-blobs").as_uri())


def _mixed_folder(root: Path) -> Path:
    folder = root / "docs"
    folder.mkdir()
    write_pdf(folder / "pump-manual.pdf", ["Pump manual.", "The impeller torque is 42 Nm."])
    write_docx(folder / "handover.docx", [("h1", "Handover"),
                                          ("p", "The chlorine room keypad code is 7316.")])
    (folder / "log.txt").write_text("Night log.\nValve 3 was closed at 02:10.\n", "utf-8")
    return folder


def _sql(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description is not None else []


def _readiness(client: httpx.Client, sid: str) -> str:
    return client.get(f"/v1/sessions/{sid}").json()["status"]


def test_an_api_enqueues_a_worker_loads_and_another_api_reads_and_searches(
        team, postgres_url, tmp_path, workers):
    runtime, key, env = team
    _mixed_folder(tmp_path)
    big = "Inline incident report.\nThe backup generator fuel lasts 36 hours.\n" * 40
    settings = ApiSettings(inline_sync_bytes=1000)
    with live_api(runtime, settings) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as api_a:
        made = api_a.post("/v1/sessions", json={"docs": [{"path": "docs",
                                                          "type": "directory"}]})
        assert made.status_code == 201, made.text
        assert made.json()["status"] == "CREATING" and made.json()["docs"] == []
        sid = made.json()["session_id"]
        inline = api_a.post("/v1/sessions", json={"docs": [{"text": big,
                                                            "source_name": "report"}]})
        assert inline.status_code == 201 and inline.json()["status"] == "CREATING"
        inline_sid = inline.json()["session_id"]

        # Queued, not loaded: no worker runs, and the api did not load it itself.
        time.sleep(0.5)
        assert _readiness(api_a, sid) == "CREATING"
        loads = SessionLoads(runtime.store.sql)
        row = loads.get(sid)
        assert row["state"] == "queued" and row["origin"] == "api"
        assert job_row(postgres_url, row["job_id"])["status"] == "todo"
        # The job carries the session id; the inline text is a blob hash, not the text.
        (args,), = _sql(postgres_url, "SELECT args FROM procrastinate_jobs WHERE id = %s",
                        loads.get(inline_sid)["job_id"])
        assert args == {"session_id": inline_sid}
        (stored,) = json.loads(loads.get(inline_sid)["sources"])
        assert "content" not in stored and len(stored["blob"]) == 64
        assert runtime.store.blobs.text(stored["blob"]) == big
        # The orphan sweep leaves a load that waits in the queue alone.
        assert TenantStore(runtime.store).sweep_orphans(FAR_FUTURE) == 0
        assert _readiness(api_a, sid) == "CREATING"

        workers.append(_worker(tmp_path, "worker-1", postgres_url))
        with api_process(env, tmp_path / "api-b", tmp_path) as (other, _), \
                httpx.Client(base_url=other, headers=auth(key), timeout=30) as api_b:
            until(lambda: _readiness(api_b, sid) != "CREATING", 120, "the worker's load")
            view = api_b.get(f"/v1/sessions/{sid}").json()
            assert view["status"] == "READY", view
            assert view["errors"] == [] and view["readiness"]["search_ready"] is True
            names = sorted(Path(d["source_name"]).name for d in view["docs"])
            assert names == ["handover.docx", "log.txt", "pump-manual.pdf"]
            pdf = next(i for i, d in enumerate(view["docs"])
                       if d["source_name"].endswith(".pdf"))
            text = api_b.get(f"/v1/sessions/{sid}/spans", params={"doc_index": pdf}).json()
            assert "impeller torque is 42 Nm" in text["text"]

            until(lambda: _readiness(api_b, inline_sid) != "CREATING", 60, "the inline load")
            copy = api_b.get(f"/v1/sessions/{inline_sid}/spans",
                             params={"doc_index": 0}).json()
            assert copy["text"] == big and copy["source_name"] == "inline:report"

    # A third process (its own data dir, so its own index) searches what the worker stored.
    found = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "cli"), "search",
         "keypad code", "--session", sid, "--json"], env=env, capture_output=True, text=True,
        timeout=120)
    assert found.returncode == 0, found.stderr
    matches = json.loads(found.stdout)["matches"]
    assert matches and "7316" in matches[0]["context"]
    log = (tmp_path / "worker-1.log").read_text("utf-8")
    assert f"load {sid} started (attempt 1): 1 source(s)" in log
    assert f"load {sid} READY in" in log and "3 document(s), 0 error(s)" in log
    # Published in one move: no staging session is left, and the real one counts 3.
    assert _sql(postgres_url, "SELECT count(*) FROM sessions WHERE id LIKE 'stg_%%'") == [(0,)]
    assert _sql(postgres_url, "SELECT count(*) FROM documents WHERE session_id = %s",
                sid) == [(3,)]


def test_a_worker_killed_mid_load_is_replaced_and_no_document_is_doubled(
        team, postgres_url, tmp_path, workers):
    runtime, key, _ = team
    folder = tmp_path / "bulk"
    folder.mkdir()
    files = 1000
    for n in range(files):
        (folder / f"note-{n:04d}.txt").write_text(
            f"Shift note {n}.\nPressure reading {n * 7 % 101} bar at station {n}.\n" * 20,
            "utf-8")
    with live_api(runtime) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        made = client.post("/v1/sessions", json={"docs": [{"path": "bulk",
                                                          "type": "directory"}]})
        assert made.status_code == 201, made.text
        sid = made.json()["session_id"]
        first = _worker(tmp_path, "worker-1", postgres_url, "--lease-s", "3")
        workers.append(first)
        staged = f"stg_1_{sid}"

        def some_staged() -> int:
            return _sql(postgres_url, "SELECT count(*) FROM documents WHERE session_id = %s",
                        staged)[0][0]

        until(lambda: some_staged() >= 5, 120, "the first worker's load under way",
              every_s=0.01)
        first.send_signal(signal.SIGSTOP)  # frozen mid-load, then killed
        partial, parsers = some_staged(), _children(first.pid)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        assert 5 <= partial < files, "the load ended before the kill: make it longer"
        assert parsers, "a load this size parses in a process pool"
        # Half a load is never shown: the session is CREATING with none of it.
        assert _readiness(client, sid) == "CREATING"
        assert client.get(f"/v1/sessions/{sid}").json()["docs"] == []
        # The dead worker's job is still `doing`: the sweep does not fail the session.
        assert TenantStore(runtime.store).sweep_orphans(FAR_FUTURE) == 0

        workers.append(_worker(tmp_path, "worker-2", postgres_url, "--lease-s", "3"))
        until(lambda: _readiness(client, sid) != "CREATING", 180, "the second worker's load")
        view = client.get(f"/v1/sessions/{sid}").json()
    assert view["status"] == "READY" and view["errors"] == []
    sources = [d["source_name"] for d in view["docs"]]
    assert len(sources) == files and len(set(sources)) == files
    load = SessionLoads(runtime.store.sql).get(sid)
    assert load["attempt"] == 2 and load["state"] == "done"
    until(lambda: job_row(postgres_url, load["job_id"])["status"] == "succeeded", 10,
          "the job's acknowledgement")
    # The dead attempt's staging session is hidden for gc; the finished one is gone.
    assert _sql(postgres_url, "SELECT id, readiness FROM sessions WHERE id LIKE 'stg_%%'"
                ) == [(staged, "DELETED")]
    assert "1 job(s) (executions, loads) of a worker that lost its lease" in (
        tmp_path / "worker-2.log").read_text("utf-8")
    # The dead worker's parser processes noticed and exited (none left behind).
    until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in parsers), 10,
          "the dead worker's parser processes to exit")


def _children(pid: int) -> list[int]:
    """The processes `pid` started (read before it is reaped: they are reparented then)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_a_load_of_nothing_loadable_ends_failed_with_its_codes(team, postgres_url, tmp_path,
                                                               workers):
    runtime, key, _ = team
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "firmware.bin").write_bytes(bytes(range(256)) * 64)
    workers.append(_worker(tmp_path, "worker-1", postgres_url))
    with live_api(runtime) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        made = client.post("/v1/sessions", json={"docs": [{"path": "odd/firmware.bin"}]})
        assert made.status_code == 201, made.text
        sid = made.json()["session_id"]
        until(lambda: _readiness(client, sid) != "CREATING", 120, "the worker's load")
        view = client.get(f"/v1/sessions/{sid}").json()
    assert view["status"] == "FAILED" and view["docs"] == []
    assert [e["error_code"] for e in view["errors"]] == ["unsupported_file"]
    assert view["errors"][0]["source"].endswith("firmware.bin")
    assert f"load {sid} FAILED in" in (tmp_path / "worker-1.log").read_text("utf-8")


def _cli(env: dict[str, str], data_dir: Path, cwd: Path, *args: str
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                           *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=180)


def test_cli_load_queue_wait_and_its_refusal_without_a_database(team, postgres_url, tmp_path,
                                                               workers):
    _, _, env = team
    _mixed_folder(tmp_path)
    # Without a database URL, --queue is refused with a code; nothing is created.
    local = {k: v for k, v in env.items() if k not in ("RLM_DATABASE_URL", "RLM_BLOB_URL")}
    refused = _cli(local, tmp_path / "local", tmp_path, "load", "docs", "--queue")
    assert refused.returncode == 1
    assert "error[invalid_args]" in refused.stderr and "RLM_DATABASE_URL" in refused.stderr

    # --queue alone: the id at once, the session CREATING until a worker runs.
    queued = _cli(env, tmp_path / "cli", tmp_path, "load", "docs", "--queue")
    assert queued.returncode == 0, queued.stderr
    sid = queued.stdout.strip()
    assert sid.startswith("ses_")
    assert _sql(postgres_url, "SELECT readiness FROM sessions WHERE id = %s", sid) == [
        ("CREATING",)]

    workers.append(_worker(tmp_path, "worker-1", postgres_url))
    waited = _cli(env, tmp_path / "cli", tmp_path, "load", str(tmp_path / "docs"), "--queue",
                  "--wait", "--name", "handover", "--json")
    assert waited.returncode == 0, waited.stderr
    out = json.loads(waited.stdout)
    assert out["status"] == "READY" and out["documents"] == 3 and out["errors"] == []
    until(lambda: _sql(postgres_url, "SELECT readiness FROM sessions WHERE id = %s", sid)
          == [("READY",)], 60, "the first queued load")

    # A failed queued load: FAILED, its first code as the exit's, the session kept.
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "firmware.bin").write_bytes(bytes(range(256)) * 64)
    failed = _cli(env, tmp_path / "cli", tmp_path, "load", "odd/firmware.bin", "--queue",
                  "--wait")
    assert failed.returncode == 1
    assert "error[unsupported_file]" in failed.stderr


def test_only_the_attempt_that_owns_a_load_publishes_it(team, postgres_url, tmp_path):
    runtime, _, _ = team
    store, tenants = runtime.store, TenantStore(runtime.store)
    sid = store.create_session("fenced", SessionConfig())["session_id"]
    tenants.set_readiness(sid, "CREATING")
    queue = LoadQueue(postgres_url, store)
    queue.enqueue(sid, [Source(type="inline", content="Valve 3 closed.", name="v")],
                  origin="api", ocr=None)
    loads = SessionLoads(store.sql)
    stale = loads.claim(sid)
    assert stale is not None and stale.attempt == 1
    current = loads.claim(sid)  # the job was retried: attempt 2, a staging session of its own
    assert current is not None and current.attempt == 2
    assert current.staging_id != stale.staging_id
    for claim, text in ((stale, "stale copy"), (current, "kept copy")):
        store.add_document(claim.staging_id, text.encode(), length_chars=len(text),
                           source="inline:v", source_type="inline")
    # Staging sessions are hidden from the CLI's list; the one being loaded is there.
    listed = [r["id"] for r in store.list_sessions()]
    assert sid in listed and current.staging_id not in listed
    assert loads.publish(current, "READY", None) is True
    assert loads.publish(stale, "FAILED", {"errors": [{"code": "x", "message": "y"}]}) is False
    docs = store.documents(sid)
    assert [store.text(d) for d in docs] == ["kept copy"]
    assert store.session(sid)["readiness"] == "READY"
    assert store.session(sid)["load_error"] is None
    assert loads.claim(sid) is None  # published: a late retry has nothing to do


def test_a_load_whose_session_was_deleted_meanwhile_shows_nothing(team, postgres_url):
    runtime, _, _ = team
    store, tenants = runtime.store, TenantStore(runtime.store)
    loads, queue = SessionLoads(store.sql), LoadQueue(postgres_url, store)
    running = store.create_session("running", SessionConfig())["session_id"]
    waiting = store.create_session("waiting", SessionConfig())["session_id"]
    for sid in (running, waiting):
        tenants.set_readiness(sid, "CREATING")
        queue.enqueue(sid, [Source(type="inline", content="Valve 3.", name="v")],
                      origin="api", ocr=None)
    claim = loads.claim(running)
    assert claim is not None
    store.add_document(claim.staging_id, b"Valve 3.", length_chars=8, source="inline:v",
                       source_type="inline")
    tenants.set_readiness(running, "DELETED")  # DELETE /v1/sessions/{id} while it loads
    tenants.set_readiness(waiting, "DELETED")  # ... and while it waits in the queue
    assert loads.publish(claim, "READY", None) is True  # the load ends, showing nothing
    assert store.documents(running) == []
    assert store.session(running)["readiness"] == "DELETED"
    assert store.session(claim.staging_id)["readiness"] == "DELETED"
    assert loads.claim(waiting) is None and loads.get(waiting)["state"] == "done"


def test_the_sweep_fails_a_lost_load_but_not_a_queued_one(team, postgres_url):
    runtime, _, _ = team
    store, tenants = runtime.store, TenantStore(runtime.store)
    lost = store.create_session("lost", SessionConfig())["session_id"]
    tenants.claim_session(lost, "acme", "CREATING")  # an api that died mid-load (no queue)
    queued = store.create_session("queued", SessionConfig())["session_id"]
    tenants.claim_session(queued, "acme", "CREATING")
    LoadQueue(postgres_url, store).enqueue(
        queued, [Source(type="inline", content="text", name="t")], origin="api", ocr=None)
    assert tenants.sweep_orphans(FAR_FUTURE) == 1
    assert store.session(lost)["readiness"] == "FAILED"
    assert store.session(queued)["readiness"] == "CREATING"
    # A job that ended without publishing (a bug, a lost final write) is an orphan again.
    job_id = SessionLoads(store.sql).get(queued)["job_id"]
    _sql(postgres_url, "UPDATE procrastinate_jobs SET status = 'failed' WHERE id = %s", job_id)
    assert tenants.sweep_orphans(FAR_FUTURE) == 1
    assert store.session(queued)["readiness"] == "FAILED"



def _fail_job(url: str, job_id: int) -> None:
    """The job ends `failed` as when an error escaped the task (procrastinate's triggers
    record the `failed` event), without its load being published."""
    _sql(url, "UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", job_id)
    _sql(url, "UPDATE procrastinate_jobs SET status = 'failed' WHERE id = %s", job_id)


def test_a_load_whose_job_failed_unpublished_is_retried_then_failed(team, postgres_url):
    runtime, _, _ = team
    store, tenants = runtime.store, TenantStore(runtime.store)
    loads, queue = SessionLoads(store.sql), LoadQueue(postgres_url, store)
    sid = store.create_session("lost", SessionConfig())["session_id"]
    tenants.set_readiness(sid, "CREATING")
    queue.enqueue(sid, [Source(type="inline", content="Valve 3.", name="v")], origin="api",
                  ocr=None)
    job_id = loads.get(sid)["job_id"]
    assert not sweep_lost_loads(loads, max_attempts=2)  # `todo`: nothing lost
    _fail_job(postgres_url, job_id)
    first = sweep_lost_loads(loads, max_attempts=2)
    assert first.requeued == [sid] and first.failed == []
    assert job_row(postgres_url, job_id)["status"] == "todo"
    assert store.session(sid)["readiness"] == "CREATING"
    _fail_job(postgres_url, job_id)  # failed again: twice is the limit here
    second = sweep_lost_loads(loads, max_attempts=2)
    assert second.requeued == [] and second.failed == [sid]
    assert store.session(sid)["readiness"] == "FAILED"
    (error,) = json.loads(store.session(sid)["load_error"])["errors"]
    assert error["code"] == "internal_error" and "failed 2 time(s)" in error["message"]
    assert not sweep_lost_loads(loads, max_attempts=2)  # ended once
    # A load whose job row is gone ends FAILED at once.
    gone = store.create_session("gone", SessionConfig())["session_id"]
    tenants.set_readiness(gone, "CREATING")
    queue.enqueue(gone, [Source(type="inline", content="x", name="x")], origin="api",
                  ocr=None)
    _sql(postgres_url, "DELETE FROM procrastinate_jobs WHERE id = %s", loads.get(gone)["job_id"])
    assert sweep_lost_loads(loads, max_attempts=2).failed == [gone]
    assert "gone from the queue" in store.session(gone)["load_error"]


def test_a_worker_requeues_a_load_whose_job_failed_and_loads_it(team, postgres_url, tmp_path,
                                                                 workers):
    runtime, key, _ = team
    _mixed_folder(tmp_path)
    with live_api(runtime) as base, \
            httpx.Client(base_url=base, headers=auth(key), timeout=30) as client:
        made = client.post("/v1/sessions", json={"docs": [{"path": "docs",
                                                          "type": "directory"}]})
        sid = made.json()["session_id"]
        _fail_job(postgres_url, SessionLoads(runtime.store.sql).get(sid)["job_id"])
        workers.append(_worker(tmp_path, "worker-1", postgres_url))
        until(lambda: _readiness(client, sid) != "CREATING", 120, "the requeued load")
        view = client.get(f"/v1/sessions/{sid}").json()
    assert view["status"] == "READY" and len(view["docs"]) == 3
    assert f"loads whose job ended without publishing: re-queued ['{sid}']" in (
        tmp_path / "worker-1.log").read_text("utf-8")
