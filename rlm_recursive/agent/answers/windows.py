"""The windows a question's search opens on the documents: whole lines around each hit
(BM25 with stemming, plus a literal look-up of every entity the question names), merged
per document, with the headings and title in force over them. Extractive answering and
the runtime's look-ups read these, never the whole corpus."""

from __future__ import annotations

from typing import NamedTuple

from ...corpus.doc_titles import document_names
from ...corpus.evidence import Unit, entities, split_units
from ...corpus.search import Hit
from ...corpus.sections import Scope, scopes_for
from ...corpus.wrapping import ENTRY
from ...errors import InvalidArgs
from ...store import Store
from ...tools.search import search_session

__all__ = ["Window", "entry_start", "holds_heading", "window_units", "windows"]

_WINDOW = 500
"""Characters either side of a hit that are read (then cut to whole lines)."""


class Window(NamedTuple):
    """Whole lines of a document around a hit, and the headings over them."""

    doc_id: str
    start: int
    text: str
    scopes: list[Scope]
    """(offset in `text`, heading, author) in force (`sections.scopes_for`)."""
    title: str = ""
    """What names every line of the document: its title and top fields (`document_names`)."""


def windows(store: Store, session_id: str, question: str) -> list[Window]:
    """Windows of whole lines around the question's hits."""
    try:
        hits, _, _, docs = search_session(store, session_id, question, "bm25", limit=10)
    except InvalidArgs:  # no searchable word: the literal look-ups below still run
        hits, docs = [], {d.id: d for d in store.documents(session_id)}
    found: list[Hit] = list(hits)
    for name in entities(question):
        literal, _, _, _ = search_session(store, session_id, name, "literal", limit=8)
        found = literal + found
    spans: dict[str, list[tuple[int, int]]] = {}
    texts: dict[str, str] = {}
    for hit in found:
        text = texts.setdefault(hit.doc_id, store.text(docs[hit.doc_id]))
        start = text.rfind("\n", 0, max(hit.highlight_start - _WINDOW, 0)) + 1
        end = text.find("\n", min(hit.highlight_end + _WINDOW, len(text)))
        spans.setdefault(hit.doc_id, []).append((start, len(text) if end < 0 else end))
    out = []
    for doc_id, ranges in spans.items():
        merged: list[list[int]] = []
        for a, b in sorted(ranges):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        named = document_names(texts[doc_id])
        out += [Window(doc_id, a, texts[doc_id][a:b], scopes_for(texts[doc_id], a, b), named)
                for a, b in merged]
    return out


def window_units(found: list[Window]) -> list[Unit]:
    """The units of the windows, each with the heading it is under."""
    return split_units([w.text for w in found], [w.scopes for w in found],
                       [w.title for w in found])


def holds_heading(found: list[Window], unit: Unit) -> bool:
    """The unit holds a heading (an e-mail's header block, a title), so it names a subject
    rather than answering; a block of fields under its own section line ("[kiln.north]"
    over `key = value` lines) answers."""
    return any(h and unit.start <= at < unit.end and not (unit.record and at == unit.start)
               for at, h, _ in found[unit.source].scopes)


def entry_start(text: str, first: int, last: int, most: int) -> int:
    """Where the entry a hanging-indented line carries on starts ("- 08:30  Mrs Ames, Holly
    Lane" over "     Quoted ridge, £860"): its less indented opening line names whom the
    lines under it are about, and is cited with them (the span `most` characters at most)."""
    indent = len(text[first:last]) - len(text[first:last].lstrip(" \t"))
    at = first
    while indent and at > 0:
        prev = text.rfind("\n", 0, at - 1) + 1
        line = text[prev:at - 1]
        if not line.strip() or last - prev > most:
            return first
        depth = len(line) - len(line.lstrip(" \t"))
        if depth > indent:
            return first
        at = prev
        if depth < indent:  # the opening line, when it opens an entry (not a JSON "[")
            return at if ENTRY.match(line) else first
    return first
