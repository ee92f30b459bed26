"""The count strategy: exact counting by code of what the question names. No model call.

1. The corpus is read as the format it is written in (records and their fields: JSON keys,
   CSV columns, logfmt, syslog, bracketed levels, `Key: value` blocks, or prose items).
2. The plan comes from the question's words only: words that name field values become
   filters ("errors from lab-results" → level=ERROR, service=lab-results), the other content
   words become phrases the records must hold, quoted text is counted as written.
3. Code counts every record (or every occurrence, for "how many times") and, for "which ...
   most/least", counts each value of the ranked field.
4. "counted exactly by code" is said only when the plan is grounded: every content word of
   the question is in it and it matched something. Otherwise the answer says what could not
   be counted, and `extra["computed"]["grounded"]` is false.
"""

from __future__ import annotations

import re

from ...corpus.aggregate import aggregate, format_number
from ...corpus.records import Layout
from ...corpus.tally import FieldFilter, TallyPlan, group_counts, select, split_mentions, tally
from ...types import SpanRef
from ..context import AgentAnswer, RunContext
from ..counting.codes import CodeCount, code_count
from ..counting.join import Join, joined
from ..counting.scope_only import scope_only
from ..counting.sections import ListedCount, listed_count, lists_apply
from ..counting.table_rows import RowCount, RowSum, compared_rows, summed_rows
from ..recursion import RecursionState
from ..routing import CountDraft, count_draft, session_layout

__all__ = ["SAMPLE", "computed", "plan_for", "run"]

SAMPLE = 5
_CITED = 50
"""Records an aggregate cites (every one it used, up to this many)."""
_QUOTED = re.compile(r"\"([^\"]{1,80})\"|'([^']{2,80})'|`([^`]{1,80})`|“([^”]{1,80})”")
_MOST = re.compile(r"\bmost\b", re.IGNORECASE)


def computed(method: str, plan: str, matched: int, grounded: bool, partial: bool = False,
             exact: bool = True) -> dict[str, object]:
    """The record a computed answer carries for the grounding check (`extra["computed"]`);
    `exact` is False when the model judged the items (classify): a total, not a count."""
    return {"method": method, "plan": plan, "matched": matched, "grounded": grounded,
            "partial": partial, "exact": exact and not partial}


