"""The value where a row a question names crosses the column it asks (`grid_tables`): "the
Tue clinic room for Dr Osei", "what time does the last 12B reach Mill Lane on Sundays",
"the afternoon high water on Thu 5 Mar". With no model call:

1. the row: of all the documents' grids, the one row saying most of the question's words,
   codes and date (its own cells, or its grid's heading), strictly more than any other, and
   saying by its own cells one at least; every code, date and name of the question is said
   by the row, its grid's heading or header, or the document's opening (a report's key
   line glossing a column by its name, "FINE  accrued to the run date", is the header's).
   A row keyed by a bare day number ("13 FR") says a date when the opening or heading
   names the date's month and the weekday, when the row gives one, is the date's;
2. the column: the columns whose header says what the question asks (its words, or their
   abbreviations); a question asking "when" or "what time" with no column named asks the
   row's times;
3. qualities the question gives instead of a column narrow the row's cells: the part of the
   day ("morning", "afternoon" = 12:00 to 18:00, "evening"), the "first" or "last" of the
   row, and "high" or "low" (the time whose paired number, "TIME HT" repeated, is above or
   below its neighbours'). The one cell left is the answer; two, none, or a blank cell
   ("|", "-") give nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .dates import MONTHS, day_row_date, month_heading, said_dates, same_date, weekday_named
from .described import abbreviates, asked_phrase, named_words, question_codes, says_stem, stems_of
from .glossary import glossed
from .grid_tables import Cell, Grid, GridRow, grids, preamble_end
from .units import STOP, stems

__all__ = ["GridCell", "grid_cell"]

_ASK = frozenset(stems("which what who whom whose where when how many much time name was were "
                       "is are did does do get got leave leaves arrive reach"))
_PARTS_OF_DAY = {stems(part)[0]: hours for part, hours in (
    ("morning", (0, 12 * 60)), ("afternoon", (12 * 60, 18 * 60)),
    ("evening", (18 * 60, 24 * 60)), ("night", (20 * 60, 24 * 60)))}
_FIRST = frozenset({"first", "earliest"})
_LAST = frozenset({"last", "latest", "final"})
_HIGH = frozenset({"high", "higher"})
_LOW = frozenset({"low", "lower"})
_QUALITIES = frozenset(_PARTS_OF_DAY) | _FIRST | _LAST | _HIGH | _LOW
_TIME = re.compile(r"^(\d{1,2})[:.h]?(\d{2})(?:\s*([ap])\.?m\.?)?(?:\s+[a-z*†‡]{1,2})?$",
                   re.IGNORECASE)
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_BLANK = frozenset({"|", "-", "–", "—", "n/a", "na", "..", "..."})
_ASKS_TIME = re.compile(r"^\s*when\b|\bwhat\s+time\b|\bat\s+what\s+time\b", re.IGNORECASE)


@dataclass(frozen=True)
class GridCell:
    """The cell read, its row and grid, the column's name (or what the question asked)."""

    value: str
    doc_id: str
    row: GridRow
    grid: Grid
    label: str
    asked_as: str
    """The question's words that ask the column ("price", "what time", "when")."""
    dated: tuple[int, int] | None = None
    """The line naming the month, when the row says the question's date by its day alone."""


def _minutes(text: str) -> int | None:
    match = _TIME.match(text.strip())
    if match is None:
        return None
    hours, minutes = int(match.group(1)), int(match.group(2))
    if match.group(3):
        hours = hours % 12 + (12 if match.group(3).lower() == "p" else 0)
    return hours * 60 + minutes if hours < 24 and minutes < 60 else None


def _key_words(row: GridRow) -> str:
    """What the row says by its own words: its cells that are not values."""
    return " ".join(c.text for c in row.cells if not _NUMBER.match(c.text)
                    and _minutes(c.text) is None)


def _says_date(row: GridRow, context: str, asked: tuple[int, int, int | None]) -> bool:
    """The row says the date: its first cell a date, or a bare day number (with a weekday
    that is the date's, when the row gives one) in a grid whose context names the month
    (`dates.day_row_date`)."""
    day, month, _ = asked
    first = row.cells[0] if row.cells and row.cells[0].column == 0 else None
    if first is None:
        return False
    if any(d[:2] == (day, month) for _, _, d in said_dates(first.text)):
        return True
    found = day_row_date(first.text, context)
    return found is not None and same_date(asked, found)


