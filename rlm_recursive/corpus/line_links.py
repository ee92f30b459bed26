"""Who sent (or received) the message a log line describes, through the id its lines
share: "Who sent the e-mail that bounced because of a disallowed attachment type?"

A mail or message log writes one event a line, and the lines of one message share its id
(a queue id, a transaction id): the bounce says the recipient and why, another line of the
same id says the sender (`from=<…>`). With no model call:
1. the described line: the one saying strictly most of the question's words, and at least
   half of them;
2. its ids: tokens of letters and digits that other lines say too, on at most `MAX_SHARED`
   lines (an id keys one event's few lines, not the whole log);
3. on those lines (and the described one), the field the question asks by its verb: the
   sender (`from=`, `sender=`) for "who sent", the recipient (`to=`, `rcpt=`) for "who
   received" or "sent to".
Every line giving the field must give one value, else None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .blocks import lines_of
from .described import says_stem, stems_of
from .line_fields import said_whole
from .units import STOP, stems

__all__ = ["MAX_SHARED", "LineLink", "line_link"]

MAX_SHARED = 12
"""An id on more lines than this keys the whole log (a host, a daemon), not one message."""
_ID = re.compile(r"(?<![\w.@-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[\w-]{5,}(?![\w@-])")
"""An id: letters and digits, five or more ("4Rk5hM1qPzzH8", "TX-88213")."""
_FIELD = re.compile(r"(?<![\w.-])([A-Za-z][\w-]*)=<?([^\s,;<>]+)>?")
_SENDER = frozenset({"from", "sender", "mail_from", "envelope_from"})
_RECIPIENT = frozenset({"to", "rcpt", "recipient", "rcpt_to", "orig_to"})
_ASKS_RECIPIENT = re.compile(r"\bwho\b.*\b(?:sent|send|mailed|addressed)\s+to\b|\bto\s+whom\b"
                             r"|\bwho\b.*\b(?:received?|receiving)\b|\brecipient\b",
                             re.IGNORECASE)
_ASKS_SENDER = re.compile(r"\bwho\b.*\b(?:sent|send|sends|mailed|wrote)\b|\bsender\b",
                          re.IGNORECASE)
_ASKING = frozenset(stems("who whom sent send sends sender recipient received receive "
                          "mailed wrote message messages email e-mail mail"))
"""The question's words that ask, or name the kind of event, not which line."""


@dataclass(frozen=True)
class LineLink:
    value: str
    label: str
    doc_id: str
    line: tuple[int, int]
    """The line the value is on (cited)."""
    described: tuple[int, int]
    """The line the question describes (cited with it)."""
    bridge: str
    """The id both lines say."""


_ASKS_WHO = re.compile(r"^\s*(?:who|whom|to\s+whom)\b|^\s*(?:which|what)\s+(?:[\w-]+\s+){0,2}"
                       r"(?:sender|recipient|address)\b", re.IGNORECASE)
"""A question asking who (or which sender or address), not how many."""


def _labels(question: str) -> frozenset[str] | None:
    """The labels of the field the question asks by its verb, or None."""
    if not _ASKS_WHO.search(question):
        return None
    if _ASKS_RECIPIENT.search(question):
        return _RECIPIENT
    if _ASKS_SENDER.search(question):
        return _SENDER
    return None


def _described(text: str, words: set[str]) -> tuple[int, int, str] | None:
    """The one line saying strictly most of the words, and at least half of them."""
    scored = sorted(((sum(says_stem(stems_of(line), w) for w in words), s, e, line)
                     for s, e, line in lines_of(text) if line.strip()), reverse=True)
    if not scored or 2 * scored[0][0] < len(words) or (
            len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    _, start, end, line = scored[0]
    return start, end, line


def line_link(question: str, docs: Iterable[tuple[str, str]]) -> LineLink | None:
    """The sender or recipient of the message the question describes (see the module)."""
    labels = _labels(question)
    words = set(stems(question)) - STOP - _ASKING
    if labels is None or len(words) < 2:
        return None
    found: list[LineLink] = []
    for doc_id, text in docs:
        described = _described(text, words)
        if described is None:
            continue
        start, end, line = described
        lines = lines_of(text)
        for bridge in dict.fromkeys(m.group() for m in _ID.finditer(line)):
            sharing = [(s, e, other) for s, e, other in lines if said_whole(bridge, other)]
            if not 1 < len(sharing) <= MAX_SHARED:
                continue
            found += [LineLink(value, key, doc_id, (s, e), (start, end), bridge)
                      for s, e, other in sharing for key, value in _FIELD.findall(other)
                      if key.lower() in labels]
    return found[0] if len({f.value.lower() for f in found}) == 1 else None
