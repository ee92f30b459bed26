"""Load on the HTTP API: 50 concurrent clients × 20 requests of GET /v1/executions/{id}.

The server runs in its own process (uvicorn, a fake model that answers at once), so the client
does not compete with it for the GIL. Prints p50/p99 latency and the error rate (target: 0
errors, p99 <= 50 ms), and the CPU each request cost the server (and PostgreSQL): unlike
latency on a shared 2-core box, that figure does not move with the machine's other load.
Loopback only.

The clients: `--client httpx` (default: 50 AsyncClients in this process) or `--client wrk`
(50 connections of the C load generator `wrk`, `apt-get install wrk`; for `--seconds`). The
httpx clients cost more CPU than the server they measure (about 1 ms a request in Python), and
on two cores that CPU is taken from the server: wrk measures the server, httpx measures both.

`--backend postgresql` puts the store on PostgreSQL (`RLM_DATABASE_URL`: sessions, keys,
traces, the audit, rate-limit counters, execution slots, LCM; executions still in the data
dir's file until they move): a throw-away server from Debian's binaries
(tests/pg_server.py), or `--database-url`. Keys then need a shared salt: a random
`RLM_API_KEY_SALT` is made for the run unless one is set.

    PYTHONPATH=. python benchmarks/api_load.py [--clients 50] [--requests 20] \
        [--backend sqlite|postgresql] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def serve(data_dir: Path, port: int) -> None:
    """Child process: the API over `data_dir` with an instant fake model as `ollama` (on
    the supervisor's socket when `--api-processes` > 1, as `api --workers` does)."""
    import uvicorn

    from rlm_recursive.agent.pool import ProviderPool
    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.api import ApiSettings, create_app
    from rlm_recursive.api.workers import run_server
    from rlm_recursive.providers.fake import FakeProvider, reply

    runtime = Runtime(data_dir)
    fake = FakeProvider(script=lambda request: reply("instant answer"))
    settings = ApiSettings(key_requests_per_minute=1_000_000,
                           tenant_requests_per_minute=1_000_000)
    app = create_app(runtime, settings, ProviderPool({"ollama": fake}))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            access_log=False)
    run_server(config)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _client(client: httpx.AsyncClient, url: str, n: int, latencies: list[float],
                  firsts: list[float], errors: list[str]) -> None:
    for i in range(n):
        start = time.perf_counter()
        try:
            response = await client.get(url)
            if response.status_code != 200:
                errors.append(str(response.status_code))
        except httpx.HTTPError as exc:
            errors.append(type(exc).__name__)
        # The first request of a client also opens its connection.
        (firsts if i == 0 else latencies).append(time.perf_counter() - start)


