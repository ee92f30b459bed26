"""Delimited tables (CSV, TSV, semicolon or pipe separated) read as rows under their header.

Spreadsheet exports put more than a header above their rows: a school's payment list opens
with its name, its title and its rate padded with commas ("Szkoła Podstawowa nr 14,,,,,"),
then a blank row, then the header. Such banner lines, and `#` comment lines, are no part
of the table. A second table in the same file (last month's arrears under their own header
row) keeps its own column names.
"""

from __future__ import annotations

import csv
import io
import itertools
import re

from .items import line_spans

__all__ = ["SAMPLE_LINES", "SHARE", "delimited_rows", "table_delimiter"]

SAMPLE_LINES = 200
SHARE = 0.6
"""Share of sampled lines that must fit a line format for the document to be read as it."""
_BANNER_LINES = 10
"""How many lines above its header an export may spend on its name, title and notes."""
_NAME = re.compile(r"^[^\W\d][\w .\-/()#%&+']{0,40}$")
"""A header cell: a short name; spreadsheet exports write "Species / breed", "Fee (EUR)",
"Appt #", "Nazwisko i imię" (a header with such a cell was read as prose, so nothing in the
file counted)."""
_DELIMITERS = ("\t", ",", ";", "|")

Row = tuple[int, int, dict[str, str]]


def _cells(line: str, delimiter: str) -> list[str]:
    return [c.strip() for c in next(csv.reader(io.StringIO(line), delimiter=delimiter), [])]


def _banner(line: str, delimiter: str, cells: list[str] | None = None) -> bool:
    """A comment line, or a line of one cell padded with delimiters ("Title,,,,", ",,,,"):
    a spreadsheet's title or blank row, never a row of the table (`cells`: the line's,
    when already read)."""
    if line.startswith("#"):
        return True
    if delimiter not in line:
        return False
    return sum(bool(c) for c in (cells if cells is not None else _cells(line, delimiter))) < 2


def _header_again(cells: list[str], names: list[str]) -> bool:
    """A row that heads a second table: no digit in it, and two or more of its cells are the
    first header's, in the same places ("Lp.,Klasa,Nazwisko i imię,,,Kwota")."""
    same = sum(bool(c) and c == n for c, n in zip(cells, names, strict=False))
    return same >= 2 and not any(ch.isdigit() for c in cells for ch in c)


def delimited_rows(text: str, delimiter: str) -> list[Row] | None:
    """A delimited table's rows under its header line, or None when the text is not one."""
    spans = line_spans(text)
    at = banners = 0
    # `#` comment lines are the export's notes, however many (a camp's register opens with
    # 25: its codes, guides and guests); other banner lines are few.
    while at < len(spans) and banners < _BANNER_LINES and _banner(
            line := text[slice(*spans[at])], delimiter):
        banners += not line.startswith("#")
        at += 1
    spans = spans[at:]
    if len(spans) < 2:
        return None
    names = _cells(text[slice(*spans[0])], delimiter)
    if len(names) < 2 or not all(_NAME.match(n) for n in names):
        return None
    header = names
    rows: list[Row] = []
    sample_ok = 0
    for i, (start, end) in enumerate(spans[1:]):
        cells = _cells(text[start:end], delimiter)
        sample_ok += len(cells) == len(header) and i < SAMPLE_LINES
        if _header_again(cells, header):
            names = cells
        elif not _banner(text[start:end], delimiter, cells):
            rows.append((start, end, {n: c for n, c in zip(names, cells, strict=False)
                                      if c and n}))
    if sample_ok < SHARE * min(len(spans) - 1, SAMPLE_LINES):
        return None
    return rows


def table_delimiter(text: str) -> str | None:
    """The delimiter of a table whose header is its first line (banner and comment lines
    aside): a tab, a comma, a semicolon or a pipe ("visit_date|time_in|client_id|...")."""
    lines = [text[a:b] for a, b in line_spans(text)[:2 * SAMPLE_LINES]]
    lines = list(itertools.dropwhile(lambda line: line.startswith("#"), lines))[:SAMPLE_LINES]
    if not lines:
        return None
    return next((d for d in _DELIMITERS
                 if lines[0].count(d) >= 1 and delimited_rows("\n".join(lines), d)), None)
