"""Prometheus metrics, seed 003 §19.1 names (dots become underscores in Prometheus).

With workers (the shared PostgreSQL store), executions run elsewhere: this process's
`rlm_execution` counters do not see them (each worker serves its own, `worker
--metrics-port`), and `/metrics` gains the queue's depth read from the store, the same in
every `api` process: `rlm_executions_queued` and `rlm_executions_running`.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["CONTENT_TYPE", "QUEUE_GAUGES_TTL_S", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
QUEUE_GAUGES_TTL_S = 5.0
"""The queue's depth is read from the store at most this often; scrapes between reuse it."""


class Metrics:
    """One registry per app, so two servers in one process (tests) do not share counters."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.requests = Counter("rlm_api_requests", "API requests", ["endpoint", "status"],
                                registry=r)
        self.latency = Histogram("rlm_api_latency_seconds", "API latency", ["endpoint"],
                                 registry=r)
        self.executions = Counter("rlm_execution", "Executions ended", ["status", "mode"],
                                  registry=r)
        self.duration = Histogram("rlm_execution_duration_seconds", "Execution wall time",
                                  registry=r, buckets=(0.1, 0.5, 1, 5, 15, 60, 180, 600))
        self.turns = Histogram("rlm_execution_turns", "Model calls per execution",
                               registry=r, buckets=(1, 2, 5, 10, 20, 50, 100))
        self.subcalls = Histogram("rlm_execution_subcalls", "Sub-calls per execution",
                                  registry=r, buckets=(0, 1, 5, 10, 50, 100, 500))
        self.spans = Counter("rlm_execution_spans", "Spans cited", registry=r)
        self.llm_tokens = Counter("rlm_llm_tokens", "Model tokens", ["model", "type"],
                                  registry=r)
        self.llm_requests = Counter("rlm_llm_requests", "Model calls", ["model", "cache_hit"],
                                    registry=r)
        self.llm_errors = Counter("rlm_llm_errors", "Executions ended by a provider error",
                                  registry=r)
        self._queue_gauges: tuple[Gauge, Gauge] | None = None
        self._queue_read_at = -math.inf
        self._queue_reading = asyncio.Lock()

    async def count_queue(self, read: Callable[[], Awaitable[dict[str, int]]]) -> None:
        """Set the queue gauges from `read()` (QUEUED and RUNNING counts over the whole store),
        unless they were read less than QUEUE_GAUGES_TTL_S ago. A store that cannot be read
        leaves the last numbers (the scrape still answers) until the next try."""
        async with self._queue_reading:
            if time.monotonic() - self._queue_read_at < QUEUE_GAUGES_TTL_S:
                return
            self._queue_read_at = time.monotonic()
            try:
                counts = await read()
            except Exception as exc:
                print(f"rlm-recursive: queue metrics not read: {type(exc).__name__}: {exc}",
                      file=sys.stderr)
                return
            if self._queue_gauges is None:
                self._queue_gauges = (
                    Gauge("rlm_executions_queued", "Executions waiting for a worker (the whole "
                          "store: every api process)", registry=self.registry),
                    Gauge("rlm_executions_running", "Queued executions a worker runs now (the "
                          "whole store: every worker)", registry=self.registry))
            queued, running = self._queue_gauges
            queued.set(counts.get("QUEUED", 0))
            running.set(counts.get("RUNNING", 0))

    def execution(self, status: str, mode: str, seconds: float, usage: dict[str, Any],
                  model: str | None, spans: int) -> None:
        self.executions.labels(status=status, mode=mode).inc()
        self.duration.observe(seconds)
        self.turns.observe(usage.get("model_calls") or 0)
        self.subcalls.observe(usage.get("sub_calls") or 0)
        self.spans.inc(spans)
        if model:
            self.llm_requests.labels(model=model, cache_hit="false").inc(
                usage.get("model_calls") or 0)
            self.llm_tokens.labels(model=model, type="input").inc(usage.get("input_tokens") or 0)
            self.llm_tokens.labels(model=model, type="output").inc(
                usage.get("output_tokens") or 0)

    def render(self) -> bytes:
        return generate_latest(self.registry)
