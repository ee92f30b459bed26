"""Runs and sessions that end properly (migration 0008): run leases and session TTLs.

A recorded run holds a lease: the recording process writes `owner` (host:pid) and renews
`heartbeat_at` every HEARTBEAT_S seconds. A process killed by a signal, a timeout that took
the process down or a machine that died cannot write its ending, so readers reap for it: a run
still `running` whose owner is a dead process on this host, or whose lease lapsed
(LEASE_S without a heartbeat, any host), is recorded as failed (`error`, `abandoned`).

A session with `expires_at` in the past is EXPIRED: hidden from its tenant, closed, and what
only it referenced is garbage (`gc.py`).
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime, timedelta

from .connector import Connector
from .db import utcnow

__all__ = ["ABANDONED", "HEARTBEAT_S", "LEASE_S", "expire_sessions", "expires_at", "owner",
           "reap_runs"]

HEARTBEAT_S = 15.0
LEASE_S = 120.0
"""A run is given up after this long without a heartbeat (eight missed beats)."""
ABANDONED = "abandoned"
"""The error code of a run whose process ended without recording an ending."""


def owner() -> str:
    """This process, as a run's owner: `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _ago(seconds: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def reap_runs(db: Connector, *, lease_s: float = LEASE_S) -> int:
    """Record as failed every `running` run whose process is gone; return how many."""
    host = socket.gethostname()
    dead: list[str] = []
    lapsed = _ago(lease_s)
    rows = db.query("SELECT id, owner, heartbeat_at, started_at FROM runs "
                    "WHERE status = 'running'")
    for row in rows:
        beat = row["heartbeat_at"] or row["started_at"]
        run_host, _, pid = (row["owner"] or "").rpartition(":")
        gone = run_host == host and pid.isdigit() and not _alive(int(pid))
        if beat < lapsed or gone:
            dead.append(row["id"])
    for run_id in dead:
        db.execute("UPDATE runs SET status = 'error', error_code = ?, "
                   "ended_at = COALESCE(heartbeat_at, started_at) "
                   "WHERE id = ? AND status = 'running'", (ABANDONED, run_id))
    return len(dead)


def expires_at(ttl_minutes: float | None) -> str | None:
    """The expiry stamp of a session created now with this TTL (None: never)."""
    if ttl_minutes is None:
        return None
    return (datetime.now(UTC) + timedelta(minutes=ttl_minutes)).isoformat(
        timespec="milliseconds")


def expire_sessions(db: Connector) -> list[str]:
    """Mark sessions past their TTL EXPIRED (and closed); return their ids."""
    now = utcnow()
    rows = db.query(
        "SELECT id FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ? "
        "AND COALESCE(readiness, '') NOT IN ('EXPIRED', 'DELETED')", (now,))
    ids = [r["id"] for r in rows]
    for session_id in ids:
        db.execute("UPDATE sessions SET readiness = 'EXPIRED', closed_at = COALESCE("
                   "closed_at, ?), status = CASE status WHEN 'exported' THEN status "
                   "ELSE 'completed' END WHERE id = ?", (now, session_id))
    return ids
