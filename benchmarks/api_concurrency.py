"""Does a long session load stall the API? `GET /v1/sessions/{id}` alone and while another
session loads and indexes a folder in the background.

The server runs as its own process (uvicorn, `create_app`), the client here measures
latency over loopback. Each round creates a session from a folder of synthetic text (its
load and BM25 build run in the background) and, once it has started, reads another
session's view. Prints the median and worst latency of that read alone and during loads.

    PYTHONPATH=. python benchmarks/api_concurrency.py [--mb 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import generate


def serve(root: Path, port: int) -> None:
    """Child process: the API over `root/data`, reading paths under `root`."""
    import uvicorn

    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.api import ApiSettings, create_app

    os.chdir(root)
    settings = ApiSettings(key_requests_per_minute=1_000_000,
                           tenant_requests_per_minute=1_000_000)
    uvicorn.run(create_app(Runtime(root / "data"), settings), host="127.0.0.1", port=port,
                log_level="warning", access_log=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _timed(client: httpx.Client, url: str) -> float:
    start = time.perf_counter()
    client.get(url).raise_for_status()
    return (time.perf_counter() - start) * 1000


def main(mb: float, rounds: int) -> None:
    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.store.tenancy import KeyStore

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root / "corpus", chars=int(mb * 1_000_000), files=40, seed=7)
        runtime = Runtime(root / "data")
        key, _ = KeyStore(runtime.store.sql, runtime.store.data_dir).create("bench", "b",
                                                                           ("read", "run"))
        runtime.close()
        port = _free_port()
        child = multiprocessing.get_context("spawn").Process(target=serve, args=(root, port))
        child.start()
        base = f"http://127.0.0.1:{port}/v1"
        try:
            with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=300) as c:
                for _ in range(300):
                    try:
                        c.get(f"{base}/health")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                probe = c.post(f"{base}/sessions", json={"docs": [{"text": "probe"}]}).json()
                url = f"{base}/sessions/{probe['session_id']}"
                alone = [_timed(c, url) for _ in range(20)]
                during, loads = [], []
                for _ in range(rounds):
                    started = time.perf_counter()
                    made = c.post(f"{base}/sessions", json={
                        "docs": [{"path": "corpus", "type": "directory"}]}).json()
                    time.sleep(0.2)  # the background load is under way
                    during.append(_timed(c, url))
                    while c.get(f"{base}/sessions/{made['session_id']}").json()[
                            "status"] == "CREATING":
                        time.sleep(0.05)
                    loads.append((time.perf_counter() - started) * 1000)
        finally:
            child.terminate()
            child.join(10)
    print(f"corpus {mb:g} MB, {rounds} rounds")
    print(f"GET /v1/sessions/{{id}} alone:        median {statistics.median(alone):7.1f} ms, "
          f"max {max(alone):7.1f} ms")
    print(f"GET /v1/sessions/{{id}} during a load: median {statistics.median(during):7.1f} ms, "
          f"max {max(during):7.1f} ms")
    print(f"load and index of the folder:        median {statistics.median(loads):7.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    main(args.mb, args.rounds)
