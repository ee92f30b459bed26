"""Load on the HTTP API: 50 concurrent clients × 20 requests of GET /v1/executions/{id}.

The server runs in its own process (uvicorn, a fake model that answers at once), so the client
does not compete with it for the GIL. Prints p50/p99 latency and the error rate (target: 0
errors, p99 <= 50 ms). Loopback only.

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
    """Child process: the API over `data_dir` with an instant fake model as `ollama`."""
    import uvicorn

    from rlm_recursive.agent.pool import ProviderPool
    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.api import ApiSettings, create_app
    from rlm_recursive.providers.fake import FakeProvider, reply

    runtime = Runtime(data_dir)
    fake = FakeProvider(script=lambda request: reply("instant answer"))
    settings = ApiSettings(key_requests_per_minute=1_000_000,
                           tenant_requests_per_minute=1_000_000)
    app = create_app(runtime, settings, ProviderPool({"ollama": fake}))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


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


async def load(base: str, key: str, clients: int, requests: int) -> None:
    """Client-side latencies: they include queueing in this process and on the server."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
        sid = (await client.post("/v1/sessions", json={"docs": [
            {"text": "alpha beta gamma. " * 500, "source_name": "a.txt"}]})).json()["session_id"]
        run = await client.post(f"/v1/sessions/{sid}/executions", json={
            "question": "which letter?", "preset": "fully-local",
            "options": {"strategy": "search", "synchronous": True}})
        view = run.json()
        # With RLM_DATABASE_URL the API only enqueues (no worker runs here): the GET below
        # reads the same rows for a QUEUED execution as for a finished one.
        assert view["status"] in ("COMPLETED", "QUEUED"), view
        print(f"the execution read: {view['status']}")
    url = f"/v1/executions/{view['execution_id']}"
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


def _server_side(data_dir: Path) -> None:
    """Time inside the server (request in to response out), from its audit records: the
    data dir's audit.jsonl, or on PostgreSQL the audit_log table."""
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
    seconds = [r["duration_ms"] / 1000 for r in records if r["route"] == route]
    print("  server side (audit):   " + _summary(seconds))


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
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve), args.port)
        return
    with _database(args.backend, args.database_url):
        _run(args.clients, args.requests)


@contextlib.contextmanager
def _database(backend: str, url: str | None) -> Iterator[None]:
    """RLM_DATABASE_URL for this process and the server's (a throw-away server if none)."""
    if backend == "sqlite":
        os.environ.pop("RLM_DATABASE_URL", None)
        yield
        return
    server = None
    if url is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pg_server import PgServer

        server = PgServer()
        url = server.start()
    os.environ["RLM_DATABASE_URL"] = url
    os.environ.setdefault("RLM_API_KEY_SALT", secrets.token_hex(32))  # this process + server
    try:
        yield
    finally:
        if server is not None:
            server.stop()


def _run(clients: int, requests: int) -> None:
    from rlm_recursive.api.server import wait_healthy
    from rlm_recursive.store import Store
    from rlm_recursive.store.tenancy import KeyStore

    print(f"backend: {'postgresql' if os.environ.get('RLM_DATABASE_URL') else 'sqlite'}")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        store = Store(data_dir)
        key, _ = KeyStore(store.sql, data_dir).create("bench", "load", ("read", "run"))
        store.close()
        port = _free_port()
        env = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:11434"}
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(data_dir),
                                   "--port", str(port)], cwd=tmp, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(base, server)
            asyncio.run(load(base, key, clients, requests))
        finally:
            server.terminate()
            server.wait(timeout=15)
        _server_side(data_dir)


if __name__ == "__main__":
    main()
