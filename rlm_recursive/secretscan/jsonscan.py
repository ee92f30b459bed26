"""Secrets in JSON text: each string value is decoded and scanned with the key it belongs to.

Decoding first means an escaped quote or newline cannot hide a secret; scanning `key: "value"`
(with a quote the value does not contain) lets key-anchored rules see `"clientSecret": "…"`
and take the whole quoted value. Hits are offsets in the decoded value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from .detect import Detector, Hit, merge_hits

__all__ = ["join_strings", "joined_values", "literals", "value_hits"]

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_KEY_AFTER = re.compile(r"\s*:")
_SEPARATOR = "\0"
"""Joins the values of one JSON text (JSON escapes NUL, so it is never inside a value)."""


def literals(text: str) -> Iterator[tuple[re.Match[str], str, str | None, bool]]:
    """Each string literal of a JSON text: the match, its decoded value, the key it is the
    value of (None for keys and for strings outside an object), and whether it is a key."""
    key: str | None = None
    for match in _JSON_STRING.finditer(text):
        value = json.loads(match.group(0))
        if _KEY_AFTER.match(text, match.end()):
            key = value
            yield match, value, None, True
        else:
            yield match, value, key, False


def _probe(key: str | None, value: str) -> tuple[str, int]:
    if key is None:
        return value, 0
    for quote in "\"'`":
        if quote not in value:
            head = f"{key}: {quote}"
            return f"{head}{value}{quote}", len(head)
    head = f"{key}: "
    return head + value, len(head)


def value_hits(detector: Detector, key: str | None, value: str) -> list[Hit]:
    """Hits inside `value`, scanned alone (rules anchored at a line start) and as the value
    of `key` (rules anchored on the key)."""
    hits = detector.find(value)
    if key is not None:
        text, offset = _probe(key, value)
        for hit in detector.find(text):
            start, end = max(hit.start - offset, 0), min(hit.end - offset, len(value))
            if end > start:
                hits.append(Hit(start, end, hit.kind, hit.confidence))
    return merge_hits(hits)



def joined_values(detector: Detector, text: str) -> tuple[str, list[Hit]]:
    """The decoded strings of a JSON text joined by NUL, and the hits in that joined text
    (how an artifact's secrets are recorded: offsets into this canonical text)."""
    parts: list[str] = []
    hits: list[Hit] = []
    offset = 0
    for _, value, key, _ in literals(text):
        hits += [Hit(h.start + offset, h.end + offset, h.kind, h.confidence)
                 for h in value_hits(detector, key, value)]
        parts.append(value)
        offset += len(value) + len(_SEPARATOR)
    return _SEPARATOR.join(parts), hits


def join_strings(text: str) -> str:
    """The canonical text `joined_values` reports offsets in, without scanning."""
    return _SEPARATOR.join(value for _, value, _, _ in literals(text))