def plan_for(question: str, layout: Layout) -> CountDraft:
    """The question's draft, with quoted text counted literally as the question writes it."""
    draft = count_draft(question, layout)
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(question)]
    if quoted:
        inside = {w for q in quoted for w in q.lower().split()}
        draft.plan.phrases = quoted + [p for p in draft.plan.phrases
                                       if not set(p.split()) <= inside]
        draft.unknown = [w for w in draft.unknown if w not in inside]
        draft.plan.every = False
    return draft


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth)
    layout, texts = await session_layout(rc)
    draft = plan_for(question, layout)
    if draft.rank_key is not None:
        return _rank(rc, state, question, layout, draft)
    plan = draft.plan
    summed = summed_rows(question, texts, plan.docs) if draft.aggregate is None else None
    if summed is not None:
        # "the total of the fines ... at Riverside (RIV)" over a report's FINE column.
        return _summed(rc, tier, plan, summed)
    if draft.uncompared:
        # "under £40 a bottle" and no field holds prices: a table's column, or no count.
        rows = None if draft.negated else compared_rows(question, texts, plan.docs)
        return _cells(rc, tier, plan, rows) if rows is not None else _refuse(tier, layout,
                                                                              draft)
    found = (None if draft.negated else code_count(question, layout, texts, plan,
                                                    draft.unknown)) or (
        listed_count(question, texts, plan) if lists_apply(draft) else None)
    if found is not None:
        return _cells(rc, tier, plan, found)
    if draft.unknown or plan.empty or draft.negated:
        return _refuse(tier, layout, draft)
    if draft.aggregate is not None:
        return _aggregate(rc, tier, layout, draft)
    if scope_only(question, plan, layout):
        # No field listing here: the values of unrelated fields are no help to a question
        # whose counted thing the text does not mark.
        text = (f"Not counted: the question names only where ({plan.describe()}), nothing "
                f"of what is counted that the {layout.unit}s mark.")
        return AgentAnswer(text, tier, 0, extra={"count": None, "computed": computed(
            "count", plan.describe(), 0, False)})
    join = joined(question, layout, plan)
    if join is not None:
        return _joined(rc, tier, layout, plan, join)
    split = split_mentions(layout, plan)
    if split:
        # Paragraphs that list several items each: records are not what is counted.
        text = (f"Not counted exactly: {split} paragraph(s) with {plan.describe()} say it on "
                f"several lines, so counting paragraphs would not count what is asked.")
        return AgentAnswer(text, tier, 0, extra={"count": None, "computed": computed(
            "count", plan.describe(), 0, False)})
    hits, total = tally(layout, plan, SAMPLE)
    for hit in hits:
        rc.citations.add(SpanRef(doc_id=hit.doc_id, start=hit.start, end=hit.end))
    unit = "occurrences" if plan.occurrences else f"{layout.unit}s"
    docs = len(layout.formats)
    sample = "\n".join(f"- {h.text[:200]}" for h in hits)
    if total:
        text = (f"{total} — counted exactly by code: {unit} with {plan.describe()} across "
                f"{len(layout.records):,} {layout.unit}s in {docs} document(s)."
                + (f"\nSample:\n{sample}" if sample else ""))
    else:
        text = (f"Not found: no {layout.unit} of the {len(layout.records):,} in {docs} "
                f"document(s) has {plan.describe()} (counted by code).")
    return AgentAnswer(text, tier, 0, extra={
        "count": total, "plan": plan.model_dump(),
        "computed": computed("count", plan.describe(), total, total > 0)})


def _cells(rc: RunContext, tier: object, plan: TallyPlan,
           found: CodeCount | ListedCount | RowCount) -> AgentAnswer:
    """A count of what the text writes without a record per thing: the cells holding a
    key's code, the items listed under a heading."""
    spans = found.rows if isinstance(found, CodeCount | RowCount) else [
        (found.doc_id, found.start, found.end)]
    for doc_id, start, end in spans[:_CITED]:
        rc.citations.add(SpanRef(doc_id=doc_id, start=start, end=end))
    text = f"{found.total} — counted exactly by code: {found.describe()}."
    return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
        "count": found.total, "plan": plan.model_dump(),
        "computed": computed("count", found.describe(), found.total, True)})


def _summed(rc: RunContext, tier: object, plan: TallyPlan, found: RowSum) -> AgentAnswer:
    """A table column summed over the rows the question's words choose."""
    for doc_id, start, end in found.rows[:_CITED]:
        rc.citations.add(SpanRef(doc_id=doc_id, start=start, end=end))
    text = f"{format_number(found.value)} — computed exactly by code: {found.describe()}."
    return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
        "value": found.value, "plan": plan.model_dump(), "field": found.column,
        "operation": "sum", "computed": computed("sum", found.describe(), len(found.rows),
                                                 True)})


def _joined(rc: RunContext, tier: object, layout: Layout, plan: TallyPlan, join: Join
            ) -> AgentAnswer:
    """The noun's records counted through the records the plan selects."""
    described = join.describe(plan)
    for record in join.records[:_CITED]:
        rc.citations.add(SpanRef(doc_id=record.doc_id, start=record.start, end=record.end))
    total = len(join.records)
    shown = "\n".join(f"- {r.text[:200]}" for r in join.records[:SAMPLE])
    text = (f"{total} — counted exactly by code: {described}.\nSample:\n{shown}" if total else
            f"Not found: no {described} (counted by code).")
    return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
        "count": total, "plan": plan.model_dump(), "join": join.key,
        "computed": computed("count", described, total, total > 0)})


