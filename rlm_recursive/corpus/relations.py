"""One fact about a named thing, read where the text states it, for a two-hop question's hops:
who stands in a relation to a name ("the owner of Tor Farm": "Ann Pryce owns ...",
"... is owned by Ann Pryce"), what a name is in a relation to ("a duplicate of" in "[T-9]
Duplicate of T-4"), a word-valued field of the keyed record a name opens ("Status: On
hold" in T-4's record), and the role a document calls a person by ("the lender, Mr Ivo
Pratt": "the lender").

Each reader gives its value with the span that says both the value and the name; two
spans (or two parts of one) that give different values give nothing: the hop is not known.
No model call, no agent imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .keyed_records import keyed_records
from .naming import HONORIFICS
from .record_units import line_fields, table_units
from .unit_split import split_units
from .units import STOP, normalise, stems

__all__ = ["Said", "agent_stem", "aliases", "field_of", "related", "says_name"]

NAME = (r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)?[A-Z][\w'’.-]*[\w'’]"
        r"(?:\s+(?:&\s+)?[A-Z][\w'’.-]*[\w'’]|\s+(?:an|de|la|le|van|von|of|y)\s+[A-Z][\w'’.-]*)*"
        r"(?:\s+\d[\w-]*(?![\w.]\d))?|[A-Za-z]*\d[\w/-]*")
"""A name or code as a text writes it: a capitalised run ("Brindle & Marsh Ltd", "Pen
an Tor", "Ms Pryce", "Pier 4"), or a token with a digit ("T-1142")."""
_NAME_BEFORE = re.compile(rf"({NAME})\s+(?:[a-z]+ly\s+)?$")
"""The name just before a verb ("Ann Pryce owns", "Ann Pryce jointly owns")."""
_CLAUSE_END = re.compile(r"[.!?;]\s|\n\s*\n")
_OPENER = frozenset({"the", "a", "an", "this", "that", "it", "he", "she", "they", "we", "i",
                     "in", "on", "at", "for", "to", "by", "of", "and", "but", "if", "when"})
"""Capitalised only because a sentence starts with it: no name."""


@dataclass(frozen=True)
class Said:
    """A value read, and the span (document, start, end) that says it beside the name."""

    value: str
    doc_id: str
    start: int
    end: int
    label: str = ""
    """The words that say what the value is, as the text writes them ("owned by",
    "Status")."""


def says_name(name: str, text: str) -> re.Match[str] | None:
    """Where `text` says `name` whole, across line wraps and case."""
    words = [re.escape(w) for w in name.split()]
    if not words:
        return None
    return re.search(r"(?<![\w-])" + r"\s+".join(words) + r"(?![\w-])", text, re.IGNORECASE)


def agent_stem(noun: str) -> str:
    """The verb stem an agent noun names ("owner" → own, "supplier" → suppli, "manager" →
    manag); the word's own stem when it is no agent noun."""
    stem = (stems(noun) or [noun.lower()])[0]
    return stem[:-2] if len(stem) > 4 and stem[-2:] in ("er", "or") else stem


def _relation_words(text: str, stem: str) -> list[re.Match[str]]:
    """The words of `text` whose stem is `stem`, or whose stem as an agent noun is."""
    return [m for m in re.finditer(r"[A-Za-z][\w-]*", text)
            if m.group().lower() not in STOP
            and stem in {(stems(m.group()) or [""])[0], agent_stem(m.group())}]


def _clean(name: str) -> str | None:
    """The name without a sentence's capitalised opener ("The"), or None when nothing of
    a name is left."""
    words = name.split()
    while words and words[0].lower() in _OPENER:
        words = words[1:]
    return " ".join(words).rstrip(".") or None


def _scopes(docs: Iterable[tuple[str, str]], name: str
            ) -> Iterable[list[tuple[str, int, str]]]:
    """For each sentence or line saying `name`: its lines saying it, then the whole unit
    (the relation may be on the line before a wrapped name), narrowest first."""
    seen: set[tuple[str, int, int]] = set()
    for doc_id, text in docs:
        if says_name(name, text) is None:
            continue
        for unit in split_units([text]):
            if says_name(name, unit.text) is None or (doc_id, unit.start, unit.end) in seen:
                continue
            seen.add((doc_id, unit.start, unit.end))
            lines = [(doc_id, unit.start + m.start(), m.group())
                     for m in re.finditer(r"[^\n]+", unit.text) if says_name(name, m.group())]
            yield [*(lines if "\n" in unit.text.strip() else []),
                   (doc_id, unit.start, unit.text)]


def _one(found: list[Said]) -> Said | None:
    """The value when every reading gives the same one."""
    values = {normalise(s.value) for s in found}
    return found[0] if len(values) == 1 else None


def related(docs: Iterable[tuple[str, str]], name: str, relation: str, *, agent: bool,
            preposition: str = "") -> Said | None:
    """Who or what stands in `relation` (a stem) to `name`.

    `agent`: who does it to the name: the name before the verb with the thing after it
    ("Ann Pryce owns ... Tor Farm"), or after "by" ("Tor Farm is owned by Ann Pryce").
    Else what the name is in that relation to: after the relation word and `preposition`
    ("T-9 ... Duplicate of T-4"). The span must say `name` and the value, and they differ."""
    found: list[Said] = []
    for scopes in _scopes(docs, name):
        for doc_id, start, text in scopes:
            read = _related_in(text, name, relation, agent, preposition)
            found += [Said(value, doc_id, start, start + len(text), label)
                      for label, value in read]
            if read:
                break  # the narrowest scope that says it
    return _one(found)


def _related_in(text: str, name: str, relation: str, agent: bool, preposition: str
                ) -> list[tuple[str, str]]:
    """`related`'s values in one sentence or line, each with the words saying it."""
    found: list[tuple[str, str]] = []
    at = says_name(name, text)
    if at is not None:
        for word in _relation_words(text, relation):
            # The relation and the name in one clause: not across a sentence's end ("X
            # owns A. Y owns the B" is Y's B).
            between = text[min(at.end(), word.end()):max(at.start(), word.start())]
            if _CLAUSE_END.search(between):
                continue
            value, label = None, word.group()
            after = text[word.end():]
            if agent and (by := re.match(rf"\s+by\s+(?:the\s+)?({NAME})", after)):
                value, label = by.group(1), f"{word.group()} by"
            elif agent and at.start() > word.end():
                before = _NAME_BEFORE.search(text[:word.start()])
                value = before.group(1) if before else None
            elif not agent and preposition and at.end() <= word.start():
                then = re.match(rf"\s+{re.escape(preposition)}\s+(?:the\s+)?({NAME})", after,
                                re.IGNORECASE)
                value = then.group(1) if then else None
                label = f"{word.group()} {preposition}"
            value = _clean(value) if value else None
            if value and normalise(value) != normalise(name) and not says_name(name, value):
                found.append((label, value))
    return found


def field_of(docs: Iterable[tuple[str, str]], name: str, label: tuple[str, ...]
             ) -> Said | None:
    """The value labelled with one of `label`'s stems ("Status: On hold") in the keyed
    record whose first line opens with `name` (its key line: "[T-4] ...", "Boat:
    Kittiwake"), or under the column so headed in the table row whose first cell is
    `name`; words as well as figures, citing the record or row."""
    if not label:
        return None
    found: list[Said] = []
    for doc_id, text in docs:
        if says_name(name, text) is None:
            continue
        for start, end, fields in _records_of(doc_id, text, name):
            for key, value in fields:
                said = {*stems(key), agent_stem(key)}
                if value and said & set(label) and normalise(value) != normalise(name):
                    found.append(Said(value, doc_id, start, end, key))
    return _one(found)


def _records_of(doc_id: str, text: str, name: str
                ) -> Iterable[tuple[int, int, list[tuple[str, str]]]]:
    """The keyed records and table rows `name` opens, each with its labelled fields."""
    for group in keyed_records(doc_id, text):
        for unit in group:
            if _opens_with(text[unit.start:unit.end], name):
                yield unit.start, unit.end, [
                    (key, value) for start, end, line in _lines(text, unit.start, unit.end)
                    for key, value, _, _ in line_fields(start, end, line)]
    for table in table_units(doc_id, text):
        for row in table:
            if row.fields and says_name(name, row.fields[0][1]) is not None and normalise(
                    row.fields[0][1]).startswith(normalise(name)):
                yield row.start, row.end, [(key, value) for key, value, _, _ in row.fields]


_KEY_LEAD = (re.compile(r"[\[(#*>\s-]*"), re.compile(r"\s*[A-Za-z][\w .-]{0,30}:[\[(#*>\s-]*"))
"""What may come before the name a record is keyed by: a label ("Boat:"), a bracket, a
heading's marker."""


def _opens_with(record: str, name: str) -> bool:
    """The record's first line opens with the name ("[T-4] Refunds ...", "Boat: Puffin"):
    the record is the name's, not one that mentions it ("[T-9] Duplicate of T-4")."""
    first = record.lstrip().split("\n", 1)[0]
    said = says_name(name, first)
    return said is not None and any(
        (lead := pattern.match(first)) is not None and said.start() == lead.end()
        for pattern in _KEY_LEAD)


def _lines(text: str, start: int, end: int) -> Iterable[tuple[int, int, str]]:
    for m in re.finditer(r"[^\n]+", text[start:end]):
        yield start + m.start(), start + m.end(), m.group()


_APPOSITIVE = re.compile(rf"\bthe\s+([a-z][\w-]+),\s+({NAME}),")
"""A role and the person it is ("the lender, Mr Ivo Pratt,")."""


def aliases(docs: Iterable[tuple[str, str]], name: str) -> list[Said]:
    """The roles a document calls `name` by, as "the <role>" (an apposition: "the lender,
    Mr Ivo Pratt," for "Mr Pratt": the name's words other than a title are the person's);
    none when the name is given two roles."""
    own = set(stems(name)) - HONORIFICS
    found: list[Said] = []
    for doc_id, text in docs:
        for m in _APPOSITIVE.finditer(text):
            person = set(stems(m.group(2)))
            if own and own <= person:
                found.append(Said(f"the {m.group(1)}", doc_id, m.start(), m.end()))
    return found if len({normalise(s.value) for s in found}) == 1 else []
