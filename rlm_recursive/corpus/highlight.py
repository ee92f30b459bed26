"""The highlight of a search hit: the sentence or line of a passage densest in query terms.

Plain `str.find` scans, not regular expressions: this runs on every hit of every search.
"""

from __future__ import annotations

import re

__all__ = ["highlight"]

# Highlights longer than this are narrowed to the query-term hits inside them, so a caller
# centring a ±200-char context on the highlight still sees what matched.
_MAX_HIGHLIGHT = 400
# Sentence/line ends that delimit highlight windows.
_ASCII_STOPS = ("\n", ". ", "! ", "? ")
_STOPS = (*_ASCII_STOPS, "。", "！", "？")
_WORD = re.compile(r"[^\W_]+")


def _term_hits(passage: str, weights: dict[str, float]) -> list[tuple[int, int, str]]:
    """(start, end, term) for each whole-word occurrence of a query term, sorted."""
    low = passage.lower()
    found: list[tuple[int, int, str]] = []
    if len(low) != len(passage):
        # Rare: lowercasing changed lengths (e.g. 'İ'), so fall back to word-by-word.
        for m in _WORD.finditer(passage):
            term = m.group().lower()
            if term in weights:
                found.append((m.start(), m.end(), term))
        return found
    n, find = len(low), low.find
    for term in weights:
        size = len(term)
        i = find(term)
        while i >= 0:
            j = i + size
            # Whole words only, as the tokenizer splits on any non-alphanumeric char.
            if (i == 0 or not low[i - 1].isalnum()) and (j == n or not low[j].isalnum()):
                found.append((i, j, term))
            i = find(term, j)
    if len(weights) > 1:
        found.sort()
    return found


def _window(passage: str, i: int, stops: tuple[str, ...]) -> tuple[int, int]:
    """Bounds of the sentence/line around position i (str.find: much faster than re here)."""
    floor = i - _MAX_HIGHLIGHT if i > _MAX_HIGHLIGHT else 0  # cheaper than max()/min() calls
    size = len(passage)
    ceiling = i + _MAX_HIGHLIGHT if i + _MAX_HIGHLIGHT < size else size
    lo, hi = floor, ceiling  # a window this long is narrowed to its hits anyway
    rfind, find = passage.rfind, passage.find
    for stop in stops:
        k = rfind(stop, floor, i)
        if k >= 0 and k + len(stop) > lo:
            lo = k + len(stop)
        k = find(stop, i, hi)  # only a stop before the nearest one found so far matters
        if k >= 0:
            hi = k + 1
    return lo, hi


def highlight(passage: str, weights: dict[str, float]) -> tuple[int, int] | None:
    """Passage-relative bounds of the sentence/line densest in weighted query terms."""
    found = _term_hits(passage, weights)
    if not found:
        return None
    stops = _ASCII_STOPS if passage.isascii() else _STOPS  # isascii() is O(1)
    best, best_score = (0, 0, 0, 0), -1.0  # lo, hi, first, last of the best window
    lo = hi = -1
    terms: set[str] = set()
    count = first = last = 0
    found.append((len(passage) + 1, 0, ""))
    for start, end, term in found:
        if not lo <= start < hi:  # a new window begins: score the one just finished
            if terms:
                score = sum(weights[t] for t in terms) + 0.01 * count
                if score > best_score:
                    best, best_score = (lo, hi, first, last), score
            if not term:
                break
            lo, hi = _window(passage, start, stops)
            terms, count, first = set(), 0, start
        terms.add(term)
        count += 1
        last = end
    lo, hi, first, last = best
    while lo < hi and passage[lo].isspace():
        lo += 1
    while hi > lo and passage[hi - 1].isspace():
        hi -= 1
    if hi - lo > _MAX_HIGHLIGHT:
        # Long window (no punctuation, e.g. code): keep the span of its term hits.
        lo, hi = first, min(last, first + _MAX_HIGHLIGHT)
    return lo, hi
