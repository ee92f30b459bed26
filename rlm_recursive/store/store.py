"""The local store: sessions, documents, spans, artifacts and traces over SQLite + blobs."""

from __future__ import annotations

import json
import math
import os
import secrets
import sqlite3
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import SessionConfig, data_dir_error
from ..errors import BudgetExceeded, InternalError, InvalidArgs, NotFound
from ..types import SpanRef, sha256_hex
from .blobs import blob_store_for
from .connector import Connector, Dialect, SqliteConnector, open_connector
from .db import PRIVATE_FILE, private_dir, utcnow
from .parses import ParseRecords
from .secretspans import artifact_subject, doc_subject, queue_scan
from .tracewriter import TraceWriter, tool_trace

__all__ = ["Document", "Span", "Store", "new_id"]

_ARTIFACT_COLUMNS = "id, session_id, span_id, type, content, provenance, created_at"


def new_id(prefix: str) -> str:
    """Short random ids: small models copy 12 hex digits far more reliably than a UUID."""
    return f"{prefix}_{secrets.token_hex(6)}"


def _tighten(folder: Path) -> None:
    """Make the files directly in a data-dir folder (if it exists) 0600."""
    if not folder.is_dir():
        return
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mode & 0o077:
                os.chmod(entry.path, PRIVATE_FILE)


@dataclass(frozen=True)
class Document:
    id: str
    session_id: str
    content_hash: str
    source: str
    source_type: str
    length_chars: int
    length_tokens_est: int


@dataclass(frozen=True)
class Span:
    id: str
    doc_id: str
    start: int
    end: int
    content_hash: str
    chunk_index: int | None = None

    @property
    def ref(self) -> SpanRef:
        return SpanRef(doc_id=self.doc_id, start=self.start, end=self.end)


