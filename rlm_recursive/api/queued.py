"""Executions a worker runs (issue 23): with the PostgreSQL store, `api` only enqueues.

A new execution is QUEUED in the same transaction as its job, and the request returns at
once. This process follows it to its end (LISTEN/NOTIFY, `queue/watch.py`) to feed its live
events and streamed chat: the steps the worker writes to the shared store as they happen
(`queue/events.py`), then the stored answer and final status. Any other `api` process
follows it the same way once a client asks it for the events. `wait` and `cancel` work for
an execution any `api` process started and any worker runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import TYPE_CHECKING, Any

from ..agent.query import QueryOptions
from ..store import new_id
from ..store.connector import database_url
from ..store.executions import UNFINISHED_STATUSES, is_finished
from ..trajectory.feed import EventFeed
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
        self.follow(execution_id, "QUEUED")
        return execution_id

    def follow(self, execution_id: str, status: str) -> EventFeed:
        """The execution's feed in this process, followed to its end from the shared store
        (opened with `status`, the one last read, when this process has none yet). One
        follower per execution, however many clients read the feed."""
        feed = self.feeds.get(execution_id)
        if feed is None:
            feed = self.feeds.open(execution_id, status)
        if execution_id not in self._followers and not feed.closed:
            task = asyncio.create_task(self._follow(execution_id, feed))
            self._followers[execution_id] = task
            task.add_done_callback(lambda _: self._followers.pop(execution_id, None))
        return feed

    async def _follow(self, execution_id: str, feed: EventFeed) -> None:
        from ..queue.events import EVENTS_CHANNEL, events_after
        from ..queue.watch import EXECUTION_CHANNEL

        executions, relayed = self.queue.executions, 0

        async def caught_up() -> bool:
            """Relay the worker's new events; True once the execution has ended. The status
            is read first: every event was written before the final status, so the events
            read after seeing it are all of them."""
            nonlocal relayed
            ended = is_finished(await self.state.db(executions.status, execution_id))
            for event_id, type_, data in await self.state.db(
                    events_after, executions.db, execution_id, relayed):
                feed.publish(type_, data)
                relayed = event_id
            return ended

        await self.queue.watcher.wait(execution_id, math.inf, caught_up,
                                      channels=(EXECUTION_CHANNEL, EVENTS_CHANNEL))
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
