"""A hop between two grids through a row's code (no model call): "the phone number of the
branch that holds the overdue copy of Teach Yourself Chess" reads the row whose cell the
question says in full ("Teach Yourself Chess"), then the row of another grid keyed by one of
that row's codes ("MKT" in a directory "CODE NAME ... TEL"), and there the column the question
asks by its label words (`asked.label_says`: "phone" for TEL).

Refused (None) when two rows hold the cell the question says, when no grid's own column is
what is asked, or when the codes of the row reach two different values."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import asked_label, label_says
from .grid_tables import Grid, GridRow, grids

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
    named: tuple[str, int, int]
    """The line the question names or describes: (doc_id, start, end)."""
    reached: tuple[str, GridRow, Grid]
    code: str
    """The code as the reached grid writes it (its row's key, or its column's head)."""
    heads: tuple[int, int] | None = None
    """The line naming the reached row's columns by code, when it is not the grid's header
    (`grid_columns`): cited with the answer, as a header is."""


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
    names (see the module), or None."""
    if not asked_label(question):
        return None
    all_grids = [(doc_id, grid) for doc_id, text in docs for grid in grids(doc_id, text)]
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
                            value.text, other.heads[column], (doc_id, row.start, row.end),
                            (other_doc, keyed, other), cell.text))
    return next(iter(found.values())) if len(found) == 1 else None
