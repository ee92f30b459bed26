"""The re-ask of grounding: the model is shown the cited passages that best match the
question and told to quote; its reply is read back as a quote (or none)."""

from __future__ import annotations

import re

from ..corpus.evidence import Unit, best_units
from ..errors import BudgetExceeded, ModelError
from ..providers.base import Message
from .context import AgentAnswer, RunContext
from .model_call import call_model, window_chars

__all__ = ["quoted_reply", "reask"]

_REASK_SYSTEM = (
    "Answer the question by quoting the passages below. Copy the exact words of the "
    "sentence that answers it, including the name the question asks about. If no passage "
    "answers the question, reply exactly: NOT FOUND")
_REASK_TOKENS = 160


async def reask(rc: RunContext, answer: AgentAnswer, question: str, units: list[Unit]
                ) -> str | None:
    """Ask once more with the passages that best match the question, to quote from."""
    tier = answer.tier
    budget = min(window_chars(tier, _REASK_TOKENS) - len(question) - len(_REASK_SYSTEM) - 200,
                 rc.settings.max_excerpt_chars)
    passages: list[str] = []
    for _, unit in best_units(question, units, 12, strict=False):
        text = unit.text.strip()
        if len(text) > budget:
            continue
        budget -= len(text) + 8
        passages.append(text)
    if not passages:
        return None
    body = "\n".join(f"[{i + 1}] {p}" for i, p in enumerate(passages))
    messages = [Message(role="system", content=_REASK_SYSTEM),
                Message(role="user", content=f"Passages:\n{body}\n\nQuestion: {question}\n"
                                             "Quote:")]
    try:
        result = await call_model(rc, tier, messages, [], max_tokens=_REASK_TOKENS)
    except (BudgetExceeded, ModelError):
        return None  # the run's budget is spent, or the passages do not fit: quote instead
    return quoted_reply(result.text)


def quoted_reply(text: str) -> str | None:
    """The quote in a re-ask's reply: "[2] The code is ..." quotes passage 2; "[1] ...\n[2]
    ..." copies the list back, which answers nothing (its lines are in the text all the
    same); None for that and for "NOT FOUND"."""
    text = text.strip().strip('"').strip()
    if not text or "NOT FOUND" in text.upper():
        return None
    text = _PASSAGE_MARK.sub("", text, count=1).strip()
    return None if _PASSAGE_MARK.search(text) else text


_PASSAGE_MARK = re.compile(r"(?:^|(?<=\n))\s*\[\d{1,2}\]\s*")


