"""A hop between two grids through a row's code (no model call): "the phone number of the
branch that holds the overdue copy of Teach Yourself Chess" reads the row whose cell the
question says in full ("Teach Yourself Chess"), then the row of another grid keyed by one of
that row's codes ("MKT" in a directory "CODE NAME ... TEL"), and there the column the question
asks by its label words (`asked.label_says`: "phone" for TEL).

A report may set its items across instead: a lab certificate lists its samples as rows
("W26-0412  Kitchen tap, Alder House") and then gives each test as a row across columns
headed by the samples' numbers ("Nitrate  mg/l  4.1  3.9 ..." under "0411  0412 ..."). The
question describes the sample by its words and asks the test by its label: the hop reads
the column headed by the sample's code (or its number after the prefix), in the row the
test's label opens.

Refused (None) when two rows hold the cell the question says (or say as many of its words),
when no grid's own column (or row) is what is asked, or when the codes of the row reach two
different values."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import asked_label, asked_phrase, label_says
from .described import named_words, says_stem, stems_of
from .grid_tables import Grid, GridRow, grids
from .units import STOP, stems

__all__ = ["GridLink", "grid_link"]

_CODE = re.compile(r"^[A-Z][A-Z0-9-]{1,9}$")
"""A cell that may key a row elsewhere: a short capitalised code ("MKT", "B-12")."""
_PHRASE_WORDS = 2
"""A cell the question says is one of several words (a title), not a single common word."""


@dataclass(frozen=True)
class GridLink:
    """The value read, the row named, the row reached, the code that links them."""

    value: str
    label: str
    named: tuple[str, GridRow, Grid]
    reached: tuple[str, GridRow, Grid]
    code: str
    """The code as the reached grid writes it (its row's key, or its column's head)."""
    heads: tuple[int, int] | None = None
    """The line naming the reached grid's columns, when it is no header but its first row
    (a head of numbers, "0411  0412"): cited with the answer, as a header is."""


def _says_cell(question: str, cell: str) -> bool:
    words = re.findall(r"[\w']+", cell)
    if len(words) < _PHRASE_WORDS:
        return False
    pattern = r"(?<![\w'])" + r"\W+".join(re.escape(w) for w in words) + r"(?![\w'])"
    return re.search(pattern, question, re.IGNORECASE) is not None


def _asked_column(question: str, grid: Grid) -> int | None:
    named = [k for k, head in enumerate(grid.heads) if head and label_says(question, head)]
    return named[0] if len(named) == 1 else None


def grid_link(question: str, docs: Iterable[tuple[str, str]]) -> GridLink | None:
    """The asked column of the row another grid keys by a code of the row the question
    names, or the asked row's cell in the column another grid heads with that code (see
    the module), or None."""
    if not asked_label(question):
        return None
    all_grids = [(doc_id, grid) for doc_id, text in docs for grid in grids(doc_id, text)]
    return _row_keyed(question, all_grids) or _column_keyed(question, all_grids)


def _row_keyed(question: str, all_grids: list[tuple[str, Grid]]) -> GridLink | None:
    named = [(doc_id, grid, row) for doc_id, grid in all_grids for row in grid.rows
             if any(_says_cell(question, c.text) for c in row.cells)]
    if len(named) != 1:
        return None
    doc_id, grid, row = named[0]
    if _asked_column(question, grid) is not None:
        return None  # asked of the named row itself: `grid_cells` reads it
    found: dict[str, GridLink] = {}
    for cell in row.cells:
        if not _CODE.match(cell.text):
            continue
        for other_doc, other in all_grids:
            column = _asked_column(question, other)
            if other is grid or column is None:
                continue
            for keyed in other.rows:
                if keyed.cells and keyed.cells[0].column == 0 and keyed.cells[0].text == cell.text:
                    value = keyed.at(column)
                    if value is not None:
                        found.setdefault(value.text, GridLink(
                            value.text, other.heads[column], (doc_id, row, grid),
                            (other_doc, keyed, other), cell.text))
    return next(iter(found.values())) if len(found) == 1 else None


_HEAD_CODE = re.compile(r"^(?=[\w-]*\d)[\w-]{3,}$")
"""A column head that may name an item by its code: a number or a code ("44102", "S-7")."""


def _column_heads(grid: Grid) -> tuple[dict[int, str], GridRow | None]:
    """The grid's columns named by codes: by its header, or by its first row when that row
    opens with a word and goes on in codes alone (a header of numbers is read as a row)."""
    heads = {k: h for k, h in enumerate(grid.heads) if _HEAD_CODE.match(h)}
    if heads or not grid.rows:
        return heads, None
    first = grid.rows[0]
    if len(first.cells) < 3 or re.search(r"\d", first.cells[0].text):
        return {}, None
    coded = {c.column: c.text for c in first.cells[1:] if _HEAD_CODE.match(c.text)}
    return (coded, first) if len(coded) >= 2 else ({}, None)


def _heads_code(head: str, code: str) -> bool:
    """The head writes the code, or the code's number after its prefix ("44104" for
    "W26-44104")."""
    if head.lower() == code.lower():
        return True
    return (head.isdigit() and len(head) >= 3 and code.endswith(head)
            and len(code) > len(head) and not code[-len(head) - 1].isalnum())


def _described_rows(question: str, all_grids: list[tuple[str, Grid]], asked: set[str]
                    ) -> list[tuple[str, Grid, GridRow]]:
    """The rows saying most of the question's words besides what it asks (every name it
    gives among them), two at least; more than one when another row says as many."""
    words = set(stems(question)) - STOP - asked
    names = named_words(question) - asked
    scored: list[tuple[int, str, Grid, GridRow]] = []
    for doc_id, grid in all_grids:
        for row in grid.rows:
            said = stems_of(" ".join(c.text for c in row.cells))
            if any(not says_stem(said, n) for n in names):
                continue
            count = sum(says_stem(said, w) for w in words)
            if count >= 2:
                scored.append((count, doc_id, grid, row))
    if not scored:
        return []
    top = max(s[0] for s in scored)
    return [(doc_id, grid, row) for count, doc_id, grid, row in scored if count == top]


def _column_keyed(question: str, all_grids: list[tuple[str, Grid]]) -> GridLink | None:
    """The cell of the asked row (its first cell says what is asked: "Iron") in the column
    another grid of the document heads with a code of the row the question describes."""
    asked = set(asked_phrase(question))
    described = _described_rows(question, all_grids, asked)
    if len(described) != 1:
        return None
    doc_id, grid, row = described[0]
    if _asked_column(question, grid) is not None:
        return None  # asked of the described row itself: `grid_cells` reads it
    codes = [c.text for c in row.cells if _HEAD_CODE.match(c.text)]
    found: dict[str, GridLink] = {}
    for other_doc, other in all_grids:
        if other is grid or other_doc != doc_id:
            continue
        heads, head_row = _column_heads(other)
        columns = [(k, h) for k, h in heads.items() if any(_heads_code(h, c) for c in codes)]
        if len(columns) != 1:
            continue
        column, head = columns[0]
        for tested in other.rows:
            key = tested.cells[0] if tested.cells else None
            if key is None or tested is head_row or not label_says(question, key.text):
                continue
            value = tested.at(column)
            if value is not None:
                found.setdefault(value.text, GridLink(
                    value.text, key.text, (doc_id, row, grid), (other_doc, tested, other), head,
                    (head_row.start, head_row.end) if head_row is not None else None))
    return next(iter(found.values())) if len(found) == 1 else None
