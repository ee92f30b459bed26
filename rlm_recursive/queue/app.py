"""The procrastinate app: the task every `api` and `worker` process agrees on.

One app per process and database URL. The `api` side only defers and aborts jobs, on the
store's own connection inside the store's transaction (so it never opens procrastinate's
pool); the `worker` side opens it and runs the task. procrastinate's schema is our
PostgreSQL migration 0010, applied by the store's migration runner under its advisory lock.
"""

from __future__ import annotations

import asyncio

import procrastinate
from procrastinate.jobs import Job
from procrastinate.retry import RetryDecision

from . import ingest, jobs

__all__ = ["EXECUTIONS_QUEUE", "INGEST", "INGEST_QUEUE", "LEASE_S", "NO_SLOT_RETRY_S",
           "RUN_EXECUTION", "STALLED_CHECK_S", "queue_app"]

EXECUTIONS_QUEUE = "executions"
RUN_EXECUTION = "rlm.run_execution"
INGEST_QUEUE = "ingest"
INGEST = "rlm.ingest"
"""A session's queued load (`ingest.ingest`): long or bulk loads an `api` or the CLI sent."""
LEASE_S = 30.0
"""A worker that has not sent a heartbeat for this long has lost its jobs (they are retried).
Heartbeats go every LEASE_S / 3, so one late beat is not a lost lease."""
STALLED_CHECK_S = 5.0
"""Every worker looks for stalled jobs this often (procrastinate never retries them by
itself): a lost lease is acted on within LEASE_S + STALLED_CHECK_S of the last heartbeat."""


NO_SLOT_RETRY_S = 1
"""A job whose tenant is at its cap is tried again this many seconds later."""


class _Requeue(procrastinate.BaseRetryStrategy):
    """Put a job back in the queue when the execution has not really run:
    - a worker stopped by SIGTERM/SIGINT cancels its running jobs: at once;
    - the tenant has no free slot (`jobs.NoSlot`): a moment later.

    The task turns a client's cancel into JobAborted (final); only the cancellation of a
    shutdown reaches the strategy as CancelledError. Errors of the run itself never do: the
    task records them in the execution and returns.
    """

    def get_retry_decision(self, *, exception: BaseException, job: Job
                           ) -> RetryDecision | None:
        if isinstance(exception, asyncio.CancelledError):
            return RetryDecision(retry_in={"seconds": 0})
        if isinstance(exception, jobs.NoSlot):
            return RetryDecision(retry_in={"seconds": NO_SLOT_RETRY_S})
        return None


def queue_app(url: str, *, pool_size: int = 4) -> procrastinate.App:
    """The app on `url`, with the execution and load tasks (a worker takes both queues)."""
    connector = procrastinate.PsycopgConnector(
        conninfo=url, min_size=1, max_size=pool_size,
        kwargs={"application_name": "rlm-recursive-worker"})
    app = procrastinate.App(connector=connector)
    app.task(name=RUN_EXECUTION, queue=EXECUTIONS_QUEUE, pass_context=True,
             retry=_Requeue())(jobs.run_execution)
    app.task(name=INGEST, queue=INGEST_QUEUE, pass_context=True,
             retry=_Requeue())(ingest.ingest)
    return app
