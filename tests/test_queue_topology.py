"""Issue 23's topology without containers: two `api` processes and two `worker` processes,
each with a data dir of its own, on one PostgreSQL and one shared blob folder
(`RLM_BLOB_URL=file:///…`, the shared volume); then a full restart of everything.

Any api reads any execution (status, steps, answer, citations), `wait` and `cancel` work
across processes, QUEUED is never taken for finished, and an execution queued before the
restart is run after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fake_ollama import serve
from queue_support import HeldModel, start_worker, until

from rlm_recursive.api.server import wait_healthy

NOTES = "Pump room notes.\nThe door keypad code for the chlorine room is 7316.\n"
QUESTION = "What is the keypad code for the chlorine room?"
ANSWER = "The code is 7316."


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _api(env: dict[str, str], data_dir: Path, log: Path) -> Iterator[str]:
    """A real `rlm-recursive api` process on a free loopback port."""
    port = _free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), "api",
             "--port", str(port)], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, timeout_s=60)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@contextmanager
def _two_apis(env: dict[str, str], headers: dict[str, str], tmp_path: Path
              ) -> Iterator[tuple[str, str, httpx.Client]]:
    """api A and api B (each with a data dir of its own) and a client sending `headers`."""
    with _api(env, tmp_path / "api-a", tmp_path / "a.log") as a, \
            _api(env, tmp_path / "api-b", tmp_path / "b.log") as b, \
            httpx.Client(headers=headers, timeout=60) as http:
        yield a, b, http


def _notes_session(http: httpx.Client, base: str) -> str:
    made = http.post(f"{base}/v1/sessions", json={"docs": [
        {"text": NOTES, "source_name": "notes.txt"}]})
    assert made.status_code == 201, made.text
    return made.json()["session_id"]


@pytest.fixture
def team(postgres_url, tmp_path):
    """The environment every process shares, and a key made through the CLI."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(RLM_DATABASE_URL=postgres_url, RLM_API_KEY_SALT="queue-topology-test-salt",
               RLM_BLOB_URL=(tmp_path / "shared-blobs").as_uri(), NO_COLOR="1")
    made = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "admin"), "keys",
         "create", "--tenant", "acme"], env=env, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return env, {"Authorization": f"Bearer {made.stdout.strip()}"}


def test_two_apis_and_two_workers_with_their_own_data_dirs_then_a_full_restart(
        team, postgres_url, tmp_path):
    env, key = team
    held = HeldModel(ANSWER)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        with serve(held) as model:
            env = {**env, "OLLAMA_HOST": model.url}
            with _two_apis(env, key, tmp_path) as (a, b, http):
                sid = _notes_session(http, a)
                body = {"question": QUESTION, "preset": "fully-local",
                        "options": {"strategy": "agent"}}
                started = time.monotonic()
                run = http.post(f"{a}/v1/sessions/{sid}/executions", json=body)
                assert run.status_code == 202 and run.json()["status"] == "QUEUED"
                assert time.monotonic() - started < 5  # returned at once: nothing ran
                eid = run.json()["execution_id"]
                # No worker yet: B sees it QUEUED, and waiting does not take that for done.
                waited = http.post(f"{b}/v1/executions/{eid}/wait",
                                   json={"timeout_seconds": 1})
                assert waited.status_code == 200 and waited.json()["status"] == "QUEUED"
                assert held.answering == 0
                for name in ("w1", "w2"):
                    workers.append(start_worker(tmp_path / name, postgres_url, model.url,
                                                tmp_path / f"{name}.log",
                                                blobs=env["RLM_BLOB_URL"]))
                view = http.post(f"{b}/v1/executions/{eid}/wait",
                                 json={"timeout_seconds": 60}).json()
                assert view["status"] == "COMPLETED", view["error"]
                assert view["answer"] == ANSWER and view["citations"]
                cited = view["citations"][0]
                assert "7316" in NOTES[cited["start_char"]:cited["end_char"]]
                assert http.get(f"{a}/v1/executions/{eid}").json() == view
                # Cancel from B an execution A queued and a worker runs.
                held.held.set()
                other = http.post(f"{a}/v1/sessions/{sid}/executions", json=body).json()
                until(lambda: held.answering >= 2, 60, "a worker to reach the model")
                assert http.get(f"{b}/v1/executions/{other['execution_id']}").json()[
                    "status"] == "RUNNING"
                cancelled = http.post(f"{b}/v1/executions/{other['execution_id']}/cancel")
                assert cancelled.json()["status"] == "FAILED"
                assert cancelled.json()["completed_at"]
                held.release.set()
                held.held.clear()
                for proc in workers:  # everything stops ...
                    proc.terminate()
                    proc.wait(60)
                # ... with one more execution queued and not run.
                last = http.post(f"{b}/v1/sessions/{sid}/executions", json=body).json()
            # A full restart: new api and worker processes, the same database.
            with _api(env, tmp_path / "api-c", tmp_path / "c.log") as c, \
                    httpx.Client(headers=key, timeout=60) as http:
                assert http.get(f"{c}/v1/executions/{eid}").json()["answer"] == ANSWER
                assert http.get(f"{c}/v1/executions/{last['execution_id']}").json()[
                    "status"] == "QUEUED"
                workers.append(start_worker(tmp_path / "w3", postgres_url, model.url,
                                            tmp_path / "w3.log", blobs=env["RLM_BLOB_URL"]))
                view = http.post(f"{c}/v1/executions/{last['execution_id']}/wait",
                                 json={"timeout_seconds": 60}).json()
                assert view["status"] == "COMPLETED" and view["answer"] == ANSWER
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    # With a database URL no process made a local SQLite file.
    assert not [p for p in tmp_path.rglob("*.db*") if p.is_file()]
