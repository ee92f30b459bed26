"""Redaction of derivatives: excerpts, summaries and copies of texts whose secrets are known.

A scan of the source text finds each secret once; what is exported later is often a piece of
that text (a peek window, a search excerpt, a trace summary cut at 200 characters, a model's
copy). A regex run on the piece alone misses a secret cut in two, so the pieces are redacted
from what is known about the source:

- by offsets (`overlapping`): an excerpt that starts at a known source offset hides every
  character that falls inside a secret span, down to one character;
- by content (`KnownSecrets`): any run of at least `k` characters of a known secret, anywhere,
  and at least `edge` characters of one at a cut (the start or end of a string, or where a
  summary was cut with `…`).
- `SourceText` finds runs of document text in a string, so a trace can leave them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["KnownSecrets", "SourceText", "apply", "overlapping"]

Span = tuple[int, int, str]
_MARK = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def _random_looking(piece: str) -> bool:
    """A run worth hiding: a vendor prefix (`github_`, `-----BEGIN`) or a word shared with
    prose is not; a digit, both cases, or twelve characters make it one."""
    return (len(piece) >= 12 or any(c.isdigit() for c in piece)
            or (any(c.islower() for c in piece) and any(c.isupper() for c in piece)))


def overlapping(spans: Sequence[Span], start: int, length: int) -> list[Span]:
    """The parts of `spans` (source offsets) inside the excerpt `[start, start + length)`,
    as excerpt offsets."""
    end = start + length
    return [(max(s, start) - start, min(e, end) - start, kind)
            for s, e, kind in spans if s < end and e > start]


def apply(text: str, spans: Iterable[Span]) -> tuple[str, int]:
    """`text` with each span replaced by `[REDACTED:<kind>]`; overlapping spans merge."""
    merged: list[list] = []
    for s, e, kind in sorted(spans):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e, kind])
    out, pos = [], 0
    for s, e, kind in merged:
        out += [text[pos:s], f"[REDACTED:{kind}]"]
        pos = e
    out.append(text[pos:])
    return "".join(out), len(merged)


class KnownSecrets:
    """Finds pieces of known secret strings in other texts."""

    def __init__(self, secrets: Iterable[str], *, k: int = 6, edge: int = 4) -> None:
        self.k, self.edge = k, edge
        self.secrets = sorted({s for s in secrets if s.strip()}, key=len, reverse=True)
        self._grams: set[str] = set()
        self._prefixes: set[str] = set()
        self._suffixes: set[str] = set()
        for secret in self.secrets:
            n = len(secret)
            self._grams.update(secret[i:i + k] for i in range(n - k + 1))
            for size in range(edge, min(k, n + 1)):
                self._prefixes.add(secret[:size])
                self._suffixes.add(secret[n - size:])
        self._short = [s for s in self.secrets if len(s) < k]

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def find(self, text: str, kind: str = "known_secret") -> list[Span]:
        """Spans of `text` that are pieces of a known secret."""
        if not self.secrets or not text:
            return []
        found: list[Span] = []
        k, n = self.k, len(text)
        i = 0
        while i <= n - k:
            if text[i:i + k] in self._grams:
                end = i + k
                while end < n and text[end - k + 1:end + 1] in self._grams:
                    end += 1
                if _random_looking(text[i:end]):
                    found.append((i, end, kind))
                i = end
            else:
                i += 1
        for secret in self._short:
            at = text.find(secret)
            while at != -1:
                found.append((at, at + len(secret), kind))
                at = text.find(secret, at + 1)
        for cut in _cuts(text):
            found.extend(self._at_cut(text, cut, kind))
        marks = [m.span() for m in _MARK.finditer(text)]
        return [f for f in found if not any(f[0] < e and f[1] > s for s, e in marks)]

    def _at_cut(self, text: str, cut: int, kind: str) -> list[Span]:
        spans = []
        for size in range(min(self.k - 1, cut), self.edge - 1, -1):
            piece = text[cut - size:cut]
            if piece in self._prefixes and _random_looking(piece):  # a secret's start
                spans.append((cut - size, cut, kind))
                break
        for size in range(min(self.k - 1, len(text) - cut), self.edge - 1, -1):
            piece = text[cut:cut + size]
            if piece in self._suffixes and _random_looking(piece):  # a secret's end
                spans.append((cut, cut + size, kind))
                break
        return spans


def _cuts(text: str) -> list[int]:
    cuts = [0, len(text)]
    at = text.find("…")
    while at != -1:
        cuts.append(at)
        at = text.find("…", at + 1)
    return cuts


class SourceText:
    """Finds runs of at least ~2×`gram` characters copied from any of the source texts."""

    def __init__(self, texts: Iterable[str], *, gram: int = 32) -> None:
        self.gram = gram
        self.texts = list(texts)
        self._index: dict[int, tuple[int, int]] = {}
        for t, text in enumerate(self.texts):
            for pos in range(0, len(text) - gram + 1, gram):
                self._index.setdefault(hash(text[pos:pos + gram]), (t, pos))

    def find(self, value: str) -> list[tuple[int, int]]:
        g, n, runs = self.gram, len(value), []
        j = 0
        while j <= n - g:
            where = self._index.get(hash(value[j:j + g]))
            if where is None or self.texts[where[0]][where[1]:where[1] + g] != value[j:j + g]:
                j += 1
                continue
            source, pos = self.texts[where[0]], where[1]
            left = 0
            while j - left > 0 and pos - left > 0 and value[j - left - 1] == source[pos - left - 1]:
                left += 1
            right = g
            while j + right < n and pos + right < len(source) and \
                    value[j + right] == source[pos + right]:
                right += 1
            runs.append((j - left, j + right))
            j += right
        return runs
