"""What a worker runs: one queued execution per job; and the stalled-job retry it runs beside.

An execution runs at most once at a time, and its result is written once:
- the job `claim`s the row, which makes it RUNNING and hands this run the next attempt
  number; the final write (status, answer, result) is one UPDATE fenced by that number;
- a job retried after its worker lost the lease claims the next attempt, so if the old run
  was only slow, not dead, its late final write matches no row and is dropped;
- a job retried after its row was finished (the worker died between the two commits) finds
  nothing to claim and ends at once.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from procrastinate import JobContext
from procrastinate.exceptions import ConnectorException, JobAborted
from procrastinate.job_context import AbortReason
from procrastinate.jobs import Status
from procrastinate.manager import JobManager

from .. import trajectory
from ..agent.outcome import stored_result
from ..agent.pool import ProviderPool
from ..agent.query import QueryOptions, run_query
from ..agent.repl.execution import ROOT_EXECUTION_ID, status_for
from ..agent.runtime import Runtime
from ..errors import InternalError, RlmError
from ..policy import PathPolicy
from ..store.counters import Slots
from ..store.executions import ExecutionStore
from ..store.loads import SessionLoads
from ..store.tenancy import TenantStore
from .events import relayed
from .watch import EXECUTION_CHANNEL

if TYPE_CHECKING:
    from .metrics import WorkerMetrics

__all__ = ["CANCELLED", "NoSlot", "WorkerContext", "end_cancelled", "finish_execution",
           "repl_root_id", "retry_stalled", "run_execution"]

CANCELLED = {"code": "cancelled", "message": "the execution was cancelled"}


class NoSlot(Exception):
    """The tenant already runs its cap of executions (in any process): the job goes back to
    the queue for a moment, and the execution stays QUEUED (never a 429)."""


@dataclass
class WorkerContext:
    """What every job of one worker process shares (procrastinate's additional context)."""

    runtime: Runtime
    providers: ProviderPool
    executions: ExecutionStore
    """On the shared PostgreSQL."""
    tenants: TenantStore
    slots: Slots
    """The tenants' running-execution slots, shared with every `api` process."""
    tenant_cap: int
    lease_s: float
    client_paths: PathPolicy
    """The path rules for loads an `api` queued: client paths, confined to the allowed roots
    of this worker's profile (as the api's own are)."""
    max_attempts: int
    """How often an execution's job may fail (its final write lost) before it ends FAILED
    (`sweep.py`)."""
    metrics: WorkerMetrics
    loads: SessionLoads
    """Queued loads (`ingest.py`), on the shared PostgreSQL."""


def finish_execution(executions: ExecutionStore, execution_id: str, attempt: int,
                     status: str, **fields: Any) -> bool:
    """The final write of one attempt, and the wake-up of every waiter, in one transaction.
    False when the attempt no longer owns the row (nothing written, nobody woken)."""
    with executions.db.transaction() as tx:
        done = executions.finish(execution_id, status, attempt=attempt, tx=tx, **fields)
        if done:
            tx.execute("SELECT pg_notify(?, ?)", (EXECUTION_CHANNEL, execution_id))
    return done


def repl_root_id(execution_id: str) -> str:
    """The id of the REPL execution a queued run keeps its steps under (`exec_X` -> `exe_X`):
    every attempt derives the same one, so a retried run resumes it."""
    return "exe_" + execution_id.partition("_")[2]


async def run_execution(context: JobContext, execution_id: str, tenant_id: str,
                        options: dict[str, Any]) -> str:
    rlm: WorkerContext = context.additional_context["rlm"]
    if not await asyncio.to_thread(rlm.slots.try_acquire, tenant_id, rlm.tenant_cap):
        raise NoSlot(f"tenant {tenant_id} runs {rlm.tenant_cap} executions already")
    try:
        return await _run_execution(context, rlm, execution_id, tenant_id, options)
    finally:
        await asyncio.shield(asyncio.to_thread(rlm.slots.release, tenant_id))


async def _run_execution(context: JobContext, rlm: WorkerContext, execution_id: str,
                         tenant_id: str, options: dict[str, Any]) -> str:
    store = rlm.executions
    attempt = await asyncio.to_thread(store.claim, execution_id)
    if attempt is None:
        return "finished already"
    record = await asyncio.to_thread(store.get, execution_id)
    started, usage, status = time.monotonic(), {}, "FAILED"
    # A REPL run keeps its steps under an id every attempt derives alike: a retry resumes it.
    ROOT_EXECUTION_ID.set(repl_root_id(execution_id))
    try:
        # The run's steps reach the shared store as they happen: any api relays them live.
        async with relayed(store.db, execution_id, attempt) as feed:
            with trajectory.listening(feed):
                result = await run_query(rlm.runtime, record["session_id"],
                                         record["question"],
                                         QueryOptions.model_validate(options),
                                         providers=rlm.providers)
        status = "MAX_TURNS_EXCEEDED" if result.stopped == "max_iterations" else "COMPLETED"
        usage = result.usage
        written = await asyncio.to_thread(
            finish_execution, store, execution_id, attempt, status, answer=result.answer,
            usage=usage, result=stored_result(tenant_id, result))
    except asyncio.CancelledError:
        if context.abort_reason() is AbortReason.SHUTDOWN:
            raise  # the row stays RUNNING; the job goes back to the queue (app's strategy)
        if await asyncio.shield(asyncio.to_thread(
                finish_execution, store, execution_id, attempt, "FAILED", error=CANCELLED)):
            rlm.metrics.executions.labels(status="FAILED").inc()
        raise JobAborted("cancelled by a client") from None
    except Exception as exc:
        err = exc if isinstance(exc, RlmError) else InternalError(f"{type(exc).__name__}: {exc}")
        status = status_for(err)
        written = await asyncio.to_thread(
            finish_execution, store, execution_id, attempt, status,
            error={"code": err.code, "message": err.message, "retryable": err.retryable})
    if not written:  # a newer attempt owns the execution: its result is the one kept
        return f"attempt {attempt} superseded"
    rlm.metrics.executions.labels(status=status).inc()
    tokens = int((usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0))
    try:
        await asyncio.to_thread(rlm.tenants.add_usage, tenant_id, executions=1,
                                sub_calls=int(usage.get("sub_calls") or 0), tokens=tokens,
                                usd=float(usage.get("cost_usd") or 0.0))
    except Exception as exc:  # the answer is saved; a lost usage count must not undo it
        print(f"rlm-recursive worker: usage of {execution_id} not recorded: {exc}",
              file=sys.stderr)
    return f"{status} in {time.monotonic() - started:.1f} s (attempt {attempt})"


async def retry_stalled(manager: JobManager, rlm: WorkerContext) -> int:
    """Put back in the queue every job (an execution's or a load's) whose worker lost its
    lease (no heartbeat for `lease_s`): procrastinate finds them but never retries them by
    itself. Returns how many this call retried (every worker calls it; a job another worker
    retried first is skipped).

    A job a client asked to abort is not run again: procrastinate marks it failed, and its
    execution ends FAILED (cancelled) here, since its worker cannot write that any more.
    """
    retried = 0
    for job in await manager.get_stalled_jobs(seconds_since_heartbeat=rlm.lease_s):
        assert job.id is not None
        try:
            await manager.retry_job(job)
        except ConnectorException:  # no longer `doing`: another worker retried it first
            continue
        retried += 1
        execution_id = job.task_kwargs.get("execution_id")  # loads are never aborted
        if execution_id is not None and (
                await manager.get_job_status_async(job.id) is Status.FAILED):
            await asyncio.to_thread(end_cancelled, rlm.executions, str(execution_id))
    return retried


def end_cancelled(executions: ExecutionStore, execution_id: str) -> bool:
    """End an execution no worker runs any more (its job cancelled, or its worker gone after
    an abort was asked) FAILED (cancelled), fenced by the attempt it is at. False when it had
    ended already."""
    row = executions.db.one("SELECT attempt FROM executions WHERE id = ?", (execution_id,))
    return row is not None and finish_execution(executions, execution_id, int(row[0]),
                                                "FAILED", error=CANCELLED)
