"""A worker's Prometheus metrics, served by `rlm-recursive worker --metrics-port N`.

Every job the worker takes goes through `WorkerMetrics.middleware` (a procrastinate worker
middleware, so queued executions and any other task, loads included, are counted alike):
how many are in flight, how each ended and how long it took. Executions add their final
status; the periodic check adds the stalled jobs it retried and what its sweep set right.
The numbers are this process's; sum them over workers in Prometheus. Queue depth (QUEUED,
RUNNING) is store-wide, so the `api`'s /metrics reports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from procrastinate import JobContext
from procrastinate.exceptions import JobAborted
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from .jobs import NoSlot

__all__ = ["WorkerMetrics"]

_DURATION_BUCKETS = (0.1, 0.5, 1, 5, 15, 60, 180, 600, 1800)


class WorkerMetrics:
    """One registry per worker (two workers in one test process do not share counters)."""

    def __init__(self, tasks: Iterable[str] = ()) -> None:
        r = self.registry = CollectorRegistry()
        self.jobs = Counter(
            "rlm_worker_jobs", "Jobs this worker took, by task and how they ended: succeeded, "
            "failed (an error escaped the task), aborted (a client's cancel), no_slot (the "
            "tenant at its cap: back to the queue) or interrupted (a shutdown: back to the "
            "queue)", ["task", "outcome"], registry=r)
        self.duration = Histogram(
            "rlm_worker_job_duration_seconds", "Wall time of the jobs that ran to an end "
            "(succeeded, failed or aborted)", ["task"], buckets=_DURATION_BUCKETS, registry=r)
        self.in_flight = Gauge("rlm_worker_jobs_in_flight", "Jobs running now, by task",
                               ["task"], registry=r)
        self.executions = Counter(
            "rlm_worker_executions", "Executions this worker ended, by the final status it "
            "wrote (COMPLETED, FAILED, TIMEOUT, ...)", ["status"], registry=r)
        self.stalled = Counter("rlm_worker_stalled_retried", "Jobs of workers that lost their "
                               "lease, put back in the queue by this worker", registry=r)
        self.swept = Counter(
            "rlm_worker_swept", "Executions whose job ended without their final write, set "
            "right by this worker: requeued, cancelled or lost", ["action"], registry=r)
        for task in tasks:  # shown as 0 before the first job
            self.in_flight.labels(task=task)
        self._server: Any = None

    async def middleware(self, call_next: Callable[[], Awaitable[Any]], context: JobContext,
                         worker: Any) -> Any:
        """procrastinate's worker middleware: wraps every job this worker runs."""
        task = context.job.task_name
        loop = asyncio.get_running_loop()
        started, outcome = loop.time(), "failed"
        try:
            with self.in_flight.labels(task=task).track_inprogress():
                result = await call_next()
            outcome = "succeeded"
            return result
        except JobAborted:
            outcome = "aborted"
            raise
        except NoSlot:
            outcome = "no_slot"
            raise
        except asyncio.CancelledError:
            outcome = "interrupted"
            raise
        finally:
            self.jobs.labels(task=task, outcome=outcome).inc()
            if outcome in ("succeeded", "failed", "aborted"):
                self.duration.labels(task=task).observe(loop.time() - started)

    def serve(self, port: int, host: str) -> None:
        """Serve /metrics on `host:port` from a thread of its own until `close()`."""
        self._server, _ = start_http_server(port, addr=host, registry=self.registry)

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
