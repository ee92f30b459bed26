"""Degenerate repetition: a reply that says the same phrase over and over.

Small models at temperature 0 fall into loops ("nozzles cleared; nozzles cleared; ..."
eighty times). `find_loop` finds the first phrase of `period` words repeated back to back at
least `MIN_REPEATS` times over at least `MIN_LOOP_WORDS` words; `trim_loop` keeps the text
up to the end of its first copy. `LoopGuard` does the same while a reply streams, so the
generation can stop as soon as the loop shows.
"""

from __future__ import annotations

import re

__all__ = ["MIN_LOOP_WORDS", "MIN_REPEATS", "LoopGuard", "find_loop", "trim_loop"]

MIN_REPEATS = 3
MIN_LOOP_WORDS = 20
"""A short phrase must repeat long enough that it cannot be an ordinary list or emphasis."""
_MAX_PERIOD = 60
_WORD = re.compile(r"\S+")
_CHECK_EVERY = 12
_TAIL_WORDS = 400


def find_loop(text: str) -> int | None:
    """The character offset where the loop's second copy starts, or None: no loop."""
    words = [(m.group().strip(".,;:!?").lower(), m.start(), m.end())
             for m in _WORD.finditer(text)]
    tokens = [w for w, _, _ in words]
    best: int | None = None
    for period in range(1, min(_MAX_PERIOD, len(tokens) // MIN_REPEATS) + 1):
        need = max((MIN_REPEATS - 1) * period, MIN_LOOP_WORDS - period)
        run = 0
        for i in range(len(tokens) - period):
            run = run + 1 if tokens[i] == tokens[i + period] else 0
            if run >= need:
                start = i - run + 1  # the loop's first copy begins here
                cut = start + period
                if best is None or cut < best:
                    best = cut
                break
    return None if best is None else words[best][1]


def trim_loop(text: str) -> tuple[str, bool]:
    """`text` with a loop cut after its first copy, and whether anything was cut."""
    at = find_loop(text)
    if at is None:
        return text, False
    return text[:at].rstrip(" \t\n,;"), True


class LoopGuard:
    """Fed a streaming reply piece by piece; `feed` returns True once it loops."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._words_since = 0
        self.looped = False

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def feed(self, piece: str) -> bool:
        self._parts.append(piece)
        self._words_since += piece.count(" ") + piece.count("\n")
        if self._words_since >= _CHECK_EVERY and not self.looped:
            self._words_since = 0
            tail = self.text
            words = tail.split()
            if len(words) > _TAIL_WORDS:  # only the tail can have just started looping
                tail = " ".join(words[-_TAIL_WORDS:])
            self.looped = find_loop(tail) is not None
        return self.looped
