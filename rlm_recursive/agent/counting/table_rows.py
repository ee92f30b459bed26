"""Counting the rows of a laid-out table whose number in a named column meets the question's
comparison: "how many red wines are under £40 a bottle" over a wine list whose sections are
tables ("RED ... 125ml 175ml bottle") with one wine per row and right-aligned prices.

A table here is a header line naming its columns and the lines under it, to the first blank
line: a row is a line with a cell under the column (a number, or a dash for none), the lines
between rows continue the row above (a wrapped name). The question names the column by a
word of its header ("a bottle"); its other words (but the counted noun, which is what a row
is) must each be said by the header line (the table's heading, "RED") or by the row. Nothing
is guessed: no column named, a condition no table says, or fewer than `MIN_ROWS` rows in the
tables: no count (None), and the count strategy refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...corpus.aggregate import number_of
from ...corpus.word_stems import phrase_regex, stems, words
from .glosses import glossed_codes
from .plan_words import Stated, stated_comparisons, word_offsets
from .scope import FRAME_WORDS, content_positions, head_unit, noun_phrase

__all__ = ["MIN_ROWS", "RowCount", "RowSum", "compared_rows", "summed_rows"]

MIN_ROWS = 3
"""Fewer rows under the named columns than this is no table to count."""
_TOKEN = re.compile(r"\S+")
_NONE_CELL = re.compile(r"^[-–—]+$|^n/?a$", re.IGNORECASE)
_SLACK = 2
"""Characters a cell may stand left or right of its header word (right-aligned numbers)."""
_SUM = re.compile(r"\b(?:the\s+)?(?:total|sum|combined)\b(?:\s+of\b)?", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much)\b", re.IGNORECASE)
_ANSWER_UNIT = re.compile(r",\s*in\s+[A-Za-z]+\s*[?.!]*\s*$")
"""", in pounds?": the unit the answer is asked in."""
_OPS = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__}


@dataclass
class RowCount:
    """The rows counted, the column compared and the comparison."""

    column: str
    stated: list[Stated]
    rows: list[tuple[str, int, int]] = field(default_factory=list)
    tables: int = 0

    @property
    def total(self) -> int:
        return len(self.rows)

    def describe(self) -> str:
        said = " and ".join(f"{s.op} {s.unit if not s.unit.isalpha() else ''}{s.value:g}"
                            f"{' ' + s.unit if s.unit.isalpha() else ''}" for s in self.stated)
        return (f"table rows whose {self.column!r} cell is {said}, in {self.tables} "
                "table(s) whose heading or row says the question's other words")


@dataclass
class RowSum:
    """The sum of a column's cells over the rows chosen."""

    column: str
    value: float
    rows: list[tuple[str, int, int]] = field(default_factory=list)

    def describe(self) -> str:
        return (f"the sum of the {self.column!r} cells of {len(self.rows)} table rows whose "
                "heading, banner or row says the question's other words")


@dataclass
class _Table:
    doc_id: str
    heading: str
    """The header line's words but the column's: what the table is of ("BIN RED"), and
    the other columns' names ("partitions" of "the lag across all partitions" is no
    condition a row must say)."""
    column: str
    rows: list[tuple[int, int, str, str]]
    """(start, end, cell, text with its continuation lines) of each row."""
    caption: str = ""
    """The lines right above the header, back to a blank line: a report's page banner
    ("OVERDUE ITEMS BY BRANCH") says what every row is."""


def _lines(text: str) -> list[tuple[int, str]]:
    out, at = [], 0
    for line in text.split("\n"):
        out.append((at, line))
        at += len(line) + 1
    return out


def _cell(line: str, span: tuple[int, int]) -> str | None:
    """The token under a header word (overlapping its span, with slack), if one; never
    the row's first token (its number in the list, "25 Merlot": no column's cell)."""
    near = [m for n, m in enumerate(_TOKEN.finditer(line))
            if n and m.start() <= span[1] + _SLACK and m.end() >= span[0] - _SLACK]
    if not near:
        return None
    # Columns set close together ("20/08/2026    95" under "DUE   DAYS"): the token most
    # under the header word, not a neighbour's cell within the slack.
    return max(near, key=lambda m: min(m.end(), span[1]) - max(m.start(), span[0])).group()


