#!/usr/bin/env python
"""Queued executions seen from another api process: live step latency, a lost final write's
recovery, and the cost of a /v1/metrics scrape.

    python benchmarks/queue_events_bench.py            # starts a throw-away PostgreSQL
    python benchmarks/queue_events_bench.py --database-url postgresql://… [--executions 10]

Two `api` processes (A and B, data dirs of their own) and one `worker`, real subprocesses on
one PostgreSQL; an Ollama-shaped model on loopback answers each /api/chat after
`--latency-s`.
- Live events: each execution is queued on A while a client follows its SSE stream on B.
  For every event the worker relayed (status RUNNING, steps) after B's client was
  following, the delay from the worker's write (`execution_events.created_at`) to the
  client reading it on B.
- Recovery: a trigger makes the worker's backend terminate itself at its next two final
  writes (the answer, then the failure); reported: seconds from procrastinate's `failed`
  event to its `retried` event (the sweep's re-queue) and to the execution's answer.
- Scrape: B's /v1/metrics, timed over 200 scrapes (the queue gauges' store read at most
  every 5 s, so most scrapes reuse it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import httpx
import psycopg
from fake_ollama import serve
from pg_server import server_url
from queue_support import HeldModel, start_worker
from serve_support import sse_events
from test_queue_topology import ANSWER, QUESTION, _notes_session, _two_apis

BODY = {"question": QUESTION, "preset": "fully-local", "options": {"strategy": "agent"}}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(ordered), "p50": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
            "max": ordered[-1]}


def _follow(base: str, headers: dict[str, str], eid: str, seen: list[tuple[float, dict]]
            ) -> None:
    with httpx.Client(headers=headers, timeout=120) as http, http.stream(
            "GET", f"{base}/v1/executions/{eid}/events") as response:
        lines: list[str] = []
        for line in response.iter_lines():
            lines.append(line)
            if line == "":
                now = time.time()
                seen.extend((now, e) for e in sse_events(lines) if "comment" not in e)
                lines = []


def _written_at(url: str, eid: str) -> list[float]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT created_at FROM execution_events WHERE execution_id = %s "
                            "ORDER BY id", (eid,)).fetchall()
    return [row[0].timestamp() for row in rows]


def _live_events(url: str, a: str, b: str, http: httpx.Client, headers: dict[str, str],
                 executions: int) -> dict[str, Any]:
    sid = _notes_session(http, a)
    delays: list[float] = []
    for _ in range(executions):
        eid = http.post(f"{a}/v1/sessions/{sid}/executions", json=BODY).json()["execution_id"]
        seen: list[tuple[float, dict]] = []
        reader = threading.Thread(target=_follow, args=(b, headers, eid, seen))
        reader.start()
        reader.join(120)
        relayed = [at for at, e in seen[1:] if e["event"] not in ("answer", "error")
                   and not (e["event"] == "status" and e["json"]["status"] != "RUNNING")]
        written = _written_at(url, eid)
        assert len(relayed) == len(written), (len(relayed), len(written), seen)
        # Only events written after B's client was following (its first event read): the
        # ones before it wait for the client, not for the relay.
        following = seen[0][0]
        delays += [(got - put) * 1000 for got, put in zip(relayed, written, strict=True)
                   if put > following]
    return {"events_ms": _percentiles(delays), "executions": executions}


def _recovery(url: str, a: str, http: httpx.Client) -> dict[str, Any]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SEQUENCE bench_lost")
        conn.execute("""CREATE FUNCTION bench_lose() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF nextval('bench_lost') <= 2 THEN
                PERFORM pg_terminate_backend(pg_backend_pid()); END IF; RETURN NEW; END $$""")
        conn.execute("CREATE TRIGGER bench_lose BEFORE UPDATE ON executions FOR EACH ROW WHEN "
                     "(OLD.status IN ('QUEUED', 'RUNNING') AND NEW.status NOT IN ('QUEUED', "
                     "'RUNNING')) EXECUTE FUNCTION bench_lose()")
    sid = _notes_session(http, a)
    eid = http.post(f"{a}/v1/sessions/{sid}/executions", json=BODY).json()["execution_id"]
    view = http.post(f"{a}/v1/executions/{eid}/wait", json={"timeout_seconds": 120}).json()
    assert view["status"] == "COMPLETED" and view["answer"] == ANSWER, view
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER bench_lose ON executions")
        events = dict(conn.execute(
            "SELECT ev.type::text, max(ev.at) FROM procrastinate_events ev JOIN executions e "
            "ON e.job_id = ev.job_id WHERE e.id = %s GROUP BY ev.type", (eid,)).fetchall())
        ended = conn.execute("SELECT updated_at FROM executions WHERE id = %s",
                             (eid,)).fetchone()[0]
    failed: datetime = events["failed"]
    return {"failed_to_requeued_s": (events["retried"] - failed).total_seconds(),
            "failed_to_answer_s": (ended - failed).total_seconds()}


def _scrapes(b: str, count: int = 200) -> dict[str, Any]:
    took = []
    with httpx.Client(timeout=10) as http:
        for _ in range(count):
            started = time.perf_counter()
            reply = http.get(f"{b}/v1/metrics")
            took.append((time.perf_counter() - started) * 1000)
            assert "rlm_executions_queued" in reply.text
    return {"scrape_ms": _percentiles(took)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url")
    parser.add_argument("--executions", type=int, default=10)
    parser.add_argument("--latency-s", type=float, default=0.2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with server_url(args.database_url) as url:
        report = _measure(url, args)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    _show(report, args)


def _measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="rlm-events-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(RLM_DATABASE_URL=url, RLM_API_KEY_SALT="queue-events-bench-salt",
               RLM_BLOB_URL=(tmp / "blobs").as_uri(), NO_COLOR="1")
    key = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp / "admin"), "keys",
         "create", "--tenant", "bench"], env=env, capture_output=True, text=True,
        check=True).stdout.strip()
    headers = {"Authorization": f"Bearer {key}"}
    worker = None
    try:
        with serve(HeldModel(ANSWER, latency_s=args.latency_s)) as model:
            env["OLLAMA_HOST"] = model.url
            worker = start_worker(tmp / "w", url, model.url, tmp / "w.log",
                                  blobs=env["RLM_BLOB_URL"])
            with _two_apis(env, headers, tmp) as (a, b, http):
                report = {"load_average": os.getloadavg()[0],
                          **_live_events(url, a, b, http, headers, args.executions),
                          **_recovery(url, a, http), **_scrapes(b)}
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(60)
    return report


def _show(report: dict[str, Any], args: argparse.Namespace) -> None:
    events = report["events_ms"]
    print(f"load average {report['load_average']:.1f}")
    print(f"live events, worker write -> SSE client on the other api ({events['n']} events, "
          f"{args.executions} executions): p50 {events['p50']:.1f} ms, p95 "
          f"{events['p95']:.1f} ms, max {events['max']:.1f} ms")
    print(f"lost final write: re-queued {report['failed_to_requeued_s']:.1f} s after the job "
          f"failed, answered {report['failed_to_answer_s']:.1f} s after it")
    scrape = report["scrape_ms"]
    print(f"/v1/metrics on the api ({scrape['n']} scrapes): p50 {scrape['p50']:.1f} ms, "
          f"p95 {scrape['p95']:.1f} ms")


if __name__ == "__main__":
    main()
