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

from ...corpus.asked import asked_label, asked_phrase, label_says, label_words
from ...corpus.evidence import entities, normalise, shared_words, stems
from ...corpus.records import Layout, Record
from ...types import SpanRef
from ..answers.extractive import Extract
from ..counting.plan_words import negated_scopes, word_offsets
from .chain import Chain

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


def _fit(record: Record, columns: list[str], title: str, named: list[str], other: list[str],
         negated: set[str]) -> int | None:
    """How many of the question's words the record's fields say (and a field a negated
    word names, left blank), or None when it misses an entity (its document's title may
    say one: the supplier of a whole export), or a negated word names a field it fills.
    `columns`: the field names of its document's records (a blank cell is often left out)."""
    text = normalise(" ".join(record.fields.values()))
    if any(normalise(e) not in text and normalise(e) not in title for e in named):
        return None
    # A field's name says something of its record too ("against" in a credit note).
    said = label_words(" ".join((*record.fields, *record.fields.values())))
    score = len(shared_words(other, said))
    for key in columns:
        if negated & label_words(key):
            if record.fields.get(key, "").strip():
                return None
            score += 1
    return score


def _siblings(record: Record, records: list[Record]) -> list[Record]:
    """The records of the record's table: those of its document with mostly the same
    fields (a psql dump holds several tables; a blank cell is often left out)."""
    own = set(record.fields)
    return [other for other in records if other.doc_id == record.doc_id
            and len(set(other.fields) & own) * 2 >= len(set(other.fields) | own)]


def _columns(record: Record, records: list[Record]) -> list[str]:
    """The field names of the record's table."""
    return list(dict.fromkeys(k for other in _siblings(record, records) for k in other.fields))


def _asking(question: str) -> str:
    """The clause that asks ("The credit note ... against an invoice - what customer order
    reference was on it?": the part after the dash)."""
    parts = re.split(r"\s[-–—]\s|:\s|;\s", question)
    tail = parts[-1].strip()
    return tail if len(parts) > 1 and _WH.match(tail) else question


_WH = re.compile(r"(?:what|which|who|whose|where|when|how)\b", re.IGNORECASE)


def _bridge_records(records: list[Record], layout: Layout, question: str) -> list[Record]:
    """The records that say the question's entities and more of its words than the rest,
    among those without the field asked (a record with it answers itself: `lookup`)."""
    named = entities(question)
    asked = set(asked_phrase(_asking(question)))
    negated = _negated(question)
    other = [w for w in dict.fromkeys(stems(question)) if w not in asked]
    texts: dict[str, str] = {}
    for record in records:
        texts[record.doc_id] = texts.get(record.doc_id, "") + normalise(
            " ".join(record.fields.values())) + "\n"
    # An entity no record of a document says, its title may (the supplier of a whole
    # export, said once at its top): the document's every record is about it.
    titles = {doc: " ".join(normalise(e) for e in named if normalise(e) not in text
                            and normalise(e) in normalise(layout.titles.get(doc, "")))
              for doc, text in texts.items()}
    scored = [(score, r) for r in records if not _asked_fields(r, question)
              and (score := _fit(r, _columns(r, records), titles[r.doc_id],
                                 named, other, negated)) is not None]
    if not named:  # with no entity to pin it, most of the question's words
        scored = [(s, r) for s, r in scored if s * 5 >= len(other) * 3]
    best = max((score for score, _ in scored), default=None)
    return [r for score, r in scored if score == best]


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
    asking = _asking(question)
    return [k for k, v in record.fields.items() if v.strip() and label_says(asking, k)]


def _names_record(target: Record, key: str, bridge: Record, table: list[Record]) -> bool:
    """The key names the target among its table's records: no other holds it, and it is
    in a field whose values tell them all apart (an item code, an invoice number, an author
    list; not a birthplace two people share, one of them with the occupation asked)."""
    if any(r is not bridge and r is not target and _holds(r, key) for r in table):
        return False
    for name, value in target.fields.items():
        if value.strip() == key or key in (p.strip() for p in _PARTS.split(value)):
            column = [r.fields[name].strip() for r in table if r.fields.get(name, "").strip()]
            if len(column) == len(set(column)):
                return True
    return False


def _holds(record: Record, key: str) -> bool:
    """A field of the record is the key, or lists it."""
    return any(value.strip() == key or key in (p.strip() for p in _PARTS.split(value))
               for value in record.fields.values())


def _target(bridge: Record, records: list[Record], question: str
            ) -> tuple[Record, str, str] | None:
    """The record the bridge's keys pick out, with the field asked, and the key: each key
    that picks out one record with the field asked names a target; of several, the record
    that holds most of the bridge's keys (the invoice a credit note was raised against
    also has its customer)."""
    keys = _keys(bridge, question)
    shared: dict[int, tuple[int, Record, str, str]] = {}
    for key in keys:
        targets = [r for r in records if r is not bridge and _holds(r, key)
                   and _asked_fields(r, question)]
        if len(targets) != 1:
            continue  # a key many records give (a member number, a status) picks none out
        target = targets[0]
        if not _names_record(target, key, bridge, _siblings(target, records)):
            continue
        asked = [k for k in _asked_fields(target, question)
                 if not _holds(bridge, target.fields[k].strip())]
        if len(asked) == 1 and id(target) not in shared:
            shared[id(target)] = (sum(_holds(target, k) for k in keys), target, asked[0], key)
    ranked = sorted(shared.values(), key=lambda item: -item[0])
    if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return None
    return ranked[0][1:]


def follow_join(question: str, layout: Layout | None) -> Chain | None:
    """The answer in the record the question's bridge record points to, or None."""
    # Which field answers must be known: a question that names no thing asked names none.
    if layout is None or not asked_label(_asking(question)):
        return None
    records = [r for r in layout.records if len(r.fields) >= 2]
    # Of the records that fit the question equally well, the one that points somewhere
    # (a batch's control totals say "credit notes" too, and point to nothing).
    joined = [(bridge, found) for bridge in _bridge_records(records, layout, question)
              if (found := _target(bridge, records, question)) is not None]
    if len(joined) != 1:
        return None
    bridge, (target, field, key) = joined[0]
    answer = Extract(f"{field}: {target.fields[field].strip()}",
                     SpanRef(doc_id=target.doc_id, start=target.start, end=target.end),
                     field=field)
    return Chain(answer, [key], [SpanRef(doc_id=bridge.doc_id, start=bridge.start,
                                         end=bridge.end)])
