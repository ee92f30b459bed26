#!/usr/bin/env python
"""A pool of model hosts: failover delay and routing overhead, on real loopback servers.

    python benchmarks/host_pool.py                 # 30 failovers, 300 routed calls
    python benchmarks/host_pool.py --json

Two Ollama-shaped HTTP servers (tests/fake_ollama.py) run on 127.0.0.1; the model answers at
once, so the figures are the runner's and the network stack's, not a model's.

- failover delay: the pool believes host A is up and has the model loaded (so A is picked
  first); A is dead. Measured from `chat()` to the first answer, which B gives. Two ways to
  die: `refused` (A stopped listening) and `mid-request` (A accepts the request, then drops
  the connection without answering). Each sample is a fresh pool whose per-host clients
  exist already (building an httpx client costs tens of ms, once per host per process).
- routing overhead: the same chat calls straight to one host's OllamaProvider and through
  a two-host PooledProvider; the difference per call is what routing costs (host choice,
  bookkeeping, the listing refresh check). `pick()` alone is timed too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_ollama import chat_body, serve, tags_body

from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message
from rlm_recursive.providers.groups import EndpointGroup, build_provider
from rlm_recursive.providers.ollama import OllamaProvider

MODEL = "qwen3:8b"
REQUEST = ChatRequest(model=MODEL, messages=[Message(role="user", content="ping")],
                      options=ChatOptions(num_ctx=8192, timeout_s=60))


def _script(loaded: bool, drop: threading.Event | None = None):
    def script(method, path, body):
        if path == "/api/tags":
            return 200, tags_body(MODEL), {}
        if path == "/api/ps":
            return 200, tags_body(MODEL) if loaded else {"models": []}, {}
        if drop is not None and drop.is_set():
            raise ConnectionAbortedError("dies mid-request")
        return 200, chat_body(MODEL, "pong"), {}

    return script


def _pool(hosts: list[str]):
    return build_provider(EndpointGroup(name="ollama", kind="ollama", hosts=tuple(hosts)))


async def _failover(live_url: str, dead_url: str, samples: int) -> list[float]:
    delays = []
    for _ in range(samples):
        provider = _pool([dead_url, live_url])
        await provider.pool.refresh()
        for host in provider.pool.hosts:  # clients exist already, as in a warm process
            provider._provider(host)
        a = provider.pool.hosts[0]
        provider.pool.mark_up(a)  # the pool has not noticed yet: A looks up and loaded
        a.models, a.loaded = {MODEL}, {MODEL}
        provider.pool.hosts[1].loaded = set()
        start = time.perf_counter()
        result = await provider.chat(REQUEST)
        delays.append(time.perf_counter() - start)
        assert result.text == "pong" and provider.pool.hosts[1].answered == 1
        await provider.aclose()
    return delays


async def _overhead(url_a: str, url_b: str, calls: int) -> dict[str, float]:
    direct = OllamaProvider(url_a)
    pooled = _pool([url_a, url_b])
    for provider in (direct, pooled):  # warm connections and the listings
        await provider.chat(REQUEST)
    # Interleaved, one call each in turn, medians: the machine's load drifts less between
    # neighbouring calls than between two long passes.
    samples: dict[str, list[float]] = {"direct": [], "pooled": []}
    for _ in range(calls):
        for name, provider in (("direct", direct), ("pooled", pooled)):
            start = time.perf_counter()
            await provider.chat(REQUEST)
            samples[name].append(time.perf_counter() - start)
    start = time.perf_counter()
    for _ in range(10_000):
        pooled.pool.pick(MODEL)
    pick_us = (time.perf_counter() - start) / 10_000 * 1e6
    await direct.aclose()
    await pooled.aclose()
    direct_s, pooled_s = (statistics.median(samples[k]) for k in ("direct", "pooled"))
    return {"direct_ms": direct_s * 1e3, "pooled_ms": pooled_s * 1e3,
            "overhead_ms": (pooled_s - direct_s) * 1e3, "pick_us": pick_us}


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median_ms": statistics.median(ordered) * 1e3,
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1e3,
            "max_ms": ordered[-1] * 1e3}


async def main(samples: int, calls: int) -> dict[str, object]:
    with serve(_script(loaded=False)) as live, serve(_script(loaded=True)) as other:
        overhead = await _overhead(live.url, other.url, calls)
        drop = threading.Event()
        with serve(_script(loaded=True, drop=drop)) as dying:
            drop.set()
            mid_request = await _failover(live.url, dying.url, samples)
            dying.stop()
            refused = await _failover(live.url, dying.url, samples)
    return {"failover_refused": _stats(refused), "failover_mid_request": _stats(mid_request),
            "routing": overhead, "samples": samples, "calls": calls}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = asyncio.run(main(args.samples, args.calls))
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for kind in ("failover_refused", "failover_mid_request"):
            s = out[kind]
            print(f"{kind:22} median {s['median_ms']:.1f} ms  p95 {s['p95_ms']:.1f} ms  "
                  f"max {s['max_ms']:.1f} ms  ({args.samples} samples)")
        r = out["routing"]
        print(f"routing overhead      {r['overhead_ms']:+.3f} ms/call (median direct "
              f"{r['direct_ms']:.3f} ms, pooled {r['pooled_ms']:.3f} ms, {args.calls} calls "
              f"each, interleaved); "
              f"pick() {r['pick_us']:.1f} µs")
