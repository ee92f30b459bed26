"""Grids: the aligned tables of a plain-text document (a tide table, a bus timetable, a
rota, a price list), each with its rows, its columns named from the header above them, and
the lines that name the table (the heading above it).

A grid row is a line of two or more cells, set apart by gutters (two or more spaces) or
bars. Columns are found by where the rows' cells sit: a character position most rows of a
block write on belongs to a column, so one stray line (a title typed across the columns)
does not join two columns. A line whose cells do not each fall in one column of their own
is no row (it ends the grid). Blocks of rows separated only by blank lines, with the same
columns, are one grid (a table printed a week to a paragraph).

The header is the nearest line above the rows (past blank lines and rules) whose cells are
all words; its names go to the columns in order when it has as many cells as there are
columns (a header typed a little off its columns, "TIME HT TIME HT"), else each to the
column it sits over (word by word, when a program's report sets its header words one space
apart over columns two apart, "CAT BR" over "AF  CEN"). A column under two header words
whose rows all start a word, after one space, where the second header word starts
("BARCODE TITLE" over "3100055321 The Lantern Men") is two columns: the rows' cells are cut
there. The heading is the nonblank lines just above the header (or the rows).
Pipe tables ("| a | b |") have their columns by the bars instead.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .blocks import lines_of
from .grid_headers import WORDY, column_names, cut, header_cells, header_cuts, parts

__all__ = ["Cell", "Grid", "GridRow", "column_value_said", "grid_rows", "grids",
           "preamble_end"]

_CELL = re.compile(r"[^\s|]+(?: [^\s|]+)*")
"""A cell: words set apart from the next cell by two or more spaces, or a bar."""
_GUTTER = re.compile(r"\S(?: {2,}|\s*\|\s*)\S")
_RULE = re.compile(r"^[\s\-=_~*+|:]+$")
_OCCUPIED = 0.3
"""Of a block's lines: the share that must write on a position for it to be a column's."""
_HEADING_LINES = 2


@dataclass(frozen=True)
class Cell:
    """A cell's text, where it is in the document, and the column it is in."""

    text: str
    start: int
    end: int
    column: int


@dataclass(frozen=True)
class GridRow:
    start: int
    end: int
    cells: tuple[Cell, ...]
    """The row's written cells, in column order (a blank cell is not there)."""

    def at(self, column: int) -> Cell | None:
        return next((c for c in self.cells if c.column == column), None)


@dataclass(frozen=True)
class Grid:
    """A grid of a document: its column names ("" where none is written), its rows, the
    span of its header line(s) and of its heading (the lines naming it)."""

    doc_id: str
    heads: tuple[str, ...]
    rows: tuple[GridRow, ...]
    header: tuple[int, int] | None
    heading: tuple[int, int] | None
    columns: tuple[tuple[int, int], ...] = ()
    """Where each column sits on its lines (none for a pipe table)."""


def _cells(line: str, pipes: bool) -> list[tuple[int, int, str]]:
    if pipes:
        out, pos = [], 0
        for k, part in enumerate(line.split("|")):
            if k and part.strip():
                lead = len(part) - len(part.lstrip())
                out.append((pos + lead, pos + lead + len(part.strip()), part.strip()))
            pos += len(part) + 1
        return out
    return [(m.start(), m.end(), m.group()) for m in _CELL.finditer(line)]


def _pipe_columns(line: str) -> list[int]:
    """The column of each written cell of a pipe row."""
    return [k for k, part in enumerate(line.split("|")[1:]) if part.strip()]


def _is_pipe(line: str) -> bool:
    return line.lstrip().startswith("|") and line.count("|") >= 3


def _row_like(line: str) -> bool:
    return "\t" not in line and not _RULE.match(line) and (
        _is_pipe(line) or (len(_GUTTER.findall(line)) >= 1 and len(_cells(line, False)) >= 2))


def _columns(lines: list[str]) -> list[tuple[int, int]]:
    """The positions most of the block's lines write on, as runs: the columns."""
    width = max(len(line) for line in lines)
    counts = [0] * width
    for line in lines:
        for a, b, _ in _cells(line, False):
            for i in range(a, b):
                counts[i] += 1
    need = max(1.0, _OCCUPIED * len(lines))
    runs, start = [], None
    for i, n in enumerate([*counts, 0]):
        if n >= need and start is None:
            start = i
        elif n < need and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _place(cells: list[tuple[int, int, str]], columns: list[tuple[int, int]]
           ) -> list[int] | None:
    """Each cell's column (the one it overlaps), or None when a cell overlaps none or two,
    or two cells share one."""
    placed = []
    for a, b, _ in cells:
        hits = [k for k, (x, y) in enumerate(columns) if a < y and x < b]
        if len(hits) != 1:
            return None
        placed.append(hits[0])
    return placed if len(set(placed)) == len(placed) else None


