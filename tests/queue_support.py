"""Queue tests' parts: `rlm-recursive worker` as a real subprocess, an Ollama-shaped model
that can be held mid-answer, and direct reads of the shared store."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from fake_ollama import agent_script, chat_body

__all__ = ["HeldModel", "job_row", "start_worker", "stop_processes", "until"]


def start_worker(data_dir: Path, url: str, ollama: str, log: Path, *extra: str,
                 blobs: str | None = None) -> subprocess.Popen[bytes]:
    """`rlm-recursive --data-dir DATA worker …` with the shared store and the fake model
    (and the shared blob store, `RLM_BLOB_URL`, when the worker has a data dir of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(RLM_DATABASE_URL=url, OLLAMA_HOST=ollama, NO_COLOR="1")
    if blobs is not None:
        env["RLM_BLOB_URL"] = blobs
    out = log.open("ab")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), "worker",
             "--verbose", *extra], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    finally:
        out.close()


def stop_processes(procs: list[subprocess.Popen[bytes]], grace_s: float = 30.0) -> None:
    """SIGTERM them all, then wait for each (SIGKILL after `grace_s`)."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def until(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.05) -> Any:
    """Poll `check` until it returns something truthy; fail the test after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(every_s)


def job_row(url: str, job_id: int) -> dict[str, Any]:
    """procrastinate's row for a job (status, attempts, abort flag)."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT status::text, attempts, abort_requested FROM "
                           "procrastinate_jobs WHERE id = %s", (job_id,)).fetchone()
    assert row is not None
    return {"status": row[0], "attempts": row[1], "abort_requested": row[2]}


class HeldModel:
    """An Ollama-shaped script: the root searches once, then answers `answer`.

    While `held` is set, every answering /api/chat call blocks until released (or the test
    ends): a worker can be caught mid-execution. `answering` counts calls that reached it.
    """

    def __init__(self, answer: str, *, latency_s: float = 0.0) -> None:
        self._script = agent_script(answer, searches=1)
        self.latency_s = latency_s
        self.held = threading.Event()
        self.release = threading.Event()
        self.answering = 0
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any, dict]:
        if path == "/api/chat":
            time.sleep(self.latency_s)
            searched = any(m["role"] == "tool" for m in body.get("messages", []))
            if searched or not body.get("tools"):  # the answering call
                with self._lock:
                    self.answering += 1
                if self.held.is_set():
                    self.release.wait(120)
        return self._script(method, path, body)


class ReplModel:
    """An Ollama-shaped root model for the repl strategy: step 1 finds the code, step 2
    (held while `held` is set, like HeldModel) reads it and answers. `steps_seen[n]` counts
    the requests that asked for step n (how many REPL steps their history already had + 1).
    """

    STEP_1 = ("hits = context[0].find('keypad code', max_hits=1)\n"
              "print('step one ran', len(hits))")
    STEP_2 = ("h = hits[0]\n"
              "found = context[0].slice(h['start_char'], h['end_char'] + 30, tag='code')\n"
              "FINAL('The code is 7316.')")

    def __init__(self) -> None:
        self.held = threading.Event()
        self.release = threading.Event()
        self.steps_seen: dict[int, int] = {}
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any, dict]:
        if path != "/api/chat":
            return HeldModel("")(method, path, body)
        done = sum(m["role"] == "assistant" and "```repl" in (m.get("content") or "")
                   for m in body.get("messages", []))
        with self._lock:
            self.steps_seen[done + 1] = self.steps_seen.get(done + 1, 0) + 1
        if done == 0:
            return 200, chat_body(body["model"], f"```repl\n{self.STEP_1}\n```"), {}
        if self.held.is_set():
            self.release.wait(120)
        return 200, chat_body(body["model"], f"```repl\n{self.STEP_2}\n```"), {}
