"""Grid headers: which cells name columns, and which column each header word names.

A header cell is words (no value), a number sign, a short game or week name ("G1"), or an
ageing report's bucket ("1 - 30") beside two words at least. Its names go to the columns in
order when it has as many cells as there are columns, else each to the column it sits over,
word by word when that names more of them; a report that sets numbers right under headers
written left ("Tot Pins" over "  6,189") gives its words in order to the nearest columns.
A column under two header words a single space apart is cut where the second one starts
(`header_cuts`).
"""

from __future__ import annotations

import itertools
import re

__all__ = ["WORDY", "column_names", "cut", "header_cells", "header_cuts", "parts"]

_WORD = re.compile(r"\S+")
WORDY = re.compile(r"^[^\d£$€%]*[A-Za-z][^\d£$€%]*$")
"""A header cell: words, no value (a number, money, a time)."""
_MARK_HEAD = re.compile(r"^(?:[#№%]|[A-Za-z]{1,4}\d{1,2}:?(?: [A-Za-z]{1,4}\d{1,2})*)$")
"""A header cell that is no word: a number sign ("#"), a week's or a game's short name
("G1", "Wk11: G1")."""
_BUCKET = re.compile(r"^(?=.*[-–<>≤≥+A-Za-z])"
                     r"(?:[<>≤≥+]\s*)?\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*[+]|\s+[A-Za-z]+)?$")
"""A range or threshold naming a column ("1 - 30", "> 90", "61-90 days"), no sum, nor a
bare number (a row's "300")."""
_BUCKET_WORDS = 2
_HEAD_WORDS = 4
"""A column name is short: a longer run of words is a row's note, not a header."""


_PAIRED = re.compile(r"^[^\W\d][^:]{0,30}:\s+\S")


def header_cells(cells: list[tuple[int, int, str]]) -> bool:
    """Cells naming columns: words, or an ageing report's buckets ("1 - 30", "> 90") beside
    two words at least ("Current", "TOTAL"); never a `Key: value` pair ("Grower: DUNNE,
    KEVIN   Crop: WINTER BARLEY" is a form's line, its values given)."""
    if any(_PAIRED.match(text) for _, _, text in cells):
        return False
    wordy = [(bool(WORDY.match(text)) or bool(_MARK_HEAD.match(text)))
             and len(text.split()) <= _HEAD_WORDS for _, _, text in cells]
    return all(w or _BUCKET.match(text) for w, (_, _, text) in zip(wordy, cells, strict=True)
               ) and (all(wordy) or sum(wordy) >= _BUCKET_WORDS)


def column_names(cells: list[tuple[int, int, str]], columns: list[tuple[int, int]], count: int
           ) -> list[str]:
    words = [(a + m.start(), a + m.end(), m.group()) for a, _, text in cells
             for m in _WORD.finditer(text)]
    if len(cells) == count or not columns:
        in_order = [text for _, _, text in cells][:count] + [""] * max(0, count - len(cells))
        # As many header cells as columns, yet set over other ones ("Sc. Int." over two
        # columns, a sparse last column unread): the words go where they sit.
        if columns and len(cells) == count:
            apart = sum(_gap(cell, column) for cell, column in zip(cells, columns, strict=True))
            cost, aligned = _aligned_cost(words, columns)
            if apart > count and 2 * cost < apart:
                return aligned
        return in_order
    names = [""] * count
    # A program's report sets its header words one space apart over columns two apart
    # ("CAT BR" over "AF  CEN"): each word goes to the column it sits over.
    if all(sum(a < y and x < b for x, y in columns) == 1 for a, b, _ in words) and len(
            {_over(a, b, columns) for a, b, _ in words}) > len(
                {_over(a, b, columns) for a, b, _ in cells}):
        cells = words
    for a, b, text in cells:
        overlap = [(min(b, y) - max(a, x), k) for k, (x, y) in enumerate(columns)]
        best = max(overlap)
        if best[0] > 0:
            names[best[1]] = f"{names[best[1]]} {text}".strip()
    # Numbers set right under headers written left ("Tot Pins" over "  6,189"): the words
    # go in order to the nearest columns, when that names more of them.
    aligned = _aligned(words, columns)
    return aligned if sum(map(bool, aligned)) > sum(map(bool, names)) else names


_FAR = 4
"""Characters from a column past which a header word is not its name."""


def _gap(word: tuple[int, int, str], column: tuple[int, int]) -> int:
    return max(0, column[0] - word[1], word[0] - column[1])


def _aligned(words: list[tuple[int, int, str]], columns: list[tuple[int, int]]) -> list[str]:
    """The header's words given in order to columns (a word may be left out), each column's
    words joined, so that the words sit nearest the columns they name."""
    return _aligned_cost(words, columns)[1]


def _aligned_cost(words: list[tuple[int, int, str]], columns: list[tuple[int, int]]
                  ) -> tuple[int, list[str]]:
    """`_aligned`'s names, and how far in all its words sit from their columns."""
    gap = _gap
    # best[j]: (cost, assignment) with the words so far placed in columns up to j.
    best: list[tuple[int, tuple[int, ...]]] = [(0, ())] * len(columns)
    for word in words:
        step: list[tuple[int, tuple[int, ...]]] = []
        running = (1 << 30, ())
        for j, column in enumerate(columns):
            running = min(running, best[j], key=lambda pair: pair[0])
            placed = (running[0] + gap(word, column), (*running[1], j))
            skipped = (best[j][0] + _FAR, (*best[j][1], -1))
            step.append(min(placed, skipped, key=lambda pair: pair[0]))
        best = step
    names = [""] * len(columns)
    cost, placed = min(best, key=lambda pair: pair[0])
    for (_, _, text), j in zip(words, placed, strict=True):
        if j >= 0:
            names[j] = f"{names[j]} {text}".strip()
    return cost, names


def header_cuts(header: str, rows: list[str], columns: list[tuple[int, int]]) -> list[int]:
    """Where a column holds two a header names one space apart ("BARCODE TITLE" over
    "3100055321 The Lantern Men"): the start of a header word that is not its column's
    first, when every row's text starts there after a space. A cell of several words
    under one header word (a title) is not cut, for no header word starts inside it."""
    cuts = []
    for x, y in columns:
        # (A number's header may start left of it: "Fil(g)" over "  41.5".)
        inside = [m.start() for m in _WORD.finditer(header) if m.start() < y and x < m.end()]
        for at in inside[1:]:
            if all(len(row) > at and row[at - 1] == " " and row[at] != " "
                   and at - 1 > x and row[at - 2] != " " for row in rows):
                cuts.append(at)
    return cuts


def cut(cells: list[tuple[int, int, str]], cuts: list[int]) -> list[tuple[int, int, str]]:
    out = []
    for a, b, text in cells:
        for at in cuts:
            if a < at < b:
                out.append((a, at - 1, text[:at - 1 - a]))
                a, text = at, text[at - a:]
        out.append((a, b, text))
    return out


def parts(x: int, y: int, cuts: list[int]) -> list[tuple[int, int]]:
    """A column's run cut at the positions inside it."""
    edges = [x, *sorted(at for at in cuts if x < at < y), y]
    return [(a, b - 1 if k < len(edges) - 2 else b)
            for k, (a, b) in enumerate(itertools.pairwise(edges))]


def _over(a: int, b: int, columns: list[tuple[int, int]]) -> int:
    """The column a header cell overlaps most."""
    return max((min(b, y) - max(a, x), k) for k, (x, y) in enumerate(columns))[1]


