"""The pinned tool names, in one place: the server checks against them, the tests import them.

The seed names tools `rlm.<category>.<action>`; Claude's tool-name rule
`^[a-zA-Z0-9_-]{1,64}$` rejects dots, so every tool is published as `rlm_<category>_<action>`.
A registered name that is not in this list is a drift: a client or the usage skill that calls
the pinned name would silently miss it, so the server refuses to start (`ToolNamingError`)
unless `allow_noncanonical_tool_names` is set.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

from ..errors import ConfigError

__all__ = [
    "ALLOW_NONCANONICAL_ENV",
    "CLAUDE_TOOL_NAME",
    "PINNED_TOOLS",
    "SESSION_WRITE_TOOLS",
    "ToolNamingError",
    "check_tool_names",
]

# A new tool is a deliberate change: add its name here (one line) and the tests follow.
PINNED_TOOLS: tuple[str, ...] = (
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
    "rlm_export_github",
    "rlm_sub_query",
    "rlm_sub_query_batch",
    "rlm_citation_verify",
    "rlm_execution_create",
    "rlm_step_run",
    "rlm_execution_get",
    "rlm_query",
    "lcm_describe",
    "lcm_grep",
    "lcm_expand",
)

SESSION_WRITE_TOOLS = frozenset({"rlm_docs_load", "rlm_artifact_store"})
"""Tools that change a session's content: refused with `session_closed` once it is closed."""

CLAUDE_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ALLOW_NONCANONICAL_ENV = "RLM_ALLOW_NONCANONICAL_TOOL_NAMES"

_warned = False


class ToolNamingError(ConfigError):
    """A registered tool name drifts from the pinned list (strict mode, the default)."""


def check_tool_names(names: Iterable[str], *, allow_noncanonical: bool | None = None) -> None:
    """Raise ToolNamingError for names outside the pinned list; compat mode warns once.

    `allow_noncanonical` None reads `$RLM_ALLOW_NONCANONICAL_TOOL_NAMES` (default false). A
    name Claude would reject is an error in both modes: no client could call it.
    """
    global _warned
    names = list(names)
    invalid = [n for n in names if not CLAUDE_TOOL_NAME.match(n)]
    if invalid:
        raise ToolNamingError(f"tool names {invalid} break the client rule "
                              f"{CLAUDE_TOOL_NAME.pattern} (no dots, at most 64 characters)")
    drifted = sorted(set(names) - set(PINNED_TOOLS))
    if not drifted:
        return
    if allow_noncanonical is None:
        allow_noncanonical = os.environ.get(ALLOW_NONCANONICAL_ENV, "").lower() in (
            "1", "true", "yes")
    if not allow_noncanonical:
        raise ToolNamingError(
            f"tools {drifted} are not in the pinned tool list (rlm_recursive/tools/names.py); "
            f"add them there, or set allow_noncanonical_tool_names "
            f"({ALLOW_NONCANONICAL_ENV}=1) to publish them anyway", key="tool_names")
    if not _warned:
        _warned = True
        print(f"rlm-recursive: warning: publishing non-canonical tool names {drifted}",
              file=sys.stderr)