def _rows(lines: list[tuple[int, str]], span: tuple[int, int], column_stems: set[str]
          ) -> list[tuple[int, int, str, str]]:
    """The rows under a header word at `span`: from the first line after the header (past
    its rule) to a blank line, the next header or text in the column that is no cell."""
    rows: list[tuple[int, int, str, str]] = []
    for start, line in lines:
        if not line.strip():
            if rows:
                break
            continue
        if set(line.strip()) <= set("-=_+|: "):
            continue  # a rule under the header
        if any(stems(m.group()) and stems(m.group())[0] in column_stems
               and m.start() <= span[1] + _SLACK and m.end() >= span[0] - _SLACK
               for m in _TOKEN.finditer(line)):
            break  # the next table's header (a title's "30 Days" elsewhere is no header)
        cell = _cell(line, span)
        if cell is not None and (number_of(cell) is not None or _NONE_CELL.match(cell)):
            rows.append((start, start + len(line), cell, line))
        elif rows and cell is None:
            s, _, c, t = rows[-1]
            rows[-1] = (s, start + len(line), c, t + "\n" + line)  # a wrapped row
        else:
            break  # text in the column that is no cell: no table, or its end
    return rows


def _caption(lines: list[tuple[int, str]], header: int) -> str:
    """The non-blank lines right above line `header` (rules left out)."""
    above: list[str] = []
    for _, line in reversed(lines[:header]):
        if not line.strip():
            break
        if not set(line.strip()) <= set("-=_+|: "):
            above.append(line)
    return "\n".join(reversed(above))


def _tables(doc_id: str, text: str, column_stems: set[str]) -> list[_Table]:
    """The tables of a text with one header word among `column_stems` over a column of
    cells (a header with two such columns is ambiguous: none)."""
    lines = _lines(text)
    out = []
    for i, (_, header) in enumerate(lines):
        if len(_TOKEN.findall(header)) < 3:
            continue
        found = []
        for m in _TOKEN.finditer(header):
            if stems(m.group()) and stems(m.group())[0] in column_stems:
                rows = _rows(lines[i + 1:], m.span(), column_stems)
                if len(rows) >= 2:
                    found.append(_Table(doc_id, f"{header[:m.start()]} {header[m.end():]}",
                                        m.group(), rows,
                                        _caption(lines, i)))
        if len(found) == 1:
            out.append(found[0])
    return out


def compared_rows(question: str, texts: list[tuple[str, str]], docs: list[str]
                  ) -> RowCount | None:
    """The rows of the tables the question's column word heads whose cell there meets every
    comparison the question states, among the rows whose table heading or text says each of
    its other words; None when nothing can be counted so (see the module's note)."""
    stated = stated_comparisons(question)
    if not stated:
        return None
    offsets = word_offsets(question)
    compared = {i for i, (a, b) in enumerate(offsets)
                for s in stated if a >= s.start and b <= s.end}
    unit = noun_phrase(question, head_unit(question))
    noun = max(unit) if unit else None  # "red wines": a row is a wine; "red" is a condition
    chosen = _chosen_rows(question, texts, docs, compared | {noun} - {None})
    if chosen is None:
        return None
    tables, rows = chosen
    found = RowCount(column=tables[0].column, stated=stated)
    counted: set[int] = set()
    for n, (doc_id, start, end, number) in rows:
        if all(_OPS[s.op](number, s.value) for s in stated):
            found.rows.append((doc_id, start, end))
            counted.add(n)
    found.tables = len(counted)
    return found


