"""The API server's housekeeping, at start and then on a schedule (`maintenance_interval_s`).

Each pass, on the store thread: sessions past their TTL become EXPIRED (their running
executions stop), runs whose process died are recorded as failed, sessions left CREATING by a
server that stopped mid-load are FAILED, and blobs and search indexes that no live session
references are deleted (`store/gc.py`, with its grace period for work in flight).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ..store.gc import collect
from ..store.lifecycle import expire_sessions, reap_runs
from .runner import ExecutionRunner
from .state import ApiState

__all__ = ["maintain_once", "maintained"]


def _sweep(state: ApiState) -> dict[str, Any]:
    store = state.runtime.store
    store.flush()
    expired = expire_sessions(store.sql)
    for session_id in expired:  # its index folder may go: close it here first
        index = store.indexes.pop(session_id, None)
        if index is not None:
            index.close()
    cutoff = (datetime.now(UTC) - timedelta(seconds=state.settings.orphan_after_s)).isoformat(
        timespec="milliseconds")
    orphans = state.tenants.sweep_orphans(cutoff)
    runs = reap_runs(store.sql)
    report = collect(store.sql, store.data_dir, dry_run=False, blobs=store.blobs)
    return {"expired": expired, "orphans": orphans, "failed_runs": runs,
            "blobs": len(report.blobs), "indexes": len(report.indexes)}


async def maintain_once(state: ApiState, runner: ExecutionRunner | None = None
                        ) -> dict[str, Any]:
    """One housekeeping pass; returns what it did."""
    done = await state.db(_sweep, state)
    for session_id in done["expired"]:
        await state.release_runtime_session(session_id)
        if runner is not None:
            await runner.cancel_session(session_id)
    done["released_slots"] = await state.release_ended_runtime()
    return done


async def _loop(state: ApiState, runner: ExecutionRunner) -> None:
    while True:
        try:
            await maintain_once(state, runner)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # housekeeping must not take the server down
            print(f"rlm-recursive: API maintenance failed: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
        await asyncio.sleep(state.settings.maintenance_interval_s)


@asynccontextmanager
async def maintained(state: ApiState, runner: ExecutionRunner) -> AsyncIterator[None]:
    """Run the housekeeping loop while the server is up."""
    task = asyncio.create_task(_loop(state, runner))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
