"""A hop into a report that sets its items across, as columns headed by their codes (no
model call). A lab certificate lists its samples ("W26-0412  Kitchen tap, Alder House"),
then gives each test as a row across columns headed by the samples' numbers ("Nitrate
mg/l  4.1  3.9 ..." under "Sample  0411  0412 ..."); a cumulative report heads its columns
with specimen numbers and says of one, in a comment, "specimen 24X0091: haemolysed".

"What was the nitrate at the Alder House kitchen tap?": the line saying most of the
question's words besides what it asks (every name it gives among them) gives a code; the
nearest line above the asked row that heads a column with that code (or with the code's
number after its prefix, "0412" for "W26-0412") gives the column; the row whose label says
what is asked ("Nitrate") gives the cell under that head.

Refused (None) when the lines saying most of the question's words give no code, or codes
that reach different values; when a head sits over no cell of the row, or over two; when
the described line's own table has the asked column (`grid_cells` reads that)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import asked_label, asked_phrase, label_says
from .blocks import lines_of
from .dates import said_dates, same_date
from .described import named_words, says_stem, stems_of
from .grid_links import GridLink
from .grid_tables import Grid, GridRow, grids
from .units import STOP, stems

__all__ = ["column_link"]

_CELL = re.compile(r"\S+(?: \S+)*")
"""A cell of an aligned line: words set apart from the next cell by two or more spaces."""
_HEAD_CODE = re.compile(r"^(?=[\w-]*\d)[\w-]{4,}$")
"""A head naming an item by its code or number ("44102", "24X119977", "S-007")."""
_HEAD_CODES = 2
_OWNER = re.compile(r"\s*([A-Z][\w-]+)['’]s\b")


@dataclass(frozen=True)
class _Heads:
    """A line heading columns with codes: its span and its code cells (x from, x to, code)."""

    start: int
    end: int
    codes: tuple[tuple[int, int, str], ...]


def _heads(start: int, end: int, line: str) -> _Heads | None:
    """The line opens with a word ("Specimen no.", "Parameter") and heads two columns or
    more with codes."""
    cells = [(m.start(), m.end(), m.group()) for m in _CELL.finditer(line)]
    if len(cells) < 1 + _HEAD_CODES or re.search(r"\d", cells[0][2]) or not re.search(
            r"[A-Za-z]", cells[0][2]):
        return None
    codes = tuple(c for c in cells[1:] if _HEAD_CODE.match(c[2]))
    return _Heads(start, end, codes) if len(codes) >= _HEAD_CODES else None


def _heads_code(head: str, code: str) -> bool:
    """The head writes the code, or the code's number after its prefix ("44104" for
    "W26-44104")."""
    if head.lower() == code.lower():
        return True
    return (head.isdigit() and code.endswith(head) and len(code) > len(head)
            and not code[-len(head) - 1].isalnum())


def _described(question: str, lines: list[tuple[int, int, str]], skip: set[int]
               ) -> list[tuple[int, int, str]]:
    """The lines saying most of the question's words besides what it asks (every name it
    gives among them, two words at least)."""
    asked = set(asked_phrase(question))
    words = set(stems(question)) - STOP - asked
    names = named_words(question) - asked
    scored = []
    for start, end, line in lines:
        if start in skip or not line.strip():
            continue
        said = stems_of(line)
        if any(not says_stem(said, n) for n in names):
            continue
        count = sum(says_stem(said, w) for w in words)
        if count >= 2:
            scored.append((count, start, end, line))
    top = max((s[0] for s in scored), default=0)
    return [(start, end, line) for count, start, end, line in scored if count == top]


def _cell_under(row: GridRow, line_start: int, x0: int, x1: int) -> str | None:
    """The one cell of the row that sits under the head's span, or None."""
    under = [c.text for c in row.cells if c.start - line_start < x1 and c.end - line_start > x0]
    return under[0] if len(under) == 1 else None


def _asked_column(question: str, grid: Grid) -> bool:
    return any(head and label_says(question, head) for head in grid.heads)


def column_link(question: str, docs: Iterable[tuple[str, str]]) -> GridLink | None:
    """The asked row's cell in the column headed by the code of the line the question
    describes (see the module), or None."""
    if not asked_label(question):
        return None
    found: dict[str, GridLink] = {}
    for doc_id, text in docs:
        lines = lines_of(text)
        heads = [h for start, end, line in lines if (h := _heads(start, end, line))]
        if not heads:
            continue
        doc_grids = grids(doc_id, text)
        asked = [(grid, row) for grid in doc_grids for row in grid.rows
                 if row.cells and row.cells[0].column == 0 and row.start not in
                 {h.start for h in heads} and label_says(question, row.cells[0].text)]
        if not asked:
            continue
        described = _described(question, lines,
                               {h.start for h in heads} | {row.start for _, row in asked})
        for start, end, line in described:
            own = next((g for g in doc_grids if any(r.start == start for r in g.rows)), None)
            if own is not None and _asked_column(question, own):
                return None  # asked of the described row itself: `grid_cells` reads it
            codes = [m.group() for m in _CELL.finditer(line) if _HEAD_CODE.match(m.group())]
            codes += [w for w in re.findall(r"[\w-]+", line) if _HEAD_CODE.match(w)]
            for grid, row in asked:
                above = [h for h in heads if h.start < row.start]
                head = next(((h, c) for h in reversed(above) for c in h.codes
                             if any(_heads_code(c[2], code) for code in codes)), None)
                if head is None:
                    continue
                line_start = text.rfind("\n", 0, row.start) + 1
                value = _cell_under(row, line_start, head[1][0], head[1][1])
                if value is None:
                    continue
                found.setdefault(value, GridLink(
                    value, row.cells[0].text, (doc_id, start, end), (doc_id, row, grid),
                    head[1][2], (head[0].start, head[0].end)))
        if not found:
            _dated(question, text, doc_id, heads, asked, found)
    return next(iter(found.values())) if len(found) == 1 else None


def _dated(question: str, text: str, doc_id: str, heads: list[_Heads],
           asked: list[tuple[Grid, GridRow]], found: dict[str, GridLink]) -> None:
    """The asked rows' cells under the head that writes the question's one date ("on the
    23rd of November" under "Collected  22-Nov-26  23-Nov-26 ..."), when the document
    says every name the question gives."""
    said = said_dates(question)
    dates = [d for _, _, d in said]
    # The date's own words ("November") are no names to find.
    undated = "".join(c if not any(a <= i < b for a, b, _ in said) else " "
                      for i, c in enumerate(question))
    names = named_words(undated) - set(asked_phrase(question))
    if owner := _OWNER.match(question):  # "Marigold's sodium ...": whose, though first
        names |= set(stems(owner[1]))
    if len(dates) != 1 or any(not says_stem(stems_of(text), n) for n in names):
        return
    for grid, row in asked:
        above = [h for h in heads if h.start < row.start]
        head = next(((h, c) for h in reversed(above) for c in h.codes
                     if any(same_date(d, dates[0]) for _, _, d in said_dates(c[2]))), None)
        if head is None:
            continue
        line_start = text.rfind("\n", 0, row.start) + 1
        value = _cell_under(row, line_start, head[1][0], head[1][1])
        if value is not None:
            found.setdefault(value, GridLink(
                value, row.cells[0].text, (doc_id, head[0].start, head[0].end),
                (doc_id, row, grid), head[1][2], (head[0].start, head[0].end)))
