"""The tool schemas a model sees, kept terse: small windows need the room for the conversation.

The registry's model rendering is complete; a turn shows only the arguments a model should
choose (the run, not the model, picks providers and tiers) and drops numeric bounds, which
pydantic still enforces when the call arrives.
"""

from __future__ import annotations

from ..types import ToolDef

__all__ = ["terse"]

_MODEL_ARGS: dict[str, tuple[str, ...]] = {
    "rlm_sub_query": ("query", "span_id", "doc_id", "start", "end", "max_depth"),
    "rlm_sub_query_batch": ("query", "span_ids", "doc_ids"),
    "rlm_chunk_create": ("doc_id", "strategy", "chunk_size", "line_count", "delimiter",
                         "offset"),
    "rlm_artifact_store": ("type", "content", "span_id"),
    "rlm_search_query": ("query", "method", "doc_ids", "limit"),
    "rlm_docs_list": ("offset",),
    "lcm_grep": ("query", "mode"),
    "lcm_expand": ("summary_id", "question"),
}
_BOUNDS = ("minimum", "maximum", "minLength", "minItems", "maxLength")


_CACHE: dict[int, tuple[ToolDef, ToolDef]] = {}
"""Registry ToolDefs are rendered once and live as long as it: cache by identity."""


def _terse(tool: ToolDef) -> ToolDef:
    hit = _CACHE.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    keep = _MODEL_ARGS.get(tool.name)
    props = dict(tool.parameters.get("properties", {}))
    if keep is not None:
        props = {k: v for k, v in props.items() if k in keep}
    props = {k: {kk: vv for kk, vv in v.items() if kk not in _BOUNDS} for k, v in props.items()}
    params = {**tool.parameters, "properties": props}
    if "required" in params:
        params["required"] = [r for r in params["required"] if r in props]
    short = ToolDef(name=tool.name, description=tool.description, parameters=params)
    _CACHE[id(tool)] = (tool, short)
    return short


def terse(tools: list[ToolDef]) -> list[ToolDef]:
    """The model-facing list, with only the arguments a model should set."""
    return [_terse(t) for t in tools]
