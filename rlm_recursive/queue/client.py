"""The `api` side of the queue: enqueue an execution, cancel it, wait for it.

`enqueue` writes the QUEUED row and defers its job in one transaction on the store's own
connection: a worker can never see a job whose row is missing, and a row never waits for a
job that was not deferred. The procrastinate app is never opened here (no second pool): it
only builds the job and its SQL, run on our connection.
"""

from __future__ import annotations

import asyncio
from typing import Any

from procrastinate.jobs import Status

from ..store.connector import Connector
from ..store.executions import ExecutionStore, is_finished
from .app import EXECUTIONS_QUEUE, RUN_EXECUTION, queue_app
from .jobs import end_cancelled
from .watch import ExecutionWatcher

__all__ = ["ExecutionQueue"]


class ExecutionQueue:
    """One per `api` process, over the shared PostgreSQL (`connector`)."""

    def __init__(self, url: str, connector: Connector) -> None:
        if connector.dialect != "postgresql":
            raise ValueError("the execution queue needs the PostgreSQL store")
        self.connector = connector
        self.executions = ExecutionStore(connector)
        self.app = queue_app(url)
        self.watcher = ExecutionWatcher(url)

    def enqueue(self, execution_id: str, session_id: str, question: str,
                options: dict[str, Any], stored: dict[str, Any], tenant_id: str) -> int:
        """The QUEUED row and its job, committed together; returns the job's id.

        `options` are the run's QueryOptions (JSON), `stored` what the row shows of them."""
        with self.connector.transaction() as tx:
            self.executions.create(execution_id, session_id, "answerer", question, stored,
                                   status="QUEUED", tx=tx)
            job_id = self.app.configure_task(
                RUN_EXECUTION, queue=EXECUTIONS_QUEUE, connection=_psycopg(tx),
            ).defer(execution_id=execution_id, tenant_id=tenant_id, options=options)
            self.executions.set_job(execution_id, job_id, tx)
        return job_id

    def cancel(self, execution_id: str) -> bool:
        """Ask for the execution to stop. A job no worker has taken is cancelled here and
        the row ends FAILED (cancelled) at once (True); a running one is aborted, and its
        worker writes the ending (False: wait for it). A row with no job (never queued) is
        ended here too."""
        job_id = self.executions.job_id(execution_id)
        if job_id is not None:
            manager = self.app.job_manager
            with self.connector.transaction() as tx:
                conn = _psycopg(tx)
                manager.cancel_job_by_id(job_id, abort=True, connection=conn)
                if manager.get_job_status(job_id, connection=conn) is not Status.CANCELLED:
                    return False
        end_cancelled(self.executions, execution_id)
        return True

    def unfinished_counts(self) -> dict[str, int]:
        """How many queued executions wait (QUEUED) and run (RUNNING), over the whole store
        (one query on the partial index of unfinished rows)."""
        rows = self.connector.query(
            "SELECT status, COUNT(*) FROM executions WHERE status IN ('QUEUED', 'RUNNING') "
            "AND job_id IS NOT NULL GROUP BY status")
        return {row[0]: int(row[1]) for row in rows}

    async def wait(self, execution_id: str, timeout_s: float) -> None:
        """Until the execution has a final status (written by whichever worker ran it)."""
        async def finished() -> bool:
            return is_finished(await asyncio.to_thread(self.executions.status, execution_id))

        await self.watcher.wait(execution_id, timeout_s, finished)

    async def aclose(self) -> None:
        await self.watcher.aclose()


def _psycopg(tx: Any) -> Any:
    """The psycopg connection under one of the PostgreSQL connector's transactions."""
    return tx.conn
