"""The SQLite backend of the LCM store: FTS5 search and a lease row as the compaction lock."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import Conflict, InvalidArgs
from ..store.connector import SqliteConnector
from .records import MessageRecord, SummaryRecord
from .store import _MESSAGE_COLS, _SUMMARY_COLS, SqlConversationStore, _message, _prefixed

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

    def search_messages(self, conversation_id: int, query: str, limit: int
                        ) -> list[tuple[MessageRecord, str]]:
        rows = self.query(
            f"SELECT {_prefixed('m', _MESSAGE_COLS)}, "
            "snippet(messages_fts, 0, '[', ']', '…', 16) FROM messages_fts "
            "JOIN messages m ON m.message_id = messages_fts.rowid "
            "WHERE messages_fts MATCH ? AND m.conversation_id = ? "
            "ORDER BY bm25(messages_fts), m.seq LIMIT ?",
            (_fts_query(query), conversation_id, limit))
        return [(_message(r[:7]), r[7]) for r in rows]

    def search_summaries(self, conversation_id: int, query: str, limit: int
                         ) -> list[tuple[SummaryRecord, str]]:
        rows = self.query(
            f"SELECT {_prefixed('s', _SUMMARY_COLS)}, "
            "snippet(summaries_fts, 0, '[', ']', '…', 16) FROM summaries_fts "
            "JOIN summaries s ON s.rowid = summaries_fts.rowid "
            "WHERE summaries_fts MATCH ? AND s.conversation_id = ? "
            "ORDER BY bm25(summaries_fts), s.created_at LIMIT ?",
            (_fts_query(query), conversation_id, limit))
        return [(self._summary(r[:7]), r[7]) for r in rows]

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