def _month_line(text: str, grid: Grid) -> tuple[int, int] | None:
    """The line naming the month of a grid whose rows give their day by number alone: in
    its heading, else in the document's opening (cited with the cell: the row alone does
    not say the date)."""
    if grid.heading and (named := month_heading(text[grid.heading[0]:grid.heading[1]])):
        return grid.heading[0] + named[0], grid.heading[0] + named[1]
    named = month_heading(text[:preamble_end(text, grid)])
    return (named[0], named[1]) if named else None


def _row_said(question: str, words: set[str], codes: list[str], dates: list, row: GridRow,
              grid: Grid, heading: str, context: str) -> tuple[set[str], set[str]] | None:
    """What the row says of the question by its own cells, and what its heading says;
    None when the row says a weekday other than the question's."""
    own = _key_words(row)
    own_stems = stems_of(own)
    asked_days = {d for w in re.findall(r"[A-Za-z]+", question)
                  if (d := weekday_named(w)) is not None and len(w) >= 3}
    row_days = {d for w in re.findall(r"[A-Za-z]+", own) if (d := weekday_named(w)) is not None}
    if asked_days and row_days and not asked_days & row_days:
        return None
    said = {w for w in words if says_stem(own_stems, w)}
    said |= {f"day:{d}" for d in asked_days & row_days}
    said |= {f"code:{c}" for c in codes if _says_code(c, _row_text(row))}
    said |= {f"date:{n}" for n, d in enumerate(dates) if _says_date(row, context, d)}
    head_stems = stems_of(heading)
    above = {w for w in words if says_stem(head_stems, w)}
    above |= {f"code:{c}" for c in codes if _says_code(c, heading)}
    return said, above


def _row_text(row: GridRow) -> str:
    return " ".join(c.text for c in row.cells)


def _says_code(code: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(code)}(?![\w]|\.\d)", text, re.IGNORECASE) is not None


def _columns(grid: Grid, phrase: list[str]) -> set[int]:
    """The columns whose header the words say (every header word is one of them, cut down
    from one, or the same weekday)."""
    out = set()
    days = {d for p in phrase if (d := weekday_named(p)) is not None and len(p) >= 3}
    for k, head in enumerate(grid.heads):
        words = [w for w in re.findall(r"[^\W\d_]+", head.lower()) if w not in STOP]
        if words and all(any(w == p or w in stems(p) or stems(w)[:1] == [p]
                             or abbreviates(w, p) or p in glossed(stems(w), stems)
                             for p in phrase)
                         or weekday_named(w) in days for w in words):
            out.add(k)
    return out


def _column_keys(text: str, grid: Grid) -> str:
    """The lines of a report's key that gloss a column by its name ("FINE  accrued to the
    run date"): what they say of the column, the rows say too."""
    names = {h for h in grid.heads if h}
    return "\n".join(line for line in text.split("\n")
                     if line.strip() and any(re.match(rf"\s*{re.escape(n)}\s{{2,}}\S", line)
                                             for n in names))


def _paired(row: GridRow, grid: Grid, column: int) -> float | None:
    """The number beside a cell in a repeated pair of columns ("TIME HT TIME HT"), when the
    column is the first of its pair."""
    heads = grid.heads
    first = next((k for k, h in enumerate(heads) if h and heads.count(h) >= 2), None)
    if (first is None or column < first or (column - first) % 2 or column + 1 >= len(heads)
            or heads[column] != heads[first] or heads[column + 1] == heads[first]
            or heads.count(heads[column + 1]) < 2):
        return None
    cell = row.at(column + 1)
    return float(cell.text) if cell is not None and _NUMBER.match(cell.text) else None


def _narrow(cells: list[Cell], row: GridRow, grid: Grid, qualities: set[str]) -> list[Cell]:
    """The cells that have every quality the question gives (see the module)."""
    for part, (low, high) in _PARTS_OF_DAY.items():
        if part in qualities:
            cells = [c for c in cells if (m := _minutes(c.text)) is not None and low <= m < high]
    if qualities & (_HIGH | _LOW):
        pairs = [(c, _paired(row, grid, c.column)) for c in cells]
        row_pairs = [(c.column, v) for c in row.cells
                     if (v := _paired(row, grid, c.column)) is not None]
        if any(v is None for _, v in pairs):
            return []
        kept = []
        for cell, value in pairs:
            near = [v for k, (col, v) in enumerate(row_pairs) if col == cell.column
                    for v in (row_pairs[k - 1][1] if k else None,
                              row_pairs[k + 1][1] if k + 1 < len(row_pairs) else None)
                    if v is not None]
            if near and ((qualities & _HIGH and all(value > v for v in near))
                         or (qualities & _LOW and all(value < v for v in near))):
                kept.append(cell)
        cells = kept
    if qualities & _FIRST and cells:
        cells = cells[:1] if not qualities & _LAST else []
    elif qualities & _LAST and cells:
        cells = cells[-1:]
    return cells


