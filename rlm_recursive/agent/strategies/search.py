"""The search strategy: BM25 (plus literal look-ups) picks the passages, the model answers
from them only (for small models that cannot drive tools)."""

from __future__ import annotations

import asyncio
import re

from ...corpus.naming import entities, says
from ...corpus.reading import shown
from ...corpus.search import Hit
from ...corpus.typed_values import KINDS, gives_kind
from ...corpus.units import normalise
from ...providers.base import Message
from ...store import Document, Store
from ...tools.search import search_session
from ...types import SpanRef
from ..answers.extractive import Extract, asked_row, cited, copied, extract
from ..context import AgentAnswer, RunContext
from ..grounding import not_found_answer, said_before
from ..lookups.blocks import follow_block
from ..lookups.chain import Chain, follow_role
from ..lookups.hops import hop_through, says_label
from ..lookups.legend import keyed_person
from ..lookups.legend_values import keyed_value
from ..lookups.record_hops import keyed_field, record_hop, resolved_name
from ..lookups.two_hops import two_hop
from ..model_call import call_model, window_chars
from ..recursion import RecursionState
from ..routing import session_layout

__all__ = ["ANSWER_SYSTEM", "ANSWER_TOKENS", "run"]

ANSWER_SYSTEM = ("Answer the question using only the excerpts given. Quote the exact value "
                 "(number, word or identifier) as it appears in the excerpt.")
ANSWER_TOKENS = 256
"""A fact from a few excerpts needs a sentence or two, not a window's worth."""
_QUOTED = re.compile(r"\"([^\"]{2,})\"|'([^']{2,})'")
_IDENTIFIER = re.compile(r"\b[\w-]*\d[\w-]*\b")


def _exact_terms(question: str) -> list[str]:
    """Quoted phrases and identifiers with digits are looked up literally as well."""
    terms = [a or b for a, b in _QUOTED.findall(question)]
    return terms + [t for t in _IDENTIFIER.findall(question) if len(t) >= 3]


def _find(store: Store, session_id: str, question: str) -> tuple[list[Hit], dict[str, Document]]:
    """BM25 hits, literal hits first (a worker thread: the first search builds the index)."""
    hits, _, _, docs = search_session(store, session_id, question, "bm25", limit=8)
    for term in _exact_terms(question):
        exact, _, _, _ = search_session(store, session_id, term, "literal", limit=2)
        hits = exact + hits
    return hits, docs


def _overlap(a: SpanRef, b: SpanRef) -> bool:
    return a.doc_id == b.doc_id and a.start < b.end and b.start < a.end


def _names_all(store: Store, session_id: str, question: str, refs: list[SpanRef]) -> bool:
    """The spans, together, say every entity the question names (`naming.says`)."""
    named = entities(question)
    texts = {i: store.text(store.document(session_id, i)) for i in {r.doc_id for r in refs}}
    said = normalise("\n".join(texts[r.doc_id][r.start:r.end] for r in refs))
    return bool(named) and all(says(said, e) for e in named)


