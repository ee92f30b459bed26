"""Answerer-mode executions: started in the background, awaited, cancelled, summed per tenant.

The API's execution row is created before the run starts, so its id can be returned at once;
a `repl` run persists its steps under an execution of its own, linked from the result.
With the shared PostgreSQL store, executions are QUEUED for workers instead (`queued.py`):
this process never runs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from .. import trajectory
from ..agent.outcome import spanref, stored_result
from ..agent.query import QueryOptions, run_query
from ..agent.repl.execution import status_for
from ..errors import InternalError, ProviderError, RlmError, SessionNotReady
from ..store import new_id
from ..store.executions import ExecutionStore
from .deps import Principal
from .feeds import ExecutionFeeds
from .queued import queued_runs
from .state import ApiState

__all__ = ["ExecutionRunner", "spanref"]

_CANCEL_GRACE_S = 10.0


class ExecutionRunner:
    """Owns the asyncio task of every answerer execution this server runs."""

    def __init__(self, state: ApiState) -> None:
        self.state = state
        self._sessions: dict[str, str] = {}
        """The session of each running execution."""
        self.feeds = ExecutionFeeds()
        """Each execution's live events (GET /v1/executions/{id}/events, streamed chat)."""
        self.queued = queued_runs(state, self.feeds)
        """Set with the PostgreSQL store: workers run the executions, not this process."""

    async def start(self, who: Principal, session_id: str, question: str,
                    options: QueryOptions, extra: dict[str, Any]) -> str:
        state = self.state
        session = await state.db(state.tenants.owned_session, who.tenant_id, session_id)
        if session["readiness"] != "READY":
            raise SessionNotReady(f"session {session_id} is {session['readiness']}, not READY",
                                  retry_after_s=1, session_id=session_id)
        left = state.check_budget(await state.db(state.tenants.usage_today, who.tenant_id))
        # A run may not spend more than what is left of the tenant's day.
        if left["sub_calls"] is not None:
            options = options.model_copy(
                update={"max_sub_calls": min(options.max_sub_calls, int(left["sub_calls"]))})
        if left["usd"] is not None:
            usd = left["usd"] if options.budget_usd is None else min(options.budget_usd,
                                                                     left["usd"])
            options = options.model_copy(update={"budget_usd": usd})
        if self.queued is not None:  # a worker runs it, when it has a slot: never a 429 here
            return await self.queued.start(who, session_id, question, options,
                                           {**options.model_dump(exclude_none=True), **extra})
        await state.acquire_execution(who.tenant_id)
        try:
            execution_id = new_id("exec")
            stored = {**options.model_dump(exclude_none=True), **extra}
            await state.db(ExecutionStore(state.runtime.store.sql).create, execution_id,
                           session_id, "answerer", question, stored)
        except BaseException:
            await state.release_execution(who.tenant_id)
            raise
        self.feeds.open(execution_id)
        task = asyncio.create_task(self._run(who, session_id, execution_id, question, options))
        state.tasks[execution_id] = task
        self._sessions[execution_id] = session_id

        def forget(_: asyncio.Task[None]) -> None:
            state.tasks.pop(execution_id, None)
            self._sessions.pop(execution_id, None)

        task.add_done_callback(forget)
        return execution_id

    async def _run(self, who: Principal, session_id: str, execution_id: str, question: str,
                   options: QueryOptions) -> None:
        state, started = self.state, time.monotonic()
        store = ExecutionStore(state.runtime.store.sql)
        status, usage, model, spans = "FAILED", {}, None, 0
        try:
            feed = self.feeds.get(execution_id)
            with trajectory.listening(*(feed,) if feed is not None else ()):
                result = await run_query(state.runtime, session_id, question, options,
                                         providers=state.providers)
            status = "MAX_TURNS_EXCEEDED" if result.stopped == "max_iterations" else "COMPLETED"
            usage, model, spans = result.usage, result.model, len(result.citations)
            saved = stored_result(who.tenant_id, result)
            await state.db(state.tenants.save_result, execution_id, saved)
            await state.db(store.finish, execution_id, status, answer=result.answer,
                           usage=usage)
            self.feeds.answered(execution_id, result, saved["citations"])
        except asyncio.CancelledError:
            status = "FAILED"
            error = {"code": "cancelled", "message": "the execution was cancelled"}
            self.feeds.failed(execution_id, error)
            await asyncio.shield(state.db(store.finish, execution_id, status, error=error))
            raise
        except Exception as exc:
            err = exc if isinstance(exc, RlmError) else InternalError(
                f"{type(exc).__name__}: {exc}")
            status = status_for(err)
            if isinstance(err, ProviderError):
                state.metrics.llm_errors.inc()
            error = {"code": err.code, "message": err.message, "retryable": err.retryable}
            self.feeds.failed(execution_id, error)
            await state.db(store.finish, execution_id, status, error=error)
        finally:
            self.feeds.finish(execution_id, status)
            await state.release_execution(who.tenant_id)
            state.metrics.execution(status, "answerer", time.monotonic() - started, usage,
                                    model, spans)
            tokens = int((usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0))
            with contextlib.suppress(Exception):  # spend is recorded even for a failed run
                await asyncio.shield(state.db(
                    state.tenants.add_usage, who.tenant_id, executions=1,
                    sub_calls=int(usage.get("sub_calls") or 0), tokens=tokens,
                    usd=float(usage.get("cost_usd") or 0.0)))

    async def wait(self, execution_id: str, timeout_s: float) -> None:
        if self.queued is not None:
            return await self.queued.wait(execution_id, timeout_s)
        task = self.state.tasks.get(execution_id)
        if task is not None:
            await asyncio.wait({task}, timeout=timeout_s)

    async def cancel_session(self, session_id: str) -> None:
        """Stop every running execution over a session (it is being deleted)."""
        if self.queued is not None:
            return await self.queued.cancel_session(session_id)
        tasks = [self.state.tasks[e] for e, s in list(self._sessions.items())
                 if s == session_id and e in self.state.tasks]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=_CANCEL_GRACE_S)

    async def cancel(self, execution: dict[str, Any]) -> None:
        """Stop a RUNNING execution; it ends FAILED (cancelled). Idempotent."""
        if self.queued is not None and execution["mode"] == "answerer":
            return await self.queued.cancel(execution)
        if execution["status"] != "RUNNING":
            return
        task = self.state.tasks.get(execution["id"])
        if task is not None:
            task.cancel()
            await asyncio.wait({task}, timeout=_CANCEL_GRACE_S)
            return
        # Not running in this server (a runtime-mode execution, or one orphaned by a restart).
        error = {"code": "cancelled", "message": "the execution was cancelled"}
        await self.state.db(ExecutionStore(self.state.runtime.store.sql).finish,
                            execution["id"], "FAILED", error=error)
        await self.state.release_runtime(execution["id"])

    async def aclose(self) -> None:
        if self.queued is not None:
            await self.queued.aclose()
