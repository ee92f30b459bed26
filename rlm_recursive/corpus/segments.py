"""Documents of pipe-delimited segments, each line named by its first three characters
(`OBX|1|NM|K^Potassium^WP||5.9|mmol/L|3.5-5.3|H|||F`: HL7 v2 messages and the exports that
copy their layout): one record per segment, its fields named by segment and position as the
standard numbers them (`OBX-8` = "H").

A position is the only name such a field has, so a question reaches it by value ("flagged as
high (H)"), never by a header. In an `MSH` segment the first `|` is itself field 1, so the
positions after it start at 2.
"""

from __future__ import annotations

import re

__all__ = ["segment_fields", "segment_records"]

Span = tuple[int, int, dict[str, str]]

_SEGMENT = re.compile(r"^(?P<name>[A-Z][A-Z0-9]{2})\|")
_SHARE = 0.8
"""Share of a document's non-blank lines that must be segments."""
_MIN_SEGMENTS = 5
_HEADERS_WITH_SEPARATOR = frozenset(("MSH", "BHS", "FHS"))
"""Header segments whose field 1 is the field separator itself."""


def segment_fields(line: str) -> dict[str, str] | None:
    """`NAME-n` = value for each non-empty field of one segment line; None if it is not
    one."""
    m = _SEGMENT.match(line)
    if m is None:
        return None
    name = m.group("name")
    first = 2 if name in _HEADERS_WITH_SEPARATOR else 1
    cells = line.rstrip().split("|")[1:]
    return {f"{name}-{i}": cell.strip().rstrip("^").strip()
            for i, cell in enumerate(cells, start=first) if cell.strip().strip("^")}


def segment_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per segment line, when most lines are segments."""
    spans: list[Span] = []
    lines = 0
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        if body.strip():
            lines += 1
            fields = segment_fields(body)
            if fields is not None:
                spans.append((pos, pos + len(body), fields))
        pos += len(raw)
    if len(spans) < _MIN_SEGMENTS or len(spans) < _SHARE * lines:
        return None
    return spans
