"""Described units: the one row of a table, or the one record between rules, that a question
describes by what it says rather than by a name ("the week the accessible WC beacon wasn't
flashing", "whoever is repaying a student loan"), and the field of it the question asks for.

A log book's weekly grid, a visits table, a batch of payslips: each row or slip is a record
with labelled fields (a column header over its cells; "Emp. no 00188", "Dept: Quality" in a
slip's banner). A question asks one field ("which call point", "employee number") of the
record whose other words match what it says ("accessible WC beacon ... not flashing" is in
one row's remarks; "Student loan (plan 2)" is on one slip). So, with no model call:

1. each field label the question says (its words, an abbreviation of them: "Emp. no" is
   "employee number", or a short form the document declares: "manual call point (MCP)");
2. the rest of the question describes the record: its words (and any date, in any form)
   that some of the group's records say (a table's rows, the records between one kind of
   rule) and others do not pick the record; the one record saying most of them, at least
   two and at least half, and strictly more than any other record, is the one described;
3. that record's field under the label answers, when the question does not already say it.
Two labels, tables or records that lead to different values say nothing (None).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .blocks import lines_of
from .dates import said_dates, same_date
from .units import STOP, normalise, stems

__all__ = ["Described", "Unit", "asked_phrase", "described_field", "record_units", "table_units"]

_CELL = re.compile(r"[^\s|]+(?: [^\s|]+)*")
"""A cell: words set apart from the next cell by two or more spaces, or a bar."""
_RULE = re.compile(r"\s*([=\-*_~#+])\1{15,}\s*")
_SHORT_RULES = re.compile(r"^[\s\-=+|]+$")
_DECLARED = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,6})\(([A-Z]{2,6})\)")
"""A short form the document declares: "a manual call point (MCP)"."""
_NUMBER_SHORT = frozenset({"no", "nr", "num", "#"})
_ASK_WORDS = frozenset(stems("which what who whom whose whoever where when how many much "
                             "name was were is are did does do get got"))
_MIN_SAID = 2
_MIN_HEADS = 3


@dataclass(frozen=True)
class Unit:
    """A record: where it is, its fields (label → value, each with its line), and all its
    text (what the question's description is matched against)."""

    doc_id: str
    start: int
    end: int
    fields: tuple[tuple[str, str, int, int], ...]
    """(label, value, line start, line end) of each field."""
    text: str


@dataclass(frozen=True)
class Described:
    """The value read, the line it is on, the record it is from, and the label it is under."""

    value: str
    doc_id: str
    start: int
    end: int
    unit: Unit
    label: str
    said: list[str] = field(default_factory=list)
    """The description's words the record says (what picked it)."""
    asked_as: str = ""
    """The question's words that say the label ("employee number" for "Emp. no")."""


def _cells(line: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in _CELL.finditer(line)]


def _is_header(line: str) -> bool:
    """Column headers: three or more cells of words, none a value (a number, money, time)."""
    cells = _cells(line)
    # Tab-separated tables are read by their own reader: a tab's width is no column.
    return "\t" not in line and len(cells) >= _MIN_HEADS and all(
        re.search(r"[A-Za-z]", c) and not re.search(r"\d|[£$€]|:\s|[.!]\s", c)
        and len(c.split()) <= 4 for _, c in cells)


def _column(heads: list[tuple[int, str]], col: int) -> int:
    """The header a cell at `col` is under: the last that starts at or before it (a
    right-aligned number may start a little before its header)."""
    at = 0
    for k, (start, _) in enumerate(heads):
        if start <= col + 2:
            at = k
    return at


def _ruled_heads(header: str, rule: str) -> list[tuple[int, str]]:
    """The headers as the rule under them divides them, one run of dashes a column
    ("Zone MCP" over "----  -----" is two columns)."""
    runs = [m.start() for m in re.finditer(r"[-=]+", rule)]
    heads = [(a, header[a:b].strip()) for a, b in zip(runs, [*runs[1:], len(header)],
                                                       strict=True)]
    return heads if all(text for _, text in heads) else []


@functools.lru_cache(maxsize=16)
def table_units(doc_id: str, text: str) -> list[list[Unit]]:
    """The tables of a text, each a list of its rows: a header line of three or more word
    cells, then (past a rule of dashes) rows whose cells sit under the headers; a line
    whose first column is empty continues the row above. A table ends at a blank line or a
    line of one cell."""
    lines = lines_of(text)
    tables: list[list[Unit]] = []
    i = 0
    while i < len(lines):
        if not _is_header(lines[i][2]):
            i += 1
            continue
        heads = _cells(lines[i][2])
        rows: list[tuple[int, int, dict[int, list[str]]]] = []
        j = i + 1
        if j < len(lines) and _SHORT_RULES.match(lines[j][2]) and lines[j][2].strip():
            heads = _ruled_heads(lines[i][2], lines[j][2]) or heads
            j += 1
        while j < len(lines):
            start, end, line = lines[j]
            cells = _cells(line)
            one_cell = len(cells) == 1 and (not rows or _column(heads, cells[0][0]) == 0)
            if not cells or "\t" in line or one_cell:
                break
            by_column: dict[int, list[str]] = {}
            for col, cell in cells:
                by_column.setdefault(_column(heads, col), []).append(cell)
            if 0 not in by_column and rows:  # a continuation of the row above
                for k, more in by_column.items():
                    rows[-1][2].setdefault(k, []).extend(more)
                rows[-1] = (rows[-1][0], end, rows[-1][2])
            else:
                rows.append((start, end, by_column))
            j += 1
        if len(rows) >= 2:
            tables.append([Unit(doc_id, start, end, tuple(
                (heads[k][1], " ".join(cells), start, end) for k, cells in sorted(
                    by_column.items())), text[start:end]) for start, end, by_column in rows])
        i = max(j, i + 1)
    return tables


_KEYED = re.compile(r"^([A-Za-z][^:]{0,40}?)\s*:\s*(\S.*)$")
_NUMBERED = re.compile(r"^([A-Za-z][^\d:]{0,40}?)\s+(\S*\d.*)$")
"""A label in words, then a value opening with a token that has a digit ("Emp. no 00188")."""


def _line_fields(start: int, end: int, line: str) -> list[tuple[str, str, int, int]]:
    """A line's labelled parts: "Dept: Quality", "Emp. no 00188", and a label cell with
    the value cell beside it ("Student loan (plan 2)     67.73")."""
    out = []
    cells = [c for _, c in _cells(line)]
    for at, cell in enumerate(cells):
        if (pair := _KEYED.match(cell) or _NUMBERED.match(cell)) is not None:
            out.append((pair.group(1).strip(), _bare(pair.group(2)), start, end))
        elif at + 1 < len(cells) and re.search(r"\d", cells[at + 1]) and not re.search(
                r"\d", cell):
            out.append((cell.rstrip(":"), cells[at + 1], start, end))
    return out


def _bare(value: str) -> str:
    """A value without the syntax around it (`doi = {10.1016/x},` → 10.1016/x)."""
    value = re.sub(r"^[=:]\s*", "", value.strip()).strip(" ,;")
    if len(value) > 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"'), ("'", "'")):
        value = value[1:-1].strip()
    return value


@functools.lru_cache(maxsize=16)
def record_units(doc_id: str, text: str) -> list[list[Unit]]:
    """The records between rules, one group for each kind of rule (`=====` slips, the
    `-----` parts of each), and the records between blank lines (a job card export's
    cards): each record with the labelled parts of its lines."""
    lines = lines_of(text)
    kinds: dict[str, list[int]] = {}
    for i, (_, _, line) in enumerate(lines):
        if _RULE.fullmatch(line):
            kinds.setdefault(line.strip()[0], []).append(i)
        elif not line.strip():
            kinds.setdefault("", []).append(i)
    groups = []
    for rules in kinds.values():
        group = []
        for a, b in itertools.pairwise([-1, *rules, len(lines)]):
            body = [lines[k] for k in range(a + 1, b) if lines[k][2].strip()]
            if body:
                group.append(_record(doc_id, text, body))
        if len(group) >= 2:
            groups.append(group)
    return groups


def _record(doc_id: str, text: str, body: list[tuple[int, int, str]]) -> Unit:
    fields = tuple(f for s, e, line in body for f in _line_fields(s, e, line))
    return Unit(doc_id, body[0][0], body[-1][1], fields, text[body[0][0]:body[-1][1]])


@functools.lru_cache(maxsize=16)
def _declared(text: str) -> dict[str, list[str]]:
    """Short forms the text declares, each with the stems of its long form."""
    out = {}
    for match in _DECLARED.finditer(text):
        short, words = match.group(2), match.group(1).split()
        long = words[-len(short):]
        if [w[0].upper() for w in long] == list(short):
            out[short.lower()] = stems(" ".join(long))
    return out


def _abbreviates(short: str, word: str) -> bool:
    """`short` is `word` cut down ("emp" for "employee"): shorter, its first two letters,
    the rest of its letters in the word's order."""
    if len(short) < 3 or len(short) >= len(word) or short[:2] != word[:2]:
        return False
    letters = iter(word)
    return all(letter in letters for letter in short)


def _label_said(label: str, asked: list[str], declared: dict[str, list[str]]) -> set[str] | None:
    """The question's stems that say the label (each of its words said, abbreviated, or a
    declared short form's long form: its last word and another), or None."""
    used: set[str] = set()
    words = [w for w in re.findall(r"[A-Za-z#]+", label.lower()) if w not in STOP or
             w in _NUMBER_SHORT]
    if not words:
        return None
    for word in words:
        if word in declared:
            long = declared[word]
            said = [w for w in long if w in asked]
            if long[-1] not in said or len(said) < min(2, len(long)):
                return None
            used |= set(said)
        elif word in _NUMBER_SHORT and "number" in asked:
            used.add("number")
        else:
            stem = (stems(word) or [word])[0]
            hit = next((w for w in asked if w == stem or _abbreviates(word, w)), None)
            if hit is None:
                return None
            used.add(hit)
    return used


def _says(unit_stems: frozenset[str], word: str) -> bool:
    """The record says the word, or a longer form of it ("faulty" for "fault")."""
    return word in unit_stems or (len(word) >= 4 and any(
        s.startswith(word) or (len(s) >= 4 and word.startswith(s) and len(word) - len(s) <= 2)
        for s in unit_stems))


@functools.lru_cache(maxsize=65536)
def _said(text: str) -> tuple[frozenset[str], tuple]:
    """A record's stems and dates, read once for all the labels and questions."""
    return frozenset(stems(text)), tuple(d for _, _, d in said_dates(text))


def _must(question: str) -> set[str]:
    """The stems of the names the question gives (capitalised words past its first): a
    record that does not say one, when another record does, is not the one described."""
    words = re.findall(r"(?<=\s)[A-Z][\w'’-]*", question)
    return {w for word in words for w in stems(word)} - STOP


_CODE = re.compile(r"(?<![\w/.:-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[\w-]{2,}"
                   r"|(?<![\w/.:])\d{3,}(?![\w/.:])")
"""A code the question gives ("RV22", "KG-57003", "0441"): stems drop its digits."""


def _pick(group: list[Unit], words: set[str], must: set[str], dates: list, codes: list[str]
          ) -> tuple[Unit, list[str]] | None:
    """The one record of the group the description picks: the words and dates some of
    the records say and others do not, said most by it (two at least, half at least,
    more than by any other record); and every name and date of the question that any
    record says."""
    said_by = []
    for unit in group:
        unit_stems, written = _said(unit.text)
        found = {w for w in words | must if _says(unit_stems, w)}
        found |= {f"date{n}" for n, asked in enumerate(dates)
                  if any(same_date(asked, d) for d in written)}
        found |= {f"code:{code}" for code in codes if re.search(
            rf"(?<![\w-]){re.escape(code)}(?![\w-])", unit.text, re.IGNORECASE)}
        said_by.append(found)
    telling = set().union(*said_by) - set.intersection(*said_by)
    if not telling:
        return None
    needed = telling & (must | {f"date{n}" for n in range(len(dates))}
                        | {f"code:{code}" for code in codes})
    scores = sorted(((len(s & telling), k) for k, s in enumerate(said_by)
                     if needed <= s), reverse=True)
    if not scores:
        return None
    best, at = scores[0]
    if best < _MIN_SAID or 2 * best < len(telling) or (len(scores) > 1
                                                        and scores[1][0] == best):
        return None
    return group[at], sorted(said_by[at] & telling)


_WH_WORD = re.compile(r"\b(?:which|what(?:'s|’s)?|whose|how\s+(?:many|much))\s+", re.I)
_NAME_OF = re.compile(r"^\s*(?:the\s+)?(?:full\s+)?name\s+of\s+(?:the\s+|an?\s+)?", re.I)
_PHRASE_END = frozenset(stems(
    "is are was were be been does do did has have had should will would can could of for "
    "in on at to from by with who whom that which whoever whichever when where while if "
    "before after since during"))


def asked_phrase(question: str) -> list[str]:
    """The stems of what the question asks for: the words after its question word up to a
    verb or a preposition ("which call point was used ..." → call point), or, with no
    question word, its opening words ("employee number of whoever ..."); "name of the
    engineer who ..." asks the engineer."""
    match = _WH_WORD.search(question)
    rest = question[match.end():] if match else _NAME_OF.sub("", question, count=1)
    if match is None and re.match(r"^\s*(?:who|when|where|how|why)\b", question, re.I):
        return []
    out = []
    for word in re.findall(r"[A-Za-z][\w'’-]*", rest):
        stem = stems(word)
        # A verb ends it: an auxiliary, or a past tense ("which fitter lifted ...").
        if not stem or stem[0] in _PHRASE_END or (len(word) > 4 and word.endswith("ed")):
            break
        out += stem
    return [w for w in out if w not in STOP]


def _given(label: str, question: str) -> bool:
    """The question gives the label's value ("the lady in room 7"): it is what picks the
    record, not what is asked."""
    words = re.findall(r"[A-Za-z]+", label)
    return bool(words) and re.search(rf"\b{re.escape(words[-1])}\w*\s+[\w-]*\d", question,
                                     re.IGNORECASE) is not None


def _shared(group: list[Unit]) -> set[str]:
    """The labels at least half of the group's records have (and two at least): a field
    records share, not a line one of them happens to start with a word."""
    counts: dict[str, int] = {}
    for unit in group:
        for label in {label for label, *_ in unit.fields}:
            counts[label] = counts.get(label, 0) + 1
    return {label for label, n in counts.items() if n >= 2 and 2 * n >= len(group)}


def described_field(question: str, docs: Iterable[tuple[str, str]]) -> Described | None:
    """The field the question asks of the record it describes (see the module), or None
    when no record is picked or two answers differ."""
    asked = stems(question)
    phrase = asked_phrase(question)
    if not phrase:
        return None
    must = _must(question)
    dates = [d for _, _, d in said_dates(question)]
    codes = [m.group() for m in _CODE.finditer(question)]
    said_in_question = normalise(question)
    found: list[tuple[set[str], Described]] = []
    for doc_id, text in docs:
        declared = _declared(text)
        for group in (*table_units(doc_id, text), *record_units(doc_id, text)):
            for label in _shared(group):
                # The label is what is asked, and all of it: "pension" is not the
                # employer's pension contribution.
                used = _label_said(label, phrase, declared)
                if used is None or _given(label, question) or set(phrase) - used:
                    continue
                words = set(asked) - used - STOP - _ASK_WORDS - must
                picked = _pick(group, words, must - used, dates, codes)
                if picked is None:
                    continue
                unit, said = picked
                values = {(v, s, e) for lab, v, s, e in unit.fields if lab == label}
                if len(values) != 1:
                    continue
                value, start, end = values.pop()
                if not value.strip("-– ") or normalise(value) in said_in_question:
                    continue
                asked_as = " ".join(w for w in re.findall(r"[A-Za-z][\w'’-]*", question)
                                    if set(stems(w)) & used)
                found.append((used, Described(value, doc_id, start, end, unit, label, said,
                                              asked_as)))
    # A label that says less of the question than another read ("Emp." beside "Emp. no")
    # is a part of that one.
    kept = {normalise(d.value): d for used, d in found
            if not any(used < other for other, _ in found)}
    return next(iter(kept.values())) if len(kept) == 1 else None
