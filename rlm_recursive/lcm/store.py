"""ConversationStore: canonical messages and parts, summaries, lineage and active context.

`ConversationStore` is the narrow interface the services use. `SqlConversationStore` holds
the SQL both engines share, written once over a `Connector`; `SqliteConversationStore`
(migration 0005) and `PostgresConversationStore` (seed 002's schema with tsvector, in
`postgres_store.py`) add full-text search, the compaction lock and value conversions.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Protocol

from ..errors import Conflict, InvalidArgs, NotFound
from ..store.connector import Connector, Executor
from ..store.db import utcnow
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

__all__ = ["ConversationStore", "SqlConversationStore"]

_JSON_PART_COLUMNS = ("tool_input", "patch_files", "metadata")
_BOOL_PART_COLUMNS = ("is_ignored", "is_synthetic", "compaction_auto")


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
    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Read-only SQL both engines accept, with `?` placeholders (integrity checks)."""
        ...


_MESSAGE_COLS = "message_id, conversation_id, seq, role, content, token_count, created_at"
_SUMMARY_COLS = "summary_id, conversation_id, kind, content, token_count, created_at, file_ids"
_CONVERSATION_COLS = "conversation_id, session_id, title, message_count, created_at, updated_at"


def _message(row: Any) -> MessageRecord:
    return MessageRecord(*row)


def _prefixed(alias: str, columns: str) -> str:
    return ", ".join(f"{alias}.{c}" for c in columns.split(", "))


