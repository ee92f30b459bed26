"""Artifact tools: store derived results with provenance, list and fetch them."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..store.db import utcnow
from ..types import SpanRef, ToolResult
from .docs import span_dict
from .spec import ToolContext, ToolSpec

__all__ = ["ARTIFACT_TOOLS"]


class StoreArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    type: str = Field("custom", description="summary, extraction, classification or custom")
    content: Any = Field(description="The artifact: text or a JSON object")
    span_id: str | None = Field(None, description="The span it was derived from, if any")
    doc_id: str | None = Field(None, description="Or: a document and a range within it")
    start: int | None = Field(None, ge=0)
    end: int | None = Field(None, ge=0)
    model: str | None = None
    prompt_hash: str | None = None

    @model_validator(mode="after")
    def _one_anchor(self) -> StoreArgs:
        if self.span_id and self.doc_id:
            raise ValueError("give span_id or doc_id/start/end, not both")
        if self.doc_id and (self.start is None or self.end is None):
            raise ValueError("doc_id needs start and end")
        return self


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    span_id: str | None = None
    type: str | None = None


class GetArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    artifact_id: str


def store(ctx: ToolContext, args: StoreArgs) -> ToolResult:
    session_id = ctx.require_session()
    span_id = args.span_id or None  # "" means no span, as clients send for "not set"
    if span_id:
        ctx.store.span(session_id, span_id)
    elif args.doc_id:
        ref = SpanRef(doc_id=args.doc_id, start=args.start or 0, end=args.end or 0)
        span_id = ctx.store.ensure_span(session_id, ref).id
    provenance = {"tool": "rlm_artifact_store", "model": args.model,
                  "prompt_hash": args.prompt_hash, "timestamp": utcnow()}
    artifact_id = ctx.store.add_artifact(session_id, span_id, args.type, args.content, provenance)
    return ToolResult(output={"artifact_id": artifact_id, "span_id": span_id})


def list_artifacts(ctx: ToolContext, args: ListArgs) -> ToolResult:
    rows = ctx.store.artifacts(ctx.require_session(), args.span_id, args.type)
    return ToolResult(output={"artifacts": [
        {"artifact_id": r["id"], "span_id": r["span_id"], "type": r["type"],
         "created_at": r["created_at"]} for r in rows]})


def get(ctx: ToolContext, args: GetArgs) -> ToolResult:
    session_id = ctx.require_session()
    row = ctx.store.artifact(session_id, args.artifact_id)
    span = ctx.store.span(session_id, row["span_id"]) if row["span_id"] else None
    content, truncated = _capped(json.loads(row["content"]), ctx.config.max_chars_per_response)
    return ToolResult(output={
        "artifact_id": row["id"],
        "span_id": row["span_id"],
        "span": span_dict(span.doc_id, span.start, span.end) if span else None,
        "type": row["type"],
        "content": content,
        "truncated": truncated,
        "provenance": json.loads(row["provenance"]),
        "created_at": row["created_at"],
    })


def _capped(content: Any, limit: int) -> tuple[Any, bool]:
    """The session's per-response cap: long text is cut; a long JSON value comes back as its
    JSON text, cut (a partial object cannot be represented)."""
    if isinstance(content, str):
        return content[:limit], len(content) > limit
    text = json.dumps(content, ensure_ascii=False)
    if len(text) <= limit:
        return content, False
    return text[:limit], True


ARTIFACT_TOOLS = [
    ToolSpec("rlm_artifact_store",
             "Save an intermediate result (a summary, an extraction) so it is not lost, "
             "optionally tied to a span_id or a doc_id with start and end.",
             StoreArgs, store, model_facing=True),
    ToolSpec("rlm_artifact_list", "List stored artifacts, optionally by span or type.",
             ListArgs, list_artifacts),
    ToolSpec("rlm_artifact_get", "Fetch one stored artifact with its provenance.",
             GetArgs, get),
]
