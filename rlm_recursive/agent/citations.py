"""Citations: every span a run read, merged per document, with checksums that can be verified."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from ..corpus.chunking import cut_at_breaks
from ..errors import InvalidArgs
from ..store import Store
from ..tools.spec import ToolContext, ToolSpec
from ..types import SpanRef, ToolResult, text_checksum

__all__ = ["CITATION_TOOLS", "Citation", "CitationLog", "verify_citation"]


_SEED_FIELDS = frozenset({"session_id", "doc_index", "start_char", "end_char"})
_WHERE_FIELDS = frozenset({"page", "line"})


class Citation(BaseModel):
    """A span that was read, and the checksum of its text: "sha256:" + sha256(NFC(text))."""

    model_config = ConfigDict(extra="forbid")

    doc_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    checksum: str
    source: str | None = None
    page: int | None = Field(None, ge=1, description="PDF: the page the span starts on")
    line: int | None = Field(None, ge=1, description="Other formats: the line it starts on")
    # The seed's SpanRef fields (003 §9.1), alongside the ones above.
    session_id: str | None = None
    doc_index: int | None = None
    start_char: int | None = None
    end_char: int | None = None

    @model_serializer(mode="wrap")
    def _drop_unset_seed_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A citation made without the seed's fields serialises as before they existed; it
        carries `page` (paged formats) or `line` (the others), not both."""
        data = handler(self)
        return {k: v for k, v in data.items()
                if v is not None or k not in _SEED_FIELDS | _WHERE_FIELDS}


class CitationLog:
    """Shared by the whole recursion tree; the registry adds every span a tool showed."""

    def __init__(self) -> None:
        self._ranges: dict[str, list[tuple[int, int]]] = defaultdict(list)

    def add(self, ref: SpanRef) -> None:
        if ref.end > ref.start:
            self._ranges[ref.doc_id].append((ref.start, ref.end))

    def __len__(self) -> int:
        return sum(len(r) for r in self._ranges.values())

    def merged(self) -> list[SpanRef]:
        """Overlapping or touching ranges of a document become one."""
        out = []
        for doc_id, ranges in self._ranges.items():
            current: list[int] | None = None
            for start, end in sorted(ranges):
                if current is not None and start <= current[1]:
                    current[1] = max(current[1], end)
                    continue
                if current is not None:
                    out.append(SpanRef(doc_id=doc_id, start=current[0], end=current[1]))
                current = [start, end]
            if current is not None:
                out.append(SpanRef(doc_id=doc_id, start=current[0], end=current[1]))
        return out

    def citations(self, store: Store, session_id: str) -> list[Citation]:
        cited = []
        merged = self.merged()
        index = {d.id: i for i, d in enumerate(store.documents(session_id))} if merged else {}
        for ref in self._one_page_each(store, merged):
            doc = store.document(session_id, ref.doc_id)
            text = store.text(doc)[ref.start : ref.end]
            cited.append(Citation(doc_id=ref.doc_id, start=ref.start, end=ref.end,
                                  checksum=text_checksum(text), source=doc.source,
                                  **store.locate(doc, ref.start),
                                  session_id=session_id, doc_index=index.get(ref.doc_id),
                                  start_char=ref.start, end_char=ref.end))
        return cited


    @staticmethod
    def _one_page_each(store: Store, refs: list[SpanRef]) -> list[SpanRef]:
        """Merged ranges cut again where a page starts: each citation names one page."""
        out = []
        for ref in refs:
            breaks = store.parses.info(ref.doc_id).page_breaks()
            out.extend(SpanRef(doc_id=ref.doc_id, start=start, end=end)
                       for start, end in cut_at_breaks([(ref.start, ref.end)], breaks))
        return out


def verify_citation(store: Store, session_id: str, citation: Citation) -> dict[str, object]:
    """Recompute the checksum from the stored text: `{valid, text}`."""
    doc = store.document(session_id, citation.doc_id)
    if citation.end > doc.length_chars or citation.start > citation.end:
        raise InvalidArgs(f"citation [{citation.start}, {citation.end}) is outside document "
                          f"{doc.id} (length {doc.length_chars})")
    text = store.text(doc)[citation.start : citation.end]
    return {"valid": text_checksum(text) == citation.checksum, "text": text}


class VerifyArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    doc_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    checksum: str = Field(description='"sha256:<hex>" as given in the citation')
    source: str | None = Field(None, description="Ignored: lets a citation be passed as is")
    page: int | None = Field(None, description="Ignored, as source")
    line: int | None = Field(None, description="Ignored, as source")
    doc_index: int | None = Field(None, description="Ignored, as source")
    start_char: int | None = Field(None, description="Ignored, as source")
    end_char: int | None = Field(None, description="Ignored, as source")


def _verify(ctx: ToolContext, args: VerifyArgs) -> ToolResult:
    citation = Citation(doc_id=args.doc_id, start=args.start, end=args.end,
                        checksum=args.checksum)
    return ToolResult(output=verify_citation(ctx.store, ctx.require_session(), citation))


CITATION_TOOLS = [
    ToolSpec("rlm_citation_verify",
             "Check a citation: recompute the checksum of doc_id[start:end] and return whether "
             "it matches, with the text.", VerifyArgs, _verify),
]
