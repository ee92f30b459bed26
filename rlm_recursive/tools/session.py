"""Session tools: create, info, close."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..config import MAX_CHARS_LIMIT, MAX_TOOL_CALLS_LIMIT, SessionConfig
from ..errors import InvalidArgs
from ..store.sessions import close_session
from ..types import ToolResult
from .spec import ToolContext, ToolSpec

__all__ = ["SESSION_TOOLS", "ModelHints"]


class ModelHints(BaseModel):
    """Seed 000 Appendix A: which model the root, the sub-calls and bulk (map) passes use."""

    model_config = ConfigDict(extra="forbid")

    root_model: str | None = Field(None, description="Model for the root (depth 0)")
    subcall_model: str | None = Field(None, description="Model for sub-calls (depth 1)")
    bulk_model: str | None = Field(None, description="Model for bulk map passes (depth 2+)")


class NestedConfig(BaseModel):
    """The seed's nested `config{…}` form of the same limits."""

    model_config = ConfigDict(extra="forbid")

    max_tool_calls: int | None = Field(None, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    max_chars_per_response: int | None = Field(None, ge=100, le=MAX_CHARS_LIMIT)
    max_chars_per_peek: int | None = Field(None, ge=100, le=MAX_CHARS_LIMIT)
    chunk_cache_enabled: bool | None = None
    model_hints: ModelHints | None = None


class CreateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="Human-readable session name")
    max_tool_calls: int = Field(500, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    max_chars_per_response: int = Field(50_000, ge=100, le=MAX_CHARS_LIMIT)
    max_chars_per_peek: int = Field(10_000, ge=100, le=MAX_CHARS_LIMIT)
    chunk_cache_enabled: bool = True
    config: NestedConfig | None = Field(
        None, description="The same limits nested as in the seed: {max_tool_calls, …, "
        "model_hints}; a limit given both flat and nested must agree")
    model_hints: ModelHints | None = Field(
        None, description="Advisory {root_model, subcall_model, bulk_model}; feeds the tier "
        "plan of queries over this session")

    def session_config(self) -> SessionConfig:
        """Flat and nested fields merged; the same limit given twice must agree."""
        values = self.model_dump(include=_LIMITS)
        nested = self.config.model_dump(exclude_none=True) if self.config else {}
        nested_hints = nested.pop("model_hints", None)
        for key, value in nested.items():
            if key in self.model_fields_set and values[key] != value:
                raise InvalidArgs(f"{key} is given flat ({values[key]}) and in config "
                                  f"({value}); give it once")
            values[key] = value
        hints = self.model_hints.model_dump(exclude_none=True) if self.model_hints else None
        if hints and nested_hints and hints != nested_hints:
            raise InvalidArgs("model_hints is given both flat and in config, differently")
        return SessionConfig(**values, model_hints=hints or nested_hints or None)


_LIMITS = {"max_tool_calls", "max_chars_per_response", "max_chars_per_peek",
           "chunk_cache_enabled"}


class SessionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str


def create(ctx: ToolContext, args: CreateArgs) -> ToolResult:
    return ToolResult(output=ctx.store.create_session(args.name, args.session_config()))


def info(ctx: ToolContext, args: SessionArgs) -> ToolResult:
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


def close(ctx: ToolContext, args: SessionArgs) -> ToolResult:
    closed_at = close_session(ctx.store, args.session_id)
    stats = ctx.store.session_stats(args.session_id)
    row = ctx.store.session(args.session_id)
    return ToolResult(output={
        "session_id": args.session_id,
        "status": row["status"],
        "closed_at": closed_at,
        "summary": {"documents": stats["documents"], "spans": stats["spans"],
                    "artifacts": stats["artifacts"], "tool_calls": row["tool_calls_used"]},
    })


SESSION_TOOLS = [
    ToolSpec("rlm_session_create", "Create a new RLM session to load documents into.",
             CreateArgs, create),
    ToolSpec("rlm_session_info", "Session statistics, configuration and remaining tool budget.",
             SessionArgs, info),
    ToolSpec("rlm_session_close",
             "Close a session: it becomes read-only (loads and artifact writes are refused "
             "with session_closed; reads and export still work) and is summarised.",
             SessionArgs, close),
]
