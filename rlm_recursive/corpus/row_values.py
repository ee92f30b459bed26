"""Is a value in an answer one row's among sibling rows, with the row unsaid?

A recap or summary table writes one row per host, job or account, each with the same
`key=value` fields ("web-02 : ok=10 changed=5", "nas-04 : copied=10 skipped=3"). A value
such a row gives ("10") occurs in the text, yet an answer that says only "the recap shows 10"
could be any row's: when other rows give that field other values, the answer is grounded
only when it, or the question, names a row that holds the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .naming import contains, values
from .units import normalise

__all__ = ["unnamed_row_value"]

_PAIR = re.compile(r"(?<![\w.-])([A-Za-z_][\w.-]{0,40})=(\"[^\"\n]{0,80}\"|[^\s,;\"]{1,80})")
_MIN_PAIRS = 2
"""A line with this many `key=value` pairs is a row of fields, not prose that says one."""
_NAME_TOKEN = re.compile(r"[^\s:|,;()\[\]]{3,}")


def _rows(texts: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    out = []
    for text in texts:
        for line in text.splitlines():
            pairs = {k.lower(): normalise(v.strip('"')) for k, v in _PAIR.findall(line)}
            if len(pairs) >= _MIN_PAIRS:
                out.append((line, pairs))
    return out


def _row_names(line: str) -> list[str]:
    """What a row says besides its fields: its host, job or account (normalised)."""
    rest = _PAIR.sub(" ", line)
    return [normalise(t) for t in _NAME_TOKEN.findall(rest)]


def unnamed_row_value(answer: str, question: str, texts: Iterable[str]) -> str | None:
    """The first value of the answer (one the question does not say) that the texts give only
    as a field of rows whose field other rows set otherwise, none of those rows named by the
    answer or the question; None when every value is pinned to a row or is no row's."""
    rows = _rows(texts)
    if not rows:
        return None
    said = normalise(f"{question} {answer}")
    asked = normalise(question)
    for value in values(answer):
        if not any(c.isdigit() for c in value) or contains(asked, value):
            continue
        holding = [(line, key) for line, pairs in rows for key, v in pairs.items() if v == value]
        if not holding:
            continue
        keys = {key for _, key in holding}
        others = any(key in pairs and pairs[key] != value for _, pairs in rows for key in keys)
        named = any(contains(said, name) for line, _ in holding for name in _row_names(line))
        if others and not named:
            return value
    return None