def _blocks(lines: list[tuple[int, int, str]]) -> list[list[int]]:
    """Runs of consecutive row-like lines (indices), blank lines ending them."""
    out: list[list[int]] = []
    run: list[int] = []
    for i, (_, _, line) in enumerate(lines):
        if _row_like(line) and (not run or _is_pipe(line) == _is_pipe(lines[run[0]][2])):
            run.append(i)
            continue
        if len(run) >= 1:
            out.append(run)
        run = [i] if _row_like(line) else []
    if run:
        out.append(run)
    return out


def _split(lines: list[tuple[int, int, str]], block: list[int]
           ) -> list[tuple[list[tuple[int, int]], list[tuple[int, list[int]]]]]:
    """The block's runs of rows that fit its columns, each with its rows' placed cells."""
    pipes = _is_pipe(lines[block[0]][2])
    if pipes:  # a pipe table's k-th written cell may be in a later column (blanks before)
        rows = [(i, _pipe_columns(lines[i][2])) for i in block if not _RULE.match(lines[i][2])]
        return [([], rows)] if rows else []
    columns = _columns([lines[i][2] for i in block])
    out: list[tuple[list[tuple[int, int]], list[tuple[int, list[int]]]]] = []
    run: list[tuple[int, list[int]]] = []
    for i in block:
        placed = _place(_cells(lines[i][2], False), columns)
        if placed is None:
            if run:
                out.append((columns, run))
            run = []
            continue
        run.append((i, placed))
    if run:
        out.append((columns, run))
    return [(cols, rows) for cols, rows in out if len(cols) >= 2]


def _between(lines: list[tuple[int, int, str]], grid: Grid, first: int) -> bool:
    """Only lines of rows that fit no column (notes set across them) stand between the
    grid's last row and the line `first`: no blank line, heading or rule."""
    last = next(i for i, (start, _, _) in enumerate(lines) if start == grid.rows[-1].start)
    return all(_row_like(lines[j][2]) or _wrapped(lines[j][2], grid)
               for j in range(last + 1, first))


def _wrapped(line: str, grid: Grid) -> bool:
    """An indented line of one cell that starts in a column of the grid: the row above's
    cell carried on ("                  of Mill Lane" under its Subject)."""
    at = len(line) - len(line.lstrip())
    return (at > 0 and len(_cells(line, False)) == 1
            and any(x <= at <= y for x, y in grid.columns))


