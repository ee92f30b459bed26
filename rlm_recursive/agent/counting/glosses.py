"""A code the question glosses in parentheses: "items held at Northgate (branch NTH)", "the
Riverside site (RIV)". The rows of a report write the code, not the name: the code is the
condition, and the name before the parenthesis, the label inside it ("branch") and the verb
that leads to the name ("held at") are said by the code. Nothing here reads a document.
"""

from __future__ import annotations

import re

from .plan_words import word_offsets

__all__ = ["glossed_codes"]

_GLOSS = re.compile(r"\((?P<inside>[^()]{1,40})\)")
_CODE = re.compile(r"(?-i:\b[A-Z][A-Z0-9]{1,7}\b)")
"""A code as a report writes it: capitals (and digits), two to eight."""
_NAME = re.compile(r"(?-i:[A-Z][\w'’&-]*)")
_LEADS = frozenset("at in on from by for of to within under".split())


def glossed_codes(question: str) -> tuple[list[str], set[int]]:
    """The codes the question glosses in parentheses, and the word positions they stand
    for: the parenthesis's words, the capitalised name right before it, and (past a
    preposition) the word that leads to the name; a label word may follow the name
    ("the Riverside branch (RIV)"). One code a parenthesis, else none."""
    offsets = word_offsets(question)
    codes: list[str] = []
    said: set[int] = set()
    for match in _GLOSS.finditer(question):
        found = _CODE.findall(match.group("inside"))
        if len(found) != 1:
            continue
        codes.append(found[0])
        inside = {i for i, (a, b) in enumerate(offsets)
                  if a >= match.start() and b <= match.end()}
        before = [i for i, (_, b) in enumerate(offsets) if b <= match.start()]
        name: set[int] = set()
        if len(before) >= 2 and _NAME.fullmatch(question[slice(*offsets[before[-2]])]) and \
                question[slice(*offsets[before[-1]])].islower():
            name.add(before.pop())  # "the Riverside branch (RIV)": the name's label
        while before and _NAME.fullmatch(question[slice(*offsets[before[-1]])]):
            name.add(before.pop())
        if name and len(before) >= 2 and question[slice(*offsets[before[-1]])].lower() in _LEADS:
            name.add(before[-2])  # "held at Northgate": how the rows are tied to the name
        said |= inside | name
    return codes, said