def _typed_beats(question: str, found: Extract, block: Chain) -> bool:
    """A value of the asked kind read by `typed_values` ("94.31s" for "how long did the
    step take") beats a line found that gives none."""
    return block.found.field in KINDS and not gives_kind(question, found.answer)


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth)
    store, session_id = rc.store, rc.session_id
    found: Extract | str | None = None
    bridges: list[str] = []
    if tier.info.is_small and state.depth == 0:
        # A small model copies a neighbour's value or invents one: the runtime finds the line
        # that holds the question's entities, shows it first, and keeps its own copy of the
        # answer for grounding to prefer when the model's disagrees or is not backed.
        layout, _ = await session_layout(rc)
        # A thing named through another ("the agent for the owner of X"): both hops read by
        # code answer first, and their bridge keeps the one-hop look-ups below from
        # replacing the answer.
        # A DNS name's CNAME chain to its address is such a chain too (`zone_chains`).
        two = (await asyncio.to_thread(resolved_name, store, session_id, question)
               or await asyncio.to_thread(two_hop, store, session_id, question))
        found = two.found if two is not None else await asyncio.to_thread(
            extract, store, session_id, question, layout)
        bridges = [*two.bridges] if two is not None else []
        for ref in two.links if two is not None else []:
            rc.citations.add(ref)
        # "who", and the line names its person by a code or a role: the key says who.
        keyed = await asyncio.to_thread(keyed_person, store, session_id, question, layout,
                                        None, found)
        if keyed is not None:
            found, bridges = keyed.found, keyed.bridges
            for ref in keyed.links:
                rc.citations.add(ref)
        # Nothing names together what the question names (and the person said nothing
        # earlier that could): no answer could be grounded, so the model is not asked.
        hop = None
        if isinstance(found, str) and not await asyncio.to_thread(said_before, rc):
            # No passage names together what the question names: the line it describes
            # may still be there, written otherwise ("11 March" as "11.03.2026"), with what
            # is asked on the line of a thing it names (`hops`), or in the record it
            # describes (`record_hops`).
            hop = (await asyncio.to_thread(hop_through, store, session_id, question)
                   or await asyncio.to_thread(record_hop, store, session_id, question))
            if hop is None:
                return not_found_answer(tier, found)
            found = None
        # The line found is the bridge's own ("Reported by a harbour master in Fowey." for
        # who authored that fix): its block's asked line answers (`blocks`).
        block = hop or await asyncio.to_thread(follow_block, store, session_id, question,
                                               layout)
        # The line found does not say what is asked: it may be in the line's scope, or
        # on the line of a thing it names (`hops`).
        # A record's field picked by its name ("checked_by" for who checked) says it too.
        labelled = isinstance(found, Extract) and (found.field is not None
                                                   or says_label(question, found.answer))
        # So may a record hop, when the block followed does not say what is asked either
        # ("plant room tap 09/11/2026 08:20" for an iron level).
        if not labelled and (block is None or not says_label(question, block.found.answer)):
            looked = (await asyncio.to_thread(hop_through, store, session_id, question)
                      or await asyncio.to_thread(record_hop, store, session_id, question))
            if block is None or (looked is not None
                                 and says_label(question, looked.found.answer)):
                block = looked
        # The line found says the asked label yet sits in a keyed record that gives the
        # field another value ("PUPIL: Freddie Lindsay  Form: 8RH  UPN A82…" for the UPN):
        # the field answers. (Otherwise `record_hop` above already asked the keyed reader.)
        elif block is None and not bridges:
            keyed = await asyncio.to_thread(keyed_field, store, session_id, question)
            if keyed is not None and _overlap(found.ref, keyed.links[0]) and normalise(
                    keyed.found.answer.rpartition(": ")[2]) not in normalise(found.answer):
                block = keyed
        # A look-up whose cited record names every entity of the question replaces a line
        # that names them only through its document's title (a note under a timetable),
        # and a line that does not say what is asked ("W26-44104  Kitchen tap, Rowan
        # Cottage" for its pH) when the look-up's label does ("pH: 6.3").
        # A record's field picked by its name stays: the record is the thing named.
        if block is not None and not bridges and (found is None or (
                isinstance(found, Extract) and found.field is None and (_overlap(
                    found.ref, block.links[0]) or (
                    _names_all(store, session_id, question, block.links)
                    and not _names_all(store, session_id, question, cited(found)))
                or _typed_beats(question, found, block)
                or (not labelled and says_label(question, block.found.answer))))):
            found, bridges = block.found, block.bridges
            for ref in block.links:
                rc.citations.add(ref)
        # "which surgery": the line found says a code ("RB") a key line gives it for.
        if isinstance(found, Extract) and not bridges:
            keyed = await asyncio.to_thread(keyed_value, store, session_id, question, found)
            if keyed is not None:
                found, bridges = keyed.found, keyed.bridges
                for ref in keyed.links:
                    rc.citations.add(ref)
        if found is None and not bridges:
            # A table's row holds the thing by a code ("JO"), not by the asked name.
            row = await asyncio.to_thread(asked_row, store, session_id, question, layout)
            keyed = None if row is None else await asyncio.to_thread(
                keyed_value, store, session_id, question, row)
            if keyed is not None:
                found, bridges = keyed.found, keyed.bridges
                for ref in keyed.links:
                    rc.citations.add(ref)
        if found is None:  # "the deputy safeguarding lead": a role, one look-up away
            chain = await asyncio.to_thread(follow_role, store, session_id, question, layout)
            if chain is not None:
                found, bridges = chain.found, chain.bridges
                for ref in chain.links:
                    rc.citations.add(ref)
    context_chars = rc.settings.context_chars
    hits, docs = await asyncio.to_thread(_find, store, session_id, question)
    # Small models lose the thread in long prompts: a few focused excerpts, not a full window.
    budget = min(window_chars(tier, 1024) - len(question) - 500,
                 rc.settings.max_excerpt_chars)
    excerpts, refs = [], []
    if isinstance(found, Extract):
        text = store.text(docs[found.ref.doc_id]) if found.ref.doc_id in docs else ""
        # The heading that names the entity, when the line does not, goes with it.
        excerpts.append("\n".join(shown(text, r.start, r.end) for r in reversed(cited(found))))
        refs.extend(cited(found))
        budget -= len(excerpts[-1])
    for hit in hits:
        text = store.text(docs[hit.doc_id])
        ref = SpanRef(doc_id=hit.doc_id, start=max(hit.highlight_start - context_chars, 0),
                      end=min(hit.highlight_end + context_chars, len(text)))
        if any(r.doc_id == ref.doc_id and r.start < ref.end and ref.start < r.end
               for r in refs):
            continue
        if ref.end - ref.start > budget:
            break
        budget -= ref.end - ref.start
        refs.append(ref)
        excerpts.append(shown(text, ref.start, ref.end))
    for ref in refs:
        rc.citations.add(ref)
    body = "\n\n".join(f"[Excerpt {i + 1}]\n{e}" for i, e in enumerate(excerpts))
    # In a conversation, earlier turns come first (a small share: the excerpts matter most).
    room = (window_chars(tier, 1024) - len(body) - len(question) - 600) // 3
    history = (await rc.memory.history(min(max(room // 2, 0), 1500), question)
               if rc.memory is not None and state.depth == 0 else [])
    if not refs and not history:  # the model is not asked to answer from nothing
        return not_found_answer(tier, "the search found no passage for the question")
    messages = [Message(role="system", content=ANSWER_SYSTEM), *history,
                Message(role="user", content=f"{body or '(no matching text found)'}\n\n"
                                             f"Question: {question}\nAnswer:")]
    result = await call_model(rc, tier, messages, [], max_tokens=ANSWER_TOKENS)
    extra = {"extraction": copied(found, bridges)} if isinstance(found, Extract) else {}
    return AgentAnswer(result.text.strip(), tier, 1, extra=extra)
