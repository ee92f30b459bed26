"""Search tool: BM25 over passages (lazy, persisted index), regex and literal."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import trajectory
from ..corpus.index_cache import content_key, index_folder, sync
from ..corpus.scan import literal_search, regex_search
from ..corpus.search import Hit, PassageIndex
from ..errors import InvalidArgs, Timeout
from ..store import Document, Store
from ..types import SpanRef, ToolResult
from .docs import span_dict
from .spec import ToolContext, ToolSpec

__all__ = ["SEARCH_TOOLS", "search_session"]


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    query: str = Field(min_length=1, description="Words to look for (bm25), a regex, or text")
    method: Literal["bm25", "regex", "literal"] = "bm25"
    doc_ids: list[str] | None = Field(None, description="Only search these documents")
    limit: int = Field(10, ge=1, le=200)
    context_chars: int = Field(200, ge=0, le=5000, description="Characters shown around a match")


@dataclass
class SessionIndex:
    """An open passage index, the session's docs_version it reflects and its content key."""

    index: PassageIndex
    version: int
    docs: dict[str, Document] = field(default_factory=dict)
    key: str = ""
    """`corpus/index_cache.content_key` of the documents the index holds."""

    def close(self) -> None:
        self.index.close()


_OPENING = threading.Lock()
"""Searches run in worker threads: two first searches of a session open one index, not two."""


def _session_index(store: Store, session_id: str) -> tuple[SessionIndex, bool]:
    """The session's index, brought up to date with its documents; True if it changed.

    docs_version (one small query) tells this process that the session changed; the index on
    disk is then checked against the documents' content hashes (`corpus/index_cache.py`):
    another process or machine may have extended it, or it may be stale and rebuilt.
    """
    version = store.docs_version(session_id)
    entry = store.indexes.get(session_id)
    if entry is not None and entry.version == version:
        return entry, False
    if entry is None:
        with _OPENING:
            entry = store.indexes.get(session_id)
            if entry is None:
                folder = index_folder(store.data_dir / "indexes", session_id)
                entry = SessionIndex(PassageIndex(folder), -1)
                store.indexes[session_id] = entry
    listed: dict[str, Document] = {}

    def read_store() -> dict[str, str]:
        listed.clear()
        listed.update((d.id, d) for d in store.documents(session_id))
        return {doc_id: d.content_hash for doc_id, d in listed.items()}

    def documents(ids: Sequence[str]) -> Iterator[tuple[str, str, list[int], str]]:
        return _with_progress(store, [listed[i] for i in ids])

    done, contents = sync(entry.index, read_store, documents)
    # The listing is at least as new as `version` (read first): a later change is seen next.
    entry.docs, entry.key, entry.version = dict(listed), content_key(contents), version
    return entry, done != "current"


def _with_progress(
    store: Store, docs: list[Document]
) -> Iterator[tuple[str, str, list[int], str]]:
    """(doc_id, text, page breaks, content hash), reporting characters indexed to a live
    view if one listens."""
    total, done = sum(d.length_chars for d in docs), 0
    for doc in docs:
        yield doc.id, store.text(doc), store.parses.info(doc.id).page_breaks(), doc.content_hash
        done += doc.length_chars
        trajectory.progress("index", done, total)


def search_session(
    store: Store, session_id: str, query: str, method: str = "bm25",
    doc_ids: list[str] | None = None, limit: int = 10,
) -> tuple[list[Hit], int, bool, dict[str, Document]]:
    """Hits best-first, total matches, whether the index was built now, and the documents."""
    if method == "bm25":
        entry, built = _session_index(store, session_id)
        for doc_id in doc_ids or []:
            if doc_id not in entry.docs:
                store.document(session_id, doc_id)  # raises NotFound
        hits, total = entry.index.search(
            query, limit, doc_ids, text_of=lambda doc_id: store.text(entry.docs[doc_id]))
        return hits, total, built, entry.docs
    docs = {d.id: d for d in store.documents(session_id)}
    chosen = [docs[i] if i in docs else store.document(session_id, i) for i in doc_ids or docs]
    texts = ((d.id, store.text(d)) for d in chosen)
    if method == "regex":
        try:
            hits, total = regex_search(texts, query, limit)
        except Timeout as exc:
            # A runaway pattern is the caller's mistake: it may retry with a simpler one.
            raise InvalidArgs(f"regex search timed out: {exc}; simplify the pattern") from exc
    else:
        hits, total = literal_search(texts, query, limit)
    return hits, total, False, docs


def query(ctx: ToolContext, args: SearchArgs) -> ToolResult:
    session_id = ctx.require_session()
    # An empty filter means no filter, for every method (models send [] for "not set").
    hits, total, built, docs = search_session(
        ctx.store, session_id, args.query, args.method, args.doc_ids or None, args.limit)
    budget, matches, read = ctx.config.max_chars_per_response, [], []
    for hit in hits:
        doc = docs[hit.doc_id]
        text = ctx.store.text(doc)
        where = ctx.store.locate(doc, hit.start)
        low, high = _bounds(ctx, doc.id, where, len(text))
        start, end, hl_end = _window(hit, args.context_chars, low, high, budget,
                                     first=not matches)
        if end - start > budget:
            break
        budget -= end - start
        matches.append({
            "doc_id": hit.doc_id,
            "source": doc.source,
            **where,
            "span": span_dict(hit.doc_id, hit.start, hit.end),
            "span_id": None,
            "score": round(hit.score, 4),
            "context": text[start:end],
            # Where the context starts: an export redacts its secret parts by offset.
            "context_span": span_dict(hit.doc_id, start, end),
            "highlight_start": hit.highlight_start - start,
            "highlight_end": hl_end - start,
        })
        read.append(SpanRef(doc_id=hit.doc_id, start=start, end=end))
    return ToolResult(
        output={"matches": matches, "total_matches": total, "index_built_this_call": built,
                "truncated": len(matches) < len(hits)},
        read_spans=read,
    )


def _bounds(ctx: ToolContext, doc_id: str, where: dict[str, int], length: int
            ) -> tuple[int, int]:
    """The part of the document a match's context may show: its page, or the whole text."""
    if "page" not in where:
        return 0, length
    return ctx.store.parses.info(doc_id).page_range(where["page"])


def _window(
    hit: Hit, context_chars: int, low: int, length: int, budget: int, *, first: bool
) -> tuple[int, int, int]:
    """Context bounds (within [low, length)) and highlight end; the first match is narrowed
    to fit the budget."""
    start = max(hit.highlight_start - context_chars, low)
    end = max(min(hit.highlight_end + context_chars, length), hit.highlight_end)
    if end - start <= budget or not first:
        return start, end, hit.highlight_end
    # A tiny response cap must still show the best match: less context, then less highlight.
    around = max((budget - (hit.highlight_end - hit.highlight_start)) // 2, 0)
    start = max(hit.highlight_start - around, low)
    end = min(hit.highlight_end + around, length, start + budget)
    return start, end, min(hit.highlight_end, end)


SEARCH_TOOLS = [
    ToolSpec("rlm_search_query",
             "Search the loaded documents. method bm25 ranks passages by keywords; regex and "
             "literal find exact matches. Each match gives doc_id, source, page or line, a span "
             "and the surrounding context.",
             SearchArgs, query, model_facing=True),
]
