"""Two hops through a named thing, with no model call: "Which chandler supplied the owner
of Kittiwake?", "the skipper's phone number for whoever sails Puffin", "what priority is the
ticket that T-9 is a duplicate of".

1. The question splits into an inner ask about a name it gives (`inner_ask`: "the owner of
   Kittiwake", "whoever sails Puffin", "the ticket that T-9 is a duplicate of",
   "Kittiwake's owner") and the outer ask around it.
2. The inner ask is read where the text states it (`corpus.relations`): the record the
   name keys and its field ("Owner: Ann Pryce"), or the sentence relating the name
   ("Ann Pryce owns Kittiwake", "Kittiwake is owned by Ann Pryce", "Duplicate of T-4").
   Its value is the bridge.
3. The outer ask, the bridge in the inner ask's place, is read by the same readers: a
   field of the bridge's record, the record look-ups (`record_hops`), a sentence relating
   the bridge ("supplied by Harbour Chandlery"). A document that calls the bridge by a
   role ("the lender, Mr Ivo Pratt,") may state the outer fact of the role.
Each hop must give one value (two readings that differ give None), and the outer span must
say the bridge (or its role). Both spans are cited; the bridge is the chain's bridge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.asked import asked_label
from ...corpus.described import described_field
from ...corpus.record_fields import record_field
from ...corpus.relations import NAME, Said, agent_stem, aliases, field_of, related, says_name
from ...corpus.units import normalise, stems
from ...store import Store
from ...types import SpanRef
from ..answers.extractive import Extract
from .chain import Chain

__all__ = ["InnerAsk", "inner_ask", "two_hop"]

_ENTITY = rf"(?P<ent>{NAME})"
_PREP = r"(?i:of|for|by|to|with|from|at|on|about)"
_INNER = (
    # "... the skipper for the owner of Kittiwake": an agent noun of a name.
    ("agent", re.compile(rf"\b{_PREP}\s+(?P<span>(?i:the\s+)?(?P<rel>[a-z][\w-]+)\s+of\s+"
                         rf"{_ENTITY})$")),
    # "... for Kittiwake's owner".
    ("agent", re.compile(rf"\b{_PREP}\s+(?P<span>(?i:the\s+)?{_ENTITY}['’]s\s+"
                         rf"(?P<rel>[a-z][\w-]+))$")),
    # "... for whoever sails Puffin", "... of the member who sails Puffin".
    ("agent", re.compile(rf"(?P<span>\b(?i:whoever|(?:the\s+)?[a-z][\w-]*\s+(?:who|that))\s+"
                         rf"(?P<rel>[a-z][\w-]+)\s+{_ENTITY})$")),
    # "... the ticket that T-9 is a duplicate of".
    ("patient", re.compile(rf"(?P<span>\b(?i:the\s+)?[a-z][\w-]*\s+(?i:that|which)\s+"
                           rf"{_ENTITY}\s+(?i:is|was|are|were)\s+(?i:an?\s+|the\s+)?"
                           rf"(?P<rel>[a-z][\w-]+)\s+(?P<prep>of|to|for|from|with|on|in))$")),
)
_ASKING = frozenset({"what", "which", "who", "whose", "how", "name", "number", "phone"})
"""Words the outer ask may end on that are no relation ("the phone number of X" is one hop)."""


@dataclass(frozen=True)
class InnerAsk:
    """Where the inner ask is in the question, the name it gives, the relation (a stem) and
    its direction (`agent`: who does it to the name), and the preposition after it."""

    start: int
    end: int
    entity: str
    word: str
    """The relation as the question writes it ("owner", "sails", "duplicate")."""
    relation: str
    agent: bool
    preposition: str = ""


def inner_ask(question: str) -> InnerAsk | None:
    """The inner ask at the end of the question (see the module), or None. It needs an
    outer ask before it: "What is the owner of Kittiwake?" is one hop."""
    body = question.rstrip(" ?.!")
    for kind, pattern in _INNER:
        match = pattern.search(body)
        if match is None or not body[:match.start("span")].strip():
            continue
        relation = match.group("rel")
        outer = re.findall(r"[A-Za-z]+", body[:match.start("span")].lower())
        if relation.lower() in _ASKING or not outer or set(outer) <= {"what", "who", "which",
                                                                       "is", "are", "was"}:
            continue
        stem = agent_stem(relation) if kind == "agent" else (stems(relation) or [""])[0]
        if stem:
            return InnerAsk(match.start("span"), len(body), match.group("ent"), relation,
                            stem, kind == "agent", match.groupdict().get("prep") or "")
    return None


def _docs(store: Store, session_id: str) -> list[tuple[str, str]]:
    return [(doc.id, store.text(doc)) for doc in store.documents(session_id)]


def _ref(said: Said) -> SpanRef:
    return SpanRef(doc_id=said.doc_id, start=said.start, end=said.end)


def _bridge(docs: list[tuple[str, str]], ask: InnerAsk) -> Said | None:
    """The inner ask's value: the named record's field labelled by the relation ("Owner:"
    for "the owner of", "owns"), else the sentence relating the name; two readers that
    differ give None."""
    by_field = field_of(docs, ask.entity, (ask.relation, *stems(ask.word))) if ask.agent \
        else None
    by_text = related(docs, ask.entity, ask.relation, agent=ask.agent,
                      preposition=ask.preposition)
    if by_field and by_text and normalise(by_field.value) != normalise(by_text.value):
        return None
    return by_field or by_text


_OUTER_VERB = re.compile(r"^\s*(?i:which|what|who)\b(?:\s+[\w-]+){0,4}?\s+(?P<verb>[a-z]+ed)\b")
"""The outer ask's verb when it asks who did something ("which firm instructed ...")."""


