"""LCM look-back tools: describe an id, grep the conversation, expand a summary.

A model inside a conversation is bound to it (`conversation_id` comes from the context, like
`session_id`); an MCP client names the conversation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidArgs
from ..lcm import Lcm, lcm_for
from ..types import ToolResult
from .spec import ToolContext, ToolSpec

__all__ = ["LCM_TOOLS", "LCM_TOOL_NAMES", "bind_conversation"]


ConversationId = Annotated[int, Field(ge=1, le=2**63 - 1)]
"""A conversation's row id: SQLite integers are 64-bit, so larger ids are refused up front."""


class DescribeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="sum_…, file_… or msg_…")
    conversation_id: ConversationId | None = None


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
    mode: Literal["full_text", "regex"] = "full_text"
    scope: Literal["messages", "summaries", "both"] = "both"
    limit: int = Field(10, ge=1, le=50)
    conversation_id: ConversationId | None = None


class ExpandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    summary_id: str
    depth: int = Field(2, ge=1, le=5)
    include_raw: bool = True
    token_cap: int | None = Field(None, ge=64)
    question: str | None = Field(None, description="Get a short answer, not the text")
    conversation_id: ConversationId | None = None


def bind_conversation(extras: dict[str, Any], lcm: Lcm, conversation_id: int,
                      answerer: Any = None, token_cap: int | None = None) -> dict[str, Any]:
    """Tool-context extras that bind the LCM tools to one conversation (and a sub-model);
    `token_cap` bounds an expansion so its result fits the calling model's window."""
    return {**extras, "lcm": lcm, "conversation_id": conversation_id, "lcm_answerer": answerer,
            "lcm_token_cap": token_cap}


def _lcm(ctx: ToolContext) -> Lcm:
    return ctx.extras.get("lcm") or lcm_for(ctx.store)


def _conversation(ctx: ToolContext, given: int | None) -> int:
    cid = given if given is not None else ctx.extras.get("conversation_id")
    if cid is None:
        raise InvalidArgs("conversation_id is required")
    _lcm(ctx).store.conversation(cid)
    return int(cid)


async def describe(ctx: ToolContext, args: DescribeArgs) -> ToolResult:
    return ToolResult(output=_lcm(ctx).retrieval.describe(args.id))


async def grep(ctx: ToolContext, args: GrepArgs) -> ToolResult:
    cid = _conversation(ctx, args.conversation_id)
    return ToolResult(output=_lcm(ctx).retrieval.grep(cid, args.query, mode=args.mode,
                                                      scope=args.scope, limit=args.limit))


async def expand(ctx: ToolContext, args: ExpandArgs) -> ToolResult:
    retrieval = _lcm(ctx).retrieval
    bound = ctx.extras.get("lcm_token_cap")
    if bound:
        args = args.model_copy(update={"token_cap": min(args.token_cap or bound, bound)})
    if args.question:
        answerer = ctx.extras.get("lcm_answerer")
        if answerer is None:
            raise InvalidArgs("question needs a model: call lcm_expand without it here")
        return ToolResult(output=await retrieval.ask([args.summary_id], args.question, answerer,
                                                     depth=args.depth, token_cap=args.token_cap))
    return ToolResult(output=retrieval.expand(args.summary_id, depth=args.depth,
                                              include_raw=args.include_raw,
                                              token_cap=args.token_cap))


LCM_TOOLS = [
    ToolSpec("lcm_describe", "What an id from earlier in this conversation is: a summary "
             "(lineage, message range), a stored file, or a message.", DescribeArgs, describe,
             model_facing=True),
    ToolSpec("lcm_grep", "Search this conversation's whole history, compacted parts too: "
             "words, or a regex (mode).", GrepArgs, grep, model_facing=True),
    ToolSpec("lcm_expand", "The original messages behind a summary id (sum_…); with question, "
             "a short answer citing message ids.", ExpandArgs, expand, model_facing=True),
]
LCM_TOOL_NAMES = [t.name for t in LCM_TOOLS]
