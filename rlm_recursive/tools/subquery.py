"""Sub-query tools: hand a span to a sub-model (which may get the tools again, to max_depth)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InvalidArgs
from ..types import MODEL_TIERS_HELP, ToolResult
from .spec import ToolContext, ToolSpec

__all__ = ["SUBQUERY_TOOLS", "SubQueryArgs", "SubQueryBatchArgs"]


class _Routing(BaseModel):
    """Which model answers: a tier override (options A and C of the tiering plan)."""

    provider: str | None = Field(None, description="ollama, openai, claude or embedded")
    model: str | None = None
    max_depth: int = Field(0, ge=0, le=5, description="Levels the sub-model may recurse below "
                                                       "itself; 0 = plain completion")
    recursive_provider: str | None = None
    recursive_model: str | None = None
    tier_strategy: str | None = Field(None, description="A preset name from models.toml")
    model_tiers: dict[str, str] | None = Field(None, description=MODEL_TIERS_HELP)


class SubQueryArgs(_Routing):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    query: str = Field(min_length=1, description="The question for the sub-model")
    span_id: str | None = Field(None, description="Give the sub-model this span")
    doc_id: str | None = Field(None, description="Or this document (optionally start/end)")
    start: int | None = Field(None, ge=0)
    end: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_input(self) -> SubQueryArgs:
        if bool(self.span_id) == bool(self.doc_id):
            raise ValueError("give exactly one of span_id or doc_id")
        return self


class SubQueryBatchArgs(_Routing):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    query: str = Field(min_length=1, description="The question, asked of every span")
    span_ids: list[str] = Field(default_factory=list)
    doc_ids: list[str] = Field(default_factory=list)
    concurrency: int = Field(4, ge=1, le=16)

    @model_validator(mode="after")
    def _some_input(self) -> SubQueryBatchArgs:
        if not self.span_ids and not self.doc_ids:
            raise ValueError("give span_ids or doc_ids")
        return self


def _runner(ctx: ToolContext):
    if ctx.sub_query is None:
        raise InvalidArgs("sub-queries need a model runner; none is configured here")
    return ctx.sub_query


def _cap(answer: dict[str, Any], limit: int) -> None:
    """A sub-model's response obeys the session's per-response cap, flagged when cut."""
    response = answer.get("response")
    if isinstance(response, str):
        answer["truncated"] = len(response) > limit
        if answer["truncated"]:
            answer["response"] = response[:limit]
            answer["response_chars"] = len(response)


def _cost(answer: dict[str, Any]) -> float | None:
    cost = (answer.get("usage") or {}).get("cost_usd")
    return cost if isinstance(cost, int | float) else None


async def _single(ctx: ToolContext, args: SubQueryArgs) -> ToolResult:
    result = await _runner(ctx).run(ctx, args)
    _cap(result.output, ctx.config.max_chars_per_response)
    return result.model_copy(update={"model_used": result.output.get("model"),
                                     "cost_usd": _cost(result.output)})


async def _batch(ctx: ToolContext, args: SubQueryBatchArgs) -> ToolResult:
    result = await _runner(ctx).run_batch(ctx, args)
    answers = [a for a in result.output.get("results", []) if isinstance(a, dict)]
    limit = ctx.config.max_chars_per_response
    for answer in answers:
        _cap(answer, limit)
    # One audit record per call: the model when every answer used the same one, the cost summed.
    models = {a["model"] for a in answers if a.get("model")}
    costs = [c for c in map(_cost, answers) if c is not None]
    return result.model_copy(update={
        "model_used": models.pop() if len(models) == 1 else None,
        "cost_usd": round(sum(costs), 6) if costs else None})


SUBQUERY_TOOLS = [
    ToolSpec("rlm_sub_query",
             "Ask a sub-model a question about one span (span_id) or document (doc_id, "
             "optionally start/end). Use it for passages too long to read yourself.",
             SubQueryArgs, _single, model_facing=True),
    ToolSpec("rlm_sub_query_batch",
             "Ask the same question about many spans or documents in parallel.",
             SubQueryBatchArgs, _batch, model_facing=True),
]
