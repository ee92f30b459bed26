"""Queued executions that no job will finish any more: found and set right by every worker.

An execution's row gets its final status before its job is acknowledged to procrastinate, in
two transactions. When the row's write is lost (the database went away at that instant, the
connection was cut), the task raises, procrastinate marks the job `failed` on a connection of
its own, and the row stays RUNNING (or QUEUED, when the loss came before the claim) with
nothing left to run it: the stalled-job check only sees jobs that are still `doing`.

`sweep_lost` looks for unfinished rows whose job ended or vanished, and for each:
- a client asked for it to stop (the job was cancelled or aborted, or an abort was requested
  at some point): it ends FAILED (cancelled), as the cancel meant;
- the job failed, and it failed fewer than `max_attempts` times: the row goes back to QUEUED
  and the same job to `todo` (procrastinate's own retry), in one transaction; the next run
  claims the next attempt, and a REPL run resumes from its last saved step;
- otherwise (failed too often, or the job row is gone, so its arguments are too): it ends
  FAILED with `execution_lost` (retryable: the client may submit it again).

Every write is fenced by the attempt (and the job) the sweep read, so two workers sweeping at
once, or a worker that claims the row meanwhile, make it happen once. Not covered: a worker
that only *looked* dead (its lease lapsed and another took the job), then also lost its final
write, marks a job failed that the other worker is still running; the sweep then re-queues a
running execution. The attempt fence keeps one result, but the work is done twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ExecutionLost
from ..store.db import utcnow
from ..store.executions import ExecutionStore
from .jobs import end_cancelled, finish_execution, repl_root_id

__all__ = ["MAX_ATTEMPTS", "SweepReport", "sweep_lost"]

MAX_ATTEMPTS = 3
"""How many times an execution's job may fail (its final write lost) before it ends FAILED."""

_LOST = """
SELECT e.id, e.attempt, e.job_id, j.status::text,
       (SELECT count(*) FROM procrastinate_events ev
         WHERE ev.job_id = e.job_id AND ev.type = 'failed'),
       EXISTS (SELECT 1 FROM procrastinate_events ev
                WHERE ev.job_id = e.job_id AND ev.type = 'abort_requested')
  FROM executions e LEFT JOIN procrastinate_jobs j ON j.id = e.job_id
 WHERE e.status IN ('QUEUED', 'RUNNING') AND e.job_id IS NOT NULL
   AND (j.id IS NULL OR j.status IN ('failed', 'cancelled', 'aborted'))
"""
# Not `succeeded`: a job is acknowledged as done only after its row's final write, or by a run
# that was superseded (its lease had lapsed) while a newer attempt of the same job runs, and
# that attempt writes the row.


@dataclass
class SweepReport:
    requeued: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.requeued or self.cancelled or self.lost)


def sweep_lost(executions: ExecutionStore, max_attempts: int = MAX_ATTEMPTS) -> SweepReport:
    """One pass over the shared store (PostgreSQL, with procrastinate's tables); blocking."""
    report = SweepReport()
    for execution_id, attempt, job_id, job_status, failures, abort_asked in \
            executions.db.query(_LOST):
        if abort_asked or job_status in ("cancelled", "aborted"):
            if end_cancelled(executions, execution_id):
                report.cancelled.append(execution_id)
        elif job_status == "failed" and failures < max_attempts:
            if _requeue(executions, execution_id, int(attempt), int(job_id)):
                report.requeued.append(execution_id)
        elif _end_lost(executions, execution_id, int(attempt), job_status, int(failures)):
            report.lost.append(execution_id)
    return report


def _requeue(executions: ExecutionStore, execution_id: str, attempt: int, job_id: int) -> bool:
    """The row back to QUEUED and its failed job back to `todo`, together; False when
    another worker's sweep (or a claim) got there first."""
    with executions.db.transaction() as tx:
        job = tx.execute("SELECT status::text FROM procrastinate_jobs WHERE id = ? FOR UPDATE",
                         (job_id,)).fetchone()
        if job is None or job[0] != "failed":
            return False
        moved = tx.execute(
            "UPDATE executions SET status = 'QUEUED', updated_at = ? WHERE id = ? AND "
            "attempt = ? AND job_id = ? AND status IN ('QUEUED', 'RUNNING')",
            (utcnow(), execution_id, attempt, job_id)).rowcount
        if moved != 1:
            return False
        # procrastinate's own retry (failed -> todo, a `retried` event); workers poll for it.
        tx.execute("SELECT procrastinate_retry_job_v2(?, now(), NULL, NULL, NULL)", (job_id,))
    return True


def _end_lost(executions: ExecutionStore, execution_id: str, attempt: int,
              job_status: str | None, failures: int) -> bool:
    why = (f"its job failed {failures} time(s) without writing a result"
           if job_status is not None else "its job is gone from the queue")
    err = ExecutionLost(f"the execution was lost: {why}; submit it again")
    error = {"code": err.code, "message": err.message, "retryable": err.retryable}
    if not finish_execution(executions, execution_id, attempt, "FAILED", error=error):
        return False
    # A REPL run keeps its steps under an execution of its own: it ends with its parent.
    child = repl_root_id(execution_id)
    row = executions.db.one("SELECT attempt FROM executions WHERE id = ?", (child,))
    if row is not None:
        executions.finish(child, "FAILED", error=error, attempt=int(row[0]))
    return True
