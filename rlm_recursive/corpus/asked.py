"""What a question picks out, beyond its named entities, that the unit holding its answer
must say: the contrast word among siblings ("the east kiln" when the text has the north and
south kilns), the thing asked for ("how many vials", "bleep number"). And the words a
question clips ("erg" for "ergometer"), a hint between equal units.
"""

from __future__ import annotations

import re

from .units import stems

__all__ = ["asked_things", "clipped", "qualifiers", "siblings"]

_CONTRASTS = tuple(frozenset(stems(words)) for words in (
    "north south east west northeast northwest southeast southwest", "upper lower middle",
    "front rear", "inner outer", "indoor outdoor", "full half quarter", "single double triple",
    "junior senior", "adult child", "male female", "summer winter", "upstairs downstairs"))
"""Words that tell siblings apart ("the north kiln", "a half plot", "senior crews"). Words
of time and temperature are left out: "each night", "the warm fridge" say how, not which."""


def qualifiers(question: str, text_stems: frozenset[str]) -> set[str]:
    """The question's words that pick one of several siblings the text has ("east" when it
    has the north and south kilns): the unit holding the answer must say them. A word with
    no sibling in the text is not required (the text may paraphrase it)."""
    asked = set(stems(question))
    out: set[str] = set()
    for words in _CONTRASTS:
        said = words & asked
        if said and (words - said) & text_stems:
            out |= said
    return out


def siblings(question: str, text_stems: frozenset[str]) -> set[str]:
    """The siblings, in the text, of the question's contrast words ("south" for "north")."""
    asked = set(stems(question))
    return {w for words in _CONTRASTS if words & asked for w in (words - asked) & text_stems}


_KIND_WORDS = r"(?:number|no|code|id|ref|reference)"
_ASKED_THING = re.compile(
    rf"\bhow\s+(?:many|much)\s+([a-z][\w-]*)|\b([a-z][\w-]*)\s+{_KIND_WORDS}\b",
    re.IGNORECASE)


def asked_things(question: str) -> list[str]:
    """What the question asks for, which the unit holding the answer must say: the noun of
    "how many vials" / "how much deposit", the kind before "number" or "code" ("bleep
    number": a signature's extension and mobile are not the bleep)."""
    out = []
    for match in _ASKED_THING.finditer(question):
        words = stems(match.group(1) or match.group(2))
        if words and words[0] not in ("number", "code"):
            out.append(words[0])
    return out


def clipped(words: list[str], stem_set: frozenset[str]) -> list[str]:
    """Words the unit says in full that the question clips ("erg" for "ergometer", "lab"
    for "laboratory"): a hint between equal units, never enough on its own."""
    return [w for w in words if len(w) >= 3
            and any(s.startswith(w) and len(s) >= len(w) + 3 for s in stem_set)]
