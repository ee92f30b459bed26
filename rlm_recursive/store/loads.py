"""Queued loads (PostgreSQL's `session_loads`, migration 0014): what a worker loads into a
session, and the fence that keeps a retried load from duplicating or half-showing anything.

A load is queued with its session CREATING. Each worker run `claim`s it, which hands the run
the next attempt number and a fresh hidden *staging* session to load into. `publish` moves
the staging session's documents into the real one and sets READY or FAILED in one
transaction, fenced by the attempt: a run that lost its lease (SIGKILLed, or only stalled
and woken later) loaded into a staging session nobody publishes, so the session shows all of
one attempt's documents or none, never two copies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .connector import Connector, Executor
from .db import utcnow

__all__ = ["LOAD_CHANNEL", "PENDING_LOAD", "LoadClaim", "LostLoads", "SessionLoads",
           "sweep_lost_loads"]

LOAD_CHANNEL = "rlm_session_loaded"
"""NOTIFY channel: the payload is the session id whose queued load was published."""

PENDING_LOAD = (
    "EXISTS (SELECT 1 FROM session_loads l JOIN procrastinate_jobs j ON j.id = l.job_id "
    "WHERE l.session_id = sessions.id AND l.state != 'done' "
    "AND j.status IN ('todo', 'doing'))")
"""SQL true for a session whose load waits in the queue or runs on a worker (a worker that
died still holds its job `doing` until the stalled-job check hands it to another)."""

STAGING = "STAGING"
"""The readiness of a hidden session an attempt loads into (no tenant: no API lists it)."""


@dataclass(frozen=True)
class LoadClaim:
    """One worker run's hold on a queued load."""

    session_id: str
    attempt: int
    staging_id: str
    origin: str
    sources: list[dict[str, Any]]
    ocr: bool | None


class SessionLoads:
    """The `session_loads` table, on the store's PostgreSQL connector."""

    def __init__(self, sql: Connector) -> None:
        self.sql = sql

    def create(self, tx: Executor, session_id: str, sources: list[dict[str, Any]], *,
               origin: str, ocr: bool | None) -> None:
        """The queued load of a CREATING session, inside the caller's transaction."""
        tx.execute("INSERT INTO session_loads (session_id, origin, sources, ocr, created_at) "
                   "VALUES (?, ?, ?, ?, ?)",
                   (session_id, origin, json.dumps(sources), ocr, utcnow()))

    def set_job(self, tx: Executor, session_id: str, job_id: int) -> None:
        tx.execute("UPDATE session_loads SET job_id = ? WHERE session_id = ?",
                   (job_id, session_id))

    def get(self, session_id: str) -> Any:
        return self.sql.one("SELECT * FROM session_loads WHERE session_id = ?", (session_id,))

    def claim(self, session_id: str) -> LoadClaim | None:
        """Take the load for a new attempt, with a new staging session; None when there is
        nothing to do (published already, or the session is no longer CREATING: deleted or
        expired while it waited, which ends the load here)."""
        with self.sql.transaction() as tx:
            load = tx.execute(
                "SELECT origin, sources, ocr, attempt, staging_id FROM session_loads "
                "WHERE session_id = ? AND state != 'done' FOR UPDATE", (session_id,)).fetchone()
            if load is None:
                return None
            session = tx.execute("SELECT readiness, config FROM sessions WHERE id = ? "
                                 "FOR UPDATE", (session_id,)).fetchone()
            if load[4] is not None:  # an earlier attempt's staging session: nobody reads it
                _drop_staging(tx, load[4])
            if session is None or session[0] != "CREATING":
                tx.execute("UPDATE session_loads SET state = 'done', finished_at = ? "
                           "WHERE session_id = ?", (utcnow(), session_id))
                return None
            attempt = int(load[3]) + 1
            staging_id = f"stg_{attempt}_{session_id}"
            tx.execute("INSERT INTO sessions (id, name, created_at, config, readiness) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (staging_id, f"load of {session_id}, attempt {attempt}", utcnow(),
                        session[1], STAGING))
            tx.execute("UPDATE session_loads SET state = 'running', attempt = ?, "
                       "staging_id = ?, started_at = ? WHERE session_id = ?",
                       (attempt, staging_id, utcnow(), session_id))
        return LoadClaim(session_id, attempt, staging_id, load[0], json.loads(load[1]),
                         load[2])

    def publish(self, claim: LoadClaim, readiness: str, notes: dict[str, Any] | None) -> bool:
        """Move the attempt's documents into the session and set its readiness, in one
        transaction, and wake every waiter. False when a newer attempt owns the load (or
        it was published already): nothing is written."""
        with self.sql.transaction() as tx:
            owned = tx.execute(
                "UPDATE session_loads SET state = 'done', finished_at = ? WHERE session_id = ? "
                "AND attempt = ? AND state = 'running' RETURNING session_id",
                (utcnow(), claim.session_id, claim.attempt)).fetchone()
            if owned is None:
                return False
            session = tx.execute("SELECT readiness FROM sessions WHERE id = ? FOR UPDATE",
                                 (claim.session_id,)).fetchone()
            if session is not None and session[0] == "CREATING":
                moved = tx.execute("UPDATE documents SET session_id = ? WHERE session_id = ?",
                                   (claim.session_id, claim.staging_id)).rowcount
                tx.execute(
                    "UPDATE sessions SET readiness = ?, load_error = ?, "
                    "docs_version = docs_version + ? WHERE id = ?",
                    (readiness, json.dumps(notes) if notes else None, moved, claim.session_id))
                tx.execute("DELETE FROM sessions WHERE id = ?", (claim.staging_id,))
            else:  # deleted or expired while loading: the documents are not shown anywhere
                _drop_staging(tx, claim.staging_id)
            tx.execute("SELECT pg_notify(?, ?)", (LOAD_CHANNEL, claim.session_id))
        return True

    def end_lost(self, session_id: str, job_id: int, why: str) -> bool:
        """A load no job will publish any more: the session ends FAILED (if still CREATING)
        with the reason, once (False when it was ended or published meanwhile)."""
        notes = {"errors": [{"code": "internal_error", "message":
                             f"the load was lost: {why}; create the session again"}]}
        with self.sql.transaction() as tx:
            load = tx.execute(
                "UPDATE session_loads SET state = 'done', finished_at = ? WHERE session_id = ? "
                "AND job_id = ? AND state != 'done' RETURNING staging_id",
                (utcnow(), session_id, job_id)).fetchone()
            if load is None:
                return False
            if load[0] is not None:
                _drop_staging(tx, load[0])
            tx.execute("UPDATE sessions SET readiness = 'FAILED', load_error = ? WHERE id = ? "
                       "AND readiness = 'CREATING'", (json.dumps(notes), session_id))
            tx.execute("SELECT pg_notify(?, ?)", (LOAD_CHANNEL, session_id))
        return True


