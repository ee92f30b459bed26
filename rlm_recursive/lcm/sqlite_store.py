"""The SQLite backend of the LCM store: FTS5 search and a lease row as the compaction lock."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..errors import Conflict, InvalidArgs
from ..store.connector import SqliteConnector
from .store import SqlConversationStore

__all__ = ["SqliteConversationStore"]


def _fts_query(text: str) -> str:
    """Plain words as an FTS5 query: each term quoted, so user text is never FTS syntax."""
    terms = [t.replace('"', '""') for t in text.split()]
    if not terms:
        raise InvalidArgs("the search query is empty")
    return " ".join(f'"{t}"' for t in terms)


class SqliteConversationStore(SqlConversationStore):
    """Its own connection to the data dir's database (WAL, migrated; migration 0005)."""

    _SUMMARY_ORDER = "created_at, rowid"

    def __init__(self, database: Path | SqliteConnector) -> None:
        connector = database if isinstance(database, SqliteConnector) else \
            SqliteConnector(database)
        super().__init__(connector)
        self.path = connector.path

    def _search(self, table: str, alias: str, columns: str, conversation_id: int, query: str,
                limit: int) -> list[Any]:
        """FTS5 (migration 0005: `<table>_fts`, rowid-linked), ranked by bm25; ties oldest
        first (rowids grow with insertion)."""
        fts = f"{table}_fts"
        return self.query(
            f"SELECT {columns}, snippet({fts}, 0, '[', ']', '…', 16) "
            f"FROM {fts} JOIN {table} {alias} ON {alias}.rowid = {fts}.rowid "
            f"WHERE {fts} MATCH ? AND {alias}.conversation_id = ? "
            f"ORDER BY bm25({fts}), {alias}.rowid LIMIT ?",
            (_fts_query(query), conversation_id, limit))

    # SQLite has no advisory locks: a lease row that a crashed holder cannot keep forever.
    def acquire_lock(self, conversation_id: int, owner: str, ttl_s: float) -> None:
        """Take the conversation's compaction lease or raise a retryable Conflict."""
        now = time.time()
        with self.connector.transaction() as db:
            row = db.execute(
                "INSERT INTO lcm_locks VALUES (?, ?, ?) ON CONFLICT (conversation_id) DO UPDATE "
                "SET owner = excluded.owner, expires_at = excluded.expires_at "
                "WHERE lcm_locks.expires_at < ? OR lcm_locks.owner = excluded.owner "
                "RETURNING owner", (conversation_id, owner, now + ttl_s, now)).fetchone()
        if row is None:
            raise Conflict(f"conversation {conversation_id} is being compacted by another "
                           "process; retry shortly", conversation_id=conversation_id)

    def release_lock(self, conversation_id: int, owner: str) -> None:
        with self.connector.transaction() as db:
            db.execute("DELETE FROM lcm_locks WHERE conversation_id = ? AND owner = ?",
                       (conversation_id, owner))
