"""A hop across records: the record the question describes holds a key that picks out
another record, which holds what is asked.

Tables, exports and bibliographies join by value, not by prose: a loans row gives an item
code and the items table's row of that code gives the shelf; a credit note names the
invoice it was raised against, and that invoice's own element gives its order reference; a
paper's author list names the co-author whose book has the ISBN. No line says both. So,
over the records every reader found (`corpus.records`):

1. the bridge record: the one whose fields say every entity the question names and most of
   its other words, more of them than any other record; a word a negation governs ("the
   tool she still hasn't returned") is said by a field of that name left blank;
2. its values that the question does not give (an item code, a co-author, an invoice
   number) are the keys; a key must pick out one other record, one that has a field whose
   name says what is asked (`asked.label_says`: `shelf`, `CustomerOrderRef`, `isbn`);
3. the answer is that field, "key: value", with the target record cited and the key as
   the chain's last bridge, so grounding checks the value, the field's name and the key in
   the target record. Two records that could answer give nothing (None).
"""

from __future__ import annotations

import re

from ..corpus.asked import asked_phrase, label_says, label_words
from ..corpus.evidence import entities, normalise, shared_words, stems
from ..corpus.records import Layout, Record
from ..types import SpanRef
from .chain import Chain
from .extractive import Extract
from .plan_words import negated_scopes, word_offsets

__all__ = ["follow_join"]

_PARTS = re.compile(r"\s+and\s+|\s*;\s*|\s*\|\s*")
"""How a field lists several values ("Nagase, Ayako and Dunnett, Nigel")."""
_MIN_KEY = 3
"""Shorter values ("ok", "20") pick out nothing."""


def _negated(question: str) -> set[str]:
    """The stems a negation governs ("hasn't returned" -> return)."""
    offsets = word_offsets(question)
    return {w for scope in negated_scopes(question) for i in scope
            for w in stems(question[offsets[i][0]:offsets[i][1]])}


def _fit(record: Record, named: list[str], other: list[str], negated: set[str]
         ) -> int | None:
    """How many of the question's words the record's fields say (and a field a negated
    word names, left blank), or None when it misses an entity, or a negated word names a
    field it fills."""
    text = normalise(" ".join(record.fields.values()))
    if any(normalise(e) not in text for e in named):
        return None
    # A field's name says something of its record too ("against" in a credit note).
    said = label_words(" ".join((*record.fields, *record.fields.values())))
    score = len(shared_words(other, said))
    for key, value in record.fields.items():
        if negated & label_words(key):
            if value.strip():
                return None
            score += 1
    return score


def _bridge_record(records: list[Record], question: str) -> Record | None:
    """The one record that says the question's entities and more of its words than any."""
    named = entities(question)
    asked = set(asked_phrase(question))
    negated = _negated(question)
    other = [w for w in dict.fromkeys(stems(question)) if w not in asked]
    scored = [(score, r) for r in records
              if (score := _fit(r, named, other, negated)) is not None]
    if not named:  # with no entity to pin it, most of the question's words
        scored = [(s, r) for s, r in scored if s * 5 >= len(other) * 3]
    scored.sort(key=lambda pair: -pair[0])
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _keys(record: Record, question: str) -> list[str]:
    """The record's values the question does not give: what it points to."""
    said = normalise(question)
    out = []
    for value in record.fields.values():
        for part in [value, *_PARTS.split(value)]:
            part = part.strip()
            # A date or an amount may be shared by chance; a code or a name is a key.
            if (len(part) >= _MIN_KEY and re.search(r"[^\W\d_]", part)
                    and normalise(part) not in said and part not in out):
                out.append(part)
    return out


def _asked_fields(record: Record, question: str) -> list[str]:
    """The record's filled fields whose names say what the question asks for."""
    return [k for k, v in record.fields.items() if v.strip() and label_says(question, k)]


def _holds(record: Record, key: str) -> bool:
    """A field of the record is the key, or lists it."""
    return any(value.strip() == key or key in (p.strip() for p in _PARTS.split(value))
               for value in record.fields.values())


def follow_join(question: str, layout: Layout | None) -> Chain | None:
    """The answer in the record the question's bridge record points to, or None."""
    if layout is None:
        return None
    records = [r for r in layout.records if len(r.fields) >= 2]
    bridge = _bridge_record(records, question)
    # A record that has the field asked answers itself (`lookup`), it is no bridge.
    if bridge is None or _asked_fields(bridge, question):
        return None
    found: dict[int, tuple[Record, str, str]] = {}
    for key in _keys(bridge, question):
        targets = [r for r in records if r is not bridge and _holds(r, key)
                   and _asked_fields(r, question)]
        if len(targets) != 1:
            continue  # a key many records give (a member number, a status) picks none out
        target = targets[0]
        asked = [k for k in _asked_fields(target, question)
                 if not _holds(bridge, target.fields[k].strip())]
        if len(asked) == 1:
            found.setdefault(id(target), (target, asked[0], key))
    if len(found) != 1:
        return None
    target, field, key = next(iter(found.values()))
    answer = Extract(f"{field}: {target.fields[field].strip()}",
                     SpanRef(doc_id=target.doc_id, start=target.start, end=target.end),
                     field=field)
    return Chain(answer, [key], [SpanRef(doc_id=bridge.doc_id, start=bridge.start,
                                         end=bridge.end)])