def _same_columns(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    return len(a) == len(b) and all(x1 < y2 and x2 < y1 for (x1, y1), (x2, y2) in zip(a, b,
                                                                                       strict=True))


def _header(lines: list[tuple[int, int, str]], first: int, pipes: bool
            ) -> tuple[int, list[tuple[int, int, str]]] | None:
    """The header line above the rows (past blank lines and rules): its index and cells."""
    i = first - 1
    while i >= 0 and (not lines[i][2].strip() or (_RULE.match(lines[i][2]) and not pipes)
                      or (pipes and _RULE.match(lines[i][2]))):
        i -= 1
    if i < 0 or first - i > 4:
        return None
    cells = _cells(lines[i][2], pipes)
    if len(cells) >= 2 and header_cells(cells):
        return i, cells
    return None


def _heads_rows(lines: list[tuple[int, int, str]], rows: list[tuple[int, list[int]]],
                pipes: bool) -> bool:
    """The first row is all words and a later row writes a value: the first is a header
    (a pipe table's first row always is)."""
    if len(rows) < 3:
        return False
    first = _cells(lines[rows[0][0]][2], pipes)
    return header_cells(first) and (pipes or any(not WORDY.match(text) for i, _ in rows[1:]
                                                  for _, _, text in _cells(lines[i][2], pipes)))


def _heading(lines: list[tuple[int, int, str]], above: int) -> tuple[int, int] | None:
    """The nonblank lines just above line `above` (past blank lines), up to two."""
    i = above - 1
    while i >= 0 and not lines[i][2].strip():
        i -= 1
    if i < 0 or _RULE.match(lines[i][2]):
        return None
    top = i
    while top > 0 and i - top + 1 < _HEADING_LINES and lines[top - 1][2].strip() and not (
            _RULE.match(lines[top - 1][2])):
        top -= 1
    return lines[top][0], lines[i][1]


@functools.lru_cache(maxsize=16)
def grids(doc_id: str, text: str) -> tuple[Grid, ...]:
    """The grids of a document (see the module), each with two rows at least."""
    lines = lines_of(text)
    runs = [run for block in _blocks(lines) for run in _split(lines, block)]
    merged: list[tuple[list[tuple[int, int]], list[tuple[int, list[int]]]]] = []
    for columns, rows in runs:
        if merged and columns and _same_columns(merged[-1][0], columns) and all(
                not lines[j][2].strip() for j in range(merged[-1][1][-1][0] + 1, rows[0][0])):
            merged[-1] = (merged[-1][0], merged[-1][1] + rows)
        else:
            merged.append((columns, rows))
    out = []
    for columns, rows in merged:
        pipes, cuts = not columns, []
        count = len(columns) if columns else max(len(p) for _, p in rows)
        if _heads_rows(lines, rows, pipes):  # the first row is the header over the rest
            first, placed = rows[0]
            found, rows = (first, _cells(lines[first][2], pipes)), rows[1:]
            heads = [""] * count
            for (_, _, name), k in zip(found[1], placed, strict=True):
                heads[k] = name
        else:
            found = _header(lines, rows[0][0], pipes)
            cuts = header_cuts(lines[found[0]][2], [lines[i][2] for i, _ in rows],
                         columns) if found and columns else []
            if cuts:  # two columns a single space apart: split, and place the cells again
                columns = sorted([(x, y) for x, y in columns
                                  if not any(x < at < y for at in cuts)]
                                 + [part for x, y in columns for part in parts(x, y, cuts)
                                    if any(x < at < y for at in cuts)])
                count = len(columns)
                rows = [(i, placed) for i, _ in rows
                        if (placed := _place(cut(_cells(lines[i][2], False), cuts),
                                             columns)) is not None]
            heads = column_names(found[1], columns, count) if found else [""] * count
            # Rows broken off by a line that fits no column ("117 Wendy Lutz ... ABSENT")
            # are still under the header of the rows before, when their columns are those.
            if found is None and out and out[-1].header and _same_columns(
                    out[-1].columns, columns) and _between(lines, out[-1], rows[0][0]):
                heads, found = list(out[-1].heads), (-1, [])
        top = found[0] if found else rows[0][0]
        grid_rows = []
        for i, placed in rows:
            start, _, line = lines[i]
            grid_rows.append(GridRow(start, lines[i][1], tuple(
                Cell(cell, start + a, start + b, k)
                for (a, b, cell), k in zip(cut(_cells(line, pipes), cuts), placed,
                                           strict=True))))
        # (One row between two notes is still a row of the grid it carries on.)
        carried = bool(found) and found[0] < 0
        if (len(grid_rows) >= 2 or carried) and len(heads) >= 2:
            header = (out[-1].header if found[0] < 0 else (lines[found[0]][0], lines[found[0]][1])
                      ) if found else None
            out.append(Grid(doc_id, tuple(heads), tuple(grid_rows), header,
                            out[-1].heading if found and found[0] < 0 else _heading(lines, top),
                            tuple(columns)))
    return tuple(out)


_NAMED_COLUMNS = 3


def grid_rows(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """The rows of the document's grids whose every column is named (three or more), each
    with its cells by column name: a fixed-width report's rows under a header set between
    two full rules ("N°Adh  Nom  Prénom ... Date règl.") are records like any table's."""
    out = []
    for grid in grids("", text):
        if len(grid.heads) < _NAMED_COLUMNS or not all(grid.heads) or len(set(grid.heads)) < len(
                grid.heads):
            continue
        for row in grid.rows:
            # The header printed again over the next block ("GROUP  TOPIC  PARTITION ...") is
            # no row.
            if 2 * sum(c.text.casefold() == grid.heads[c.column].casefold()
                       for c in row.cells) >= len(row.cells):
                continue
            out.append((row.start, row.end, {grid.heads[c.column]: c.text for c in row.cells}))
    return out


def preamble_end(text: str, grid: Grid) -> int:
    """Where the document's opening (what it says of all its tables) ends: at its first
    grid's header or rows."""
    first = min((g.header or (g.rows[0].start, 0))[0] for g in grids(grid.doc_id, text))
    return first


_NAMED_VALUE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z ]*?)\s+(?:no\.?\s*|#\s*)?"
                          r"(?P<value>\w[\w.-]*)$")
_HEADER_REACH = 3000


def column_value_said(entity: str, row: str, header: str) -> bool:
    """"partition 3" said by a table's row whose cell is 3 under the PARTITION column: the
    name in the header above the row, the value in the row."""
    match = _NAMED_VALUE.match(entity.strip())
    if match is None:
        return False
    name = re.compile(r"(?<![\w-])" + r"\W+".join(map(re.escape, match["name"].split()))
                      + r"(?![\w-])", re.IGNORECASE)
    heads = [line for line in header[-_HEADER_REACH:].split("\n") if name.search(line)]
    if not heads:
        return False
    # The value sits under the name: the cell and the column's name overlap on the line.
    column = name.search(heads[-1])
    first = row.split("\n", 1)[0]
    cells = re.finditer(rf"(?<![\w.-]){re.escape(match['value'])}(?![\w.-])", first,
                        re.IGNORECASE)
    return any(m.start() < column.end() + 2 and column.start() - 2 < m.end() for m in cells)
