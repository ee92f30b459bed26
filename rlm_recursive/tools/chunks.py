"""Chunk and span tools: cut a document into persisted spans, read spans back."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..corpus.chunking import ChunkStrategy, chunk_ranges, cut_at_breaks
from ..errors import InvalidArgs
from ..types import SpanRef, ToolResult
from .docs import span_dict
from .spec import ToolContext, ToolSpec

__all__ = ["CHUNK_TOOLS"]

_PREVIEW_CHARS = 100


class ChunkArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    doc_id: str
    strategy: Literal["fixed", "lines", "delimiter", "paragraphs"] = "fixed"
    chunk_size: int | None = Field(None, ge=1, description="fixed: characters per chunk")
    line_count: int | None = Field(None, ge=1, description="lines: lines per chunk")
    delimiter: str | None = Field(None, description="delimiter: text (or regex) to cut after")
    regex: bool = Field(False, description="delimiter: treat the delimiter as a regex")
    overlap: int = Field(0, ge=0, description="Units repeated between neighbouring chunks")
    max_chunks: int | None = Field(None, ge=1, description="Return at most this many spans")
    offset: int = Field(0, ge=0, description="List spans from this index on (next_offset)")


class SpanGetArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    span_ids: list[str] = Field(min_length=1, description="Span ids from a chunk listing")


def create(ctx: ToolContext, args: ChunkArgs) -> ToolResult:
    session_id = ctx.require_session()
    doc = ctx.store.document(session_id, args.doc_id)
    try:
        strategy = ChunkStrategy(
            type=args.strategy, chunk_size=args.chunk_size, line_count=args.line_count,
            delimiter=args.delimiter, regex=args.regex, overlap=args.overlap,
            max_chunks=args.max_chunks)
    except ValidationError as exc:
        raise InvalidArgs(f"rlm_chunk_create: {exc.errors(include_url=False)[0]['msg']}") from None
    key = strategy.cache_key()
    spans = ctx.store.chunking(doc.id, key) if ctx.config.chunk_cache_enabled else None
    cached = spans is not None
    if spans is None:
        # Cut at page breaks too: every span lies on one page of a PDF.
        ranges = cut_at_breaks(chunk_ranges(ctx.store.text(doc), strategy),
                               ctx.store.parses.info(doc.id).page_breaks())
        spans = ctx.store.save_chunking(doc, key, ranges)
    total = len(spans)
    if strategy.max_chunks is not None:
        spans = spans[: strategy.max_chunks]
    text, listed, used = ctx.store.text(doc), [], 0
    for span in spans[args.offset :]:
        preview = text[span.start : min(span.end, span.start + _PREVIEW_CHARS)]
        used += len(preview) + 120  # ids and offsets cost characters too
        # At least one span per call, so paging with next_offset always moves on.
        if listed and used > ctx.config.max_chars_per_response:
            break
        listed.append({"span_id": span.id, "index": span.chunk_index,
                       "span": span_dict(doc.id, span.start, span.end),
                       **ctx.store.locate(doc, span.start),
                       "length_chars": span.end - span.start,
                       "content_hash": span.content_hash, "preview": preview})
    listed_to = args.offset + len(listed)
    return ToolResult(output={
        "spans": listed, "total_spans": total, "cached": cached,
        "truncated": listed_to < total,
        "next_offset": listed_to if listed_to < len(spans) else None,
    })


def get(ctx: ToolContext, args: SpanGetArgs) -> ToolResult:
    session_id = ctx.require_session()
    budget, out, read = ctx.config.max_chars_per_response, [], []
    for span_id in args.span_ids:
        span = ctx.store.span(session_id, span_id)
        doc = ctx.store.document(session_id, span.doc_id)
        end = min(span.end, span.start + max(budget, 0))
        content = ctx.store.text(doc)[span.start : end]
        budget -= len(content)
        out.append({"span_id": span.id, "span": span_dict(doc.id, span.start, span.end),
                    "source": doc.source, **ctx.store.locate(doc, span.start),
                    "content": content, "content_hash": span.content_hash,
                    "truncated": end < span.end})
        if content:
            read.append(SpanRef(doc_id=doc.id, start=span.start, end=end))
    return ToolResult(
        output={"spans": out, "total_chars_returned": sum(len(s["content"]) for s in out)},
        read_spans=read,
    )


CHUNK_TOOLS = [
    ToolSpec("rlm_chunk_create",
             "Cut a document into spans: strategy fixed (chunk_size chars), lines (line_count), "
             "delimiter (cut after a delimiter) or paragraphs. Returns span ids with previews; "
             "repeating the same call returns the same spans. A long listing is cut: call "
             "again with offset=next_offset for the rest.",
             ChunkArgs, create, model_facing=True),
    ToolSpec("rlm_span_get",
             "Read the full text of spans by span_id.", SpanGetArgs, get, model_facing=True),
]
