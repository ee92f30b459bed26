"""A line's label and its value, as people lay them out: `Key: value`; a label and a value
across a gutter or a leader of dots ("Adult day ticket ....... £4.60"); a label in words
then a value opening with a digit ("Ticket number 074 2391556702"); a grid's row read
cell by cell under its header line. A sentence, or a row of several values, is none."""

from __future__ import annotations

import re

from .assignments import is_reference

__all__ = ["KEYED", "grid_cells", "is_grid_header", "label_value"]

_GAP = re.compile(r"\S(?:\s{2,}|\s*(?:\.\s?){3,}\s*)(?=\S)")
KEYED = re.compile(r"^([A-Za-z][\w ./()'’-]{0,40}?):\s+(\S.*)$")
_WORDED = re.compile(r"^([A-Za-z][A-Za-z .'’()/-]{2,40}?)\s+(\d[\w,./:-]*(?:\s[\w,./:-]+){0,3})$")
"""A label in words, then a value opening with a digit ("Ticket number 074 2391556702")."""
_PROSE = re.compile(r"[a-z]{2}[.!?]\s+[A-Z(\"']")
_PROSE_WORDS = 8
_CELL = re.compile(r"\S+(?: \S+)*")


_ROW_CELLS = 3


def label_value(line: str) -> tuple[str, str] | None:
    body = line.strip()
    if _PROSE.search(body) or (body.endswith(".") and len(body.split()) >= _PROSE_WORDS):
        return None  # a sentence that happens to hold a colon or a number is no label
    if (keyed := KEYED.match(body)) is not None:
        return keyed.group(1).strip(), keyed.group(2).strip()
    gap = _GAP.search(body)
    if gap is not None:
        label, value = body[:gap.start() + 1].strip(), body[gap.end():].strip()
        # `instance_type    = var.size`: an aligned assignment; a reference says no value.
        if re.match(r"[:?]?=\s", value):
            value = value.split("=", 1)[1].strip()
            if is_reference(value):
                return None
        # "pH (water)   pH units   6.1   7.2   5.8": a table's row of several values, no
        # label's one value (which of them is asked, its header says).
        cells = _cells(value)
        if len(cells) >= _ROW_CELLS and sum(bool(re.search(r"\d", c)) for _, c in cells) >= 3:
            return None
        if re.search(r"[A-Za-z]{2}", label) and value:
            return label, value
    if (worded := _WORDED.match(body)) is not None:
        return worded.group(1).strip(), worded.group(2).strip()
    return None


def _cells(line: str) -> list[tuple[int, str]]:
    """The cells of a line split on wide gaps: (column, text)."""
    return [(m.start(), m.group()) for m in _CELL.finditer(line)]


def grid_cells(row_line: str, header: str) -> list[tuple[str, str, str]]:
    """A grid row's cells under the header's columns: (row label, column header, cell).
    The row's label is what stands left of the header's first column (or under it, when
    that column names the labels: "SECTION"); each other cell must start under a column
    of its own."""
    heads = _cells(header)
    row = _cells(row_line)
    if len(heads) < 3 or len(row) < 3:
        return []
    first = heads[0][0]
    label = [cell for col, cell in row if col < first - 1]
    rest = [(col, cell) for col, cell in row if col >= first - 1]
    if not label:
        label = [cell for col, cell in rest if _nearest(heads, col) == 0]
        rest = [(col, cell) for col, cell in rest if _nearest(heads, col) != 0]
    if not label or len(rest) < 2:
        return []
    out, taken = [], set()
    for col, cell in rest:
        at = _nearest(heads, col)
        if at in taken or abs(heads[at][0] - col) > 4:
            return []
        taken.add(at)
        # "Wed11": a day and a date, said in two words by a question.
        head = re.sub(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z]{2})", " ", heads[at][1])
        out.append((" ".join(label), head, cell))
    return out


def _nearest(heads: list[tuple[int, str]], col: int) -> int:
    return min(range(len(heads)), key=lambda k: abs(heads[k][0] - col))


def is_grid_header(line: str) -> bool:
    cells = _cells(line)
    return len(cells) >= 3 and all(re.search(r"[A-Za-z]", c) and not re.search(
        r"\d[.,]\d|[£$€]|:(?:\s|$)", c) for _, c in cells)