def _read(question: str, grid: Grid, row: GridRow, qualities: set[str]
          ) -> tuple[Cell, str] | None:
    phrase = [w for w in asked_phrase(question) if w not in _QUALITIES]
    key = row.cells[0].column if row.cells else 0
    named = (_columns(grid, phrase) if phrase else set()) - {key}
    if not named:  # the question names the column by another of its words ("on Wed")
        said = [w for w in re.findall(r"[A-Za-z]+", question.lower()) if w not in _QUALITIES]
        named = _columns(grid, said) - {key}
        named = {k for k in named if grid.heads.count(grid.heads[k]) == 1}
    if named:
        cells = [c for k in sorted(named) if (c := row.at(k)) is not None]
        if len(cells) < len(named) and not qualities:
            return None  # the asked column's cell is blank
        label = grid.heads[min(named)]
    elif _ASKS_TIME.search(question):
        cells = [c for c in row.cells if c.column != key and _minutes(c.text) is not None]
        label = "time"
    else:
        return None
    if qualities:
        cells = _narrow(cells, row, grid, qualities)
    if len(cells) != 1 or cells[0].text.strip().lower() in _BLANK:
        return None
    return cells[0], label


def grid_cell(question: str, docs: Iterable[tuple[str, str]]) -> GridCell | None:
    """The cell the question asks of the grid row it names (see the module), or None."""
    codes = question_codes(question) + re.findall(r"(?<![\w.])\d{2}(?![\w.])", question)
    dates = [d for _, _, d in said_dates(question)]
    day_words = {w for w in re.findall(r"[A-Za-z]+", question) if len(w) >= 3 and (
        weekday_named(w) is not None or w.lower() in MONTHS)}
    asked = set(stems(question))
    qualities = asked & _QUALITIES
    words = asked - STOP - _ASK - qualities
    day_stems = set(stems(" ".join(day_words)))
    if dates:  # a date's digits are the date, not a code
        codes = [c for c in codes if not any(str(d[0]) == c.lstrip("0") for d in dates)]
    names = named_words(question) - day_stems
    described = words - set(asked_phrase(question)) - day_stems
    scored: list[tuple[int, Grid, GridRow, str]] = []
    for doc_id, text in docs:
        for grid in grids(doc_id, text):
            heading = text[grid.heading[0]:grid.heading[1]] if grid.heading else ""
            header = text[grid.header[0]:grid.header[1]] if grid.header else ""
            opening = text[:preamble_end(text, grid)]
            context = "\n".join((heading, opening))
            keys = _column_keys(text, grid)
            for row in grid.rows:
                found = _row_said(question, words, codes, dates, row, grid, heading, context)
                if found is None or not found[0]:
                    continue
                said = found[0] | found[1]
                everywhere = stems_of(" ".join((_row_text(row), context, header, keys)))
                # Every name, code and date of the question is the row's or its grid's.
                if any(not says_stem(everywhere, n) for n in names) or any(
                        f"code:{c}" not in said and not _says_code(c, context) for c in codes
                ) or any(f"date:{n}" not in said for n in range(len(dates))):
                    continue
                # Most of what the question says is said here: one word in common is
                # another document's table.
                unsaid = {w for w in described if not says_stem(everywhere, w)}
                if 2 * len(unsaid) > len(described) or any(
                        says_stem(stems_of(text), w) for w in unsaid):
                    continue  # (a word said elsewhere in the document: asked of that)
                scored.append((len(said), grid, row, text))
    if not scored:
        return None
    scored.sort(key=lambda s: -s[0])
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    _, grid, row, text = scored[0]
    read = _read(question, grid, row, qualities)
    if read is None:
        return None
    cell, label = read
    label_stems = set(stems(label)) | glossed(stems(label), stems)
    asked_as = " ".join(w for w in re.findall(r"[A-Za-z]+", question)
                        if label != "time" and set(stems(w)) & label_stems)
    if not asked_as:
        asked_as = "time" if re.search(r"\btime\b", question, re.I) else "when"
    first = row.cells[0].text if row.cells else ""
    dated = (_month_line(text, grid) if dates and not any(
        same_date(d, s) for d in dates for _, _, s in said_dates(first)) else None)
    return GridCell(cell.text, grid.doc_id, row, grid, label, asked_as, dated)
