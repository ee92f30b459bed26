"""Document tools: load, list, peek."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..corpus.loaders import Source, load_sources
from ..errors import FileTooLarge, InvalidArgs
from ..store import Document
from ..types import SpanRef, ToolResult, sha256_hex, text_checksum
from .spec import ToolContext, ToolSpec

__all__ = ["DOCS_TOOLS", "span_dict"]


def span_dict(doc_id: str, start: int, end: int) -> dict[str, int | str]:
    return {"doc_id": doc_id, "start": start, "end": end}


class LoadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    sources: list[Source] = Field(min_length=1)
    ocr: bool | None = Field(
        None, description="Read image-only PDF pages with OCR: default on when the engine "
        "(tesseract) is installed; false turns it off")


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    limit: int = Field(100, ge=1, le=10_000)
    offset: int = Field(0, ge=0, le=2**62)  # SQLite's OFFSET is a signed 64-bit integer


class PeekArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    doc_id: str = Field(description="Document id from the document list")
    start: int = Field(0, ge=0, description="First character offset")
    end: int = Field(-1, ge=-1, description="End offset (exclusive); -1 for the end")
    page: int | None = Field(None, ge=1, le=1_000_000,
                             description="PDF page; start/end count from its start")


def _check_inline(sources: list[Source], cap: int) -> None:
    """Inline text obeys the per-file cap a file would: the client sent it, not a disk."""
    for i, source in enumerate(sources):
        if source.type != "inline" or not source.content:
            continue
        # Characters bound bytes from below, so most oversized texts need no encoding pass.
        size = len(source.content)
        if size <= cap:
            size = len(source.content.encode("utf-8", "surrogatepass"))
        if size > cap:
            raise FileTooLarge(
                f"inline source {i} ({source.name or 'unnamed'}) is over the {cap:,}-byte "
                f"per-document limit of this profile and session; load it from a file or "
                f"split it", max_bytes=cap)


def load(ctx: ToolContext, args: LoadArgs) -> ToolResult:
    session_id = ctx.require_session()
    ctx.store.session(session_id)
    config = ctx.config
    cap = config.max_file_bytes if ctx.policy.max_bytes is None else min(
        config.max_file_bytes, ctx.policy.max_bytes)
    _check_inline(args.sources, cap)
    # Blocking (files, a process pool): the registry runs this handler in a worker thread.
    report = load_sources(ctx.store, session_id, args.sources, ctx.policy, config,
                          progress=ctx.extras.get("progress"), ocr=args.ocr)
    output = report.to_dict()
    # For the audit record: the raw bytes read (a PDF's, not its text's).
    return ToolResult(output=output, bytes_read=report.bytes_read)


def list_docs(ctx: ToolContext, args: ListArgs) -> ToolResult:
    session_id = ctx.require_session()
    total = ctx.store.session_stats(session_id)["documents"]
    docs = ctx.store.documents(session_id, args.limit, args.offset)
    counts = {row[0]: row[1] for row in ctx.store.sql.query(
        "SELECT s.doc_id, COUNT(*) FROM spans s JOIN documents d ON d.id = s.doc_id "
        "WHERE d.session_id = ? GROUP BY s.doc_id", (session_id,))}
    return ToolResult(output={
        "documents": [
            {"doc_id": d.id, "content_hash": d.content_hash, "source": d.source,
             "length_chars": d.length_chars, "length_tokens_est": d.length_tokens_est,
             "span_count": counts.get(d.id, 0), **_parse_fields(ctx, d.id)}
            for d in docs
        ],
        "total": total,
        "has_more": args.offset + len(docs) < total,
    })


def _parse_fields(ctx: ToolContext, doc_id: str) -> dict[str, object]:
    """Format, and pages for a paged one: a model reads this list, so it stays short."""
    info = ctx.store.parses.info(doc_id)
    return {"format": info.format, **({"pages": info.page_count} if info.page_count else {})}


def _peek_range(ctx: ToolContext, doc: Document, args: PeekArgs) -> tuple[int, int]:
    """[start, end) in the document; with `page`, offsets count from that page's start."""
    low, high = 0, doc.length_chars
    if args.page is not None:
        info = ctx.store.parses.info(doc.id)
        if not info.page_count:
            raise InvalidArgs(f"document {doc.id} ({doc.source}) has no pages; peek by "
                              "offsets instead")
        if args.page > info.page_count:
            raise InvalidArgs(f"document {doc.id} has {info.page_count} pages; there is no "
                              f"page {args.page}")
        low, high = info.page_range(args.page)
    start = low + args.start
    end = high if args.end == -1 else min(low + args.end, high)
    if start > end:
        raise InvalidArgs(f"start {args.start} is after end {end - low} (length "
                          f"{high - low})")
    return start, end


def peek(ctx: ToolContext, args: PeekArgs) -> ToolResult:
    session_id = ctx.require_session()
    doc = ctx.store.document(session_id, args.doc_id)
    start, end = _peek_range(ctx, doc, args)
    limit = ctx.config.max_chars_per_peek
    truncated = end - start > limit
    end = min(end, start + limit)
    content = ctx.store.text(doc)[start : end]
    return ToolResult(
        output={
            "content": content,
            "span": span_dict(doc.id, start, end),
            "source": doc.source,
            **ctx.store.locate(doc, start),
            "content_hash": sha256_hex(content.encode("utf-8")),
            # The one checksum format (citations, REPL spans): "sha256:" over NFC text.
            # content_hash (plain hex of the bytes) stays for existing clients.
            "checksum": text_checksum(content),
            "truncated": truncated,
            "total_length": doc.length_chars,
        },
        read_spans=[SpanRef(doc_id=doc.id, start=start, end=end)],
    )


DOCS_TOOLS = [
    ToolSpec("rlm_docs_load",
             "Load files, directories, globs or inline text into a session.", LoadArgs, load),
    ToolSpec("rlm_docs_list",
             "List the loaded documents: doc_id, source, format, pages, length in characters "
             "and tokens.",
             ListArgs, list_docs, model_facing=True),
    ToolSpec("rlm_docs_peek",
             "Read characters [start, end) of one document (or of a PDF page). Long ranges are "
             "truncated; read large documents piece by piece or search them first.",
             PeekArgs, peek, model_facing=True),
]