def summed_rows(question: str, texts: list[tuple[str, str]], docs: list[str]
                ) -> RowSum | None:
    """"What is the total of the fines on the overdue items at Riverside (RIV)": the sum
    of the named column's cells over the rows that say the question's other words (a
    banner or a row); None when no one column is named or a word is said by no table. A
    trailing ", in pounds" is the unit asked for, no condition."""
    cue = _SUM.search(question)
    if cue is None or _HOW_MANY.search(question):
        return None
    offsets = word_offsets(question)
    skip = {i for i, (a, _) in enumerate(offsets) if a >= cue.start()
            and a < cue.end()}
    tail = _ANSWER_UNIT.search(question)
    if tail is not None:
        skip |= {i for i, (a, _) in enumerate(offsets) if a >= tail.start()}
    ws = words(question)
    _, glossed = glossed_codes(question)
    if any(any(c.isdigit() for c in ws[i]) for i in content_positions(question) - skip
           - glossed):
        return None  # "fines on items due 20/11": a number no column was found for
    # "Total lag across all partitions of the group": the column named next to the cue
    # (a header naming the others too, GROUP and PARTITION, is no ambiguity then).
    after = [i for i in content_positions(question) - skip if offsets[i][0] >= cue.end()]
    nearest = stems(ws[min(after)]) if after else []
    chosen = (_chosen_rows(question, texts, docs, skip, {nearest[0]}) if nearest else None
              ) or _chosen_rows(question, texts, docs, skip)
    if chosen is None:
        return None
    tables, rows = chosen
    if len({t.column for t in tables}) != 1:
        return None
    total = RowSum(column=tables[0].column, value=sum(number for _, (*_, number) in rows))
    total.rows = [(doc_id, start, end) for _, (doc_id, start, end, _) in rows]
    return total


def _chosen_rows(question: str, texts: list[tuple[str, str]], docs: list[str],
                 skip: set[int], column_stems: set[str] | None = None
                 ) -> tuple[list[_Table], list[tuple[int, tuple[str, int, int, float]]]] | None:
    """The tables a free word of the question (one of `column_stems`, when given) heads a
    column of, and the numbered rows (table index, (doc, start, end, the cell's number))
    whose banner, heading or text says each other free word (a glossed code as written):
    None when a word no table says."""
    ws = words(question)
    free = [i for i in sorted(content_positions(question) - skip)
            if ws[i] not in FRAME_WORDS and not ws[i].isdigit() and stems(ws[i])]
    column_stems = column_stems or {stems(ws[i])[0] for i in free}
    tables = [t for doc_id, text in texts if not docs or doc_id in docs
              for t in _tables(doc_id, text, column_stems)]
    if not tables:
        return None
    heads = {stems(t.column)[0] for t in tables}
    # The column is named with the words beside its own ("a frame price of"): its name.
    named = {i for i in free if stems(ws[i])[0] in heads}
    named |= {j for i in named for j in _run(free, i)}
    codes, glossed = glossed_codes(question)
    conditions = [phrase_regex(ws[i]) for i in free if i not in named | glossed]
    conditions += [re.compile(rf"(?<![\w-]){re.escape(code)}(?![\w-])") for code in codes]
    if sum(len(t.rows) for t in tables) < MIN_ROWS or any(
            not any(c.search(t.heading) or c.search(t.caption)
                    or any(c.search(r[3]) for r in t.rows) for t in tables)
            for c in conditions):
        return None
    rows = []
    for n, table in enumerate(tables):
        said_by_heading = [c for c in conditions
                           if c.search(table.heading) or c.search(table.caption)]
        for start, end, cell, text in table.rows:
            number = number_of(cell)
            if number is not None and all(c in said_by_heading or c.search(text)
                                          for c in conditions):
                rows.append((n, (table.doc_id, start, end, number)))
    return tables, rows


def _run(positions: list[int], at: int) -> set[int]:
    """The run of adjacent positions around `at` (the content words next to each other)."""
    have = set(positions)
    low, high = at, at
    while low - 1 in have:
        low -= 1
    while high + 1 in have:
        high += 1
    return set(range(low, high + 1))
