"""Which of several values a line gives is the one asked: the side of a change ("from 2.1.1
to 2.1.2": the new or the old version), a value measured from the entity rather than its own
("Rise of 23 from 0h sample"), and one end of a run ("the last bus", not "the first
journey")."""

from __future__ import annotations

import re

from ...corpus.evidence import contains, entities, normalise

__all__ = ["change_side", "named_as_reference", "other_end"]


_CHANGE = re.compile(r"\bfrom\s+(?:v|version\s+)?(\w[\w.:/-]*?)\s+to\s+(?:v|version\s+)?"
                     r"(\w[\w.:/-]*\w|\w)(?=[\s,;)]|\.?$|\.\s)", re.IGNORECASE)
"""A change from one value to another: "Bump numpy from 2.1.1 to 2.1.2"."""
_NEW_SIDE = re.compile(r"\bto\s+(?:which|what)\b|\b(?:new|newer|now|latest|current)\b",
                       re.IGNORECASE)
_OLD_SIDE = re.compile(r"\bfrom\s+(?:which|what)\b|\b(?:old|older|previous|before|originally|"
                       r"earlier)\b", re.IGNORECASE)
_REFERENCE = re.compile(r"\b(?:from|since|than|vs\.?|versus)\s+(?:the\s+)?$")


def change_side(question: str, answer: str) -> str | None:
    """An answer that names both values of a change ("from 2.1.1 to 2.1.2") names two
    candidates: the one the question picks ("to which version" → 2.1.2, "the old version"
    → 2.1.1), else None (no answer). An answer with no such change comes back whole."""
    change = next((m for m in _CHANGE.finditer(answer)
                   if any(c.isdigit() for c in m.group(1))
                   and any(c.isdigit() for c in m.group(2))), None)
    if change is None:
        return answer
    said = normalise(question)
    if contains(said, normalise(change.group(1))) or contains(said, normalise(change.group(2))):
        return answer  # the question names one side: the answer is about the other
    if _NEW_SIDE.search(question) and not _OLD_SIDE.search(question):
        return change.group(2)
    if _OLD_SIDE.search(question) and not _NEW_SIDE.search(question):
        return change.group(1)
    return None


def named_as_reference(question: str, unit_text: str) -> bool:
    """Each entity the question names is in the unit only as what something is measured
    from ("Rise of 23 ng/L from 0h sample", "up 4 since 2019"): its values are the change,
    not the entity's own."""
    norm = normalise(unit_text)
    named = [e for e in entities(question) if contains(norm, e)]
    if not named:
        return False
    for entity in named:
        spots = [m.start() for m in re.finditer(re.escape(entity), norm)]
        if not all(_REFERENCE.search(norm[max(0, at - 12):at]) for at in spots):
            return False
    return True


_ENDS = (frozenset(("first", "earliest")), frozenset(("last", "final")))


def other_end(question: str, unit_text: str) -> bool:
    """The question asks one end of a run ("the last bus on Saturday") and the unit says
    only the other ("the first Saturday journey"): it is about another item of the run."""
    asked = set(re.findall(r"[a-z]+", question.lower()))
    said = set(re.findall(r"[a-z]+", unit_text.lower()))
    return any(asked & one and not asked & other and said & other and not said & one
               for one, other in (_ENDS, _ENDS[::-1]))
