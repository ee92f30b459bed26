"""Session lifecycle: close (freeze), the closed-session guard and export bookkeeping.

Statuses follow seed 000 §3.1: `active` → `completed` (closed) → `exported`. A session is
frozen once `closed_at` is set, whatever its status: it can be read and exported, not changed.
"""

from __future__ import annotations

import contextlib

from ..errors import SessionClosed
from .connector import integrity_errors
from .db import utcnow
from .store import Store

__all__ = ["close_session", "discard_if_empty", "export_record", "mark_exported", "require_open"]


def require_open(store: Store, session_id: str) -> None:
    """Raise SessionClosed if the session was closed (NotFound if it does not exist)."""
    row = store.session(session_id)
    if row["closed_at"] is not None:
        raise SessionClosed(
            f"session {session_id} was closed at {row['closed_at']}: it can be read and "
            "exported but not changed; create a new session to load more",
            session_id=session_id)


def close_session(store: Store, session_id: str) -> str:
    """Freeze the session; closing twice keeps the first time and an `exported` status."""
    row = store.session(session_id)
    if row["closed_at"] is not None:
        return row["closed_at"]
    now = utcnow()
    store.sql.execute(
        "UPDATE sessions SET closed_at = ?, "
        "status = CASE status WHEN 'exported' THEN status ELSE 'completed' END WHERE id = ?",
        (now, session_id))
    return now


def export_record(store: Store, session_id: str) -> dict[str, str | None]:
    """The stamp, branch and commit of the session's last export (all None before one)."""
    row = store.session(session_id)
    return {"stamp": row["export_stamp"], "branch": row["export_branch"],
            "commit": row["export_commit"], "exported_at": row["exported_at"]}


def mark_exported(store: Store, session_id: str, *, stamp: str, branch: str, commit: str) -> None:
    """Status `exported`; the first stamp is kept so later exports reuse the branch path."""
    store.sql.execute(
        "UPDATE sessions SET status = 'exported', export_stamp = COALESCE(export_stamp, ?), "
        "export_branch = ?, export_commit = ?, exported_at = ? WHERE id = ?",
        (stamp, branch, commit, utcnow(), session_id))


def discard_if_empty(store: Store, session_id: str) -> bool:
    """Remove a session that holds no document (a load that loaded nothing), with its tool
    traces; True if it was removed. A session anything else refers to stays."""
    store.flush()  # the create and load traces are queued: write them, then remove them
    try:
        with store.sql.transaction() as tx:
            if tx.execute("SELECT 1 FROM documents WHERE session_id = ? LIMIT 1",
                          (session_id,)).fetchone():
                return False
            tx.execute("DELETE FROM traces WHERE session_id = ?", (session_id,))
            tx.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
    except integrity_errors():  # referred to (a run, a tenant): keep it
        return False
    with contextlib.suppress(FileNotFoundError):
        (store.data_dir / "traces" / f"{session_id}.jsonl").unlink()
    return True
