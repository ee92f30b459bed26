"""Who sent (or received) the message a log line describes, through the id its lines
share: "Who sent the e-mail that bounced because of a disallowed attachment type?"; and
a labelled field of the thing a line describes, through the name both lines give it: "the
host that could not be reached: what ok count does the recap show for it?"

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

Asked of "the <thing> that <clause>" (a host, a job, a user), the field is a `key=value`
whose key the question's other words say (`ok=` for "what ok count"), on a line saying
the name the described line gives the thing: a bracketed name (`fatal: [db-02]: …`,
console output's per-host anchors), a host name or an id; a line writes it as many times
as it has events for the thing, so only the lines giving the asked key count. The clause
says a negated verb as its line may ("could not reach" for `UNREACHABLE`).
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
_NAME = re.compile(r"\[([^\]\s\[]{2,80})\]|(?<![\w@.-])[a-z][\w-]*(?:\.[a-z][\w-]*)+\.[a-z]{2,}"
                   r"(?![\w@-]|\.\w)", re.IGNORECASE)
"""The name a line gives the thing it is about: in brackets (`ok: [web-02]`), or a host."""
_THING = re.compile(r"\b(?:the|a|an)\s+(?P<head>(?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)\s+"
                    r"(?:that|which|who)\s+(?P<clause>[^:;,?()]+)", re.IGNORECASE)
"""A thing the question describes by what a line says of it ("the host that Ansible could
not reach over SSH")."""
_NEGATED = re.compile(r"\b(?:not|never|cannot|can't|couldn't|unable\s+to|failed\s+to)\s+"
                      r"(?:be\s+)?([a-z]+)", re.IGNORECASE)
_KEY = re.compile(r"(?<![\w.-])[A-Za-z_][\w.-]*=")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|unable|failed|fails|failure)\b",
                       re.IGNORECASE)
_KIND_WORDS = frozenset(stems("count number value total figure show shows shown give gives "
                              "say says report reports list lists"))
"""Words asking what a field holds, not which key it is."""
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
    """The sender or recipient of the message the question describes, or the asked field
    of the thing it describes (see the module)."""
    labels = _labels(question)
    words = set(stems(question)) - STOP - _ASKING
    if labels is None:
        found = _thing_field(question, list(docs))
        return found[0] if len({f.value.lower() for f in found}) == 1 else None
    if len(words) < 2:
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


def _negated_forms(clause: str) -> dict[str, str]:
    """Each negated verb of the clause and the form its line may write instead ("reach" →
    "unreach": `UNREACHABLE`)."""
    return {stem: "un" + stem for m in _NEGATED.finditer(clause) for stem in stems(m.group(1))}


def _says_negated(line: str, own: frozenset[str], verb: str, negative: str) -> bool:
    """The line says the verb negated: in its un- form (`UNREACHABLE`), or beside a
    negation ("failed to reach"); the verb alone says the opposite."""
    return says_stem(own, negative) or (says_stem(own, verb) and _NEGATION.search(line)
                                         is not None)


def _described_by(text: str, words: set[str], negated: dict[str, str]
                  ) -> tuple[int, int, str] | None:
    """The one line saying strictly most of the clause's words, at least half of them, and
    every verb the clause negates, negated (see `_says_negated`)."""
    scored = []
    for s, e, line in lines_of(text):
        # A `key=` names what a line counts ("unreachable=0"), not what happened.
        line = _KEY.sub(" ", line)
        own = stems_of(line)
        if not all(_says_negated(line, own, verb, un) for verb, un in negated.items()):
            continue
        n = sum(says_stem(own, w) or w in negated for w in words)
        scored.append((n, s, e, line))
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or 2 * scored[0][0] < len(words) or (
            len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    _, start, end, line = scored[0]
    return start, end, line


def _thing_field(question: str, docs: list[tuple[str, str]]) -> list[LineLink]:
    """The asked `key=value` of the thing the question describes (see the module)."""
    thing = _THING.search(question)
    if thing is None:
        return []
    clause = thing.group("clause")
    words = set(stems(clause)) - STOP
    rest = question[:thing.start()] + " " + question[thing.end():]
    keys = set(stems(rest)) - STOP - _KIND_WORDS - words - set(stems(thing.group("head")))
    if not words or not keys:
        return []
    found: list[LineLink] = []
    for doc_id, text in docs:
        described = _described_by(text, words, _negated_forms(clause))
        if described is None:
            continue
        start, end, line = described
        names = {m.group(1) or m.group() for m in _NAME.finditer(line)} | {
            m.group() for m in _ID.finditer(line)}
        for name in names - {n for n in names if said_whole(n, question)}:
            found += [LineLink(value, key, doc_id, (s, e), (start, end), name)
                      for s, e, other in lines_of(text) if (s, e) != (start, end)
                      and said_whole(name, other) for key, value in _FIELD.findall(other)
                      if set(stems(key)) and set(stems(key)) <= keys]
    return found
