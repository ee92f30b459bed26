"""The typed context of one run: what every strategy, the loop and the sub-calls share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..catalog import Catalog
from ..policy import AuditLog, EgressPolicy
from ..store import Store
from ..store.executions import ExecutionStore
from ..tools import Registry, ToolContext
from ..tools.spec import SubQueryRunner
from .budget import Budget
from .citations import CitationLog
from .memory import ConversationMemory
from .pool import ProviderPool
from .recursion import RecursionState, Tier, TierPlan

__all__ = ["AgentAnswer", "RunContext", "RunSettings", "SubQueryFactory"]


@dataclass(frozen=True)
class RunSettings:
    """Every tunable of a run, with its default, in one typed place."""

    timeout_s: float = 180.0
    """Seconds for one model call (the whole run has its own budget, `max_wall_s`)."""
    max_iterations: int = 20
    """Model turns of one tool loop (and of one REPL run)."""
    context_chars: int = 300
    """search strategy: characters read either side of a hit."""
    max_excerpt_chars: int = 2400
    """search strategy: total characters of excerpts shown to the model."""
    concurrency: int = 4
    """Sub-calls in flight at once (map-reduce, llm_query_batched)."""
    max_stdout_chars: int = 4000
    """repl strategy: stdout of one step shown to the model."""
    step_timeout_s: float = 10.0
    """repl strategy: sandbox seconds for one step (model time excluded)."""
    max_memory_bytes: int = 256 * 1024 * 1024
    """repl strategy: sandbox heap."""
    max_recursion_depth: int = 200
    """repl strategy: Python call depth inside the sandbox."""
    max_corrections: int = 3
    """repl strategy: replies without a ```repl block before the run gives up on code."""
    output_mode: Literal["ANSWER", "CONTEXTS"] = "ANSWER"
    """repl strategy: CONTEXTS returns the spans tagged `context` instead of an answer."""
    classify_budget_s: float = 300.0
    """classify strategy: seconds of judging before it returns a partial count."""


SubQueryFactory = Callable[["RunContext", RecursionState], SubQueryRunner]
"""Builds the sub-query runner the tools call, bound to the calling model's depth."""


@dataclass
class RunContext:
    """Everything one recursion tree shares."""

    registry: Registry
    tool_ctx: ToolContext
    plan: TierPlan
    providers: ProviderPool
    catalog: Catalog
    budget: Budget = field(default_factory=Budget)
    citations: CitationLog = field(default_factory=CitationLog)
    egress: EgressPolicy | None = None
    audit: AuditLog | None = None
    model_overridden: bool = False
    plan_offset: int = 0
    """Depth at which `plan` starts: a sub-query with its own tiers re-bases them."""
    settings: RunSettings = field(default_factory=RunSettings)
    cache_store: ExecutionStore | None = None
    """Persists the temperature-0 sub-call cache (SQLite), so a rerun costs no model calls."""
    progress: Callable[[dict[str, Any]], None] | None = None
    """Live events for a surface (a REPL step ran); never required."""
    sub_queries: SubQueryFactory | None = None
    """Set by the query layer, so the loop does not import the sub-query module (a circle)."""
    memory: ConversationMemory | None = None
    """The conversation this run continues (LCM); the root loop assembles its window from it."""

    @property
    def store(self) -> Store:
        return self.tool_ctx.store

    @property
    def session_id(self) -> str:
        return self.tool_ctx.require_session()

    def tier(self, depth: int) -> Tier:
        return self.plan.at(max(depth - self.plan_offset, 0))

    def derive(self, **changes: Any) -> RunContext:
        return replace(self, **changes)

    def with_settings(self, **changes: Any) -> RunContext:
        return replace(self, settings=replace(self.settings, **changes))


@dataclass
class AgentAnswer:
    """What a strategy returns: the answer text, and how the run ended."""

    text: str
    tier: Tier
    iterations: int
    stopped: str = "answer"
    extra: dict[str, Any] = field(default_factory=dict)
    """Strategy-specific results (e.g. the REPL's execution id)."""
