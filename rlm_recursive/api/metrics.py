"""Prometheus metrics, seed 003 §19.1 names (dots become underscores in Prometheus)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


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