def _outer(docs: list[tuple[str, str]], outer: str, bridge: str) -> tuple[Extract, SpanRef] | None:
    """The outer ask about the bridge: a field of its record, a sentence relating it, the
    keyed or described record the ask names (`record_hops`' readers); the span read must
    say the bridge."""
    label = asked_label(outer)
    field = field_of(docs, bridge, label) if label else None
    if field is not None:
        ref = _ref(field)
        return Extract(f"{field.label}: {field.value}", ref, field=field.label), ref
    verb = _OUTER_VERB.match(outer)
    if verb is not None:
        said = related(docs, bridge, (stems(verb.group("verb")) or [""])[0], agent=True)
        if said is not None:
            ref = _ref(said)
            # The field is the question's own verb: what the value did, as asked.
            return Extract(f"{said.label}: {said.value}", ref, field=verb.group("verb")), ref
    read = record_field(outer, docs) or described_field(outer, docs)
    if read is None:
        return None
    text = dict(docs).get(read.doc_id, "")
    if says_name(bridge, text[read.unit.start:read.unit.end]) is None:
        return None  # a record that does not say the bridge is another thing's
    ref = SpanRef(doc_id=read.doc_id, start=read.unit.start, end=read.unit.end)
    return Extract(f"{read.label}: {read.value}", ref, field=read.asked_as or read.label), ref


def two_hop(store: Store, session_id: str, question: str,
            docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The answer to a two-hop question through the name it gives (see the module), citing
    the span of each hop; None when either hop is not read, or reads two values."""
    ask = inner_ask(question)
    if ask is None:
        return None
    docs = docs if docs is not None else _docs(store, session_id)
    bridge = _bridge(docs, ask)
    if bridge is None:
        return None
    head = question[:ask.start]
    tried = [(bridge.value, None), *((a.value, a) for a in aliases(docs, bridge.value))]
    for name, alias in tried:
        outer = _outer(docs, f"{head}{name}", name)
        if outer is not None:
            found, _ = outer
            links = [_ref(bridge), *([_ref(alias)] if alias else [])]
            return Chain(found, [bridge.value, *([alias.value] if alias else [])],
                         [*links, found.ref])
    return None
