"""Parse records: the §14 metadata kept beside each document's blob, and where offsets lie.

A document loaded before parse records existed (or inline text) has none: it is plain text,
located by line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

from .connector import Connector, Executor

__all__ = ["ParseInfo", "ParseRecords"]


@dataclass(frozen=True)
class ParseInfo:
    """What the search, citation and listing paths need to know about a document."""

    doc_id: str
    format: str
    parser_version: str | None
    raw_sha256: str | None
    encoding: str | None
    page_count: int | None
    version: int
    previous_doc_id: str | None
    warnings: list[str] = field(default_factory=list)
    page_starts: list[int] = field(default_factory=list)
    """The start offset of each page (empty for formats without pages)."""
    page_ends: list[int] = field(default_factory=list)

    def page_breaks(self) -> list[int]:
        """Offsets where a new page starts (after the first): passages are cut there."""
        return self.page_starts[1:]

    def page_range(self, page: int) -> tuple[int, int]:
        return self.page_starts[page - 1], self.page_ends[page - 1]


_PLAIN = ParseInfo(doc_id="", format="text", parser_version=None, raw_sha256=None,
                   encoding="utf-8", page_count=None, version=1, previous_doc_id=None)


class ParseRecords:
    """The `document_parses` table, with a small cache (documents are immutable)."""

    def __init__(self, sql: Connector) -> None:
        self.sql = sql
        self._cache: LRUCache[str, ParseInfo] = LRUCache(maxsize=4096)

    def record(self, tx: Executor, doc_id: str, session_id: str, source: str,
               meta: dict[str, Any]) -> None:
        """Record a parse, inside the transaction (`tx`) that adds the document.

        The version counts changes of the raw file under one source in one session: the same
        bytes loaded again keep the version, changed bytes make the next one.
        """
        order = "rowid" if self.sql.dialect == "sqlite" else "row_seq"
        before = tx.execute(
            "SELECT d.id, p.raw_sha256, COALESCE(p.version, 1) FROM documents d "
            "LEFT JOIN document_parses p ON p.doc_id = d.id WHERE d.session_id = ? "
            f"AND d.source = ? AND d.id != ? ORDER BY d.{order} DESC LIMIT 1",
            (session_id, source, doc_id)).fetchone()
        version, previous = 1, None
        if before is not None:
            changed = before[1] != meta["raw_sha256"]
            version, previous = before[2] + changed, before[0] if changed else None
        tx.execute(
            "INSERT INTO document_parses (doc_id, format, parser_version, raw_sha256, "
            "encoding, page_count, version, previous_doc_id, warnings, meta) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc_id, meta["format"], meta["parser_version"], meta["raw_sha256"],
             meta.get("encoding"), len(meta["pages"]) or None, version, previous,
             json.dumps(meta.get("warnings") or []), json.dumps(meta)))

    def info(self, doc_id: str) -> ParseInfo:
        cached = self._cache.get(doc_id)
        if cached is not None:
            return cached
        row = self.sql.one(
            "SELECT format, parser_version, raw_sha256, encoding, page_count, version, "
            "previous_doc_id, warnings, meta FROM document_parses WHERE doc_id = ?",
            (doc_id,))
        if row is None:
            info = ParseInfo(**{**_PLAIN.__dict__, "doc_id": doc_id})
        else:
            pages = json.loads(row["meta"]).get("pages") or []
            info = ParseInfo(
                doc_id=doc_id, format=row["format"], parser_version=row["parser_version"],
                raw_sha256=row["raw_sha256"], encoding=row["encoding"],
                page_count=row["page_count"], version=row["version"],
                previous_doc_id=row["previous_doc_id"], warnings=json.loads(row["warnings"]),
                page_starts=[p["start_char"] for p in pages],
                page_ends=[p["end_char"] for p in pages])
        self._cache[doc_id] = info
        return info

    def meta(self, doc_id: str) -> dict[str, Any] | None:
        """The full §14.5 metadata of a parsed document (None for plain and inline text)."""
        row = self.sql.one("SELECT meta FROM document_parses WHERE doc_id = ?", (doc_id,))
        return json.loads(row[0]) if row else None