async def prepare(base: str, key: str) -> str:
    """A session and an execution to read; returns the execution's URL path."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
        sid = (await client.post("/v1/sessions", json={"docs": [
            {"text": "alpha beta gamma. " * 500, "source_name": "a.txt"}]})).json()["session_id"]
        # With RLM_DATABASE_URL the API only enqueues (no worker runs here, so waiting for it
        # would take the whole synchronous timeout): the GET below reads the same rows for a
        # QUEUED execution as for a finished one.
        queued = bool(os.environ.get("RLM_DATABASE_URL"))
        run = await client.post(f"/v1/sessions/{sid}/executions", json={
            "question": "which letter?", "preset": "fully-local",
            "options": {"strategy": "search", "synchronous": not queued}})
        view = run.json()
        assert view["status"] in ("COMPLETED", "QUEUED"), view
        print(f"the execution read: {view['status']}")
    return f"/v1/executions/{view['execution_id']}"


async def load(base: str, url: str, key: str, clients: int, requests: int) -> None:
    """Client-side latencies: they include queueing in this process and on the server."""
    headers = {"Authorization": f"Bearer {key}"}
    latencies: list[float] = []
    firsts: list[float] = []
    errors: list[str] = []
    # Made before the clock starts: building a client (its TLS context) is client-side cost.
    pool = [httpx.AsyncClient(base_url=base, headers=headers, timeout=30)
            for _ in range(clients)]
    started = time.perf_counter()
    await asyncio.gather(*(_client(c, url, requests, latencies, firsts, errors) for c in pool))
    wall = time.perf_counter() - started
    for c in pool:
        await c.aclose()
    total = len(latencies) + len(firsts)
    print(f"GET /v1/executions/{{id}}: {total} requests from {clients} concurrent clients "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print("  all requests:          " + _summary(latencies + firsts))
    print("  on an open connection: " + _summary(latencies))
    print("  first of each client:  " + _summary(firsts) + " (includes the TCP connect)")
    print(f"  errors {len(errors)} ({100 * len(errors) / total:.2f} %)"
          f"{' ' + str(sorted(set(errors))) if errors else ''}")
    print(f"  throughput {total / wall:.0f} requests/s over {wall:.2f} s")


def load_wrk(base: str, url: str, key: str, clients: int, seconds: int) -> None:
    """`wrk` holds `clients` connections open and sends back to back, as the httpx clients."""
    out = subprocess.run(["wrk", "-c", str(clients), "-t", "2", "-d", f"{seconds}s",
                          "--latency", "-H", f"Authorization: Bearer {key}", base + url],
                         capture_output=True, text=True, check=True).stdout
    print(f"GET /v1/executions/{{id}} from {clients} concurrent wrk connections for {seconds} s "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print("\n".join("  " + line.strip() for line in out.splitlines()[2:] if line.strip()))


def _cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used so far (Linux /proc)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """The supervisor's worker processes (Linux /proc)."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def _postgres_pids() -> list[int]:
    """The PostgreSQL server's processes (its backends do the per-query work), or none."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if ") postgres" in stat.read_text() or "postgres:" in Path(
                    stat.parent, "cmdline").read_text():
                pids.append(int(stat.parent.name))
    return pids


def _audit_seconds(data_dir: Path) -> list[float]:
    """Time inside the server (request in to response out) of each GET, from its audit
    records: the data dir's audit.jsonl, or on PostgreSQL the audit_log table."""
    from rlm_recursive.store import Store
    from rlm_recursive.store.auditrows import audit_rows

    route = "GET /v1/executions/{execution_id}"
    if os.environ.get("RLM_DATABASE_URL"):
        store = Store(data_dir)
        try:
            records = audit_rows(store.sql, limit=1_000_000)
        finally:
            store.close()
    else:
        lines = (data_dir / "audit.jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
    return [r["duration_ms"] / 1000 for r in records if r["route"] == route]


def _summary(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    ms = sorted(x * 1000 for x in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * len(ms)) - 1)]
    return f"p50 {statistics.median(ms):.1f} ms   p99 {p99:.1f} ms   max {ms[-1]:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--database-url", help="an existing PostgreSQL (a scratch database)")
    parser.add_argument("--client", choices=("httpx", "wrk"), default="httpx")
    parser.add_argument("--seconds", type=int, default=10, help="how long wrk runs")
    parser.add_argument("--api-processes", type=int, default=1,
                        help="API processes on one port, as `api --workers N` (PostgreSQL)")
    parser.add_argument("--supervise", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.supervise:
        from rlm_recursive.api.workers import supervise

        command = [sys.executable, __file__, "--serve", args.serve, "--port", str(args.port)]
        sys.exit(supervise(command, args.supervise, "127.0.0.1", args.port))
    if args.serve:
        serve(Path(args.serve), args.port)
        return
    with _database(args.backend, args.database_url):
        _run(args.clients, args.requests, args.client, args.seconds, args.api_processes)


@contextlib.contextmanager
def _database(backend: str, url: str | None) -> Iterator[None]:
    """RLM_DATABASE_URL for this process and the server's (a throw-away server if none)."""
    if backend == "sqlite":
        os.environ.pop("RLM_DATABASE_URL", None)
        yield
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pg_server import server_url

    with server_url(url) as given:
        os.environ["RLM_DATABASE_URL"] = given
        os.environ.setdefault("RLM_API_KEY_SALT", secrets.token_hex(32))  # here + server
        yield


def _run(clients: int, requests: int, client: str, seconds: int, processes: int) -> None:
    from rlm_recursive.api.server import wait_healthy
    from rlm_recursive.store import Store
    from rlm_recursive.store.tenancy import KeyStore

    print(f"backend: {'postgresql' if os.environ.get('RLM_DATABASE_URL') else 'sqlite'}, "
          f"{processes} API process{'es' if processes > 1 else ''}")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        store = Store(data_dir)
        key, _ = KeyStore(store.sql, data_dir).create("bench", "load", ("read", "run"))
        store.close()
        port = _free_port()
        env = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:11434"}
        command = [sys.executable, __file__, "--serve", str(data_dir), "--port", str(port)]
        if processes > 1:
            command += ["--supervise", str(processes)]
        server = subprocess.Popen(command, cwd=tmp, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(base, server)
            url = asyncio.run(prepare(base, key))
            servers = _children(server.pid) if processes > 1 else [server.pid]
            pids = [*servers, *_postgres_pids()]
            cut = len(servers)
            before = (_cpu_s(pids[:cut]), _cpu_s(pids[cut:]))
            if client == "wrk":
                load_wrk(base, url, key, clients, seconds)
            else:
                asyncio.run(load(base, url, key, clients, requests))
            used = (_cpu_s(pids[:cut]) - before[0], _cpu_s(pids[cut:]) - before[1])
        finally:
            server.terminate()
            server.wait(timeout=15)
        # The audit counts every request the server answered (its records land after the
        # response, so they are read once the server has stopped).
        seconds = _audit_seconds(data_dir)
        print("  server side (audit):   " + _summary(seconds))
        answered = max(1, len(seconds))
        print(f"  CPU a request: server {1000 * used[0] / answered:.2f} ms"
              + (f", PostgreSQL {1000 * used[1] / answered:.2f} ms" if len(pids) > cut else "")
              + f" (over {answered} requests)")


if __name__ == "__main__":
    main()
