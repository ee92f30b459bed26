"""A hop to the person heading another listing: "which judge is hearing today's case against
the firm that beat Eleanor Haig's claim".

Lists, rotas and programmes name who is in charge once, in a heading over the items they
take ("Employment Judge A. Brennan (sitting alone)" over the room's cases; "Conductor: M.
Ruiz" over a rehearsal's pieces), and an item elsewhere names the thing the question goes
through ("Ms Eleanor Haig v Avonmouth Freight Services Ltd — claim dismissed"). So, with no
model call, for a question that asks for a role ("which judge", "what conductor"):

1. the lines that say every name the question gives;
2. the values those lines name that the question does not (a party, a code);
3. each value's other lines, and the headings over each (the less indented lines above);
4. a heading that says the asked role and a name after it answers with that name.
Two names, or none, say nothing (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .blocks import lines_of
from .naming import contains, entities
from .units import normalise, stems

__all__ = ["RoleHead", "role_head"]

_VALUE = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|\(\d+\)|of|and|&|de|van|von))+"
                    r"|[\w./-]*\d[\w./-]*\d[\w./-]*")
"""What an item names: a run of capitalised words ("Avonmouth Freight Services Ltd"), a
code with digits ("6011090/2026")."""
_NAME = re.compile(r"(?:[A-Z][\w'’-]*\.?\s+){0,3}[A-Z][\w'’-]*[a-z][\w'’-]*")
"""A person's name after their role: initials and words ("A. Brennan", "Mrs P. Dainty")."""
_LEVELS = 3
_MIN_VALUE = 6
_MAX_LINES = 3


@dataclass(frozen=True)
class RoleHead:
    """The name read, the heading it is in, the item under it and the question's line."""

    name: str
    doc_id: str
    heading: tuple[int, int]
    item: tuple[int, int]
    bridge: tuple[int, int, str]
    """(start, end, document id) of the line the question names."""
    value: str
    """What the hop went through ("Avonmouth Freight Services Ltd")."""
    role: str
    """The role's word as the heading writes it ("Judge")."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _headings(lines: list[tuple[int, int, str]], at: int) -> list[int]:
    """The less indented lines over line `at`, nearest first (a few levels)."""
    out, indent = [], _indent(lines[at][2])
    for j in range(at - 1, -1, -1):
        text = lines[j][2]
        if text.strip() and _indent(text) < indent:
            out.append(j)
            indent = _indent(text)
            if len(out) >= _LEVELS or indent == 0:
                break
    return out


def _named_role(line: str, role: str) -> tuple[str, str] | None:
    """The role's word and the name the line gives after it ("Judge", "A. Brennan")."""
    for word in re.finditer(r"[A-Za-z]+", line):
        if stems(word.group())[:1] != [role]:
            continue
        after = _NAME.match(line, word.end() + 1) if line[word.end():word.end() + 1] == " " \
            else None
        if after is not None:
            return word.group(), after.group().strip()
    return None


def role_head(question: str, role: tuple[str, ...], docs: Iterable[tuple[str, str]]
              ) -> RoleHead | None:
    """The name heading another item of a value the question's line names (see the
    module); None when no heading or two different names answer."""
    named = entities(question)
    if not role or not named:
        return None
    docs = list(docs)
    said = normalise(question)
    sources = [(doc_id, i, line) for doc_id, text in docs
               for i, line in enumerate(lines_of(text))
               if all(contains(normalise(line[2]), e) for e in named)]
    if not sources or len(sources) > _MAX_LINES:
        return None
    found: dict[str, RoleHead] = {}
    for doc_id, at, (start, end, line) in sources:
        for value in dict.fromkeys(m.group().strip(" .") for m in _VALUE.finditer(line)):
            norm = normalise(value)
            if len(norm) < _MIN_VALUE or norm in said or any(contains(norm, e) for e in named):
                continue
            for other_id, text in docs:
                lines = lines_of(text)
                for k, (a, b, other) in enumerate(lines):
                    if (other_id, k) == (doc_id, at) or not contains(normalise(other), norm):
                        continue
                    for j in _headings(lines, k):
                        head = _named_role(lines[j][2], role[0])
                        if head is not None:
                            found.setdefault(normalise(head[1]), RoleHead(
                                head[1], other_id, lines[j][:2], (a, b), (start, end, doc_id),
                                value, head[0]))
                            break
    return next(iter(found.values())) if len(found) == 1 else None
