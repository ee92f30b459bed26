"""Whether one unit itself says what a question asks of it: how many of the question's
words it must hold (`needed`, `need_words`), the words of a name as the record writes it that
are no asked words (`name_words`), a rank said by the line (`says_rank`), and what a line named
only by its document's top must say itself (`says_asked_itself`)."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from .asked import asked_phrase
from .naming import contains, described, names
from .units import Unit, has_word, shared_words, stems

__all__ = ["asked_beside_name", "name_words", "need_words", "needed", "says_asked_itself",
           "says_rank"]

_TOPIC_SHARE = 0.6
"""Of the question's words (entities aside) the answer's unit must hold, as extraction does."""


def needed(topic: int, named: bool) -> int:
    """How many of the question's other words the answer's unit must hold: 60 %, one fewer
    beside a named entity (it pins the unit down); with no entity named, every word but one
    of four or more ("the pharmacy line" is not "the prescriptions line")."""
    if not named:
        return topic - 1 if topic >= 4 else topic
    return max(0, math.ceil(_TOPIC_SHARE * topic) - 1)


def need_words(unit: Unit, named: list[str]) -> frozenset[str]:
    """The words a unit is matched on: its heading's too, unless the heading already stands
    for an entity the unit does not name (then the heading's words are that same evidence
    again: "the budget for the Quarry Lane build" is not any line under "Quarry Lane
    build")."""
    if any(not contains(unit.norm, e) for e in named):
        return unit.own_stems
    return unit.stem_set


def name_words(question: str, unit: Unit, named: list[str]) -> set[str]:
    """The question's words around an entity that the unit writes around it too, in the
    same order: part of the name as the record writes it ("energy drink" of "energy drink lot
    7781" beside "Sample: S-26-3303 energy drink lot 7781"), not words of what is asked."""
    asked, said = _WORDS.findall(question.lower()), _WORDS.findall(unit.text.lower())
    out: set[str] = set()
    for entity in named:
        size = len(_WORDS.findall(entity))
        for i in range(len(asked) - size + 1):
            if " ".join(asked[i:i + size]) != entity:
                continue
            for j in range(len(said) - size + 1):
                if said[j:j + size] != asked[i:i + size]:
                    continue
                left = 0
                while i - left > 0 and j - left > 0 and asked[i - left - 1] == said[j - left - 1]:
                    left += 1
                right = 0
                while (i + size + right < len(asked) and j + size + right < len(said)
                       and asked[i + size + right] == said[j + size + right]):
                    right += 1
                out |= {s for w in asked[i - left:i] + asked[i + size:i + size + right]
                        for s in stems(w)}
    return out


_WORDS = re.compile(r"[\w'’/-]+")


def asked_beside_name(question: str, unit: Unit, named: list[str], words: list[str],
                       need: int) -> bool:
    """Of the question's words, those that are not words of the name as the unit writes it
    (`name_words`) must still be shared as `need` says, when two or more are left: "caffeine
    mg/L" is asked of "energy drink lot 7781", and the sample's line says only the name."""
    around = name_words(question, unit, named)
    rest = [w for w in words if w not in around]
    if not around or len(rest) < 2:
        return True
    return len(shared_words(rest, need_words(unit, named))) >= max(
        1, min(need, needed(len(rest), bool(named))))


_SUPERLATIVE = re.compile(
    r"\b(?:strongest|weakest|largest|biggest|smallest|highest|lowest|longest|shortest|oldest|"
    r"youngest|earliest|heaviest|lightest|fastest|slowest|deepest|shallowest|warmest|"
    r"coldest|hottest|busiest|cheapest|dearest|costliest)\b", re.IGNORECASE)
"""A rank among records ("the second-strongest earthquake"): read by comparing them, not off
one line, unless that line says the rank itself ("the largest peak: 3.2 min")."""


def says_rank(question: str, unit: Unit) -> bool:
    """The unit says every superlative the question ranks by (`_SUPERLATIVE`)."""
    return all(has_word(s, unit.stem_set) for m in _SUPERLATIVE.finditer(question)
               for s in stems(m.group()))


def says_asked_itself(question: str, unit: Unit, named: list[str]) -> bool:
    """A unit that names an entity only through its document's title or top fields (the
    well a log's header names) must say every word of what is asked itself: the title pins
    the document down, not the line ("LOG DATE" is no spud date). An entity the question
    names only to describe what it asks about (`naming.described`) must be said by the unit
    itself: under its own heading, the unit is about it, not the thing asked. A rank the
    question asks by must be said too (`says_rank`)."""
    if any(not contains(unit.norm, e) for e in described(question)) or not says_rank(
            question, unit):
        return False
    if not unit.title or all(names(replace(unit, title=""), e) for e in named):
        return True
    return all(has_word(w, unit.own_stems) for w in asked_phrase(question)
               if w not in _KIND_WORDS)


_KIND_WORDS = frozenset(stems("number no code id ref reference value"))
"""Words that say what kind of value is asked, not which: "Meter serial HN-3390127" is the
serial number."""
