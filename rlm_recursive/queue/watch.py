"""Waiting for an execution that runs in another process: LISTEN/NOTIFY, with a poll behind it.

A worker that gives an execution its final status sends `NOTIFY rlm_execution_finished,
'<id>'` in the same transaction, so a waiter in any `api` process wakes as the row commits;
each batch of its live events sends `NOTIFY rlm_execution_events, '<id>'` (`events.py`);
a published queued load `NOTIFY rlm_session_loaded, '<session id>'` (`store/loads.py`).
One listening connection per process, on all of them, serves every waiter. A notification
lost to a dropped connection costs at most one poll interval: each waiter also re-reads the
store every POLL_S seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Awaitable, Callable

import psycopg

from ..store.loads import LOAD_CHANNEL
from .events import EVENTS_CHANNEL

__all__ = ["EXECUTION_CHANNEL", "POLL_S", "ExecutionWatcher"]

EXECUTION_CHANNEL = "rlm_execution_finished"
POLL_S = 2.0
LISTENED = (EXECUTION_CHANNEL, EVENTS_CHANNEL, LOAD_CHANNEL)
"""Every channel a waiter may name: executions' endings and events, loads' publication."""


class ExecutionWatcher:
    """`wait(id, timeout_s, finished)` returns when `finished()` is true or time is up."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._events: dict[tuple[str, str], set[asyncio.Event]] = {}
        """The waiters of each (channel, execution id)."""
        self._listener: asyncio.Task[None] | None = None

    async def wait(self, execution_id: str, timeout_s: float,
                   finished: Callable[[], Awaitable[bool]],
                   channels: tuple[str, ...] = (EXECUTION_CHANNEL,)) -> None:
        """`finished()` reads the store (off the event loop); True ends the wait. It is
        called at once, on each notification of the execution on `channels`, and every
        POLL_S seconds."""
        self._ensure_listening()
        event = asyncio.Event()
        keys = [(channel, execution_id) for channel in channels]
        for key in keys:
            self._events.setdefault(key, set()).add(event)
        deadline = time.monotonic() + timeout_s
        try:
            # Registered before the first read: a notification between the two is not lost.
            while not await finished():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(left, POLL_S))
                event.clear()
        finally:
            for key in keys:
                waiting = self._events.get(key, set())
                waiting.discard(event)
                if not waiting:
                    self._events.pop(key, None)

    def _ensure_listening(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="rlm-execution-watch")

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self.url, autocommit=True,
                        application_name="rlm-recursive-watch") as conn:
                    for channel in LISTENED:
                        await conn.execute(f"LISTEN {channel}")
                    async for note in conn.notifies():
                        for event in self._events.get((note.channel, note.payload), ()):
                            event.set()
            except asyncio.CancelledError:
                raise
            except psycopg.Error as exc:  # the server went away: poll until it is back
                print(f"rlm-recursive: execution watch: {type(exc).__name__}: {exc}",
                      file=sys.stderr)
                await asyncio.sleep(POLL_S)

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
