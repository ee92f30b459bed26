"""Question words that a record spells otherwise: a month ("in October") against the dates the
records hold ("01OCT", "2026-10-01"), and a phrase the document abbreviates ("direct debits"
written "DD", where the document's key says "DD Direct Debit")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..corpus.dates import MONTHS, has_month
from ..corpus.records import Record
from ..corpus.tally import phrase_regex, stems, words

__all__ = ["defined_code", "month_words"]

_CODE = re.compile(r"\b[A-Z]{2,5}\b")


def month_words(question: str, records: list[Record], skip: set[int]
                ) -> tuple[list[int], set[int]]:
    """The months the question names that some record's date falls in, and their word
    positions ("May" only capitalised: "may" is a verb)."""
    raw = re.findall(r"[A-Za-z0-9]+", question)
    months: list[int] = []
    at: set[int] = set()
    for i, word in enumerate(raw):
        month = MONTHS.get(word.lower())
        if i in skip or month is None or len(word) < 3 or (word == "may"):
            continue
        if any(has_month(r.text, month) for r in records):
            months.append(month)
            at.add(i)
    return months, at


def _initials(phrase: str) -> str:
    return "".join(stems(w)[0][0] for w in words(phrase)).upper()


def defined_code(phrase: str, records: Iterable[Record]) -> str | None:
    """The code the records use for a phrase of two or more words, when one record defines
    it beside the phrase ("DD Direct Debit", "Direct Debit (DD)") and at most that one
    record spells the phrase out."""
    if len(words(phrase)) < 2:
        return None
    pattern = phrase_regex(phrase)
    saying = [r for r in records if pattern.search(r.text)]
    if len(saying) != 1:
        return None
    text = saying[0].text
    for match in pattern.finditer(text):
        near = text[max(match.start() - 8, 0):match.start()] + " " + text[
            match.end():match.end() + 8]
        for code in _CODE.findall(near):
            if code == _initials(phrase):
                return code
    return None
