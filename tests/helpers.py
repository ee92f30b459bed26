"""Assertion helpers shared by the test modules."""

from __future__ import annotations

from typing import Any

from rlm_recursive.types import ToolResult

# The canonical MCP tool set, pinned: a rename or a new tool is a visible, deliberate change.
CANONICAL_TOOLS = {
    "rlm_session_create",
    "rlm_session_info",
    "rlm_session_close",
    "rlm_docs_load",
    "rlm_docs_list",
    "rlm_docs_peek",
    "rlm_chunk_create",
    "rlm_span_get",
    "rlm_search_query",
    "rlm_artifact_store",
    "rlm_artifact_list",
    "rlm_artifact_get",
    "rlm_sub_query",
    "rlm_sub_query_batch",
    "rlm_citation_verify",
    "rlm_query",
    "lcm_describe",
    "lcm_grep",
    "lcm_expand",
}


def ok(result: ToolResult) -> dict[str, Any]:
    """The output of a call that must have succeeded."""
    assert not result.is_error, result.output
    return result.output


def error_code(result: ToolResult) -> str:
    """The error code of a call that must have failed with an error result."""
    assert result.is_error, result.output
    assert set(result.output) == {"error", "meta"}
    return result.output["meta"]["error_code"]