_LOST = """
SELECT l.session_id, l.job_id, j.status::text,
       (SELECT count(*) FROM procrastinate_events ev
         WHERE ev.job_id = l.job_id AND ev.type = 'failed')
  FROM session_loads l LEFT JOIN procrastinate_jobs j ON j.id = l.job_id
 WHERE l.state != 'done' AND l.job_id IS NOT NULL
   AND (j.id IS NULL OR j.status IN ('failed', 'cancelled', 'aborted'))
"""
# A load's job never ends `succeeded` before its publish (or a claim that found nothing to
# do): only a job that failed (an error escaped the task: its publish or claim lost to the
# database) or vanished leaves an unpublished load behind.


@dataclass
class LostLoads:
    requeued: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.requeued or self.failed)


def sweep_lost_loads(loads: SessionLoads, max_attempts: int) -> LostLoads:
    """Queued loads whose job ended without publishing them: the job goes back to `todo`
    (procrastinate's own retry; the next run claims the next attempt) while it failed fewer
    than `max_attempts` times; otherwise the session ends FAILED, so nobody waits on it."""
    report = LostLoads()
    for session_id, job_id, job_status, failures in loads.sql.query(_LOST):
        if job_status == "failed" and failures < max_attempts:
            if _retry_failed_job(loads.sql, int(job_id)):
                report.requeued.append(session_id)
            continue
        why = (f"its job failed {failures} time(s) without publishing the documents"
               if job_status is not None else "its job is gone from the queue")
        if loads.end_lost(session_id, int(job_id), why):
            report.failed.append(session_id)
    return report


def _retry_failed_job(sql: Connector, job_id: int) -> bool:
    with sql.transaction() as tx:
        job = tx.execute("SELECT status::text FROM procrastinate_jobs WHERE id = ? FOR UPDATE",
                         (job_id,)).fetchone()
        if job is None or job[0] != "failed":
            return False  # another worker's sweep got there first
        tx.execute("SELECT procrastinate_retry_job_v2(?, now(), NULL, NULL, NULL)", (job_id,))
    return True


def _drop_staging(tx: Executor, staging_id: str) -> None:
    """A staging session no attempt will publish: DELETED, so `gc` may collect what only it
    referenced (a stalled attempt that wakes up may still add to it, unseen)."""
    tx.execute("UPDATE sessions SET readiness = 'DELETED', closed_at = COALESCE(closed_at, ?) "
               "WHERE id = ?", (utcnow(), staging_id))
