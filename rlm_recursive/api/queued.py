"""Executions a worker runs (issue 23): with the PostgreSQL store, `api` only enqueues.

A new execution is QUEUED in the same transaction as its job, and the request returns at
once. This process follows it to its end (LISTEN/NOTIFY, `queue/watch.py`) to feed its live
events and streamed chat; `wait` and `cancel` work for an execution any `api` process
started and any worker runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import TYPE_CHECKING, Any

from ..agent.query import QueryOptions
from ..store import new_id
from ..store.connector import database_url
from ..store.executions import UNFINISHED_STATUSES
from .deps import Principal
from .feeds import ExecutionFeeds
from .state import ApiState

if TYPE_CHECKING:  # procrastinate (the postgres extra) is imported only with a database URL
    from ..queue.client import ExecutionQueue
    from ..queue.loads import LoadQueue

__all__ = ["QueuedRuns", "queued_loads", "queued_runs"]

_CANCEL_GRACE_S = 10.0


def _shared_url(state: ApiState) -> str | None:
    """The database URL when the store is the shared PostgreSQL one (workers exist)."""
    url = database_url()
    return url if url is not None and state.runtime.store.dialect == "postgresql" else None


def queued_runs(state: ApiState, feeds: ExecutionFeeds) -> QueuedRuns | None:
    """The queue when the store is the shared PostgreSQL one; None: run in this process."""
    if (url := _shared_url(state)) is None:
        return None
    from ..queue.client import ExecutionQueue

    return QueuedRuns(state, feeds, ExecutionQueue(url, state.runtime.store.sql))


def queued_loads(state: ApiState) -> LoadQueue | None:
    """Where long or bulk loads go with the shared store (a worker loads them); None: they
    load in a task of this process."""
    if (url := _shared_url(state)) is None:
        return None
    from ..queue.loads import LoadQueue

    return LoadQueue(url, state.runtime.store)


class QueuedRuns:
    def __init__(self, state: ApiState, feeds: ExecutionFeeds, queue: ExecutionQueue) -> None:
        self.state, self.feeds, self.queue = state, feeds, queue
        self._followers: dict[str, asyncio.Task[None]] = {}

    async def start(self, who: Principal, session_id: str, question: str,
                    options: QueryOptions, stored: dict[str, Any]) -> str:
        execution_id = new_id("exec")
        await self.state.db(self.queue.enqueue, execution_id, session_id, question,
                            options.model_dump(mode="json", exclude_none=True), stored,
                            who.tenant_id)
        self.feeds.open(execution_id, "QUEUED")
        task = asyncio.create_task(self._follow(execution_id))
        self._followers[execution_id] = task
        task.add_done_callback(lambda _: self._followers.pop(execution_id, None))
        return execution_id

    async def _follow(self, execution_id: str) -> None:
        await self.queue.wait(execution_id, math.inf)
        executions = self.queue.executions
        record = await self.state.db(executions.get, execution_id)
        self.feeds.settled(execution_id, record,
                           await self.state.db(executions.result, execution_id))

    async def wait(self, execution_id: str, timeout_s: float) -> None:
        await self.queue.wait(execution_id, timeout_s)

    async def cancel(self, execution: dict[str, Any]) -> None:
        """Idempotent: a finished execution keeps its status."""
        if execution["status"] not in UNFINISHED_STATUSES:
            return
        if not await self.state.db(self.queue.cancel, execution["id"]):
            await self.queue.wait(execution["id"], _CANCEL_GRACE_S)  # its worker stops it

    async def cancel_session(self, session_id: str) -> None:
        for execution_id in await self.state.db(self.queue.executions.unfinished, session_id):
            await self.cancel({"id": execution_id, "status": "QUEUED"})

    async def aclose(self) -> None:
        for task in list(self._followers.values()):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._followers.values(), return_exceptions=True)
        await self.queue.aclose()
