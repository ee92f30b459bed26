"""ConversationStore: canonical messages and parts, summaries, lineage and active context.

`ConversationStore` is the narrow interface the services use; `SqliteConversationStore`
implements it on the project's SQLite database (migration 0005). A PostgreSQL backend (the
seed's schema with tsvector) implements the same methods; no service changes.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from ..errors import Conflict, InvalidArgs, NotFound
from ..store.db import connect, utcnow
from .records import (
    PART_COLUMNS,
    PART_TYPES,
    CompactionBatch,
    ContextItem,
    ConversationRecord,
    FileRecord,
    MessageRecord,
    SummaryRecord,
)

__all__ = ["ConversationStore", "SqliteConversationStore"]


class ConversationStore(Protocol):
    """What the LCM services need of a backend (seed 002, "ConversationStore")."""

    def create_conversation(self, session_id: str, title: str | None = None
                            ) -> ConversationRecord: ...
    def conversation(self, conversation_id: int) -> ConversationRecord: ...
    def append_message(self, conversation_id: int, role: str, content: str, token_count: int,
                       parts: list[dict[str, Any]] | None = None) -> MessageRecord: ...
    def create_message_parts(self, message_id: int, parts: list[dict[str, Any]]) -> None: ...
    def message_parts(self, message_id: int) -> list[dict[str, Any]]: ...
    def messages(self, conversation_id: int, ids: list[int] | None = None
                 ) -> list[MessageRecord]: ...
    def get_context_items(self, conversation_id: int, *, with_content: bool = True
                          ) -> list[ContextItem]: ...
    def message_contents(self, message_ids: list[int]) -> dict[int, str]: ...
    def commit_compaction(self, batch: CompactionBatch) -> SummaryRecord: ...
    def get_summary(self, summary_id: str) -> SummaryRecord | None: ...
    def get_summary_children(self, summary_id: str) -> list[SummaryRecord]: ...
    def get_summary_parent(self, summary_id: str) -> str | None: ...
    def get_summary_messages(self, summary_id: str) -> list[MessageRecord]: ...
    def summaries(self, conversation_id: int) -> list[SummaryRecord]: ...
    def search_messages(self, conversation_id: int, query: str, limit: int
                        ) -> list[tuple[MessageRecord, str]]: ...
    def search_summaries(self, conversation_id: int, query: str, limit: int
                         ) -> list[tuple[SummaryRecord, str]]: ...
    def acquire_lock(self, conversation_id: int, owner: str, ttl_s: float) -> None: ...
    def release_lock(self, conversation_id: int, owner: str) -> None: ...
    def insert_file(self, record: FileRecord) -> None: ...
    def get_file(self, file_id: str) -> FileRecord | None: ...
    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]: ...


_MESSAGE_COLS = "message_id, conversation_id, seq, role, content, token_count, created_at"
_SUMMARY_COLS = "summary_id, conversation_id, kind, content, token_count, created_at, file_ids"


def _message(row: Any) -> MessageRecord:
    return MessageRecord(*row)


def _summary(row: Any) -> SummaryRecord:
    return SummaryRecord(*row[:6], file_ids=json.loads(row[6]))


def _fts_query(text: str) -> str:
    """Plain words as an FTS5 query: each term quoted, so user text is never FTS syntax."""
    terms = [t.replace('"', '""') for t in text.split()]
    if not terms:
        raise InvalidArgs("the search query is empty")
    return " ".join(f'"{t}"' for t in terms)


class SqliteConversationStore:
    """The SQLite backend: its own connection to the store's database (WAL, migrated)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = connect(path)
        self.db.row_factory = None  # plain tuples: the assembler's hot path reads 1,000s
        self._lock = threading.RLock()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: the write lock up front, so no read-then-write race."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self.db.execute(sql, params).fetchall()

    # conversations and messages
    def create_conversation(self, session_id: str, title: str | None = None
                            ) -> ConversationRecord:
        now = utcnow()
        with self._tx() as db:
            cid = db.execute(
                "INSERT INTO conversations (session_id, title, created_at, updated_at) "
                "VALUES (?, ?, ?, ?)", (session_id, title, now, now)).lastrowid
        return self.conversation(int(cid or 0))

    def conversation(self, conversation_id: int) -> ConversationRecord:
        rows = self.query("SELECT conversation_id, session_id, title, message_count, created_at,"
                          " updated_at FROM conversations WHERE conversation_id = ?",
                          (conversation_id,))
        if not rows:
            raise NotFound(f"unknown conversation {conversation_id}", kind="conversation")
        return ConversationRecord(*rows[0])

    def conversations(self, session_id: str | None = None) -> list[ConversationRecord]:
        where, params = ("WHERE session_id = ?", (session_id,)) if session_id else ("", ())
        rows = self.query("SELECT conversation_id, session_id, title, message_count, created_at,"
                          f" updated_at FROM conversations {where} ORDER BY conversation_id",
                          params)
        return [ConversationRecord(*r) for r in rows]

    def append_message(self, conversation_id: int, role: str, content: str, token_count: int,
                       parts: list[dict[str, Any]] | None = None) -> MessageRecord:
        """Message, parts and its context item in one transaction: never half-appended."""
        now = utcnow()
        with self._tx() as db:
            row = db.execute(
                "UPDATE conversations SET message_count = message_count + 1, updated_at = ? "
                "WHERE conversation_id = ? RETURNING message_count, session_id",
                (now, conversation_id)).fetchone()
            if row is None:
                raise NotFound(f"unknown conversation {conversation_id}", kind="conversation")
            seq, session_id = row
            mid = db.execute(
                "INSERT INTO messages (conversation_id, seq, role, content, token_count, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (conversation_id, seq, role, content, token_count, now)).lastrowid
            db.execute(
                "INSERT INTO context_items (conversation_id, ordinal, item_type, message_id, "
                "created_at) SELECT ?, COALESCE(MAX(ordinal), -1) + 1, 'message', ?, ? "
                "FROM context_items WHERE conversation_id = ?",
                (conversation_id, mid, now, conversation_id))
            self._insert_parts(db, int(mid or 0), session_id, parts or [])
        return MessageRecord(int(mid or 0), conversation_id, seq, role, content,  # type: ignore[arg-type]
                             token_count, now)

    def create_message_parts(self, message_id: int, parts: list[dict[str, Any]]) -> None:
        with self._tx() as db:
            row = db.execute("SELECT c.session_id FROM messages m JOIN conversations c USING "
                             "(conversation_id) WHERE m.message_id = ?", (message_id,)).fetchone()
            if row is None:
                raise NotFound(f"unknown message msg_{message_id}", kind="message")
            self._insert_parts(db, message_id, row[0], parts)

    @staticmethod
    def _insert_parts(db: sqlite3.Connection, message_id: int, session_id: str,
                      parts: list[dict[str, Any]]) -> None:
        start = db.execute("SELECT COALESCE(MAX(ordinal), -1) + 1 FROM message_parts "
                           "WHERE message_id = ?", (message_id,)).fetchone()[0]
        for offset, part in enumerate(parts):
            kind = part.get("part_type")
            if kind not in PART_TYPES:
                raise InvalidArgs(f"unknown message part type {kind!r}")
            unknown = set(part) - {"part_type", *PART_COLUMNS}
            if unknown:
                raise InvalidArgs(f"unknown message part fields: {', '.join(sorted(unknown))}")
            cols = [c for c in PART_COLUMNS if part.get(c) is not None]
            values = [json.dumps(part[c]) if c in ("tool_input", "patch_files", "metadata")
                      else part[c] for c in cols]
            db.execute(
                f"INSERT INTO message_parts (part_id, message_id, session_id, part_type, ordinal"
                f"{''.join(', ' + c for c in cols)}) VALUES (?, ?, ?, ?, ?"
                f"{', ?' * len(cols)})",
                (f"prt_{secrets.token_hex(8)}", message_id, session_id, kind, start + offset,
                 *values))

    def message_parts(self, message_id: int) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self.db.execute("SELECT * FROM message_parts WHERE message_id = ? "
                                     "ORDER BY ordinal", (message_id,))
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        parts = []
        for row in rows:
            part = {k: v for k, v in zip(names, row, strict=True) if v is not None}
            for key in ("tool_input", "patch_files", "metadata"):
                if key in part:
                    part[key] = json.loads(part[key])
            parts.append(part)
        return parts

    def messages(self, conversation_id: int, ids: list[int] | None = None
                 ) -> list[MessageRecord]:
        if ids is None:
            rows = self.query(f"SELECT {_MESSAGE_COLS} FROM messages WHERE conversation_id = ? "
                              "ORDER BY seq", (conversation_id,))
        else:
            marks = ",".join("?" * len(ids))
            rows = self.query(f"SELECT {_MESSAGE_COLS} FROM messages WHERE conversation_id = ? "
                              f"AND message_id IN ({marks}) ORDER BY seq",
                              (conversation_id, *ids))
        return [_message(r) for r in rows]

    def get_context_items(self, conversation_id: int, *, with_content: bool = True
                          ) -> list[ContextItem]:
        """Active items in order; without content, message texts are left empty (summaries
        keep theirs) so a turn reads only the texts it will send (`message_contents`)."""
        text = "COALESCE(m.content, s.content, '')" if with_content else "COALESCE(s.content, '')"
        rows = self.query(
            f"SELECT ci.ordinal, ci.item_type, ci.message_id, ci.summary_id, {text}, "
            "COALESCE(m.token_count, s.token_count, 0), "
            "m.role, m.seq, s.kind FROM context_items ci "
            "LEFT JOIN messages m ON m.message_id = ci.message_id "
            "LEFT JOIN summaries s ON s.summary_id = ci.summary_id "
            "WHERE ci.conversation_id = ? ORDER BY ci.ordinal", (conversation_id,))
        return list(map(ContextItem._make, rows))

    def message_contents(self, message_ids: list[int]) -> dict[int, str]:
        if not message_ids:
            return {}
        marks = ",".join("?" * len(message_ids))
        return dict(self.query(f"SELECT message_id, content FROM messages WHERE message_id IN "
                               f"({marks})", tuple(message_ids)))

    # summaries and lineage
    def commit_compaction(self, batch: CompactionBatch) -> SummaryRecord:
        """Summary, lineage, context rewrite and the `compaction` part: all or nothing.

        Raises Conflict when the context items to replace changed since they were read.
        """
        summary_id, now = f"sum_{secrets.token_hex(6)}", utcnow()
        cid = batch.conversation_id
        with self._tx() as db:
            marks = ",".join("?" * len(batch.ordinals))
            current = db.execute(
                f"SELECT ordinal, message_id, summary_id FROM context_items WHERE "
                f"conversation_id = ? AND ordinal IN ({marks}) ORDER BY ordinal",
                (cid, *batch.ordinals)).fetchall()
            expected = batch.message_ids or batch.parent_ids
            found = [r[1] if batch.message_ids else r[2] for r in current]
            if found != expected:
                raise Conflict(f"conversation {cid}: its context changed during compaction; "
                               "retry", conversation_id=cid)
            db.execute(f"INSERT INTO summaries ({_SUMMARY_COLS}) VALUES (?, ?, ?, ?, ?, ?, '[]')",
                       (summary_id, cid, batch.kind, batch.content, batch.token_count, now))
            db.executemany("INSERT INTO summary_messages VALUES (?, ?, ?)",
                           [(summary_id, m, i) for i, m in enumerate(batch.message_ids)])
            db.executemany("INSERT INTO summary_parents VALUES (?, ?, ?)",
                           [(summary_id, p, i) for i, p in enumerate(batch.parent_ids)])
            db.execute(f"DELETE FROM context_items WHERE conversation_id = ? AND ordinal IN "
                       f"({marks})", (cid, *batch.ordinals))
            db.execute("INSERT INTO context_items (conversation_id, ordinal, item_type, "
                       "summary_id, created_at) VALUES (?, ?, 'summary', ?, ?)",
                       (cid, batch.ordinals[0], summary_id, now))
            latest = db.execute("SELECT message_id, c.session_id FROM messages JOIN "
                                "conversations c USING (conversation_id) WHERE conversation_id "
                                "= ? ORDER BY seq DESC LIMIT 1", (cid,)).fetchone()
            self._insert_parts(db, latest[0], latest[1], [{
                "part_type": "compaction", "is_synthetic": 1, "compaction_auto": int(batch.auto),
                "metadata": {**batch.compaction, "summary_id": summary_id, "kind": batch.kind}}])
        return SummaryRecord(summary_id, cid, batch.kind, batch.content, batch.token_count, now)

    def get_summary(self, summary_id: str) -> SummaryRecord | None:
        rows = self.query(f"SELECT {_SUMMARY_COLS} FROM summaries WHERE summary_id = ?",
                          (summary_id,))
        return _summary(rows[0]) if rows else None

    def get_summary_children(self, summary_id: str) -> list[SummaryRecord]:
        """The summaries a condensed summary was made from, oldest first."""
        rows = self.query(
            f"SELECT {', '.join('s.' + c for c in _SUMMARY_COLS.split(', '))} FROM "
            "summary_parents p JOIN summaries s ON s.summary_id = p.parent_summary_id "
            "WHERE p.summary_id = ? ORDER BY p.ordinal", (summary_id,))
        return [_summary(r) for r in rows]

    def get_summary_parent(self, summary_id: str) -> str | None:
        """The condensed summary this one was merged into, if any."""
        rows = self.query("SELECT summary_id FROM summary_parents WHERE parent_summary_id = ?",
                          (summary_id,))
        return rows[0][0] if rows else None

    def get_summary_messages(self, summary_id: str) -> list[MessageRecord]:
        rows = self.query(
            f"SELECT {', '.join('m.' + c for c in _MESSAGE_COLS.split(', '))} FROM "
            "summary_messages sm JOIN messages m ON m.message_id = sm.message_id "
            "WHERE sm.summary_id = ? ORDER BY sm.ordinal", (summary_id,))
        return [_message(r) for r in rows]

    def summaries(self, conversation_id: int) -> list[SummaryRecord]:
        rows = self.query(f"SELECT {_SUMMARY_COLS} FROM summaries WHERE conversation_id = ? "
                          "ORDER BY created_at, rowid", (conversation_id,))
        return [_summary(r) for r in rows]

    # search
    def search_messages(self, conversation_id: int, query: str, limit: int
                        ) -> list[tuple[MessageRecord, str]]:
        rows = self.query(
            f"SELECT {', '.join('m.' + c for c in _MESSAGE_COLS.split(', '))}, "
            "snippet(messages_fts, 0, '[', ']', '…', 16) FROM messages_fts "
            "JOIN messages m ON m.message_id = messages_fts.rowid "
            "WHERE messages_fts MATCH ? AND m.conversation_id = ? "
            "ORDER BY bm25(messages_fts), m.seq LIMIT ?",
            (_fts_query(query), conversation_id, limit))
        return [(_message(r[:7]), r[7]) for r in rows]

    def search_summaries(self, conversation_id: int, query: str, limit: int
                         ) -> list[tuple[SummaryRecord, str]]:
        rows = self.query(
            f"SELECT {', '.join('s.' + c for c in _SUMMARY_COLS.split(', '))}, "
            "snippet(summaries_fts, 0, '[', ']', '…', 16) FROM summaries_fts "
            "JOIN summaries s ON s.rowid = summaries_fts.rowid "
            "WHERE summaries_fts MATCH ? AND s.conversation_id = ? "
            "ORDER BY bm25(summaries_fts), s.created_at LIMIT ?",
            (_fts_query(query), conversation_id, limit))
        return [(_summary(r[:7]), r[7]) for r in rows]

    # the per-conversation lock
    def acquire_lock(self, conversation_id: int, owner: str, ttl_s: float) -> None:
        """Take the conversation's compaction lease or raise a retryable Conflict."""
        now = time.time()
        with self._tx() as db:
            row = db.execute(
                "INSERT INTO lcm_locks VALUES (?, ?, ?) ON CONFLICT (conversation_id) DO UPDATE "
                "SET owner = excluded.owner, expires_at = excluded.expires_at "
                "WHERE lcm_locks.expires_at < ? OR lcm_locks.owner = excluded.owner "
                "RETURNING owner", (conversation_id, owner, now + ttl_s, now)).fetchone()
        if row is None:
            raise Conflict(f"conversation {conversation_id} is being compacted by another "
                           "process; retry shortly", conversation_id=conversation_id)

    def release_lock(self, conversation_id: int, owner: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM lcm_locks WHERE conversation_id = ? AND owner = ?",
                       (conversation_id, owner))

    # large files
    def insert_file(self, record: FileRecord) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO large_files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (record.file_id, record.conversation_id, record.file_name,
                        record.mime_type, record.byte_size, record.storage_uri,
                        record.exploration_summary, record.created_at))

    def get_file(self, file_id: str) -> FileRecord | None:
        rows = self.query("SELECT * FROM large_files WHERE file_id = ?", (file_id,))
        return FileRecord(*rows[0]) if rows else None
