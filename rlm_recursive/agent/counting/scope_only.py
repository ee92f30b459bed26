"""A count plan that names only where, not what: "how many of the overheating reports came
from Ireland" planned as "records saying 'ireland'" counts every passage that names the
place (a phone line, a shipping note), not reports. Such a plan is no exact count.

The plan is scope-only when its only conditions are phrases, every phrase is said inside a
prepositional phrase of place, origin or time ("in the Republic of Ireland", "from Leeds",
"during March"), and the counted noun is not what the selected records are: it is neither
the corpus unit ("lines", "entries", the layout's own unit) nor said by every record the
plan selects, and the question names no document (in a named one, "questions from the floor
during the briefing", its items are what is counted, the place their mark). Then the count
strategy refuses rather than count mentions of a place.
"""

from __future__ import annotations

from ...corpus.records import Layout
from ...corpus.tally import TallyPlan, select
from ...corpus.word_stems import phrase_regex, stems, words
from .scope import head_unit, noun_phrase

__all__ = ["scope_only"]

_SCOPE = frozenset("in from at within across throughout near around inside outside during "
                   "since until before after".split())
_REACH = 4
_VERBS = frozenset("is are was were be been has have had do does did and or but that which "
                   "who".split())
_UNITS = frozenset(stems("line lines entry entries record records row rows item items"))


def _in_scope(ws: list[str], at: int) -> bool:
    """Is the word at `at` inside a prepositional phrase of place or time: a preposition
    at most `_REACH` words before it, with only a name's words between ("from the
    Republic of Ireland"), no verb ("in the UK were sold")?"""
    for j in range(at - 1, max(at - _REACH, 0) - 1, -1):
        if ws[j] in _SCOPE:
            return True
        if ws[j] in _VERBS:
            return False
    return False


def _positions(ws: list[str], phrase: str) -> list[int]:
    pw = words(phrase)
    return [i for i in range(len(ws) - len(pw) + 1) if ws[i:i + len(pw)] == pw]


def scope_only(question: str, plan: TallyPlan, layout: Layout) -> bool:
    """Does the plan name only a place or time, and nothing of the thing counted?"""
    if not plan.phrases or plan.docs or (plan.filters or plan.exclude or plan.absent or plan.compare
                            or plan.months or plan.dated or plan.blank or plan.inside
                            or plan.labelled or plan.every):
        return False
    ws = words(question)
    for phrase in plan.phrases:
        at = _positions(ws, phrase)
        if not at or not all(_in_scope(ws, i) for i in at):
            return False
    counted = noun_phrase(question, head_unit(question))
    if not counted:
        return False
    noun = ws[max(counted)]
    if stems(noun) and (stems(noun)[0] in _UNITS or stems(noun) == stems(layout.unit)):
        return False
    said = phrase_regex(noun)
    chosen = list(select(layout.records, plan))
    return not chosen or not all(said.search(r.text) for r in chosen)
