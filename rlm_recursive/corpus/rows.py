"""Rows of the tables inside prose: Markdown pipe tables (each row with its header's fields),
and plain-text tables: a bank statement's transactions, a results page's
fixtures, a report's aligned columns. Such a block is one item to the paragraph splitter, yet
each row is one thing to count ("how many direct debits", "how many matches finished
level"): its rows become items of their own, each with the indented lines under it (a
fixture's scorers), and the lines above the first row (a heading, a column header) one more.

A row is a line whose cells are set apart by gutters, runs of two or more spaces, at least
two of them, not after a sentence's end ("... in May.  Then" is prose typed with two spaces).
"""

from __future__ import annotations

import itertools
import re

from .items import Item, line_spans

__all__ = ["pipe_rows", "rule_columns", "ruled_rows", "table_rows"]

_GUTTER = re.compile(r"(?<![.!?:;,\s])[ \t]{2,}(?=\S)")
_RULE = re.compile(r"^[ \t]*[-=_~*+|]{3,}[ \t]*$")
_MIN_GUTTERS = 2
_MIN_ROWS = 3
_SHARE = 0.6
"""Of an item's unindented, non-rule lines: the share that must be rows."""


def _is_row(line: str) -> bool:
    return len(_GUTTER.findall(line.strip())) >= _MIN_GUTTERS


def table_rows(items: list[Item]) -> list[Item]:
    """The items, each table among them cut into its rows."""
    out: list[Item] = []
    for item in items:
        lines, pos = [], 0
        for raw in item.text.split("\n"):
            lines.append((pos, raw))
            pos += len(raw) + 1
        heads = [(at, line) for at, line in lines
                 if line.strip() and line[:1] not in (" ", "\t") and not _RULE.match(line)]
        rows = [at for at, line in heads if _is_row(line)]
        if len(rows) < _MIN_ROWS or len(rows) < _SHARE * len(heads):
            out.append(item)
            continue
        cuts = ([0] if rows[0] > 0 else []) + rows + [len(item.text)]
        for a, b in itertools.pairwise(cuts):
            piece = item.text[a:b]
            kept = piece.split("\n")
            while kept and (not kept[-1].strip() or _RULE.match(kept[-1])):
                kept.pop()  # the rule under a header or closing the table
            body = "\n".join(kept)
            lead = len(body) - len(body.lstrip())
            if body.strip():
                out.append(Item(item.doc_id, item.start + a + lead,
                                item.start + a + len(body.rstrip()), body.strip()))
    return out


