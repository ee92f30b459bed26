"""The enqueuing side of queued loads (`api`'s POST /v1/sessions, the CLI's `load --queue`).

`enqueue` writes the load's row and defers its job in one transaction on the store's own
connection, as `client.ExecutionQueue` does for executions: a worker never sees a job whose
load is missing, and a load never waits for a job that was not deferred. Inline texts are
put in the blob store first, so the row and the job carry content hashes, not megabytes.
"""

from __future__ import annotations

import asyncio

from ..corpus.loaders import Source
from ..store import Store
from ..store.loads import LOAD_CHANNEL, SessionLoads
from .app import INGEST, INGEST_QUEUE, queue_app
from .ingest import stored_sources
from .watch import ExecutionWatcher

__all__ = ["LoadQueue"]


class LoadQueue:
    """One per process that enqueues loads, over the shared PostgreSQL store."""

    def __init__(self, url: str, store: Store) -> None:
        if store.dialect != "postgresql":
            raise ValueError("queued loads need the PostgreSQL store")
        self.store = store
        self.loads = SessionLoads(store.sql)
        self.app = queue_app(url)
        self.watcher = ExecutionWatcher(url)

    def enqueue(self, session_id: str, sources: list[Source], *, origin: str,
                ocr: bool | None) -> int:
        """Queue the load of a CREATING session; returns its job's id. `origin` is "api"
        (client paths) or "cli" (absolute paths the operator gave)."""
        stored = stored_sources(self.store, sources)
        with self.store.sql.transaction() as tx:
            self.loads.create(tx, session_id, stored, origin=origin, ocr=ocr)
            job_id = self.app.configure_task(
                INGEST, queue=INGEST_QUEUE, connection=tx.conn,  # psycopg's, under ours
            ).defer(session_id=session_id)
            self.loads.set_job(tx, session_id, job_id)
        return job_id

    async def wait(self, session_id: str, timeout_s: float) -> str:
        """Until the session's load is published (READY or FAILED) or time is up; returns
        its readiness then."""
        readiness = ""

        async def finished() -> bool:
            nonlocal readiness
            row = await asyncio.to_thread(self.store.session, session_id)
            readiness = row["readiness"] or ""
            return readiness != "CREATING"

        await self.watcher.wait(session_id, timeout_s, finished, channels=(LOAD_CHANNEL,))
        return readiness

    async def aclose(self) -> None:
        await self.watcher.aclose()
