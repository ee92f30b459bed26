"""The values a record gives for what a question asks: after a label made of the question's
words (or their abbreviations), in a label cell with the value beside it, or, when the
question asks a kind (an IP address, a port, an amount, a duration, a figure in a unit it
names), by that kind alone. `record_fields` picks the record and the value."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .blocks import lines_of
from .described import abbreviates, says_stem, stems_of
from .record_units import LABEL_CELLS, Unit
from .units import MONEY_SUM, normalise, stems

__all__ = ["ASKED_UNIT", "Candidate", "asked_kind", "asked_kind_words", "candidates",
           "label_matches"]

_NUMBER_SHORT = frozenset({"no", "nr", "num", "#", "ref"})
_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z'’-]*\.?(?![\w-])|#")
_UNIT = (r"(?:\s?(?:%|kWh|MWh|m³|m3|°C|°F|p/kWh|p/day|MB|GB|KB|ms|ml|mg|kg|km|mm|cm|"
         r"m|g|l|s|h|min|mins|minutes?|hours?|hrs?|days?|weeks?|months?|years?|nights?)"
         r"(?![\w/]))?")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_VALUE = re.compile(r"\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH + r"(?:\s+\d{4})?(?!\w)"
                    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}(?![\d/.-])|\d{4}-\d\d-\d\d(?![\d-])"
                    r"|\d+(?:\.\d+){2,}(?![\w.])"  # a version, an address, a status code
                    r"|(?:[£$€]\s?)?(?:\d[\w/-]*[A-Za-z][\w/-]*|\d[\d,]*(?:\.\d+)?|[A-Za-z][\w/-]*\d[\w/-]*|"
                    r"\d[\w/.-]*\d)" + _UNIT + r"(?!:?\d)")
"""A value after a label: a figure (with its currency or unit) or a code with a digit; a
dotted code ("5.2.2", "2.14.1") whole, not its first figure; never the first figure of a
ratio or a clock ("Fed 2:1 syrup" gives no "2")."""
_OPENS = re.compile(r"(?:^\s*|\s{2}|[,;:(\[\"'“—–|=•*-]\s?|[.!?]\s)$")
"""What may come before a label: the line's start, a cell's gap, a clause's punctuation."""
_CELL = re.compile(r"\S+(?: \S+)*")
"""A cell: words set apart from the next by two spaces or more."""
_GAP = re.compile(r"\s*(?:\([^()\n]{0,40}\)\s*)?(?:[:=#]\s*|is\s+|of\s+)?[\"']?")
"""What may sit between a label and its value: a colon, an equals sign, a bracketed aside."""
_KINDS: dict[str, re.Pattern[str]] = {
    "ip": re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"),
    "port": re.compile(r"(?:(?<=localhost:)|(?<=\d\.\d:)|(?<=\d\.\d\d:)|(?<=\d\.\d\d\d:)"
                       r"|(?<=[a-z]\.[a-z]{2}:)|(?<=[a-z]\.[a-z]{3}:)|(?<=\bport\s))\d{2,5}\b",
                       re.IGNORECASE),
    "duration": re.compile(r"\d+(?:\.\d+)?\s?(?:s|secs?|seconds?|min|mins|minutes?|h|hrs?|"
                           r"hours?|days?|weeks?|months?|years?)\b", re.IGNORECASE),
    "money": re.compile(rf"{MONEY_SUM.pattern}|\b\d[\d,]*(?:\.\d+)?\s?(?:GBP|USD|EUR)\b"),
    "percent": re.compile(r"\d+(?:\.\d+)?\s?%"),
}
_ASKS_KIND = (
    ("duration", re.compile(r"\bhow\s+long\b", re.IGNORECASE)),
    ("ip", re.compile(r"\bip\b|\bip\s+address", re.IGNORECASE)),
    ("port", re.compile(r"\bport\b", re.IGNORECASE)),
    # A quote or an estimate is an amount, unless its number or reference is asked.
    ("money", re.compile(r"\bhow\s+much\b|\b(?:cost|price|fee|amount|charged?)\b|£|\$|€"
                         r"|\b(?:quote|estimate)s?\b(?!\s+(?:number|no|ref|id)\b)",
                         re.IGNORECASE)),
    ("percent", re.compile(r"%|\bper\s*cent|\bpercentage\b", re.IGNORECASE)),
)
ASKED_UNIT = re.compile(r"\b(?:(p|pence)\s*(?:per|/)\s*(kwh|day)|(kwh|mwh|mb|gb|kg|ml|mg))\b",
                         re.IGNORECASE)


def asked_kind(question: str) -> tuple[str | None, re.Pattern[str] | None]:
    """The kind of value asked ("ip", "port", "money", "percent", or a unit the question
    names: "p per kWh"), with the pattern that finds it."""
    unit = ASKED_UNIT.search(question)
    if unit is not None:
        if unit.group(1):
            written = rf"\d[\d,]*(?:\.\d+)?\s?p\s?/\s?{unit.group(2)}"
        else:
            written = rf"\d[\d,]*(?:\.\d+)?\s?{unit.group(3)}"
        return "unit", re.compile(written, re.IGNORECASE)
    for kind, asks in _ASKS_KIND:
        if asks.search(question):
            return kind, _KINDS[kind]
    return None, None


def asked_kind_words(question: str) -> str:
    """The words of the question that ask the kind ("IP", "port", "how much")."""
    unit = ASKED_UNIT.search(question)
    if unit is not None:
        return unit.group()
    return next((m.group() for _, asks in _ASKS_KIND if (m := asks.search(question))), "")