_PIPE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def pipe_rows(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """The rows of markdown (pipe) tables in a document, each with its header's fields."""
    rows: list[tuple[int, int, dict[str, str]]] = []
    spans = line_spans(text)
    header: list[str] | None = None
    for i, (a, b) in enumerate(spans):
        line = text[a:b]
        match = _PIPE_ROW.match(line)
        if match is None:
            header = None
            continue
        if header is None:
            nxt = text[spans[i + 1][0]:spans[i + 1][1]] if i + 1 < len(spans) else ""
            if _PIPE_RULE.match(nxt):
                header = [c.strip() for c in match.group(1).split("|")]
            continue
        if _PIPE_RULE.match(line):
            continue
        cells = [c.strip() for c in match.group(1).split("|")]
        fields = {k: v for k, v in zip(header, cells, strict=False) if k and v}
        rows.append((a, b, fields))
    return rows


_RULED = re.compile(r"^[ \t|+]*[-=]{2,}(?:[ \t]*[+|][ \t]*[-=]+|[ \t]+[-=]{2,})+[ \t|+]*$")
"""A rule under a column header, one run of dashes per column: `----+----` (psql),
`+----+----+` (a box), `-----  ------` (fixed-width reports)."""
_FOOTER = re.compile(r"^\s*\(\d+ rows?\)\s*$")
_EDGES = " \t|+"


def rule_columns(rule: str) -> list[tuple[int, int]]:
    """Each column's (start, end) in the line: from its dashes to the next column's."""
    runs = [m.start() for m in re.finditer(r"[-=]+", rule)]
    return [(a, b) for a, b in zip(runs, [*runs[1:], 10**6], strict=True)]


def _fits(line: str, columns: list[tuple[int, int]]) -> bool:
    """The line's cells break where the rule's columns do (a gutter or a bar there)."""
    return bool(line.strip()) and all(line[b - 1:b] in ("", " ", "\t", "|", "+")
                                      for _, b in columns[:-1])


_GROUP_GAP = 3
"""Lines between two groups of a report's rows: a subtotal, a blank, the next group's name."""
_FULL_ROW = 3
"""Cells a row must fill to carry the table on past a gap (a group's name fills one)."""


def _between_groups(lines: list[str], at: int, columns: list[tuple[int, int]]) -> bool:
    """The line is one of a few between two groups of the table's rows (an aged-debt
    report's "Total Current", a blank, "1 - 30 days past due"): a full row in the same
    columns follows, with no rule of a new table's header among them."""
    for ahead in range(at, min(at + _GROUP_GAP + 1, len(lines))):
        line = lines[ahead]
        if _RULED.match(line) or _FOOTER.match(line):
            return False
        if ahead > at and _fits(line, columns) and sum(
                bool(c) for c in _cells(line, columns)) >= _FULL_ROW:
            return ahead + 1 >= len(lines) or not _RULED.match(lines[ahead + 1])
    return False


def _group_name(line: str) -> str | None:
    """A line naming the group of rows under it: one cell, not a total ("1 - 30 days past
    due", "Current")."""
    text = line.strip()
    if not text or _GUTTER.search(text) or re.match(r"(?i)(?:sub)?totals?\b", text):
        return None
    return text


def _cells(line: str, columns: list[tuple[int, int]]) -> list[str]:
    first = columns[0][0]
    spans = [(0 if i == 0 else a, b) for i, (a, b) in enumerate(columns)] if first else columns
    return [line[a:b].strip(_EDGES).strip() for a, b in spans]


def ruled_rows(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """The rows of aligned tables whose header is underlined by a rule (query tools'
    output, fixed-width reports), each with its own header's fields: a document may hold
    several tables, each under its header. A table ends at a blank line, a `(N rows)`
    footer or a line whose cells do not break where the rule's columns do."""
    spans = line_spans(text)
    lines = [text[a:b] for a, b in spans]
    rows: list[tuple[int, int, dict[str, str]]] = []
    for i, line in enumerate(lines):
        if i == 0 or not _RULED.match(line) or _RULED.match(lines[i - 1]):
            continue
        columns = rule_columns(line)
        if columns and lines[i - 1][:columns[0][0]].strip():
            # "DATE  TYPE ..." over "      ------": the first column is left unruled.
            columns = [(0, columns[0][0]), *columns]
        if len(columns) < 2 or not _fits(lines[i - 1], columns):
            continue
        header = _cells(lines[i - 1], columns)
        if sum(bool(h) for h in header) < 2:
            continue
        group = None
        for j in range(i + 1, len(lines)):
            row = lines[j]
            if _FOOTER.match(row) or _RULED.match(row) or not _fits(row, columns):
                # A line across the columns right under the rule ("Brought forward ...
                # 211:35") is the table's opening total: the rows follow it.
                if j == i + 1 and j + 1 < len(lines) and row.strip() and _fits(
                        lines[j + 1], columns):
                    continue
                if _between_groups(lines, j, columns):
                    group = _group_name(row) or group
                    continue
                break
            if _RULE.match(row):
                continue  # a sum's rule over its total
            if (name := _group_name(row)) and _between_groups(lines, j, columns):
                group = name  # "Current" over its rows, in the first column
                continue
            fields = {h: c for h, c in zip(header, _cells(row, columns), strict=True)
                      if h and c}
            if group is not None:
                fields.setdefault("group", group)
            rows.append((spans[j][0], spans[j][1], fields))
    return rows