class SqlConversationStore:
    """The SQL both backends share, over a connector; subclasses add the engine's parts.

    Hooks: `_param_time` / `_param_json` / `_param_bool` (how a value is sent),
    `_load_json` (how a JSON column comes back), `_lock_conversation` (serialise writers of
    one conversation), `_SUMMARY_ORDER`, full-text search and the compaction lock.
    """

    _SUMMARY_ORDER = "created_at"

    def __init__(self, connector: Connector) -> None:
        self.connector = connector

    def close(self) -> None:
        self.connector.close()

    # engine hooks
    def _param_time(self, iso: str) -> Any:
        return iso

    def _param_json(self, column: str, value: Any) -> Any:
        return json.dumps(value)

    def _param_bool(self, value: Any) -> Any:
        return int(bool(value))

    def _load_json(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def _lock_conversation(self, db: Executor, conversation_id: int) -> None:
        """Writers of one conversation take turns (SQLite's IMMEDIATE transaction already
        serialises all writers)."""

    def _summary(self, row: Any) -> SummaryRecord:
        return SummaryRecord(*row[:6], file_ids=self._load_json(row[6]))

    def _search(self, table: str, alias: str, columns: str, conversation_id: int, query: str,
                limit: int) -> list[Any]:
        """Full-text matches in `table` (as `alias`) of one conversation, best first: the
        `columns` (already prefixed by the alias), then a snippet with hits in [brackets]."""
        raise NotImplementedError

    # search
    def search_messages(self, conversation_id: int, query: str, limit: int
                        ) -> list[tuple[MessageRecord, str]]:
        rows = self._search("messages", "m", _prefixed("m", _MESSAGE_COLS), conversation_id,
                            query, limit)
        return [(_message(r[:7]), r[7]) for r in rows]

    def search_summaries(self, conversation_id: int, query: str, limit: int
                         ) -> list[tuple[SummaryRecord, str]]:
        rows = self._search("summaries", "s", _prefixed("s", _SUMMARY_COLS), conversation_id,
                            query, limit)
        return [(self._summary(r[:7]), r[7]) for r in rows]

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return self.connector.query(sql, params)

    # conversations and messages
    def create_conversation(self, session_id: str, title: str | None = None
                            ) -> ConversationRecord:
        now = self._param_time(utcnow())
        with self.connector.transaction() as db:
            row = db.execute(
                "INSERT INTO conversations (session_id, title, created_at, updated_at) "
                f"VALUES (?, ?, ?, ?) RETURNING {_CONVERSATION_COLS}",
                (session_id, title, now, now)).fetchone()
        return ConversationRecord(*row)

    def conversation(self, conversation_id: int) -> ConversationRecord:
        rows = self.query(f"SELECT {_CONVERSATION_COLS} FROM conversations "
                          "WHERE conversation_id = ?", (conversation_id,))
        if not rows:
            raise NotFound(f"unknown conversation {conversation_id}", kind="conversation")
        return ConversationRecord(*rows[0])

    def conversations(self, session_id: str | None = None) -> list[ConversationRecord]:
        where, params = ("WHERE session_id = ?", (session_id,)) if session_id else ("", ())
        rows = self.query(f"SELECT {_CONVERSATION_COLS} FROM conversations {where} "
                          "ORDER BY conversation_id", params)
        return [ConversationRecord(*r) for r in rows]

    def append_message(self, conversation_id: int, role: str, content: str, token_count: int,
                       parts: list[dict[str, Any]] | None = None) -> MessageRecord:
        """Message, parts and its context item in one transaction: never half-appended."""
        now = self._param_time(utcnow())
        with self.connector.transaction() as db:
            # The counter's row lock also orders concurrent appends on PostgreSQL.
            row = db.execute(
                "UPDATE conversations SET message_count = message_count + 1, updated_at = ? "
                "WHERE conversation_id = ? RETURNING message_count, session_id",
                (now, conversation_id)).fetchone()
            if row is None:
                raise NotFound(f"unknown conversation {conversation_id}", kind="conversation")
            seq, session_id = row
            message = db.execute(
                "INSERT INTO messages (conversation_id, seq, role, content, token_count, "
                f"created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING {_MESSAGE_COLS}",
                (conversation_id, seq, role, content, token_count, now)).fetchone()
            db.execute(
                "INSERT INTO context_items (conversation_id, ordinal, item_type, message_id, "
                "created_at) SELECT ?, COALESCE(MAX(ordinal), -1) + 1, 'message', ?, ? "
                "FROM context_items WHERE conversation_id = ?",
                (conversation_id, message[0], now, conversation_id))
            self._insert_parts(db, message[0], session_id, parts or [])
        return _message(message)

    def create_message_parts(self, message_id: int, parts: list[dict[str, Any]]) -> None:
        with self.connector.transaction() as db:
            row = db.execute("SELECT c.conversation_id, c.session_id FROM messages m JOIN "
                             "conversations c ON c.conversation_id = m.conversation_id "
                             "WHERE m.message_id = ?", (message_id,)).fetchone()
            if row is None:
                raise NotFound(f"unknown message msg_{message_id}", kind="message")
            self._lock_conversation(db, row[0])
            self._insert_parts(db, message_id, row[1], parts)

    def _insert_parts(self, db: Executor, message_id: int, session_id: str,
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
            values = [self._param_json(c, part[c]) if c in _JSON_PART_COLUMNS
                      else self._param_bool(part[c]) if c in _BOOL_PART_COLUMNS
                      else part[c] for c in cols]
            db.execute(
                f"INSERT INTO message_parts (part_id, message_id, session_id, part_type, ordinal"
                f"{''.join(', ' + c for c in cols)}) VALUES (?, ?, ?, ?, ?"
                f"{', ?' * len(cols)})",
                (f"prt_{secrets.token_hex(8)}", message_id, session_id, kind, start + offset,
                 *values))

    def message_parts(self, message_id: int) -> list[dict[str, Any]]:
        names = ("part_id", "message_id", "session_id", "part_type", "ordinal", *PART_COLUMNS)
        rows = self.query(f"SELECT {', '.join(names)} FROM message_parts WHERE message_id = ? "
                          "ORDER BY ordinal", (message_id,))
        parts = []
        for row in rows:
            part = {k: v for k, v in zip(names, row, strict=True) if v is not None}
            for key in _JSON_PART_COLUMNS:
                if key in part:
                    part[key] = self._load_json(part[key])
            for key in _BOOL_PART_COLUMNS:
                if key in part:
                    part[key] = int(part[key])
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
        summary_id, created = f"sum_{secrets.token_hex(6)}", utcnow()
        now, cid = self._param_time(created), batch.conversation_id
        with self.connector.transaction() as db:
            self._lock_conversation(db, cid)
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
            db.execute(f"INSERT INTO summaries ({_SUMMARY_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (summary_id, cid, batch.kind, batch.content, batch.token_count, now,
                        self._param_json("file_ids", [])))
            db.executemany("INSERT INTO summary_messages VALUES (?, ?, ?)",
                           [(summary_id, m, i) for i, m in enumerate(batch.message_ids)])
            db.executemany("INSERT INTO summary_parents VALUES (?, ?, ?)",
                           [(summary_id, p, i) for i, p in enumerate(batch.parent_ids)])
            db.execute(f"DELETE FROM context_items WHERE conversation_id = ? AND ordinal IN "
                       f"({marks})", (cid, *batch.ordinals))
            db.execute("INSERT INTO context_items (conversation_id, ordinal, item_type, "
                       "summary_id, created_at) VALUES (?, ?, 'summary', ?, ?)",
                       (cid, batch.ordinals[0], summary_id, now))
            latest = db.execute("SELECT m.message_id, c.session_id FROM messages m JOIN "
                                "conversations c ON c.conversation_id = m.conversation_id "
                                "WHERE m.conversation_id = ? ORDER BY m.seq DESC LIMIT 1",
                                (cid,)).fetchone()
            self._insert_parts(db, latest[0], latest[1], [{
                "part_type": "compaction", "is_synthetic": 1, "compaction_auto": int(batch.auto),
                "metadata": {**batch.compaction, "summary_id": summary_id, "kind": batch.kind}}])
        return SummaryRecord(summary_id, cid, batch.kind, batch.content, batch.token_count,
                             created)

    def get_summary(self, summary_id: str) -> SummaryRecord | None:
        rows = self.query(f"SELECT {_SUMMARY_COLS} FROM summaries WHERE summary_id = ?",
                          (summary_id,))
        return self._summary(rows[0]) if rows else None

    def get_summary_children(self, summary_id: str) -> list[SummaryRecord]:
        """The summaries a condensed summary was made from, oldest first."""
        rows = self.query(
            f"SELECT {_prefixed('s', _SUMMARY_COLS)} FROM "
            "summary_parents p JOIN summaries s ON s.summary_id = p.parent_summary_id "
            "WHERE p.summary_id = ? ORDER BY p.ordinal", (summary_id,))
        return [self._summary(r) for r in rows]

    def get_summary_parent(self, summary_id: str) -> str | None:
        """The condensed summary this one was merged into, if any."""
        rows = self.query("SELECT summary_id FROM summary_parents WHERE parent_summary_id = ?",
                          (summary_id,))
        return rows[0][0] if rows else None

    def get_summary_messages(self, summary_id: str) -> list[MessageRecord]:
        rows = self.query(
            f"SELECT {_prefixed('m', _MESSAGE_COLS)} FROM "
            "summary_messages sm JOIN messages m ON m.message_id = sm.message_id "
            "WHERE sm.summary_id = ? ORDER BY sm.ordinal", (summary_id,))
        return [_message(r) for r in rows]

    def summaries(self, conversation_id: int) -> list[SummaryRecord]:
        rows = self.query(f"SELECT {_SUMMARY_COLS} FROM summaries WHERE conversation_id = ? "
                          f"ORDER BY {self._SUMMARY_ORDER}", (conversation_id,))
        return [self._summary(r) for r in rows]

    # large files
    def insert_file(self, record: FileRecord) -> None:
        with self.connector.transaction() as db:
            db.execute("INSERT INTO large_files (file_id, conversation_id, file_name, mime_type, "
                       "byte_size, storage_uri, exploration_summary, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (record.file_id, record.conversation_id, record.file_name,
                        record.mime_type, record.byte_size, record.storage_uri,
                        record.exploration_summary, self._param_time(record.created_at)))

    def get_file(self, file_id: str) -> FileRecord | None:
        rows = self.query("SELECT file_id, conversation_id, file_name, mime_type, byte_size, "
                          "storage_uri, exploration_summary, created_at FROM large_files "
                          "WHERE file_id = ?", (file_id,))
        return FileRecord(*rows[0]) if rows else None