class Store:
    """One data dir: `rlm.db`, `blobs/`, `indexes/`, `traces/`.

    `sql` is the store's database: PostgreSQL when `RLM_DATABASE_URL` names one, else the
    data dir's `rlm.db`. Its rows are readable by index and by name (`named_rows`).
    """

    sql: Connector
    dialect: Dialect

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        try:  # a data dir we cannot make private or write (`/proc/self`) is the user's error
            private_dir(data_dir)
            self.sql = open_connector(data_dir / "rlm.db", named_rows=True)
            self.dialect = self.sql.dialect
            self._rowid = "rowid" if self.dialect == "sqlite" else "row_seq"
            """The column that orders rows by insertion."""
            self.blobs = blob_store_for(data_dir)  # RLM_BLOB_URL, else the data dir's blobs/
            private_dir(data_dir / "indexes")  # search indexes hold the documents' vocabulary
            _tighten(data_dir / "traces")  # stores written before files were made 0600
        except (OSError, sqlite3.Error) as exc:
            raise data_dir_error(data_dir, exc) from None
        self.parses = ParseRecords(self.sql)
        """How each document was parsed: format, pages, encoding, version (seed 003 §14)."""
        url = None if self.dialect == "sqlite" else getattr(self.sql, "url", None)
        self.writer = TraceWriter(lambda: open_connector(data_dir / "rlm.db", url))
        """Batched trace and trajectory writes, on a thread of their own."""
        self._configs: dict[str, SessionConfig] = {}
        self._traced_sessions: set[str] = set()
        """Session ids the trace files may be named after (sessions are never deleted)."""
        self.indexes: dict[str, Any] = {}
        """Open search indexes by session id (owned by the search tools)."""

    def close(self) -> None:
        for index in self.indexes.values():
            index.close()
        self.indexes.clear()
        self.writer.close()
        self.sql.close()

    @property
    def db(self) -> sqlite3.Connection:
        """The raw SQLite connection `sql` uses (one view of every transaction), for SQLite
        only work (PRAGMAs, tests). With a database URL there is none: use `sql`."""
        if isinstance(self.sql, SqliteConnector):
            return self.sql.db
        raise InternalError("Store.db is the SQLite connection; on RLM_DATABASE_URL's "
                            "PostgreSQL the store is Store.sql")

    # sessions
    def create_session(self, name: str | None, config: SessionConfig) -> dict[str, Any]:
        session_id, now = new_id("ses"), utcnow()
        self.sql.execute(
            "INSERT INTO sessions (id, name, created_at, config) VALUES (?, ?, ?, ?)",
            (session_id, name, now, config.model_dump_json()),
        )
        return {"session_id": session_id, "created_at": now, "config": config.model_dump()}

    def session(self, session_id: str) -> Any:
        """The session's row (readable by column name); NotFound if there is none."""
        row = self.sql.one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if row is None:
            raise NotFound(f"unknown session {session_id!r}", kind="session")
        return row

    def session_config(self, session_id: str) -> SessionConfig:
        config = self._configs.get(session_id)
        if config is None:
            config = SessionConfig.model_validate_json(self.session(session_id)["config"])
            self._configs[session_id] = config
        return config

    def list_sessions(self) -> list[Any]:
        # Not the hidden sessions a queued load stages its documents in (store/loads.py).
        return self.sql.query("SELECT * FROM sessions WHERE COALESCE(readiness, '') != "
                              "'STAGING' ORDER BY created_at DESC")

    def close_session(self, session_id: str) -> str:
        self.session(session_id)
        now = utcnow()
        self.sql.execute(
            "UPDATE sessions SET status = 'completed', closed_at = ? WHERE id = ?",
            (now, session_id),
        )
        return now

    def count_tool_call(self, session_id: str) -> int:
        """Spend one tool call from the session's budget; returns the number used."""
        max_calls = self.session_config(session_id).max_tool_calls
        row = self.sql.one(
            "UPDATE sessions SET tool_calls_used = tool_calls_used + 1 "
            "WHERE id = ? AND tool_calls_used < ? RETURNING tool_calls_used",
            (session_id, max_calls),
        )
        if row is None:
            self.session(session_id)  # raises NotFound for an unknown session
            raise BudgetExceeded(
                f"session {session_id} has used all {max_calls} tool calls", limit="max_tool_calls"
            )
        return row[0]

    def docs_version(self, session_id: str) -> int:
        return self.session(session_id)["docs_version"]

    # documents
    def add_document(
        self,
        session_id: str,
        data: bytes,
        *,
        length_chars: int,
        source: str,
        source_type: str,
        token_hint: int | None = None,
        metadata: dict[str, Any] | None = None,
        parse_meta: dict[str, Any] | None = None,
    ) -> Document:
        """Store one decoded-valid UTF-8 text; the blob is shared by every session that loads it.

        `parse_meta` (a parser's §14.5 metadata) is kept beside it. A file loaded again under
        the same source gets a new document; when its raw bytes changed, that is a new version
        pointing at the one before (which stays, with its citations).
        """
        content_hash = self.blobs.put(data)
        tokens = token_hint if token_hint is not None else math.ceil(length_chars / 4)
        doc = Document(
            new_id("doc"), session_id, content_hash, source, source_type, length_chars, tokens
        )
        with self.sql.transaction() as tx:
            # First: on PostgreSQL this locks the session's row, so loads into one session
            # from several processes take turns and each sees the documents before it (the
            # parse version below). SQLite's BEGIN IMMEDIATE already serialises them.
            tx.execute(
                "UPDATE sessions SET docs_version = docs_version + 1 WHERE id = ?", (session_id,)
            )
            tx.execute(
                "INSERT INTO documents (id, session_id, content_hash, source, source_type, "
                "length_chars, length_tokens_est, metadata, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (doc.id, session_id, content_hash, source, source_type, length_chars, tokens,
                 json.dumps(metadata or {}), utcnow()))
            if parse_meta is not None:
                self.parses.record(tx, doc.id, session_id, source, parse_meta)
        # Secrets are found once, in the source text, off the load's path (writer thread).
        self.writer.submit(queue_scan(self.blobs, doc_subject(content_hash)))
        return doc

    def locate(self, doc: Document, offset: int) -> dict[str, int]:
        """Where an offset lies: `{"page": n}` in a paged document, else `{"line": n}`."""
        starts = self.parses.info(doc.id).page_starts
        if starts:
            return {"page": max(bisect_right(starts, offset), 1)}
        return {"line": self.text(doc).count("\n", 0, offset) + 1}

    def document(self, session_id: str, doc_id: str) -> Document:
        row = self.sql.one(
            "SELECT id, session_id, content_hash, source, source_type, length_chars, "
            "length_tokens_est FROM documents WHERE id = ? AND session_id = ?",
            (doc_id, session_id),
        )
        if row is None:
            raise NotFound(f"unknown doc_id {doc_id!r} in session {session_id}", kind="document")
        return Document(*row)

    def documents(self, session_id: str, limit: int = -1, offset: int = 0) -> list[Document]:
        """The session's documents in load order; `limit` -1: all of them."""
        no_limit = -1 if self.dialect == "sqlite" else None  # PostgreSQL: LIMIT NULL
        rows = self.sql.query(
            "SELECT id, session_id, content_hash, source, source_type, length_chars, "
            f"length_tokens_est FROM documents WHERE session_id = ? ORDER BY {self._rowid} "
            "LIMIT ? OFFSET ?",
            (session_id, limit if limit >= 0 else no_limit, offset),
        )
        return [Document(*row) for row in rows]

    def text(self, doc: Document) -> str:
        return self.blobs.text(doc.content_hash)

    def session_stats(self, session_id: str) -> dict[str, int]:
        # One statement (one round trip on PostgreSQL, which sums BIGINTs as numeric, loaded
        # as float: ints on both).
        row = self.sql.one(
            "SELECT COUNT(*), COALESCE(SUM(length_chars), 0), COALESCE(SUM(length_tokens_est), 0),"
            " (SELECT COUNT(*) FROM spans JOIN documents d ON d.id = spans.doc_id "
            "WHERE d.session_id = ?), (SELECT COUNT(*) FROM artifacts WHERE session_id = ?) "
            "FROM documents WHERE session_id = ?", (session_id,) * 3)
        return dict(zip(("documents", "total_chars", "total_tokens_est", "spans", "artifacts"),
                        map(int, row), strict=True))

    # spans
    def chunking(self, doc_id: str, strategy_key: str) -> list[Span] | None:
        """The spans of an earlier chunking of this document with this strategy, if any."""
        if not self.sql.one(
            "SELECT 1 FROM chunkings WHERE doc_id = ? AND strategy_key = ?", (doc_id, strategy_key)
        ):
            return None
        rows = self.sql.query(
            "SELECT id, doc_id, start_offset, end_offset, content_hash, chunk_index FROM spans "
            "WHERE doc_id = ? AND strategy_key = ? ORDER BY chunk_index",
            (doc_id, strategy_key),
        )
        return [Span(*row) for row in rows]

    def save_chunking(
        self, doc: Document, strategy_key: str, ranges: list[tuple[int, int]]
    ) -> list[Span]:
        text = self.text(doc)
        spans = [Span(new_id("spn"), doc.id, start, end,
                      sha256_hex(text[start:end].encode("utf-8")), index)
                 for index, (start, end) in enumerate(ranges)]
        with self.sql.transaction() as tx:
            # The chunking's row first: on PostgreSQL it locks, so a second process chunking
            # the same document waits, then detaches this one's spans instead of adding a
            # second set beside them.
            tx.execute(
                "INSERT INTO chunkings (doc_id, strategy_key, total_spans, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (doc_id, strategy_key) DO UPDATE SET "
                "total_spans = excluded.total_spans, created_at = excluded.created_at",
                (doc.id, strategy_key, len(spans), utcnow()),
            )
            # A re-chunking (cache off) detaches the earlier spans instead of deleting them:
            # their ids were handed out and artifacts may cite them.
            tx.execute(
                "UPDATE spans SET strategy_key = NULL WHERE doc_id = ? AND strategy_key = ?",
                (doc.id, strategy_key),
            )
            tx.executemany(
                "INSERT INTO spans (id, doc_id, start_offset, end_offset, strategy_key, "
                "chunk_index, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (s.id, s.doc_id, s.start, s.end, strategy_key, s.chunk_index, s.content_hash)
                    for s in spans
                ],
            )
        return spans

    def span(self, session_id: str, span_id: str) -> Span:
        row = self.sql.one(
            "SELECT s.id, s.doc_id, s.start_offset, s.end_offset, s.content_hash, s.chunk_index "
            "FROM spans s JOIN documents d ON d.id = s.doc_id WHERE s.id = ? AND d.session_id = ?",
            (span_id, session_id),
        )
        if row is None:
            raise NotFound(f"unknown span_id {span_id!r} in session {session_id}", kind="span")
        return Span(*row)

    def ensure_span(self, session_id: str, ref: SpanRef) -> Span:
        """Find or create the free-standing span for an explicit range (artifact provenance)."""
        doc = self.document(session_id, ref.doc_id)
        if not 0 <= ref.start <= ref.end <= doc.length_chars:
            raise InvalidArgs(
                f"span [{ref.start}, {ref.end}) is outside document {doc.id} "
                f"(length {doc.length_chars})"
            )
        row = self.sql.one(
            "SELECT id, doc_id, start_offset, end_offset, content_hash, chunk_index FROM spans "
            "WHERE doc_id = ? AND start_offset = ? AND end_offset = ? AND strategy_key IS NULL",
            (doc.id, ref.start, ref.end),
        )
        if row is not None:
            return Span(*row)
        text = self.text(doc)[ref.start : ref.end]
        span = Span(new_id("spn"), doc.id, ref.start, ref.end, sha256_hex(text.encode("utf-8")))
        self.sql.execute(
            "INSERT INTO spans (id, doc_id, start_offset, end_offset, content_hash) "
            "VALUES (?, ?, ?, ?, ?)",
            (span.id, span.doc_id, span.start, span.end, span.content_hash),
        )
        return span

    # artifacts
    def add_artifact(
        self,
        session_id: str,
        span_id: str | None,
        kind: str,
        content: Any,
        provenance: dict[str, Any],
    ) -> str:
        artifact_id, content_json = new_id("art"), json.dumps(content)
        self.sql.execute(
            f"INSERT INTO artifacts ({_ARTIFACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (artifact_id, session_id, span_id, kind, content_json, json.dumps(provenance),
             utcnow()))
        self.writer.submit(queue_scan(self.blobs, artifact_subject(artifact_id), content_json))
        return artifact_id

    def artifacts(
        self, session_id: str, span_id: str | None = None, kind: str | None = None
    ) -> list[Any]:
        query = f"SELECT {_ARTIFACT_COLUMNS} FROM artifacts WHERE session_id = ?"
        params = [session_id]
        if span_id is not None:
            query, params = query + " AND span_id = ?", [*params, span_id]
        if kind is not None:
            query, params = query + " AND type = ?", [*params, kind]
        return self.sql.query(query + f" ORDER BY created_at, {self._rowid}", tuple(params))

    def artifact(self, session_id: str, artifact_id: str) -> Any:
        row = self.sql.one(
            f"SELECT {_ARTIFACT_COLUMNS} FROM artifacts WHERE id = ? AND session_id = ?",
            (artifact_id, session_id))
        if row is None:
            raise NotFound(f"unknown artifact_id {artifact_id!r}", kind="artifact")
        return row

    # traces
    def execution_session(self, execution_id: str) -> str | None:
        """The session an execution runs over (None if there is no such execution)."""
        row = self.sql.one("SELECT session_id FROM executions WHERE id = ?", (execution_id,))
        return row[0] if row is not None else None

    def trace(
        self,
        session_id: str | None,
        op: str,
        input_: dict[str, Any],
        output: dict[str, Any],
        duration_ms: float,
    ) -> None:
        """Queue one trace record (a table row and a line in the session's JSONL file).

        The writer thread summarises and encodes it: a tool call only pays for the queueing.
        """
        self.writer.submit(tool_trace(self.data_dir, self._traced_sessions, session_id, op,
                                      utcnow(), input_, output, duration_ms))

    def flush(self) -> None:
        """Wait until every queued trace and trajectory record is written."""
        self.writer.flush()
