"""The count strategy: exact counting of what the text marks. The model never tallies.

1. The model turns the question into a pattern through a constrained JSON schema: a literal
   or regex, plus field filters whose fields and values are the ones the corpus marks.
2. The plan is grounded: a filter must name a value the question says, a pattern must occur
   in the question; filters the question names that the model left out are added.
3. Code counts every match in every document of the session with the scan engine, and, for
   "which ... most/least", counts each offered value of the field and ranks them.
4. The answer names the count and the plan, and cites a sample of the matches.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from typing import Any

from ...corpus.counting import (
    CountPlan,
    FieldFilter,
    count_plan,
    field_values,
    ground_filters,
    group_by,
)
from ...types import SpanRef
from ..context import AgentAnswer, RunContext
from ..recursion import RecursionState
from .structured import ask_json

__all__ = ["countable", "rank_field", "run"]

SAMPLE = 5
_MAX_ENUM = 40
_QUOTED = re.compile(r"\"([^\"]{1,80})\"|'([^']{1,80})'|`([^`]{1,80})`")
_RANK = re.compile(r"\b(most|least|fewest)\b", re.IGNORECASE)
_PLAN_SYSTEM = ("You turn a counting question into a search pattern. Choose the field "
                "filters the question asks for (field and value as the text writes them), "
                "and a text pattern only for words that must appear in a counted line.")


def _docs(rc: RunContext) -> list[tuple[str, str]]:
    return [(doc.id, rc.store.text(doc)) for doc in rc.store.documents(rc.session_id)]


def _schema(fields: dict[str, Counter[str]]) -> dict[str, Any]:
    options = [{"type": "object", "properties": {
        "field": {"type": "string", "enum": [key]},
        "value": {"type": "string", "enum": sorted(values)}}, "required": ["field", "value"]}
        for key, values in fields.items() if 1 < len(values) <= _MAX_ENUM]
    item = ({"anyOf": options} if len(options) > 1 else options[0]) if options else {
        "type": "object", "properties": {"field": {"type": "string"},
                                         "value": {"type": "string"}},
        "required": ["field", "value"]}
    return {"type": "object", "properties": {
        "filters": {"type": "array", "items": item, "maxItems": 4},
        "pattern": {"type": "string", "maxLength": 80},
        "regex": {"type": "boolean"}}, "required": ["filters", "pattern", "regex"]}


def _in_question(text: str, question: str) -> bool:
    return bool(text) and re.search(r"(?<!\w)" + re.escape(text) + r"(?!\w)", question,
                                    re.IGNORECASE) is not None


def ground(proposal: dict[str, Any] | None, question: str,
           fields: dict[str, Counter[str]]) -> CountPlan:
    """Keep what the question supports of the model's plan; add filters it left out."""
    grounded = {f.field: f for f in ground_filters(question, fields)}
    filters: dict[str, FieldFilter] = {}
    pattern, is_regex = "", False
    if proposal:
        for raw in proposal.get("filters") or []:
            if not isinstance(raw, dict):
                continue
            key, value = str(raw.get("field", "")), str(raw.get("value", ""))
            if value in fields.get(key, {}) and _in_question(value, question):
                filters.setdefault(key, FieldFilter(field=key, value=value))
        raw_pattern = str(proposal.get("pattern") or "").strip()
        if raw_pattern and _in_question(raw_pattern, question) and not any(
                raw_pattern.lower() == f.value.lower() for f in grounded.values()):
            pattern, is_regex = raw_pattern, False  # a literal the question itself says
    for key, flt in grounded.items():
        filters.setdefault(key, flt)
    quoted = [a or b or c for a, b, c in _QUOTED.findall(question)]
    if quoted and not pattern:
        pattern = quoted[0]
    return CountPlan(pattern=pattern, regex=is_regex, filters=list(filters.values()))


def rank_field(question: str, fields: dict[str, Counter[str]]) -> str | None:
    """The field whose values a "which is most/least ..." question offers (two or more)."""
    if not _RANK.search(question):
        return None
    best, named = None, 1
    for key, values in fields.items():
        hits = sum(_in_question(v, question) for v in values)
        if hits > named:
            best, named = key, hits
    return best


async def countable(rc: RunContext, question: str) -> bool:
    """Whether the question names something the text marks (so code can count it)."""
    docs = await asyncio.to_thread(_docs, rc)  # the whole corpus, read from disk
    fields = await asyncio.to_thread(field_values, (text for _, text in docs))
    return bool(ground(None, question, fields).filters or _QUOTED.search(question))


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth)
    docs = await asyncio.to_thread(_docs, rc)  # the whole corpus, read from disk
    fields = await asyncio.to_thread(field_values, (text for _, text in docs))
    proposal = await ask_json(
        rc, tier, _PLAN_SYSTEM, f"Question: {question}\nFields in the text: "
        + "; ".join(f"{k} ({', '.join(sorted(v)[:8])})" for k, v in fields.items()
                    if 1 < len(v) <= _MAX_ENUM), "rlm_count_plan", _schema(fields),
        description="The pattern and field filters that select what the question counts.")
    plan = ground(proposal, question, fields)
    key = rank_field(question, fields)
    if key is not None:
        return await _rank(rc, tier, question, docs, plan, key, fields)
    hits, total = await asyncio.to_thread(count_plan, docs, plan, SAMPLE)
    for hit in hits:
        rc.citations.add(SpanRef(doc_id=hit.doc_id, start=hit.start, end=hit.end))
    what = "lines" if plan.filters else "matches"
    sample = "\n".join(f"- {dict(docs)[h.doc_id][h.start:h.end][:200]}" for h in hits)
    text = (f"{total} — counted exactly by code: {what} with {plan.describe()} across "
            f"{len(docs)} document(s)." + (f"\nSample:\n{sample}" if sample else ""))
    return AgentAnswer(text, tier, 1, extra={"count": total, "plan": plan.model_dump()})


async def _rank(rc: RunContext, tier: Any, question: str, docs: list[tuple[str, str]],
                plan: CountPlan, key: str, fields: dict[str, Counter[str]]) -> AgentAnswer:
    """Count every offered value of `key` under the other filters, rank in code."""
    offered = [v for v in fields[key] if _in_question(v, question)]
    rest = plan.model_copy(update={"filters": [f for f in plan.filters if f.field != key]})
    counts = await asyncio.to_thread(group_by, docs, rest, key)
    most = "most" in [w.lower() for w in _RANK.findall(question)]
    ranked = sorted(offered, key=lambda v: counts.get(v, 0), reverse=most)
    for value in offered:  # cite a sample line of each value that was compared
        one = rest.model_copy(update={"filters": [*rest.filters,
                                                  FieldFilter(field=key, value=value)]})
        hits, _ = await asyncio.to_thread(count_plan, docs, one, 1)
        for hit in hits:
            rc.citations.add(SpanRef(doc_id=hit.doc_id, start=hit.start, end=hit.end))
    listing = ", ".join(f"{v}: {counts.get(v, 0)}" for v in ranked)
    text = f"{ranked[0]} — counted exactly by code per {key} ({listing})."
    return AgentAnswer(text, tier, 1, extra={"counts": {v: counts.get(v, 0) for v in ranked},
                                             "plan": rest.model_dump(), "field": key})
