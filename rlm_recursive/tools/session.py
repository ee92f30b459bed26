"""Session tools: create, info, close."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..config import MAX_CHARS_LIMIT, MAX_TOOL_CALLS_LIMIT, SessionConfig
from ..types import ToolResult
from .spec import ToolContext, ToolSpec

__all__ = ["SESSION_TOOLS"]


class CreateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="Human-readable session name")
    max_tool_calls: int = Field(500, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    max_chars_per_response: int = Field(50_000, ge=100, le=MAX_CHARS_LIMIT)
    max_chars_per_peek: int = Field(10_000, ge=100, le=MAX_CHARS_LIMIT)
    chunk_cache_enabled: bool = True


class SessionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str


async def create(ctx: ToolContext, args: CreateArgs) -> ToolResult:
    config = SessionConfig(**args.model_dump(exclude={"name"}))
    return ToolResult(output=ctx.store.create_session(args.name, config))


async def info(ctx: ToolContext, args: SessionArgs) -> ToolResult:
    row = ctx.store.session(args.session_id)
    config = ctx.store.session_config(args.session_id)
    stats = ctx.store.session_stats(args.session_id)
    index = ctx.store.indexes.get(args.session_id)
    return ToolResult(output={
        "session_id": row["id"],
        "name": row["name"],
        "status": row["status"],
        "created_at": row["created_at"],
        "closed_at": row["closed_at"],
        "document_count": stats["documents"],
        "total_chars": stats["total_chars"],
        "total_tokens_est": stats["total_tokens_est"],
        "tool_calls_used": row["tool_calls_used"],
        "tool_calls_remaining": max(config.max_tool_calls - row["tool_calls_used"], 0),
        "index_built": index is not None and index.version == row["docs_version"],
        "config": config.model_dump(),
    })


async def close(ctx: ToolContext, args: SessionArgs) -> ToolResult:
    closed_at = ctx.store.close_session(args.session_id)
    stats = ctx.store.session_stats(args.session_id)
    used = ctx.store.session(args.session_id)["tool_calls_used"]
    return ToolResult(output={
        "session_id": args.session_id,
        "status": "completed",
        "closed_at": closed_at,
        "summary": {"documents": stats["documents"], "spans": stats["spans"],
                    "artifacts": stats["artifacts"], "tool_calls": used},
    })


SESSION_TOOLS = [
    ToolSpec("rlm_session_create", "Create a new RLM session to load documents into.",
             CreateArgs, create),
    ToolSpec("rlm_session_info", "Session statistics, configuration and remaining tool budget.",
             SessionArgs, info),
    ToolSpec("rlm_session_close", "Mark a session completed and summarise what it holds.",
             SessionArgs, close),
]