def _aggregate(rc: RunContext, tier: object, layout: Layout, draft: CountDraft) -> AgentAnswer:
    """A sum/average of the named numeric field over the records the plan selects."""
    agg = draft.aggregate
    assert agg is not None
    plan = draft.plan
    value, used, skipped = aggregate(select(layout.records, plan), agg.key, agg.op)
    described = f"{agg.op} of {agg.key} over {layout.unit}s with {plan.describe()}"
    if value is None:
        text = (f"Not found: no {layout.unit} with {plan.describe()} has a number in "
                f"{agg.key} (computed by code).")
        return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
            "computed": computed(agg.op, described, 0, False)})
    for record in used[:_CITED]:
        rc.citations.add(SpanRef(doc_id=record.doc_id, start=record.start, end=record.end))
    shown = "\n".join(f"- {r.text[:200]}" for r in used[:SAMPLE])
    note = f"; {skipped} selected without a number there" if skipped else ""
    text = (f"{format_number(value)} — computed exactly by code: the {described} "
            f"({len(used)} {layout.unit}s{note}).\nFrom:\n{shown}")
    return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
        "value": value, "plan": plan.model_dump(), "field": agg.key, "operation": agg.op,
        "computed": computed(agg.op, described, len(used), True)})


def _refuse(tier: object, layout: Layout, draft: CountDraft) -> AgentAnswer:
    """No exact count: the question asks for something no field or phrase of the text says."""
    fields = ", ".join(f"{k} ({', '.join(sorted(v)[:4])})" for k, v in layout.fields.items()
                       if 1 < len(v) <= 40) or "none"
    why = (
        "a negated condition names nothing the text marks" if draft.negated else
        "no field or table column holds the number compared" if draft.uncompared else
        f"no {layout.unit} says {' '.join(draft.unknown)!r} literally" if draft.unknown else
        "the question names nothing the text marks")
    text = (f"Not counted: {why}. Fields in the text: {fields}. Ask with the words the text "
            "uses, or use the classify strategy to have each item judged.")
    return AgentAnswer(text, tier, 0, extra={  # type: ignore[arg-type]
        "count": None, "computed": computed("count", draft.plan.describe(), 0, False)})


def _rank(rc: RunContext, state: RecursionState, question: str, layout: Layout,
          draft: CountDraft) -> AgentAnswer:
    """Count every value of the ranked field under the other filters, rank in code."""
    key = draft.rank_key or ""
    rest: TallyPlan = draft.plan.model_copy(update={"every": True})
    counts = group_counts(layout.records, rest, key)
    offered = draft.offered if len(draft.offered) >= 2 else list(counts)
    most = bool(_MOST.search(question))
    ranked = sorted(offered, key=lambda v: counts.get(v, 0), reverse=most)
    tier = rc.tier(state.depth)
    plan = f"{rest.describe()}, per {key}"
    if not ranked or not any(counts.get(v, 0) for v in ranked):
        return AgentAnswer(f"Not found: no {layout.unit} has {rest.describe()} with a {key}.",
                           tier, 0, extra={"computed": computed("count", plan, 0, False)})
    for value in ranked[:5]:  # cite one record of each value compared
        one = rest.model_copy(update={"filters": [*rest.filters,
                                                  FieldFilter(field=key, value=value)]})
        hits, _ = tally(layout, one, 1)
        for hit in hits:
            rc.citations.add(SpanRef(doc_id=hit.doc_id, start=hit.start, end=hit.end))
    listing = ", ".join(f"{v}: {counts.get(v, 0)}" for v in ranked)
    matched = sum(counts.get(v, 0) for v in ranked)
    text = f"{ranked[0]} — counted exactly by code per {key} ({listing})."
    return AgentAnswer(text, tier, 0, extra={
        "counts": {v: counts.get(v, 0) for v in ranked}, "field": key,
        "plan": rest.model_dump(), "computed": computed("count", plan, matched, True)})

