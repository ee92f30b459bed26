"""A question's words that name a label the records write, and the value it asks there:
"tickets targeted at fix version 4.8.0" over tickets that write `Fix Version/s: 4.8.0`
beside `Affects Version/s: 4.7.0` and `Resolution: Fixed` on their lines.

A label is a run of words before a colon at a line's start or after a wide gap (several
`Label: value` pairs on one line, as exports write them). The question names one when its
words spell the label's words (a plural mark "/s" or "(s)" aside); the value is the word
right after (past "=", ":", "is", "of"). Both then make one condition: the value among that
label's values. So "fix" is not matched with another field's "Fixed", and "4.8.0" under
"Affects Version/s" is not counted. A single-word label ("Status") is a field the record
readers already parse; only labels of two or more words are read here.
"""

from __future__ import annotations

import re

from ...corpus.records import Layout
from ...corpus.tally import FieldFilter, labelled_value
from ...corpus.word_stems import stems
from .plan_words import word_offsets

__all__ = ["labelled_terms"]

_LABEL = re.compile(r"(?:^|(?<=\S[ \t]{2})|(?<=\t)|(?<=\|[ \t]))[ \t]*"
                    r"(?P<label>[A-Za-z][A-Za-z]*(?:(?:[ \t]|[/-])[A-Za-z()]+){1,3})[ \t]*:[ \t]",
                    re.MULTILINE)
_PLURAL_MARK = re.compile(r"(?:/s|\(s\))$", re.IGNORECASE)
_VALUE = re.compile(r"\s*(?:=|:|\bis\b|\bof\b)?\s*(?P<v>[\w][\w.+/-]*\w|\w)")
_SCANNED = 2000
"""Records read for labels (enough to see every label an export writes)."""


def _labels(layout: Layout) -> dict[tuple[str, ...], str]:
    """Each label of two or more words the records write, by the stems of its words."""
    out: dict[tuple[str, ...], str] = {}
    for record in layout.records[:_SCANNED]:
        for match in _LABEL.finditer(record.text):
            label = match.group("label")
            key = tuple(stems(_PLURAL_MARK.sub("", label)))
            if len(key) >= 2:
                out.setdefault(key, label)
    return out


def labelled_terms(question: str, layout: Layout) -> tuple[list[FieldFilter], set[int]]:
    """The labels the question spells with the value it asks after each, when some record
    writes that value there; and the positions of their words (label and value)."""
    q_stems = stems(question)
    offsets = word_offsets(question)
    if len(q_stems) != len(offsets):
        return [], set()
    found: list[FieldFilter] = []
    at: set[int] = set()
    for key, label in _labels(layout).items():
        for i in range(len(q_stems) - len(key) + 1):
            if q_stems[i:i + len(key)] != key:
                continue
            value = _VALUE.match(question, offsets[i + len(key) - 1][1])
            if value is None:
                continue
            pattern = labelled_value(label, value.group("v"))
            if not any(pattern.search(r.text) for r in layout.records):
                continue
            found.append(FieldFilter(field=label, value=value.group("v")))
            at |= {j for j, (a, b) in enumerate(offsets)
                   if a >= offsets[i][0] and b <= value.end()}
    return found, at
