"""Records whatever the layout, each with its labelled fields: the rows of a fixed-width
table (a header of word cells over them, split where the dashed rule under it divides), and
the stretches between rules of one kind (`=====` payslips) or between blank lines (job
cards), whose fields are their lines' `Label: value`, `Label 0123` and label-cell/value-cell
parts. `described` picks one by what a question says of it."""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from .blocks import lines_of
from .rows import rule_columns

__all__ = ["LABEL_CELLS", "Unit", "line_fields", "record_units", "table_units"]

_CELL = re.compile(r"[^\s|]+(?: [^\s|]+)*")
"""A cell: words set apart from the next cell by two or more spaces, or a bar."""
_RULE = re.compile(r"\s*([=\-*_~#+])\1{15,}\s*")
_SHORT_RULES = re.compile(r"^[\s\-=+|]+$")
_MIN_HEADS = 3


@dataclass(frozen=True)
class Unit:
    """A record: where it is, its fields (label → value, each with its line), and all its
    text (what the question's description is matched against)."""

    doc_id: str
    start: int
    end: int
    fields: tuple[tuple[str, str, int, int], ...]
    """(label, value, line start, line end) of each field."""
    text: str


def _cells(line: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in _CELL.finditer(line)]


def _is_header(line: str) -> bool:
    """Column headers: three or more cells of words, none a value (a number, money, time)."""
    cells = _cells(line)
    # Tab-separated tables are read by their own reader: a tab's width is no column.
    return "\t" not in line and len(cells) >= _MIN_HEADS and all(
        re.search(r"[A-Za-z]", c) and not re.search(r"\d|[£$€]|:\s|[.!]\s", c)
        and len(c.split()) <= 4 for _, c in cells)


def _column(heads: list[tuple[int, str]], col: int) -> int:
    """The header a cell at `col` is under: the last that starts at or before it (a
    right-aligned number may start a little before its header)."""
    at = 0
    for k, (start, _) in enumerate(heads):
        if start <= col + 2:
            at = k
    return at


def _ruled_heads(header: str, rule: str) -> list[tuple[int, str]]:
    """The headers as the rule under them divides them, one run of dashes a column
    ("Zone MCP" over "----  -----" is two columns)."""
    heads = [(a, header[a:b].strip()) for a, b in rule_columns(rule)]
    return heads if all(text for _, text in heads) else []


@functools.lru_cache(maxsize=16)
def table_units(doc_id: str, text: str) -> list[list[Unit]]:
    """The tables of a text, each a list of its rows: a header line of three or more word
    cells, then (past a rule of dashes) rows whose cells sit under the headers; a line
    whose first column is empty continues the row above. A table ends at a blank line or a
    line of one cell."""
    lines = lines_of(text)
    tables: list[list[Unit]] = []
    i = 0
    while i < len(lines):
        if not _is_header(lines[i][2]):
            i += 1
            continue
        heads = _cells(lines[i][2])
        rows: list[tuple[int, int, dict[int, list[str]]]] = []
        j = i + 1
        if j < len(lines) and _SHORT_RULES.match(lines[j][2]) and lines[j][2].strip():
            heads = _ruled_heads(lines[i][2], lines[j][2]) or heads
            j += 1
        while j < len(lines):
            start, end, line = lines[j]
            cells = _cells(line)
            one_cell = len(cells) == 1 and (not rows or _column(heads, cells[0][0]) == 0)
            if not cells or "\t" in line or one_cell:
                break
            by_column: dict[int, list[str]] = {}
            for col, cell in cells:
                by_column.setdefault(_column(heads, col), []).append(cell)
            if 0 not in by_column and rows:  # a continuation of the row above
                for k, more in by_column.items():
                    rows[-1][2].setdefault(k, []).extend(more)
                rows[-1] = (rows[-1][0], end, rows[-1][2])
            else:
                rows.append((start, end, by_column))
            j += 1
        if len(rows) >= 2:
            tables.append([Unit(doc_id, start, end, tuple(
                (heads[k][1], " ".join(cells), start, end) for k, cells in sorted(
                    by_column.items())), text[start:end]) for start, end, by_column in rows])
        i = max(j, i + 1)
    return tables


_KEYED = re.compile(r"^([A-Za-z][^:]{0,40}?)\s*:\s*(\S.*)$")
_NUMBERED = re.compile(r"^([A-Za-z][^\d:]{0,40}?)\s+(\S*\d.*)$")
"""A label in words, then a value opening with a token that has a digit ("Emp. no 00188")."""


LABEL_CELLS = 4
"""Cells of a line whose text cell labels the figure beside it; a longer line is a grid's
row (a tree schedule's "Beech (Fagus sylvatica)  21  880 ..." gives no "Beech: 21")."""


def line_fields(start: int, end: int, line: str) -> list[tuple[str, str, int, int]]:
    """A line's labelled parts: "Dept: Quality", "Emp. no 00188", and a label cell with
    the value cell beside it ("Student loan (plan 2)     67.73")."""
    out = []
    cells = [c for _, c in _cells(line)]
    for at, cell in enumerate(cells):
        if (pair := _KEYED.match(cell) or _NUMBERED.match(cell)) is not None:
            out.append((pair.group(1).strip(), _bare(pair.group(2)), start, end))
        elif len(cells) <= LABEL_CELLS and at + 1 < len(cells) and re.search(
                r"\d", cells[at + 1]) and not re.search(r"\d", cell):
            out.append((cell.rstrip(":"), _bare(cells[at + 1]), start, end))
    return out


def _bare(value: str) -> str:
    """A value without the syntax around it (`doi = {10.1016/x},` → 10.1016/x)."""
    value = re.sub(r"^[=:]\s*", "", value.strip()).strip(" ,;")
    if len(value) > 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"'), ("'", "'")):
        value = value[1:-1].strip()
    return value


@functools.lru_cache(maxsize=16)
def record_units(doc_id: str, text: str) -> list[list[Unit]]:
    """The records between rules, one group for each kind of rule (`=====` slips, the
    `-----` parts of each), and the records between blank lines (a job card export's
    cards): each record with the labelled parts of its lines."""
    lines = lines_of(text)
    kinds: dict[str, list[int]] = {}
    for i, (_, _, line) in enumerate(lines):
        if _RULE.fullmatch(line):
            kinds.setdefault(line.strip()[0], []).append(i)
        elif not line.strip():
            kinds.setdefault("", []).append(i)
    groups = []
    for rules in kinds.values():
        group = []
        for a, b in itertools.pairwise([-1, *rules, len(lines)]):
            body = [lines[k] for k in range(a + 1, b) if lines[k][2].strip()]
            if body:
                group.append(_record(doc_id, text, body))
        if len(group) >= 2:
            groups.append(group)
    return groups


def _record(doc_id: str, text: str, body: list[tuple[int, int, str]]) -> Unit:
    fields = tuple(f for s, e, line in body for f in line_fields(s, e, line))
    return Unit(doc_id, body[0][0], body[-1][1], fields, text[body[0][0]:body[-1][1]])

