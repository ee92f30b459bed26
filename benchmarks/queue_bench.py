#!/usr/bin/env python
"""The execution queue: executions per second with 1, 2 and 4 workers, and queue latency.

    python benchmarks/queue_bench.py                      # starts a throw-away PostgreSQL
    python benchmarks/queue_bench.py --database-url postgresql://…  [--executions 16] [--json]

- Throughput: W `rlm-recursive worker` processes (concurrency 1 each) are started and left
  to register; then N executions are enqueued at once (the API's own enqueue, one
  transaction per execution) and the clock runs until the last one has a final status.
  The model is an Ollama-shaped server on loopback that answers every /api/chat after
  `--latency-s` (0.5 s): an execution is two model calls (search, then answer) plus the
  agent, grounding and store work around them.
- Queue latency: one idle worker; executions are enqueued one at a time, each after the
  previous one finished. Enqueue-to-start is procrastinate's own record of the job
  (`procrastinate_events`: `deferred` → `started`, both on the server's clock).
- Failover (`--failover`): worker A (default 30 s lease) is SIGKILLed while its execution
  waits on the model; worker B is idle. Reported: seconds from the kill to B's claim (the
  row's attempt 2) and to the answer.

The sessions live in the data dir the workers share (until the whole store is on
PostgreSQL); executions, steps and jobs are in PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_ollama import serve
from pg_server import server_url
from queue_support import HeldModel
from queue_support import stop_processes as _stop

from rlm_recursive.agent.query import QueryOptions
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.queue.client import ExecutionQueue
from rlm_recursive.store import new_id

NOTES = "Pump room notes.\nThe door keypad code for the chlorine room is 7316.\n" * 20
QUESTION = "What is the keypad code for the chlorine room?"
OPTIONS = QueryOptions(preset="fully-local", strategy="agent").model_dump(
    mode="json", exclude_none=True)


def _workers(count: int, data_dir: Path, url: str, model: str, logs: Path
             ) -> list[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(RLM_DATABASE_URL=url, OLLAMA_HOST=model)
    procs = []
    for i in range(count):
        with (logs / f"worker{i}.log").open("wb") as out:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                 "worker", "--concurrency", "1"], env=env, stdout=out, stderr=out,
                stdin=subprocess.DEVNULL))
    return procs


def _registered(queue: ExecutionQueue) -> int:
    return queue.connector.one("SELECT count(*) FROM procrastinate_workers")[0]


def _unfinished(queue: ExecutionQueue, ids: list[str]) -> int:
    marks = ", ".join("?" * len(ids))
    return queue.connector.one(f"SELECT count(*) FROM executions WHERE id IN ({marks}) AND "
                               "status IN ('QUEUED', 'RUNNING')", tuple(ids))[0]


def _enqueue(queue: ExecutionQueue, session_id: str) -> str:
    execution_id = new_id("exec")
    queue.enqueue(execution_id, session_id, QUESTION, OPTIONS, OPTIONS, "bench")
    return execution_id


def throughput(queue: ExecutionQueue, session_id: str, workers: int, executions: int,
               data_dir: Path, url: str, model: str, logs: Path) -> dict[str, Any]:
    procs = _workers(workers, data_dir, url, model, logs)
    try:
        deadline = time.monotonic() + 120
        while _registered(queue) < workers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers did not start: see {logs}")
            time.sleep(0.1)
        start = time.monotonic()
        ids = [_enqueue(queue, session_id) for _ in range(executions)]
        while _unfinished(queue, ids):
            time.sleep(0.02)
        elapsed = time.monotonic() - start
        statuses = queue.connector.query(
            f"SELECT status, count(*) FROM executions WHERE id IN ({', '.join('?' * len(ids))})"
            " GROUP BY status", tuple(ids))
    finally:
        _stop(procs)
    return {"workers": workers, "executions": executions, "seconds": round(elapsed, 2),
            "per_s": round(executions / elapsed, 3),
            "statuses": {row[0]: row[1] for row in statuses}}


def latency(queue: ExecutionQueue, session_id: str, samples: int, data_dir: Path, url: str,
            model: str, logs: Path) -> dict[str, Any]:
    procs = _workers(1, data_dir, url, model, logs)
    delays = []
    try:
        while _registered(queue) < 1:
            time.sleep(0.1)
        time.sleep(1.0)  # past start-up: the worker is idle, listening
        for _ in range(samples):
            execution_id = _enqueue(queue, session_id)
            while _unfinished(queue, [execution_id]):
                time.sleep(0.02)
            row = queue.connector.one(
                "SELECT EXTRACT(EPOCH FROM (s.at - d.at)) FROM executions e "
                "JOIN procrastinate_events d ON d.job_id = e.job_id AND d.type = 'deferred' "
                "JOIN procrastinate_events s ON s.job_id = e.job_id AND s.type = 'started' "
                "WHERE e.id = ?", (execution_id,))
            delays.append(float(row[0]) * 1000)
            time.sleep(0.3)  # idle again
    finally:
        _stop(procs)
    delays.sort()
    return {"samples": samples, "p50_ms": round(statistics.median(delays), 1),
            "p90_ms": round(delays[int(0.9 * (len(delays) - 1))], 1),
            "max_ms": round(delays[-1], 1)}


def failover(queue: ExecutionQueue, session_id: str, data_dir: Path, url: str, model: Any,
             script: HeldModel, logs: Path) -> dict[str, Any]:
    first = _workers(1, data_dir, url, model.url, logs)
    script.held.set()
    try:
        while _registered(queue) < 1:
            time.sleep(0.1)
        answering = script.answering
        execution_id = _enqueue(queue, session_id)
        while script.answering == answering:
            time.sleep(0.02)
        second = _workers(1, data_dir, url, model.url, logs)
        while _registered(queue) < 2:
            time.sleep(0.1)
        first[0].kill()
        killed = time.monotonic()
        script.release.set()

        def attempt() -> int:
            return queue.connector.one("SELECT attempt FROM executions WHERE id = ?",
                                       (execution_id,))[0]

        while attempt() < 2:
            time.sleep(0.1)
        claimed = time.monotonic() - killed
        while _unfinished(queue, [execution_id]):
            time.sleep(0.1)
        answered = time.monotonic() - killed
        status = queue.executions.status(execution_id)
        _stop(second)
    finally:
        _stop(first)
        script.held.clear()
    return {"restart_s": round(claimed, 1), "answered_s": round(answered, 1), "status": status}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--executions", type=int, default=16)
    parser.add_argument("--latency-s", type=float, default=0.5)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--failover", action="store_true",
                        help="also SIGKILL a worker mid-execution (about a minute)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with server_url(args.database_url) as url:
        os.environ["RLM_DATABASE_URL"] = url
        script = HeldModel("The code is 7316.", latency_s=args.latency_s)
        with tempfile.TemporaryDirectory(prefix="rlm-queue-bench-") as tmp, \
                serve(script) as model:
            data_dir, logs = Path(tmp) / "data", Path(tmp)
            runtime = Runtime(data_dir)
            session_id = runtime.store.create_session("bench", SessionConfig())["session_id"]
            runtime.store.add_document(session_id, NOTES.encode(), length_chars=len(NOTES),
                                       source="notes.txt", source_type="inline")
            queue = ExecutionQueue(url, runtime.store.sql)
            report: dict[str, Any] = {"latency_s": args.latency_s, "throughput": []}
            for count in (int(w) for w in args.workers.split(",")):
                row = throughput(queue, session_id, count, args.executions, data_dir, url,
                                 model.url, logs)
                report["throughput"].append(row)
                if not args.json:
                    print(f"{count} worker(s): {row['per_s']:.2f} executions/s "
                          f"({row['executions']} in {row['seconds']} s) {row['statuses']}",
                          flush=True)
            base = report["throughput"][0]["per_s"]
            for row in report["throughput"]:
                row["speedup"] = round(row["per_s"] / base, 2)
            report["queue_latency"] = latency(queue, session_id, args.samples, data_dir, url,
                                              model.url, logs)
            if args.failover:
                report["failover"] = failover(queue, session_id, data_dir, url, model, script,
                                              logs)
            runtime.close()
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print("speed-up: " + ", ".join(f"{r['workers']}: {r['speedup']}x"
                                           for r in report["throughput"]))
            lat = report["queue_latency"]
            print(f"enqueue-to-start, idle worker: p50 {lat['p50_ms']} ms, p90 "
                  f"{lat['p90_ms']} ms, max {lat['max_ms']} ms ({lat['samples']} samples)")
            if "failover" in report:
                over = report["failover"]
                print(f"failover, 30 s lease: restarted {over['restart_s']} s after SIGKILL, "
                      f"answered after {over['answered_s']} s ({over['status']})")


if __name__ == "__main__":
    main()
