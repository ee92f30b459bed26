"""Documents cut into passages: the units the BM25 index scores and search hits return.

A passage never crosses a page start, so every hit lies on one page.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from rlm_recursive import errors

__all__ = ["page_passages", "split_passages"]

# Preferred passage cuts, best first: paragraph, line, sentence, word.
_CUT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("\n\n",),
    ("\n",),
    (". ", "! ", "? ", "。", "！", "？"),
    (" ", "\t"),
)

def split_passages(text: str, target_chars: int = 1000) -> list[tuple[int, int]]:
    """Cut text into consecutive (start, end) passages of at most target_chars, covering it."""
    if target_chars < 1:
        raise errors.InvalidArgs("target_chars must be at least 1")
    spans: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while n - start > target_chars:
        hi = start + target_chars
        lo = start + target_chars // 2  # never cut a passage shorter than half the target
        cut = hi
        for group in _CUT_GROUPS:
            # Cut just after the latest separator of this group found in [lo, hi).
            best = -1
            for sep in group:
                k = text.rfind(sep, lo, hi)
                if k >= 0 and k + len(sep) > best:
                    best = k + len(sep)
            if best > start:
                cut = best
                break
        spans.append((start, cut))
        start = cut
    if start < n:
        spans.append((start, n))
    return spans


def page_passages(
    text: str, breaks: Sequence[int] = (), target_chars: int = 1000
) -> list[tuple[int, int]]:
    """`split_passages` within each page: `breaks` are the offsets where a new page starts,
    so every passage (and every search hit) lies on one page."""
    spans: list[tuple[int, int]] = []
    bounds = [0, *(b for b in breaks if 0 < b < len(text)), len(text)]
    for first, last in pairwise(bounds):
        spans.extend((first + s, first + e)
                     for s, e in split_passages(text[first:last], target_chars))
    return spans
