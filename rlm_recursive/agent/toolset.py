"""The full registry: the store tools plus the agent's own (sub-queries, citations, REPL)."""

from __future__ import annotations

from ..tools import CORE_TOOLS, Registry
from ..tools.lcm import LCM_TOOLS
from ..tools.subquery import SUBQUERY_TOOLS
from .citations import CITATION_TOOLS
from .repl.service import ExecutionService, execution_tools

__all__ = ["full_registry"]


def full_registry(executions: ExecutionService | None = None) -> Registry:
    """Every tool; the runtime-mode REPL tools when an execution service is given."""
    extra = execution_tools(executions) if executions is not None else []
    return Registry([*CORE_TOOLS, *SUBQUERY_TOOLS, *CITATION_TOOLS, *LCM_TOOLS, *extra])
