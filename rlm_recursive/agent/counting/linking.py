"""The question's own verb between what is counted and its condition ("deliveries that ended
with status=bounced", "rooms graded Poor", "matches finished as a draw"): the verb links the
counted things to the condition that follows it; it is not a second thing each record must
say. Kept as a phrase, it made an exact count of the few records that say the verb's stem
by chance ("end of DATA" in one bounce of four).
"""

from __future__ import annotations

from ...corpus.records import Layout
from ...corpus.tally import TallyPlan, select
from ...corpus.word_stems import phrase_regex, words

__all__ = ["linking_verbs_dropped"]

_LINKS = frozenset("with as at in on by to into".split())
"""A preposition the verb may take before its condition ("ended with", "marked as")."""
_COPULA = frozenset("is are was were be been being".split())


def _linking(ws: list[str], i: int, conditions: set[int], phrase_at: set[int]) -> bool:
    """After a copula, a word before any condition ("are graded Fair"); else a past form
    before a field's value or a comparison ("ended with status=bounced"), never before a
    phrase: "damaged parcels" is an adjective of what is counted."""
    if i > 0 and ws[i - 1] in _COPULA and len(ws[i]) > 3:
        return _condition_after(ws, i, (conditions | phrase_at) - {i})
    return len(ws[i]) > 4 and ws[i].endswith("ed") and _condition_after(ws, i, conditions)


def _condition_after(ws: list[str], i: int, conditions: set[int]) -> bool:
    """The word right after the verb, past one preposition, begins a condition."""
    j = i + 1
    if j < len(ws) and ws[j] in _LINKS:
        j += 1
    return j in conditions


def linking_verbs_dropped(plan: TallyPlan, question: str, layout: Layout,
                          conditions: set[int], compared: set[int]) -> list[str]:
    """The plan's phrases without the question's linking verb: a one-word phrase that is a
    verb of the question, directly before another condition (positions `conditions`: field
    values, comparisons, the other phrases), dropped when the rest of the plan is grounded
    (it selects at least two records) and the verb is said by fewer than half of them: the
    records do not write it, so it is how the question joins its words, not a condition.
    A verb most of them write is kept: it may be what sets some apart. Any word right
    before a comparison (`compared`: "run longer than 45 minutes") is its verb."""
    ws = words(question)
    phrase_at = {i for p in plan.phrases for i, w in enumerate(ws) if w in words(p)}
    linking = [p for p in plan.phrases if len(words(p)) == 1 and any(
        w == p and (_linking(ws, i, conditions, phrase_at) or i + 1 in compared)
        for i, w in enumerate(ws))]
    kept = list(plan.phrases)
    for verb in linking:
        rest = plan.model_copy(update={"phrases": [p for p in kept if p != verb]})
        if rest.empty:
            continue
        chosen = list(select(layout.records, rest))
        pattern = phrase_regex(verb)
        saying = sum(bool(pattern.search(r.text)) for r in chosen)
        if len(chosen) >= 2 and 2 * saying < len(chosen):
            kept = rest.phrases
    return kept
