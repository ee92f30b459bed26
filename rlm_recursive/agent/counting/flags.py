"""Yes/no fields: a log's `QSL_SENT` (Y or N), a register's `Paid` (yes/no), a JSON export's
`"refunded": true`. A question that says the field's words ("for how many QSOs has a QSL
been sent", "how many orders were refunded") asks for the records whose flag is set; with a
negation among or just before those words ("has not been sent", "weren't refunded"), for
those whose flag is clear. The flag's value is a condition, not a word to find in the text
(no record writes "sent" there: it writes Y).
"""

from __future__ import annotations

from ...corpus.glossary import glossed
from ...corpus.records import Layout
from ...corpus.tally import FieldFilter
from ...corpus.word_stems import stems
from .plan_words import negation_words

__all__ = ["flag_terms"]

_YES = frozenset({"y", "yes", "true", "t", "ja", "j", "oui", "si", "sí", "sim", "tak", "kyllä"})
_NO = frozenset({"n", "no", "false", "f", "nej", "nein", "non", "nee", "nei", "não", "nie",
                 "ei"})
_FLAG_SHARE = 0.9
"""Share of a field's values that must be yes or no for it to be a flag."""
_SPREAD = 4
"""Words the question may set between a flag's name's words ("QSL been sent")."""
_NEGATION_REACH = 3


def _flags(layout: Layout) -> dict[str, tuple[str | None, str | None]]:
    """Each flag field with the yes and the no value its records write."""
    out = {}
    for key, values in layout.fields.items():
        total = sum(values.values())
        lowered = {v: v.strip().lower() for v in values}
        flagged = sum(n for v, n in values.items() if lowered[v] in _YES | _NO)
        if total < 2 or flagged < _FLAG_SHARE * total:
            continue
        yes = next((v for v in values if lowered[v] in _YES), None)
        no = next((v for v in values if lowered[v] in _NO), None)
        out[key] = (yes, no)
    return out


def _said_at(name: list[str], q_stems: list[str]) -> list[int] | None:
    """Where the question says the name's words in order, a few words apart at most."""
    for start, word in enumerate(q_stems):
        if word != name[0]:
            continue
        at, last = [start], start
        for part in name[1:]:
            nxt = next((i for i in range(last + 1, min(last + 1 + _SPREAD, len(q_stems)))
                        if q_stems[i] == part), None)
            if nxt is None:
                break
            at.append(nxt)
            last = nxt
        if len(at) == len(name):
            return at
    return None


def flag_terms(question: str, layout: Layout) -> tuple[list[FieldFilter], set[int]]:
    """The flag fields the question names, each with the value it asks (set, or clear when
    negated), and the positions of the name's words."""
    q_stems = stems(question)
    negated = negation_words(question)
    found: list[FieldFilter] = []
    at: set[int] = set()
    for key, (yes, no) in _flags(layout).items():
        name = stems(key)
        if len(name) < 2:
            # A one-word flag ("Paid", "Betalt") asked set is a value the readers match
            # already; asked clear ("hadn't paid yet"), it is its "no", not a blank.
            meant = set(name) | glossed(name, stems)
            hit = next((i for i, w in enumerate(q_stems) if w in meant), None)
            if hit is not None and no is not None and set(
                    range(max(0, hit - _NEGATION_REACH), hit + 1)) & negated:
                found.append(FieldFilter(field=key, value=no))
                at.add(hit)
            continue
        said = _said_at(name, q_stems)
        if said is None:
            continue
        reach = set(range(max(0, said[0] - _NEGATION_REACH), said[-1] + 1))
        value = no if reach & negated else yes
        if value is None:
            continue
        found.append(FieldFilter(field=key, value=value))
        at |= set(said)
    return found, at
