"""`rlm-recursive worker`: run queued executions and loads from the shared store until
stopped.

procrastinate's worker does the queue work: it takes jobs as their NOTIFY arrives (or polls),
runs up to `concurrency` at once on one event loop, sends a heartbeat every `lease_s / 3`
seconds and stops on SIGTERM/SIGINT (running jobs go back to the queue after
`shutdown_grace_s`). Beside it, every STALLED_CHECK_S, the worker retries the jobs of workers
whose lease ran out, sets right the executions whose job ended without their final write
(`sweep.py`), and deletes the live events of executions that ended a while ago (`events.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

import procrastinate

from ..agent.pool import ProviderPool
from ..agent.runtime import Runtime
from ..errors import ConfigError
from ..policy import PathPolicy
from ..store.connector import DATABASE_URL_ENV, database_url
from ..store.counters import ExecutionSlots
from ..store.executions import ExecutionStore
from ..store.loads import SessionLoads, sweep_lost_loads
from ..store.tenancy import TenantStore
from .app import LEASE_S, STALLED_CHECK_S, queue_app
from .events import prune_events
from .jobs import WorkerContext, retry_stalled
from .metrics import WorkerMetrics
from .sweep import MAX_ATTEMPTS, sweep_lost

__all__ = ["serve_worker"]


async def serve_worker(
    runtime: Runtime, *, concurrency: int = 1, lease_s: float = LEASE_S,
    shutdown_grace_s: float = 30.0, tenant_cap: int = 4,
    providers: ProviderPool | None = None, name: str | None = None,
    max_attempts: int = MAX_ATTEMPTS, metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
) -> None:
    """Run jobs until a signal stops the worker; the runtime stays the caller's to close.
    With `metrics_port`, Prometheus metrics are served on `metrics_host:metrics_port`."""
    url = database_url()
    if url is None:
        raise ConfigError(f"the worker needs the shared store: set {DATABASE_URL_ENV}="
                          "postgresql://… (without it, `api` runs executions itself)",
                          key=DATABASE_URL_ENV)
    pool = providers or ProviderPool()
    app = queue_app(url, pool_size=concurrency + 3)
    metrics = WorkerMetrics(app.tasks)
    # The runtime's store is on the URL's PostgreSQL, migrated (procrastinate's 0010 too).
    rlm = WorkerContext(runtime=runtime, providers=pool,
                        executions=ExecutionStore(runtime.store.sql),
                        tenants=TenantStore(runtime.store), slots=ExecutionSlots(url),
                        tenant_cap=tenant_cap, lease_s=lease_s,
                        client_paths=PathPolicy.for_clients(
                            runtime.profile, protected=[runtime.store.data_dir]),
                        max_attempts=max_attempts, metrics=metrics,
                        loads=SessionLoads(runtime.store.sql))
    try:
        if metrics_port is not None:
            try:
                metrics.serve(metrics_port, metrics_host)
            except OSError as exc:
                raise ConfigError(f"cannot serve metrics on {metrics_host}:{metrics_port}: "
                                  f"{exc.strerror or exc}", key="metrics_port") from None
        print(f"rlm-recursive worker: concurrency {concurrency}, lease {lease_s:g} s"
              + (f", metrics on {metrics_host}:{metrics_port}" if metrics_port else ""),
              file=sys.stderr, flush=True)
        async with app.open_async():
            stalled = asyncio.create_task(_retry_stalled_forever(app, rlm))
            try:
                await app.run_worker_async(
                    concurrency=concurrency, name=name or "rlm-worker",
                    additional_context={"rlm": rlm}, update_heartbeat_interval=lease_s / 3,
                    worker_middleware=[metrics.middleware],
                    stalled_worker_timeout=lease_s,
                    shutdown_graceful_timeout=shutdown_grace_s,
                    # NOTIFY wakes the worker at once; the poll covers a lost notification
                    # and jobs retried for later (no slot, a stalled worker's).
                    fetch_job_polling_interval=2.0, abort_job_polling_interval=2.0)
            finally:
                stalled.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await stalled
    finally:
        metrics.close()
        rlm.slots.close()
        if providers is None:
            await pool.aclose()


async def _retry_stalled_forever(app: procrastinate.App, rlm: WorkerContext) -> None:
    """Beside the worker loop, not as a queued job: a job would wait behind the very
    executions that keep every worker busy, and a dead worker's would wait with it."""
    while True:
        await asyncio.sleep(STALLED_CHECK_S)
        try:
            if retried := await retry_stalled(app.job_manager, rlm):
                rlm.metrics.stalled.inc(retried)
                print(f"rlm-recursive worker: {retried} job(s) (executions, loads) of a worker "
                      "that lost its lease back in the queue", file=sys.stderr, flush=True)
            await asyncio.to_thread(prune_events, rlm.executions.db)
            if swept := await asyncio.to_thread(sweep_lost, rlm.executions, rlm.max_attempts):
                for action in ("requeued", "cancelled", "lost"):
                    rlm.metrics.swept.labels(action=action).inc(len(getattr(swept, action)))
                print(f"rlm-recursive worker: executions whose job ended without their result: "
                      f"re-queued {swept.requeued}, cancelled {swept.cancelled}, lost "
                      f"{swept.lost}", file=sys.stderr, flush=True)
            if lost := await asyncio.to_thread(sweep_lost_loads, rlm.loads, rlm.max_attempts):
                print(f"rlm-recursive worker: loads whose job ended without publishing: "
                      f"re-queued {lost.requeued}, failed {lost.failed}", file=sys.stderr,
                      flush=True)
        except Exception as exc:  # the database is away: the next tick tries again
            print(f"rlm-recursive worker: stalled or lost job check failed: {exc}",
                  file=sys.stderr)