def label_matches(token: str, asked: set[str], number: bool) -> str | None:
    """The asked word a label's token says (its stem, an abbreviation of it, or "no." for
    number), or None."""
    bare = token.rstrip(".").lower()
    if bare in _NUMBER_SHORT and number:
        return "number"
    stem = (stems(bare) or [bare])[0]
    # Cut short only when written so ("Att.", "Conf."): "seal" is no short "serial".
    short = token.endswith(".")
    return next((w for w in asked if w == stem or (short and abbreviates(bare, w))), None)


def _labelled(line: str, asked: set[str], number: bool) -> Iterable[tuple[set[str], str, int]]:
    """Each value after a run of the line's words that say asked words: (the asked words
    said, the label as written, where the value starts)."""
    tokens = list(_WORD.finditer(line))
    for i, first in enumerate(tokens):
        # A label opens its cell, clause or sentence ("small pen  18.00" is an item).
        if not _OPENS.search(line[:first.start()]):
            continue
        used: set[str] = set()
        j = i
        while j < len(tokens) and (j == i or re.fullmatch(r"[ \t.:-]{0,3}", line[
                tokens[j - 1].end():tokens[j].start()])) and (
                hit := label_matches(tokens[j].group(), asked, number)) is not None:
            used.add(hit)
            j += 1
        if not used:
            continue
        gap = _GAP.match(line, tokens[j - 1].end())
        value = _VALUE.match(line, gap.end())
        if value is not None:
            # Written as a label: a colon or equals sign, or an abbreviation.
            marked = (bool(re.search(r"[:=]", gap.group()))
                      or tokens[j - 1].group().endswith("."))
            yield used, line[first.start():tokens[j - 1].end()], value.start(), marked


def _score(used: set[str], said: set[str]) -> tuple[int, int]:
    """A label's fit: the asked words it says that do not name the record, "number" (any
    "No." says it) counting last; then all the words it says."""
    return len(used - said - {"number"}), len(used)


@dataclass(frozen=True)
class Candidate:
    score: tuple[int, int]
    value: str
    start: int
    end: int
    label: str
    used: frozenset[str]
    by_kind: bool = False


def _value_at(question: str, line: str, at: int) -> str:
    """The value starting at `at`: the figure or code; for "who", its whole cell (the
    person is in it: "8RH (Mr R. Hadfield)")."""
    cell = _CELL.match(line, at).group().strip()
    # A figure in parts ("11y 2m", "3 h 20 min") is the whole cell.
    if re.match(r"\s*who(?:se|m)?\b", question, re.IGNORECASE) or re.fullmatch(
            r"\d[\d.,:/]*[a-zA-Z%]{0,3}(?: \d[\d.,:/]*[a-zA-Z%]{0,3})+", cell):
        return cell
    return _VALUE.match(line, at).group().strip().rstrip(".,")


def candidates(question: str, unit: Unit, text: str, asked: set[str], said: set[str]
                ) -> list[Candidate]:
    """Each value the record gives for what is asked (see the module, 3)."""
    number = bool(re.search(r"\b(?:number|no\.?|#)(?:\s|$)", question, re.IGNORECASE))
    kind, pattern = asked_kind(question)
    lines = [(unit.start + s, unit.start + e, line)
             for s, e, line in lines_of(text[unit.start:unit.end])]
    out = []
    for start, end, line in lines:
        cells = [(c.start(), c.group()) for c in _CELL.finditer(line)]
        for used, label, at, marked in _labelled(line, asked, number):
            # Words naming the record label a value only when written as a label ("Att.
            # 89.1%"), not a row that starts with them ("Groundwater  25.11.26", "Yaris 1.5").
            # In a grid's row ("T13  Beech (Fagus sylvatica)  21  880 ...") a word before
            # a figure labels it only when written as a label.
            if (used <= said or len(cells) > LABEL_CELLS) and not marked:
                continue
            value = _value_at(question, line, at)
            if pattern is None or pattern.search(value):
                out.append(Candidate(_score(used, said), value, start, end, label,
                                      frozenset(used)))
        # A longer line is a grid's row: its columns are read by the grid readers.
        for (_, label), (at, value) in itertools.pairwise(cells if len(cells) <= LABEL_CELLS
                                                          else []):
            tokens = _WORD.findall(label)
            used = {hit for token in tokens
                    if (hit := label_matches(token, asked, number)) is not None}
            if not tokens or label_matches(tokens[0], asked, number) is None:
                continue  # "Boarding, small pen  18.00": an item, not a label
            # A label cell that is the record's own name ("Egton Bridge Reading Room", a
            # candidate's row) labels nothing asked.
            if used and not used <= said and _VALUE.match(value) and (
                    pattern is None or pattern.search(value)):
                out.append(Candidate(_score(used, said), _value_at(question, line, at),
                                      start, end, label, frozenset(used)))
    if out or pattern is None:
        return out
    found = [(m.group().strip(), start, end, line) for start, end, line in lines
             for m in pattern.finditer(line)]
    # An amount or a percentage only by its kind: the record must give one alone (a bill
    # gives many; which one is asked takes a label).
    if kind in ("money", "percent") and len({normalise(v) for v, *_ in found}) != 1:
        return []
    # Read by its kind, the value goes with its line's first word as the label
    # ("ProxyPass: 192.0.2.7").
    return [Candidate((len({w for w in asked if says_stem(stems_of(line), w)}), 0), value,
                       start, end, next(iter(re.findall(r"[A-Za-z][\w-]*", line)), kind or ""),
                       frozenset(), by_kind=True) for value, start, end, line in found]


