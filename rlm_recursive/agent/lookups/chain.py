"""Multi-hop look-ups done by the runtime: "What is the extension of [the director who leads
the East Quay refurbishment]?" For small models, which lose the chain.

1. The question's bridge is cut out (`bridges`): the noun phrase with its relative clause
   or participle ("the director who leads the East Quay refurbishment").
2. The unit that best matches the bridge (strictly: its entities and most of its words)
   gives the names it introduces ("the Operations Director").
3. The question is asked again about each name, in its place ("What is the extension of
   Operations Director?"), extractively. When no unit answers that, the names written
   beside it are the next hop ("Marta Quintero is the Operations Director"), up to
   `MAX_HOPS`.
The answer names its bridges, so grounding checks that the last one shares the answer's
unit. No model call; None when the chain breaks (the caller asks the model).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...corpus.evidence import (
    Unit,
    best_units,
    entities,
    has_word,
    names,
    normalise,
    stems,
    values,
)
from ...corpus.records import Layout
from ...corpus.sections import FIRST_PERSON
from ...errors import InvalidArgs
from ...store import Store
from ...tools.search import search_session
from ...types import SpanRef
from ..answers.extractive import Extract, extract, record_at
from ..answers.windows import Window, window_units, windows
from .bridges import GENERIC_HEAD, bridge_span, bridge_spans, role_spans, tightest

__all__ = ["Chain", "bridge_match", "bridge_names", "follow", "follow_role", "linked_hops",
           "unit_ref"]

MAX_HOPS = 3
_NAMES = re.compile(r"\b(?:[A-Z][\w'.-]*[a-z0-9][\w'-]*|[A-Z]{2,}\d*)(?:[ \t](?:[A-Z][\w'.-]*"
                    r"[a-z0-9][\w'-]*|[A-Z]{2,}\d*|of|de|van|von))*"
                    r"(?:\s+\d{1,4}[A-Z]?(?![\w.,:/-])|\s+(?!I\b)[A-Z](?![\w'’]))?\b")
"""Names, codes and labels with their number or letter ("Boiler 3", "Bed 4A", "Block C"; not
"I": "On Tuesday I ...")."""
_I_AM = re.compile(r"I['’](?:ll|m|ve|d)$")
_COMMON = frozenset("The A An This That These Those It Its What Which Who Where When How "
                    "Our Every Each No Yes I We You He She They Dr Mr Mrs Ms".split())


@dataclass(frozen=True)
class Chain:
    found: Extract
    bridges: list[str]
    links: list[SpanRef]
    """The units each bridge was read from (cited with the answer's)."""


def unit_ref(found: list[Window], unit: Unit) -> SpanRef:
    """Where a unit of `window_units(found)` is in its document."""
    doc_id, offset = found[unit.source][:2]
    return SpanRef(doc_id=doc_id, start=offset + unit.start, end=offset + unit.end)


def _names(text: str, known: str, near: str = "", writer: str = "") -> list[str]:
    """The names `text` introduces that `known` does not say, nearest first to the words
    of `near` ("Carla noted that Ingrid Solberg manages the Pellow Building": for "the
    person who manages the Pellow Building", Ingrid Solberg is beside "manages"), or to its
    entities when it names some ("... and me (group E)"); "me" is the letter's `writer`."""
    said = normalise(known)
    named = entities(near)
    wanted = set(stems(near))
    at = ([m.start() for e in named for m in re.finditer(re.escape(e), normalise(text))]
          if named else [])
    at = at or [m.start() for m in re.finditer(r"[^\W\d_]{2,}", text)
                if wanted & set(stems(m.group()))]
    spots = [(m.start(), m.end(), m.group()) for m in _NAMES.finditer(text)
             if not _field_label(text, m)]
    if writer:
        spots += [(m.start(), m.end(), writer) for m in FIRST_PERSON.finditer(text)]
    found: dict[str, int] = {}
    for start, end, name in spots:
        # "I'll", "I'm": the writer's own words, a name only through `writer`.
        name = " ".join(w for w in name.split() if w not in _COMMON and not _I_AM.match(w))
        if not name or normalise(name) in said:
            continue
        distance = min((a - end if a >= end else abs(start - a) for a in at), default=0)
        found[name] = min(found.get(name, distance), distance)
    return sorted(found, key=found.__getitem__)


def _field_label(text: str, match: re.Match[str]) -> bool:
    """A field's name, not a thing's: "Office:", "ORGANIZER;CN=" (a key and its parameter),
    "Extension 5134" inside a line (an entry's own label at a line's start, "Boiler 3 —
    ...", is a thing)."""
    after = text[match.end():match.end() + 3]
    if re.match(r"\s*:|=|;\S", after) or (" " not in match.group() and re.match(r"\s\d", after)):
        return True
    line_start = text.rfind("\n", 0, match.start()) + 1
    return bool(re.search(r"\s\d", match.group())) and bool(text[line_start:match.start()].strip())


_KEYED = re.compile(r"[\"']?([\w.-]+(?: [\w.-]+)?)[\"']?\s*[:=]\s*[\"']?$")
_KIND = 3
"""Records giving one value under one key: that many, and it names a kind, not a thing."""


def _category(store: Store, session_id: str, layout: Layout | None, name: str) -> bool:
    """A value many records give under the same key or column ("plan": "Business" in eight
    tickets) names a kind, not the one thing a bridge leads to. (A bridge whose head noun
    names the column, "the squad that owns ...", takes its cell: `_column_cells`.)"""
    if layout is not None and any(
            values[name] >= _KIND and len(values) * 4 <= sum(values.values())
            for values in layout.fields.values()):
        return True
    try:
        hits, _, _, docs = search_session(store, session_id, name, "literal", limit=40)
    except InvalidArgs:
        return False
    keys: Counter[str] = Counter()
    for hit in hits:
        text = store.text(docs[hit.doc_id])
        line = text.rfind("\n", 0, hit.highlight_start) + 1
        key = _KEYED.search(text[max(line, hit.highlight_start - 40):hit.highlight_start])
        if key:
            keys[key.group(1).lower()] += 1
    return bool(keys) and keys.most_common(1)[0][1] >= _KIND


_HEAD = re.compile(r"([\w-]+)\s+(?:who|that|which|whose|where)\b", re.IGNORECASE)


def _column_cells(unit: Unit, bridge: str) -> list[str]:
    """In a table's row, the cell under the column the bridge's head noun names: "the squad
    that owns the fare-sync worker" is "Fares" under "owner squad" (though "fare" is the
    bridge's own word, the column says what the cell is)."""
    head = _HEAD.search(bridge)
    if not unit.header or head is None:
        return []
    wanted = set(stems(head.group(1)))
    columns = unit.header.split("\t")
    row = unit.text.strip()
    cells = [c.strip() for c in (row.strip("|").split("|") if row.startswith("|")
                                 else row.split("\t"))]
    return [cell for column, cell in zip(columns, cells, strict=False)
            if cell and wanted & set(stems(column))]


def follow_role(store: Store, session_id: str, question: str, layout: Layout | None
                ) -> Chain | None:
    """The answer about the person a role describes (the question names no one), or None."""
    for span in role_spans(question):
        chain = follow(store, session_id, question, layout, span, role=True)
        if chain is not None:
            return chain
    return None


def bridge_match(store: Store, session_id: str, question: str,
                 span: tuple[int, int] | None = None
                 ) -> tuple[tuple[int, int], str, list[Window], list[tuple[float, Unit]]] | None:
    """The question's bridge (`span`, else the one of `bridge_spans` that `tightest` picks):
    its span (from its start to where the rest of the question starts), its words, the
    windows searched and its best units."""
    searched: list[list[Window]] = []

    def matched(tried: tuple[int, int]) -> list[tuple[float, Unit]]:
        # "the person chairing the panel": the head noun asks for a name, it is not a word
        # the text need say.
        bridge = GENERIC_HEAD.sub(r"\1", question[tried[0]:tried[1]])
        searched.append(windows(store, session_id, bridge))
        return best_units(bridge, window_units(searched[-1]), 3)

    chosen = tightest(question, [span] if span else bridge_spans(question), matched,
                      lambda best: best[1])
    if chosen is None:
        return None
    tried, rest, best = chosen
    return ((tried[0], rest), GENERIC_HEAD.sub(r"\1", question[tried[0]:tried[1]]),
            searched[-1], best)


def bridge_names(store: Store, session_id: str, question: str, layout: Layout | None
                 ) -> list[str]:
    """The names the question's bridge leads to (the first hop), whether or not the chain
    goes on to an answer: what the question says something about, never what it asks."""
    first = _first_hop(store, session_id, question, layout, None, False)
    return first[1] if first else []


def _first_hop(store: Store, session_id: str, question: str, layout: Layout | None,
               span: tuple[int, int] | None, role: bool
               ) -> tuple[tuple[int, int], list[str], dict[str, list[SpanRef]]] | None:
    """The bridge's span, the names its best units introduce, and where each was read."""
    matched = bridge_match(store, session_id, question, span)
    if matched is None:
        return None
    span, bridge, found, best = matched
    # The best units for the bridge, and the names they introduce; a name made only of the
    # bridge's own words ("Buildings Manager" for "the building ... manages") says nothing.
    frontier: list[str] = []
    links: dict[str, list[SpanRef]] = {}
    headed: list[tuple[str, Unit]] = []
    head = stems(bridge.split()[-1]) if role else []
    for _, unit in best:
        if head and not has_word(head[-1], unit.own_stems):
            continue
        for name in _column_cells(unit, bridge):
            if name not in links:
                frontier.append(name)
                links[name] = [unit_ref(found, unit)]
        for name in _names(unit.text, question, bridge, unit.author):
            if (name not in links and set(stems(name)) - set(stems(bridge))
                    and not _category(store, session_id, layout, name)):
                frontier.append(name)
                links[name] = [unit_ref(found, unit)]
        headed.append((unit.scope, unit))
    # "the room where the ... talk is given": a name of the bridge's own kind, on the line
    # or on the entry it is under ("SESSION 2B ... — Avon Room"), is the bridge; the
    # speaker the line names is not.
    kind = re.match(r"\s*(?:the|a|an)\s+([a-z]{3,})\s+(?:where|in\s+which|at\s+which)\b",
                    bridge, re.IGNORECASE)
    if kind is not None:
        noun = stems(kind.group(1))
        of_kind = [(name, unit) for _, unit in best
                   for name in _names(f"{unit.text}\n{unit.lead}", question, bridge)
                   if noun and stems(name.split()[-1]) == noun]
        if of_kind:
            frontier = list(dict.fromkeys(name for name, _ in of_kind))
            links = {name: [unit_ref(found, unit)] for name, unit in reversed(of_kind)}
    # The heading a bridge's line is under names what the line is about ("Hannah Osei
    # runs the site" under "Mill Race"): tried when the lines name nothing new.
    for name, unit in headed if not frontier else []:
        if name and name not in links and normalise(name) not in normalise(question):
            frontier.append(name)
            links[name] = [unit_ref(found, unit)]
    return span, frontier, links


def follow(store: Store, session_id: str, question: str, layout: Layout | None,
           span: tuple[int, int] | None = None, role: bool = False) -> Chain | None:
    """The answer at the end of the question's chain of look-ups (from its bridge, or from
    `span`), or None. A `role` span's noun ("the deputy safeguarding lead") must be said in
    the line that names the person, not only in its heading."""
    first = _first_hop(store, session_id, question, layout, span, role)
    if first is None:
        return None
    span, frontier, links = first
    seen = set(frontier)
    path: dict[str, list[str]] = {name: [name] for name in frontier}
    # A role is one look-up away: the person it names is asked about, no further names.
    for _ in range(1 if role else MAX_HOPS):
        following: list[str] = []
        for name in frontier:
            asked = f"{question[:span[0]]}{name}{question[span[1]:]}"
            answer = extract(store, session_id, asked, layout)
            # A line that gives no value answers nothing ("Starter plots are half plots" for
            # "Which plot does Maureen Okafor have?"), nor one elsewhere that only names the
            # bridge's own record back (another ticket's "Refund from HD-7704 not received"):
            # the next name is tried.
            new = set(values(answer.answer)) - set(values(asked)) if isinstance(
                answer, Extract) else set()
            if new and not _names_back(store, session_id, layout, answer, new,
                                       links[name][0]):
                return Chain(answer, path[name], links[name])
            # The names written beside this one are the next hop ("X is the Operations
            # Director"): the shortest units that hold it first.
            beside = windows(store, session_id, name)
            near = best_units(name, window_units(beside), 3)
            for _, unit in near:
                for other in _names(unit.text, question + " " + name):
                    if other not in seen and not _category(store, session_id, layout, other):
                        seen.add(other)
                        path[other] = [*path[name], other]
                        links[other] = [*links[name], unit_ref(beside, unit)]
                        following.append(other)
        frontier = following[:6]
        if not frontier:
            return None
    return None


def _names_back(store: Store, session_id: str, layout: Layout | None, answer: Extract,
                new: set[str], origin: SpanRef) -> bool:
    """The answer is read somewhere other than the bridge's own record (a JSON object, a
    row; else its unit), yet every value it gives is that record's: it refers back to the
    place the chain started from, it is not what the chain leads to."""
    record = record_at(layout, origin.doc_id, origin.start)
    start, end = (record.start, record.end) if record is not None else (origin.start,
                                                                        origin.end)
    ref = answer.ref
    if ref.doc_id == origin.doc_id and ref.start < end and start < ref.end:
        return False  # the bridge's own line answers (a directory entry's mobile)
    doc = next(d for d in store.documents(session_id) if d.id == origin.doc_id)
    return new <= set(values(store.text(doc)[start:end]))


def linked_hops(store: Store, session_id: str, question: str, hops: list[str]) -> list[str]:
    """The names a model chose to look up that form a chain, in order: each is written
    beside the one before it (the same line, sentence, record or heading; the first beside
    a name the question gives, or, when it gives none, in a unit that matches its bridge).
    The chain stops at the first name that is not: a name picked from an unrelated line
    ("Mozilla" in an access log, for a kiln's thermocouple) and every hop after it are no
    bridge the answer may be grounded beside."""
    named = entities(question)
    span = bridge_span(question)
    bridge = question[span[0]:span[1]] if span else question
    kept: list[str] = []
    for name in hops:
        units = [u for u in window_units(windows(store, session_id, f'"{name}"'))
                 if names(u, normalise(name))]
        previous = [normalise(kept[-1])] if kept else named
        beside = (any(names(u, p) for u in units for p in previous) if previous
                  else bool(best_units(bridge, units, 1)))
        if not beside:
            break
        kept.append(name)
    return kept
