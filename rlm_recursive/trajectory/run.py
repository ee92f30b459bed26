"""`recording()`: the trajectory of one run, from its question to its answer or error code."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ..errors import RlmError
from ..store import Store, new_id
from ..store.db import utcnow
from ..store.lifecycle import HEARTBEAT_S, owner
from ..store.trajectory import run_heartbeat
from .recorder import Mode, Recorder, activate, current_listeners
from .sink import StoreSink

__all__ = ["recording"]


@asynccontextmanager
async def recording(
    store: Store, session_id: str, question: str, mode: Mode,
) -> AsyncIterator[Recorder | None]:
    """Record the run inside the block: stored unless `mode` is off, shown to live listeners.

    Yields None when nothing listens (traces off and no live view). The store is flushed
    when the run ends, so `trace RUN_ID` sees the whole run at once.
    """
    listeners = current_listeners()
    if mode == "off" and not listeners:
        with activate(None):
            yield None
        return
    recorder = Recorder(new_id("run"), session_id, question, mode)
    sinks = (StoreSink(store, recorder),) if mode != "off" else ()
    recorder.listeners = (*sinks, *listeners)
    recorder.run.update(owner=owner(), heartbeat_at=recorder.run["started_at"])
    recorder.emit("run_start")
    beating = asyncio.create_task(_heartbeat(store, recorder.run["id"])) if sinks else None
    with activate(recorder):
        try:
            yield recorder
        except BaseException as exc:
            recorder.run.update(status="error", error_code=exc.code if isinstance(
                exc, RlmError) else type(exc).__name__)
            raise
        finally:
            if beating is not None:
                beating.cancel()
            if recorder.run["status"] == "running":
                recorder.run["status"] = "ok"
            recorder.run.update(ended_at=utcnow(), duration_ms=round(
                (time.perf_counter() - recorder.started) * 1000, 1))
            recorder.emit("run_end")
            if sinks:  # waits for the writer thread (a database round trip): off the loop
                await asyncio.to_thread(store.flush)


async def _heartbeat(store: Store, run_id: str) -> None:
    """Renew the run's lease until it ends: a killed process stops renewing it."""
    while True:
        await asyncio.sleep(HEARTBEAT_S)
        record = run_heartbeat(run_id, utcnow())
        store.writer.submit(lambda _conn, record=record: ([record], []))


def describe(recorder: Recorder | None, **fields: Any) -> None:
    """Add what the run learnt on the way (strategy, tiers, limits, answer, usage)."""
    if recorder is not None:
        recorder.run.update(fields)
