"""Described records: the one row of a table, or the one record between rules or blank lines
(`record_units`), that a question describes by what it says rather than by a name ("the
week the accessible WC beacon wasn't flashing", "whoever is repaying a student loan"), and
the field of it the question asks for.

A log book's weekly grid, a visits table, a batch of payslips: each row or slip is a record
with labelled fields (a column header over its cells; "Emp. no 00188", "Dept: Quality" in a
slip's banner). A question asks one field ("which call point", "employee number") of the
record whose other words match what it says ("accessible WC beacon ... not flashing" is in
one row's remarks; "Student loan (plan 2)" is on one slip). So, with no model call:

1. each field label, shared by half the group's records at least, that says all of what the
   question asks (`asked_phrase`): its words, an abbreviation of them ("Emp. no" is
   "employee number"), or a short form the document declares ("manual call point (MCP)");
2. the rest of the question describes the record: its words (and any date, in any form, or
   code) that some of the group's records say and others do not pick the record; a name,
   date or code of the question that any record says, the picked one must say; the record
   saying most of them, two at least and half at least, and strictly more than any other
   record, is the one described;
3. that record's field under the label answers, when the question does not already say it.
Two labels, tables or records that lead to different values say nothing (None).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .dates import said_dates, same_date
from .glossary import glossed
from .record_units import Unit, record_units, table_units
from .units import STOP, abbreviates, normalise, stems

__all__ = ["Described", "abbreviates", "asked_labels", "asked_phrase", "described_field",
           "named_words", "one_answer", "pick_record", "question_codes", "read_field",
           "said_code", "said_date", "says_stem", "stems_of"]

_DECLARED = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,6})\(([A-Z]{2,6})\)")
"""A short form the document declares: "a manual call point (MCP)"."""
_SHORT_FORM = re.compile(r"\([A-Z]{2,6}\)")
_LONG_FORM_CHARS = 80
_NUMBER_SHORT = frozenset({"no", "nr", "num", "#"})
_ASK_WORDS = frozenset(stems("which what who whom whose whoever where when how many much "
                             "name was were is are did does do get got"))
_MIN_SAID = 2


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


@functools.lru_cache(maxsize=16)
def _declared(text: str) -> dict[str, list[str]]:
    """Short forms the text declares, each with the stems of its long form."""
    out = {}
    # The short form in brackets first (quick over a long log), then the words before it.
    for bracket in _SHORT_FORM.finditer(text):
        match = _DECLARED.search(text, max(bracket.start() - _LONG_FORM_CHARS, 0),
                                 bracket.end())
        if match is None or match.end() != bracket.end():
            continue
        short, words = match.group(2), match.group(1).split()
        long = words[-len(short):]
        if [w[0].upper() for w in long] == list(short):
            out[short.lower()] = stems(" ".join(long))
    return out


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
            hit = next((w for w in asked if w == stem or abbreviates(word, w)), None)
            if hit is None:
                return None
            used.add(hit)
    return used


def says_stem(unit_stems: frozenset[str], word: str) -> bool:
    """The record says the word, or a longer form of it ("faulty" for "fault")."""
    return word in unit_stems or (len(word) >= 4 and any(
        s.startswith(word) or (len(s) >= 4 and word.startswith(s) and len(word) - len(s) <= 2)
        for s in unit_stems))


@functools.lru_cache(maxsize=65536)
def stems_of(text: str) -> frozenset[str]:
    """A record's stems, read once for all the labels and questions; a label of another
    language says its English words too (`glossary`: "Vikt" is the weight)."""
    own = stems(text)
    return frozenset(own) | glossed(own, stems)


@functools.lru_cache(maxsize=65536)
def _dates_of(text: str) -> tuple:
    """A record's dates, read once (and only for a question that gives a date)."""
    return tuple(d for _, _, d in said_dates(text))


def named_words(question: str) -> set[str]:
    """The stems of the names the question gives (capitalised words past its first): a
    record that does not say one, when another record does, is not the one described."""
    words = re.findall(r"(?<=\s)[A-Z][\w'’-]*", question)
    return {w for word in words for w in stems(word)} - STOP


_CODE = re.compile(r"(?<![\w/.:-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[\w-]{2,}"
                   r"|(?<![\w/.:])\d{3,}(?![\w/.:])")
"""A code the question gives ("RV22", "KG-57003", "0441"): stems drop its digits."""


