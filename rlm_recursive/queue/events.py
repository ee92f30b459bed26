"""A queued execution's live events, across processes: the worker writes, every `api` reads.

The worker that runs an execution narrates its run as the API's own executions are narrated
(a `trajectory.feed.EventFeed` listening to the run: steps, sub-calls, progress), and
`relayed` appends those events to `execution_events` in batches, each batch with
`NOTIFY rlm_execution_events, '<id>'` in its transaction. Every batch is written before the
execution's final status, so a reader that has seen the final status and then reads the
events has all of them.

An `api` process reads them with `events_after` (what it has not relayed yet), woken by the
process's one LISTEN connection (`watch.ExecutionWatcher`) or its poll.

The events are for watching: a batch that cannot be written (the database away) is dropped
and the run goes on; the stored answer stays the authority.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ..store.connector import Connector
from ..store.db import utcnow
from ..trajectory.feed import EventFeed, FeedEvent

__all__ = ["EVENTS_CHANNEL", "KEEP_EVENTS_S", "events_after", "prune_events", "relayed"]

EVENTS_CHANNEL = "rlm_execution_events"
KEEP_EVENTS_S = 600.0
"""The events of an execution that ended this long ago are deleted (by any worker)."""


@asynccontextmanager
async def relayed(db: Connector, execution_id: str, attempt: int) -> AsyncIterator[EventFeed]:
    """A feed for the run (pass it to `trajectory.listening`) whose events reach the shared
    store as they happen. On leaving, the last events are written before the caller goes on
    to its final write; a cancelled run (a shutdown, an abort) does not wait for them."""
    feed = EventFeed()
    feed.publish("status", {"status": "RUNNING", "attempt": attempt,
                            "message": f"running (attempt {attempt})"})
    forwarder = asyncio.create_task(_forward(db, execution_id, attempt, feed),
                                    name=f"rlm-events-{execution_id}")
    try:
        yield feed
    except Exception:  # the run failed: its last steps still go out before its error
        feed.close()
        await forwarder
        raise
    except BaseException:
        forwarder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await forwarder
        raise
    feed.close()
    await forwarder


async def _forward(db: Connector, execution_id: str, attempt: int, feed: EventFeed) -> None:
    """Write what the feed has, as it comes: one transaction per batch of new events."""
    written = 0
    while True:
        # The next event past `written`, once there is one; None once the feed has closed.
        async with contextlib.aclosing(feed.follow(written)) as news:
            if await anext(news, None) is None:
                return
        batch = feed.events()[written:]
        try:
            await asyncio.to_thread(_write, db, execution_id, attempt, batch)
        except Exception as exc:  # watching is best effort: the run must not fail for it
            print(f"rlm-recursive worker: {len(batch)} live event(s) of {execution_id} not "
                  f"written: {type(exc).__name__}: {exc}", file=sys.stderr)
        written += len(batch)


def _write(db: Connector, execution_id: str, attempt: int, batch: list[FeedEvent]) -> None:
    now = utcnow()
    with db.transaction() as tx:
        tx.executemany(
            "INSERT INTO execution_events (execution_id, attempt, type, data, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [(execution_id, attempt, event.type,
              json.dumps(event.data, ensure_ascii=False, default=str), now)
             for event in batch])
        tx.execute("SELECT pg_notify(?, ?)", (EVENTS_CHANNEL, execution_id))


def events_after(db: Connector, execution_id: str, after: int
                 ) -> list[tuple[int, str, dict[str, Any]]]:
    """(id, type, data) of the execution's events past the event id `after`, in order."""
    rows = db.query("SELECT id, type, data FROM execution_events WHERE execution_id = ? AND "
                    "id > ? ORDER BY id", (execution_id, after))
    return [(int(row[0]), row[1], json.loads(row[2])) for row in rows]


def prune_events(db: Connector, keep_s: float = KEEP_EVENTS_S) -> int:
    """Delete the events of executions that ended more than `keep_s` ago; how many."""
    cutoff = (datetime.now(UTC) - timedelta(seconds=keep_s)).isoformat(timespec="milliseconds")
    return db.execute(
        "DELETE FROM execution_events e USING executions x WHERE x.id = e.execution_id AND "
        "x.status NOT IN ('QUEUED', 'RUNNING') AND x.updated_at < ?", (cutoff,))
