"""People a count names by name or role, resolved to the handle the records sign with.

Staff notes and log-book headers declare who is who once ("JB (Jamie Barr, apprentice)",
"Deputy: Ruth Kowalczyk (RK)"), and the records then carry only the handle (a tester column
of initials, "mech JB" on a job card). "Done by the apprentice" or "done by Ruth" is then a
condition on that handle, not on the word, which only the declaring line holds: counting the
word there would be an exact count of the wrong thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...corpus.records import Layout, Record
from ...corpus.tally import FieldFilter
from ...corpus.word_stems import phrase_regex, stems, words

__all__ = ["Person", "acts_by", "declared_people", "people_words", "person_condition"]

_NAME = r"[A-Z][a-z]+(?:[ '-][A-Z][a-z'-]+)+"
_HANDLE = r"[A-Z]{2,5}|[A-Z]\.\s?[A-Z]\.?"
# "JB (Jamie Barr, apprentice - work checked by Kez)": the handle, then the name and role.
_HANDLE_FIRST = re.compile(rf"\b(?P<handle>{_HANDLE})\s*\(\s*(?P<name>{_NAME})\s*"
                           r"(?:[,;]\s*(?P<role>[^)\n]{1,60}))?\)")
# "Deputy: Ruth Kowalczyk (RK)", "Facilities Manager, Tom Bellamy (TB)": role, name, handle.
_NAME_FIRST = re.compile(rf"(?:(?P<role>[A-Za-z][A-Za-z ]{{1,40}}?)\s*[:,]\s*)?"
                         rf"\b(?P<name>{_NAME})\s*\(\s*(?P<handle>{_HANDLE})\s*\)")
_NOTE_LINES = 2
"""A person declared on more lines than this is written on the records themselves."""
_ROLE_END = re.compile(r"\s[-–—(]\s*|[;:]")


@dataclass(frozen=True)
class Person:
    """Someone a line declares: the handle the records use, their name, their role's words."""

    handle: str
    name: tuple[str, ...]
    role: tuple[str, ...]
    record: Record | None
    """The record declaring them; None for a document's opening lines read as no record."""


def _role_stems(role: str | None) -> tuple[str, ...]:
    """The role's own words: "apprentice - work checked by Kez" is "apprentice"; of
    "Responsible person: Facilities Manager" the last labelled part."""
    if not role:
        return ()
    head = _ROLE_END.split(role.strip())[0]
    return stems(head.rsplit(":", 1)[-1])


def declared_people(records: list[Record], heads: Iterable[str] = ()) -> list[Person]:
    """Every person a record's text, or a document's opening lines (`heads`, which a
    layout of cards or blocks reads as no record), declares with a handle."""
    out: list[Person] = []
    for text, record in [*((r.text, r) for r in records), *((h, None) for h in heads)]:
        for pattern in (_HANDLE_FIRST, _NAME_FIRST):
            for m in pattern.finditer(text):
                handle = m["handle"].replace(".", "").replace(" ", "")
                out.append(Person(handle, tuple(w.lower() for w in words(m["name"])),
                                  _role_stems(m["role"]), record))
    return out


def _named(phrase: str, person: Person) -> bool:
    said = words(phrase)
    if said and set(said) <= set(person.name):
        return True
    role = set(person.role)
    return bool(role) and set(stems(phrase)) <= role


def person_condition(phrase: str, layout: Layout, scope: list[Record]
                     ) -> tuple[FieldFilter | str, list[str]] | str | None:
    """The condition for a person the phrase names: a filter on the field holding their
    handle, else the handle as a phrase, with the phrases that leave out the lines declaring
    people (their names, when no other record writes them). "" when the phrase names no one
    the records sign for (a role two people share, a handle no record carries) yet only
    declaring lines hold it: no exact count. None when it names no declared person."""
    people = declared_people(scope, _heads(layout, scope))
    chosen = {p.handle: p for p in people if _named(phrase, p)}
    pattern = phrase_regex(phrase)
    holders = [r for r in scope if pattern.search(r.text)]
    declaring = {id(p.record) for p in people if p.record is not None}
    only_declared = all(id(r) in declaring for r in holders)
    if not chosen or (len(chosen) > 1 and not only_declared):
        return None  # the records write the words themselves: they are matched as written
    if len(chosen) > 1:
        return ""
    if sum(p.handle in chosen for p in people) > _NOTE_LINES:
        return None  # rows that each write "Ruth Kowalczyk (RK)": the name is on them
    handle = next(iter(chosen))
    fields = [(sum(n for v, n in values.items() if v.strip().upper() == handle), key)
              for key, values in layout.fields.items()]
    held, key = max(fields, default=(0, ""))
    if held:  # a column of handles says who did each record, whatever else it writes
        value = next(v for v in layout.fields[key] if v.strip().upper() == handle)
        return FieldFilter(field=key, value=value), []
    signed = re.compile(rf"\b{re.escape(handle)}\b", re.IGNORECASE)
    others = [r for r in scope if id(r) not in declaring]
    carrying = [r for r in others if signed.search(r.text)]
    if not carrying:
        return "" if only_declared else None  # no record signs with the handle
    if not only_declared or len({bool(r.fields) for r in carrying}) > 1:
        # Cards signed "KEZ" and one that says "Kerry", or a note ("tidied by Kez") beside
        # the cards: neither form alone counts what they did.
        return ""
    names = dict.fromkeys(" ".join(p.name) for p in people)
    return handle.lower(), [n for n in names
                            if not any(phrase_regex(n).search(r.text) for r in others)]


def _heads(layout: Layout, scope: list[Record]) -> list[str]:
    docs = {r.doc_id for r in scope}
    return [title for doc, title in layout.titles.items() if doc in docs]


def people_words(question: str, layout: Layout) -> set[int]:
    """Positions of the question's words that name a declared person or role: a staff line
    among a file's first lines makes "technician" a title word, yet it names a person."""
    people = declared_people(layout.records, layout.titles.values())
    named = {w for p in people for w in p.name}
    roles = {s for p in people for s in p.role}
    return {i for i, (w, s) in enumerate(zip(words(question), stems(question), strict=False))
            if w in named or s in roles}


_BY = frozenset(("by", "the", "our", "their"))


def acts_by(question: str, at: list[int]) -> int | None:
    """The verb of "checked by the technician" (its position): what the person did to each
    record, which resolving the person to their handle answers."""
    ws = words(question)
    i = at[0] - 1
    while i >= 0 and ws[i] in _BY and ws[i] != "by":
        i -= 1
    return i - 1 if i >= 1 and ws[i] == "by" else None
