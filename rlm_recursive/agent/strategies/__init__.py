"""Answering strategies, one module each: `async def run(rc, state, question) -> AgentAnswer`.

The model drives the tools (agent) or writes code (repl); for small models that cannot, the
runtime drives (search, map-reduce, iterative, count, classify). A new strategy is a module
plus one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
import re
from typing import Literal, Protocol

from ...errors import InvalidArgs
from ..context import AgentAnswer, RunContext
from ..recursion import RecursionState, Tier

__all__ = ["STRATEGIES", "Strategy", "StrategyModule", "choose_strategy", "is_computing",
           "pick_strategy", "question_shape", "run_strategy"]

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


_COMPUTING = re.compile(
    r"\b(how many|how often|count|number of|total|sum|average|mean|median|percent(age)?|"
    r"per (day|hour|service|user|file|document)|each|every|all (the )?\w+ (that|which|with)|"
    r"list all|most (common|frequent)|least|distinct|unique|frequency|pairs?)\b", re.I)
"""Questions that compute over the corpus (count, aggregate, enumerate): code is exact there,
and one-shot retrieval is not (issue 9: 0/5 on counting log lines by retrieval)."""


def is_computing(question: str) -> bool:
    """Does the question ask to count, aggregate or enumerate over the corpus?"""
    return bool(_COMPUTING.search(question))


_COUNT_CUE = re.compile(r"\b(how many|number of|how often|count)\b"
                        r"|\b(most|least)\s+(frequent|common|often)\b"
                        r"|\bwhich\b.*\b(most|least|fewest)\b", re.IGNORECASE)
_SUMMARY_CUE = re.compile(r"\b(summari[sz]e|summary|overview|main (themes|points|topics))\b",
                          re.IGNORECASE)
_PICK_SYSTEM = ("Choose how to answer a question about a large text. search: look up one "
                "fact. iterative: chain look-ups, when the answer depends on another fact "
                "found first. count: count or rank what the text marks. map-reduce: "
                "summarise the whole text.")


def question_shape(question: str) -> list[str]:
    """The runtime strategies a question's wording fits, best first (a heuristic).

    "how many / most frequent" → count (the caller turns it into classify when the text
    marks nothing to count), a relative clause → iterative, "summarise" → map-reduce,
    otherwise a single look-up (search or iterative).
    """
    from .iterative import expected_hops

    shape = []
    if _COUNT_CUE.search(question):
        shape.append("count")
    if expected_hops(question) > 1 and not shape:
        shape.append("iterative")
    if _SUMMARY_CUE.search(question):
        shape.append("map-reduce")
    return shape or ["search", "iterative"]


def choose_strategy(requested: str, tier: Tier, question: str = "") -> str:
    """auto without asking a model. Capable models write code (repl) when the question
    computes over the corpus, else drive the tools (agent); small ones get the runtime
    strategy the question's shape fits."""
    if requested != "auto":
        return requested
    if tier.info.is_small:
        return question_shape(question)[0]
    return "repl" if is_computing(question) else "agent"


async def pick_strategy(rc: RunContext, requested: str, tier: Tier, question: str) -> str:
    """auto: a small model picks from the strategies the question's shape allows, through a
    constrained JSON choice; the heuristic order is the fallback. Capable models: repl or agent."""
    if requested != "auto" or not tier.info.is_small:
        return choose_strategy(requested, tier, question)
    from .count import countable  # strategy modules load on first use
    from .structured import ask_json

    shape = question_shape(question)
    if "count" in shape:
        counted = "count" if await countable(rc, question) else "classify"
        shape = [counted if s == "count" else s for s in shape]
    if len(shape) == 1:
        return shape[0]
    reply = await ask_json(rc, tier, _PICK_SYSTEM, f"Question: {question}", "rlm_strategy",
                           {"type": "object", "properties": {
                               "strategy": {"type": "string", "enum": shape}},
                            "required": ["strategy"]},
                           description="The strategy to answer with.", cacheable=True)
    chosen = (reply or {}).get("strategy")
    return chosen if chosen in shape else shape[0]


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
