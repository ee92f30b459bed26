"""Answering strategies, one module each: `async def run(rc, state, question) -> AgentAnswer`.

The model drives the tools (agent) or writes code (repl); for small models that cannot, the
runtime drives (search, map-reduce, iterative, count, classify). A new strategy is a module
plus one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
from typing import Literal, Protocol

from ...errors import InvalidArgs
from ..context import AgentAnswer, RunContext
from ..counting.codes import coded_question
from ..counting.sections import listed_question
from ..recursion import RecursionState, Tier
from ..routing import asks_to_aggregate, asks_to_count, route, session_layout

__all__ = ["STRATEGIES", "Strategy", "StrategyModule", "choose_strategy", "is_computing",
           "pick_strategy", "run_strategy"]

Strategy = Literal["agent", "search", "map-reduce", "repl", "iterative", "count", "classify",
                   "auto"]
STRATEGIES: tuple[str, ...] = ("agent", "search", "map-reduce", "repl", "iterative", "count",
                               "classify", "auto")

_MODULES: dict[str, str] = {
    "agent": "agent",
    "search": "search",
    "map-reduce": "map_reduce",
    "repl": "repl",
    "iterative": "iterative",
    "count": "count",
    "classify": "classify",
}
"""Strategy name → module in this package (imported on first use)."""


class StrategyModule(Protocol):
    async def run(self, rc: RunContext, state: RecursionState, question: str) -> AgentAnswer: ...


def is_computing(question: str) -> bool:
    """Does the question count or aggregate over the corpus (not merely say "number" or
    "total": "the account number of Acme", "the total on invoice 7" are look-ups)?"""
    return asks_to_aggregate(question)


def choose_strategy(requested: str, tier: Tier, question: str = "") -> str:
    """auto from the wording alone: capable models write code (repl) when the question
    counts, else drive the tools (agent); small ones get the runtime strategy its structure
    fits (`pick_strategy` also checks the corpus)."""
    if requested != "auto":
        return requested
    if tier.info.is_small:
        return route(question, None)[0]
    return "repl" if is_computing(question) else "agent"


async def pick_strategy(rc: RunContext, requested: str, tier: Tier, question: str) -> str:
    """auto for small models: the question's structure, checked against the session's
    corpus (no model call). A small code model writes REPL code for counts the runtime
    cannot plan exactly; capable models: repl or agent."""
    if requested != "auto" or not tier.info.is_small:
        return choose_strategy(requested, tier, question)
    layout, texts = await session_layout(rc)
    chosen, reason = route(question, layout, [text for _, text in texts])
    counts = chosen != "count" and asks_to_count(question)
    # "how many doses were refused" over a chart writing refusals "R" (its key says so);
    # "how many exit statuses does the page list" over its EXIT STATUS section's items.
    coded = (coded_question(question, layout, texts)
             or listed_question(question, layout, texts)) if counts else None
    if coded is not None:
        chosen, reason = "count", f"counted by code: {coded.describe()}"
    if chosen == "classify" and tier.info.code:
        chosen, reason = "repl", f"{reason}; a code model writes the count"
    if rc.progress is not None:
        rc.progress({"event": "route", "strategy": chosen, "reason": reason})
    return chosen


def strategy_module(name: str) -> StrategyModule:
    module = _MODULES.get(name)
    if module is None:
        raise InvalidArgs(f"unknown strategy {name!r}; use one of {', '.join(STRATEGIES)}")
    return importlib.import_module(f"{__name__}.{module}")  # type: ignore[return-value]


async def run_strategy(
    rc: RunContext, state: RecursionState, strategy: str, question: str,
) -> AgentAnswer:
    """Run the named strategy (not `auto`: resolve it with `choose_strategy` first)."""
    return await strategy_module(strategy).run(rc, state, question)
