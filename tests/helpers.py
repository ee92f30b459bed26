"""Assertion helpers shared by the test modules."""

from __future__ import annotations

from typing import Any

from rlm_recursive.tools.names import PINNED_TOOLS
from rlm_recursive.types import ToolResult

# The canonical MCP tool set, pinned once in the package: a rename or a new tool is a visible,
# deliberate change there.
CANONICAL_TOOLS = set(PINNED_TOOLS)


def ok(result: ToolResult) -> dict[str, Any]:
    """The output of a call that must have succeeded."""
    assert not result.is_error, result.output
    return result.output


def error_code(result: ToolResult) -> str:
    """The error code of a call that must have failed with an error result."""
    assert result.is_error, result.output
    assert set(result.output) == {"error", "meta"}
    return result.output["meta"]["error_code"]


def store_rows(data_dir: Any, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Rows of the data dir's store (SQLite, or RLM_DATABASE_URL's PostgreSQL), read by a
    connection of its own: what another process would see."""
    from rlm_recursive.store.connector import open_connector

    connector = open_connector(data_dir / "rlm.db")
    try:
        return connector.query(sql, params)
    finally:
        connector.close()
