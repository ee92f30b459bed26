"""Event and audit lines: a time stamp, then columns of tokens, whatever separates them.

Access-control reports, alarm panels, door and badge logs, audit trails and machine event
histories write one event a line: an optional sequence number, a date and a time, then the
event's columns (the reader or door, the person or card, what happened, why), set apart by
runs of spaces or tabs, by brackets and parentheses, by `|`, or by arrows such as `>>` and
`->`, and an outcome with its reason after " - " ("ACCESS DENIED - NO RIGHTS"). No other
line format reads them, so a question's words ("refused at either server room", "Chioma
Okafor's card") found no field to match and every line was judged by the model.

Each event line becomes a record whose fields are its cells: `id` (what comes before the
stamp), `date`, `time`, then the cells in order, named by how they are written
(`bracket1` for the first `[...]` cell, `paren1` for the first `(...)`, `cell1`, `cell2` for
the plain ones), so a missing cell (an event with no card) does not shift the others' names.
A column's values are then matched to the question's words like any field's. Lines around
the events (a report's title, its legends) stay records without fields.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .items import line_spans

__all__ = ["event_fields", "event_records"]

_DATE = (r"\d{4}-\d\d-\d\d|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{1,2} [A-Z][a-z]{2,8}\.? \d{4}"
         r"|[A-Z][a-z]{2} [ \d]?\d")
_TIME = r"\d{1,2}:\d\d(?::\d\d(?:[.,]\d{1,6})?)?(?:\s?[AaPp][Mm])?"
_STAMPED = re.compile(
    r"^\s*(?:(?!" + _DATE + r")(?P<id>[#\w][\w.#/-]{0,20})[ \t]+)?"
    r"(?:(?P<date>" + _DATE + r")(?:[ \tT,]+|$))?(?P<time>" + _TIME + r")(?=\s|$|[\]|,;])")
"""An event line's start: an optional sequence number, an optional date, and a time."""
_CELL = re.compile(r"\[(?P<bracket>[^\]\n]{1,120})\]|\((?P<paren>[^)\n]{1,120})\)"
                   r"|\"(?P<quoted>[^\"\n]{1,200})\"")
_SEPARATOR = re.compile(r"\t|\s{2,}|\s*\|\s*|\s+(?:>{1,2}|-{1,2}>|=>|::|—|–|-)\s+")
_TRIM = " \t,;:|"
_MIN_CELLS = 2
"""Cells after the stamp an event line has at least (else it is a stamped message)."""
_STAMP_KEYS = frozenset(("id", "date", "time"))
_FREE_MIN = 20
_FREE_SHARE = 0.5
"""A column with more distinct values than this share of its lines (and than `_FREE_MIN`)
holds free text."""


def event_fields(line: str) -> dict[str, str] | None:
    """The fields of one event line, or None when it does not start with a time stamp."""
    m = _STAMPED.match(line)
    if m is None:
        return None
    out = {k: v for k, v in (("id", m.group("id")), ("date", m.group("date")),
                             ("time", m.group("time"))) if v}
    rest = line[m.end():]
    counts: dict[str, int] = {}

    def put(kind: str, value: str) -> None:
        value = value.strip(_TRIM)
        if value:
            counts[kind] = counts.get(kind, 0) + 1
            out[f"{kind}{counts[kind]}"] = value

    pos = 0
    for cell in _CELL.finditer(rest):
        for plain in _SEPARATOR.split(rest[pos:cell.start()]):
            put("cell", plain)
        kind = cell.lastgroup or "cell"
        put(kind, cell.group(kind))
        pos = cell.end()
    for plain in _SEPARATOR.split(rest[pos:]):
        put("cell", plain)
    # "06:00 kiln fired" is a stamped message, not columns: its text is no field value.
    return out if sum(counts.values()) >= _MIN_CELLS else None


def event_records(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """Every non-blank line: an event line with its cells as fields, any other without.
    A column whose values are mostly distinct (a free-text message, a talk's title) is no
    class to count by: it is left to the line's text, where a phrase finds any wording of
    it ("backup failed" in "backup failed: disk full"), not the one whole value."""
    out = [(a, b, event_fields(text[a:b]) or {}) for a, b in line_spans(text)]
    values: dict[str, Counter[str]] = defaultdict(Counter)
    for _, _, fields in out:
        for key, value in fields.items():
            values[key][value] += 1
    free = {k for k, v in values.items() if k not in _STAMP_KEYS
            and len(v) > max(_FREE_MIN, _FREE_SHARE * v.total())}
    return [(a, b, {k: v for k, v in f.items() if k not in free}) for a, b, f in out]
