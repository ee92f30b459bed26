"""Exact scans over document texts: regex (with a timeout) and literal, with str offsets."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator

import regex

from rlm_recursive import errors

from .search import Hit

__all__ = ["literal_search", "regex_search"]


def _check_limit(limit: int) -> None:
    if limit < 0:
        raise errors.InvalidArgs("limit must not be negative")


def regex_search(
    docs: Iterable[tuple[str, str]],
    pattern: str,
    limit: int,
    timeout_s: float = 2.0,
    *,
    ignore_case: bool = False,
    multiline: bool = True,
    dotall: bool = False,
    max_count: int = 10_000,
) -> tuple[list[Hit], int]:
    """Regex matches over (doc_id, text) pairs in order; return (first `limit` hits, total).

    Uses the `regex` package (stdlib `re` syntax) because its matcher honours a timeout
    while backtracking: a thread cannot be abandoned (`re` holds the GIL) and a subprocess
    would have to be sent the whole corpus. The whole call must finish within timeout_s or
    errors.Timeout is raised; a bad pattern raises InvalidArgs. `multiline` (default on,
    like grep) makes ^ and $ match at line ends. total stops counting at max_count.
    """
    _check_limit(limit)
    if not pattern:
        raise errors.InvalidArgs("regex pattern must not be empty")
    flags = regex.V0
    flags |= regex.IGNORECASE if ignore_case else 0
    flags |= regex.MULTILINE if multiline else 0
    flags |= regex.DOTALL if dotall else 0
    try:
        compiled = regex.compile(pattern, flags)
    except (regex.error, ValueError, OverflowError) as exc:
        raise errors.InvalidArgs(f"invalid regex {pattern!r}: {exc}") from exc
    deadline = time.monotonic() + timeout_s

    def matches(text: str) -> Iterator[tuple[int, int]]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        # concurrent=True releases the GIL while matching, so other threads keep running.
        for m in compiled.finditer(text, concurrent=True, timeout=remaining):
            yield m.span()

    try:
        return _collect(docs, matches, limit, max_count)
    except TimeoutError as exc:
        raise errors.Timeout(
            f"regex {pattern!r} did not finish within {timeout_s:g}s; simplify the pattern "
            "(avoid nested repeats like (a+)+) or narrow the documents",
            retryable=False,
        ) from exc


def literal_search(
    docs: Iterable[tuple[str, str]],
    needle: str,
    limit: int,
    case_sensitive: bool = False,
    *,
    max_count: int = 10_000,
) -> tuple[list[Hit], int]:
    """Non-overlapping occurrences of needle in (doc_id, text) pairs; (first hits, total)."""
    _check_limit(limit)
    if not needle:
        raise errors.InvalidArgs("search text must not be empty")
    folded_needle = needle.lower()
    ci_pattern = re.compile(re.escape(needle), re.IGNORECASE)

    def matches(text: str) -> Iterator[tuple[int, int]]:
        if case_sensitive:
            hay, key = text, needle
        else:
            hay, key = text.lower(), folded_needle
            if len(hay) != len(text):
                # Lowercasing moved offsets (e.g. 'İ'): let re map matches back exactly.
                for m in ci_pattern.finditer(text):
                    yield m.span()
                return
        i = hay.find(key)
        while i >= 0:
            yield i, i + len(key)
            i = hay.find(key, i + len(key))

    return _collect(docs, matches, limit, max_count)


def _collect(
    docs: Iterable[tuple[str, str]],
    matches: Callable[[str], Iterator[tuple[int, int]]],
    limit: int,
    max_count: int,
) -> tuple[list[Hit], int]:
    """First `limit` spans as Hits, and the total number of spans capped at max_count."""
    hits: list[Hit] = []
    total = 0
    for doc_id, text in docs:
        for start, end in matches(text):
            if len(hits) < limit:
                hits.append(Hit(doc_id, start, end, 1.0, start, end))
            total += 1
            if total >= max_count:
                return hits, total
    return hits, total
