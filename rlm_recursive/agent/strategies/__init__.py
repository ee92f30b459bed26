"""Answering strategies, one module each: `async def run(rc, state, question) -> AgentAnswer`.

The model drives the tools (agent) or writes code (repl); for small models that cannot, the
runtime drives (search, map-reduce). A new strategy is a module plus one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
import re
from typing import Literal, Protocol

from ...errors import InvalidArgs
from ..context import AgentAnswer, RunContext
from ..recursion import RecursionState, Tier

__all__ = ["STRATEGIES", "Strategy", "StrategyModule", "choose_strategy", "is_computing",
           "run_strategy"]

Strategy = Literal["agent", "search", "map-reduce", "repl", "auto"]
STRATEGIES: tuple[str, ...] = ("agent", "search", "map-reduce", "repl", "auto")

_MODULES: dict[str, str] = {
    "agent": "agent",
    "search": "search",
    "map-reduce": "map_reduce",
    "repl": "repl",
}
"""Strategy name → module in this package (imported on first use)."""


class StrategyModule(Protocol):
    async def run(self, rc: RunContext, state: RecursionState, question: str) -> AgentAnswer: ...


_COMPUTING = re.compile(
    r"\b(how many|how often|count|number of|total|sum|average|mean|median|percent(age)?|"
    r"per (day|hour|service|user|file|document)|each|every|all (the )?\w+ (that|which|with)|"
    r"list all|most (common|frequent)|least|distinct|unique|frequency|pairs?)\b", re.I)
"""Questions that compute over the corpus (count, aggregate, enumerate): code is exact there,
and one-shot retrieval is not (issue 9: 0/5 on counting log lines by retrieval)."""


def is_computing(question: str) -> bool:
    """Does the question ask to count, aggregate or enumerate over the corpus?"""
    return bool(_COMPUTING.search(question))


def choose_strategy(requested: str, tier: Tier, question: str = "") -> str:
    """auto: search for small models; for capable ones, repl when the question computes over
    the corpus, else the agent loop."""
    if requested != "auto":
        return requested
    if tier.info.is_small:
        return "search"
    return "repl" if is_computing(question) else "agent"


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