def question_codes(question: str) -> list[str]:
    """The codes the question gives ("RV22", "KG-57003")."""
    return [m.group() for m in _CODE.finditer(question)]


def said_date(text: str, dates: list) -> bool:
    """The text says one of the dates (in any form)."""
    return bool(dates) and any(same_date(asked, d) for asked in dates for d in _dates_of(text))


def said_code(code: str, text: str) -> bool:
    """The text says the code, whole."""
    return re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text, re.IGNORECASE) is not None


def pick_record(group: list[Unit], words: set[str], must: set[str], dates: list, codes: list[str]
          ) -> tuple[Unit, list[str]] | None:
    """The one record of the group the description picks: the words and dates some of
    the records say and others do not, said most by it (two at least, half at least,
    more than by any other record); and every name and date of the question that any
    record says."""
    said_by = []
    for unit in group:
        unit_stems = stems_of(unit.text)
        written = _dates_of(unit.text) if dates else ()
        found = {w for w in words | must if says_stem(unit_stems, w)}
        found |= {f"date{n}" for n, asked in enumerate(dates)
                  if any(same_date(asked, d) for d in written)}
        found |= {f"code:{code}" for code in codes if said_code(code, unit.text)}
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


def asked_labels(question: str, docs: Iterable[tuple[str, str]]
                 ) -> Iterator[tuple[list[Unit], str, set[str]]]:
    """Each group of records (a table's rows, the records between one kind of rule) with a
    shared label that says all of what the question asks (`asked_phrase`), and the
    question's stems that say it."""
    phrase = asked_phrase(question)
    if not phrase:
        return
    for doc_id, text in docs:
        declared = _declared(text)
        for group in (*table_units(doc_id, text), *record_units(doc_id, text)):
            for label in _shared(group):
                # The label is what is asked, and all of it: "pension" is not the
                # employer's pension contribution.
                used = _label_said(label, phrase, declared)
                if used is not None and not _given(label, question) and not set(phrase) - used:
                    yield group, label, used


def read_field(question: str, unit: Unit, label: str, used: set[str], said: list[str]
               ) -> Described | None:
    """The record's one value under the label, unless the question says it."""
    values = {(v, s, e) for lab, v, s, e in unit.fields if lab == label}
    if len(values) != 1:
        return None
    value, start, end = values.pop()
    if not value.strip("-– ") or normalise(value) in normalise(question):
        return None
    asked_as = " ".join(w for w in re.findall(r"[A-Za-z][\w'’-]*", question)
                        if set(stems(w)) & used)
    return Described(value, unit.doc_id, start, end, unit, label, said, asked_as)


def one_answer(found: list[tuple[set[str], Described]]) -> Described | None:
    """The one value read, or None when two differ. A label that says less of the
    question than another read ("Emp." beside "Emp. no") is a part of that one."""
    kept = {normalise(d.value): d for used, d in found
            if not any(used < other for other, _ in found)}
    return next(iter(kept.values())) if len(kept) == 1 else None


_ORDINAL = re.compile(r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                      r"eleventh|twelfth|\w+teenth|twentieth|\d+(?:st|nd|rd|th))\b", re.I)


def _ordinal_unsaid(question: str, record: str) -> bool:
    """The question picks the record by its place ("the rider placed ninth") and the record
    does not say that ordinal: its place is a number in a position column, which the words
    that picked it do not read (the "oldest rider" row was taken for the ninth)."""
    asked = {m.group().lower() for m in _ORDINAL.finditer(question)}
    return bool(asked) and not asked <= {m.group().lower() for m in _ORDINAL.finditer(record)}


def described_field(question: str, docs: Iterable[tuple[str, str]]) -> Described | None:
    """The field the question asks of the record it describes (see the module), or None
    when no record is picked or two answers differ."""
    asked = stems(question)
    must = named_words(question)
    dates = [d for _, _, d in said_dates(question)]
    codes = question_codes(question)
    found: list[tuple[set[str], Described]] = []
    for group, label, used in asked_labels(question, docs):
        words = set(asked) - used - STOP - _ASK_WORDS - must
        picked = pick_record(group, words, must - used, dates, codes)
        if picked is not None and not _ordinal_unsaid(question, picked[0].text) and (
                read := read_field(question, picked[0], label, used,
                                                      picked[1])) is not None:
            found.append((used, read))
    return one_answer(found)
