"""The iterative strategy: multi-hop look-ups planned by the runtime, judged by the model.

Each hop searches (BM25 for the question plus the newest entity, and that entity literally),
shows the model a few short excerpts, and asks through a constrained JSON schema for the
fact found, whether it can answer, and the next thing to look up (one of the names the
excerpts give beside the entity). The question's shape says how many hops it needs at least
("the office that runs ..." is one more), so a distractor cannot end the chain early. At
most `MAX_HOPS` hops and one final answer: at most MAX_HOPS + 1 model calls. Every excerpt
shown is cited.
"""

from __future__ import annotations

import asyncio
import re

from ... import trajectory
from ...corpus.search import Hit
from ...corpus.units import normalise
from ...providers.base import Message
from ...tools.search import search_session
from ...types import SpanRef
from ..answers.extractive import about_asked, cited, copied, looked_up
from ..answers.persons import asks_who
from ..context import AgentAnswer, RunContext
from ..grounding import not_found_answer
from ..lookups.blocks import follow_block
from ..lookups.chain import Chain, bridge_names, follow, linked_hops
from ..lookups.hops import hop_through, says_label
from ..lookups.legend import keyed_person
from ..lookups.record_hops import record_hop
from ..lookups.two_hops import two_hop
from ..model_call import call_model
from ..recursion import RecursionState, Tier
from ..routing import session_layout
from .search import ANSWER_TOKENS
from .structured import ask_json, enum_or_text

__all__ = ["MAX_HOPS", "candidates", "expected_hops", "names_bridge", "run"]

MAX_HOPS = 3
_AROUND = 110
"""Characters either side of a hit: about one sentence, so distractors stay out of view."""
_EXCERPTS = 5
_NAME = re.compile(r"\b(?:[A-Z][\w-]*[a-z0-9][\w-]*|[A-Z]{2,}\d*|[\w-]*\d[\w-]*)\b")
_RELATIVE = re.compile(r"(?<=\w )(that|which|who|whose|where)\b", re.IGNORECASE)
"""A relative clause after a word: the question's own first word ("Which ...?") is not one."""
_COMMON = frozenset("The A An This That These Those It Its What Which Who Whose Where When How "
                    "Our Every Each No Yes I We You He She They Question Answer".split())
_NONE = "NONE"
_STEP_SYSTEM = ("You answer a question that may need several look-ups. Read the excerpts. "
                "Say what fact they give about the question, whether you can now answer, the "
                "answer if so (copied exactly from an excerpt), and otherwise which name "
                "from the excerpts to look up next.")
_ANSWER_SYSTEM = ("Answer the question from the facts and excerpts given. Reply with the "
                  "exact value only, copied from an excerpt.")


def names_bridge(answer: str, bridges: list[str]) -> bool:
    """The answer is one of the bridges, or a part of one ("Sue" for "Sue Ng")."""
    said = normalise(answer).strip(" .")
    whole = re.compile(rf"(?<!\w){re.escape(said)}(?!\w)")
    return bool(said) and any(whole.search(normalise(b)) for b in bridges)


def expected_hops(question: str) -> int:
    """One look-up, plus one per relative clause ("the office that runs ...")."""
    return 1 + len(_RELATIVE.findall(question.split("?")[0]))


def candidates(text: str, known: list[str]) -> list[str]:
    """Names and identifiers in `text` that are not already known."""
    lowered = {k.lower() for k in known}
    return [n for n in dict.fromkeys(_NAME.findall(text))
            if n not in _COMMON and n.lower() not in lowered]


def _sentence_with(text: str, at: int) -> tuple[int, int]:
    """The sentence (or line) holding offset `at`, within `_AROUND` characters either side."""
    left = max(at - _AROUND, 0)
    right = min(at + _AROUND, len(text))
    cut = max(text.rfind(". ", left, at), text.rfind("\n", left, at))
    left = cut + 2 if cut >= left and text[cut] == "." else (cut + 1 if cut >= left else left)
    stop = min((i for i in (text.find(". ", at, right), text.find("\n", at, right))
                if i >= 0), default=right - 1)
    return left, min(stop + 1, len(text))


def _gather(rc: RunContext, query: str, entity: str | None) -> list[tuple[SpanRef, str]]:
    """Short excerpts: the entity's literal hits first (most words shared with the query),
    then BM25 hits; an excerpt shown at an earlier hop may be shown again."""
    seen: set[tuple[str, int]] = set()
    store, sid = rc.store, rc.session_id
    hits, _, _, docs = search_session(store, sid, query, "bm25", limit=8)
    if entity:
        literal, _, _, _ = search_session(store, sid, entity, "literal", limit=40)
        words = {w.lower() for w in re.findall(r"\w{3,}", query)}
        texts = {h.doc_id: store.text(docs[h.doc_id]) for h in literal}

        def overlap(hit: Hit) -> int:
            s, e = _sentence_with(texts[hit.doc_id], hit.start)
            return -len(words & {w.lower() for w in re.findall(r"\w{3,}",
                                                                 texts[hit.doc_id][s:e])})
        hits = sorted(literal, key=overlap) + hits
    out: list[tuple[SpanRef, str]] = []
    for hit in hits:
        text = store.text(docs[hit.doc_id])
        start, end = _sentence_with(text, hit.highlight_start)
        if (hit.doc_id, start) in seen:
            continue
        seen.add((hit.doc_id, start))
        out.append((SpanRef(doc_id=hit.doc_id, start=start, end=end), text[start:end]))
        if len(out) >= _EXCERPTS:
            break
    return out


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth)
    chain = None
    if tier.info.is_small and state.depth == 0:
        # A small model loses the chain: the runtime follows it too (no model call) and its
        # copy of the answer goes to grounding, which prefers it when the model's answer is
        # not backed or names none of its values.
        layout, _ = await session_layout(rc)
        # A thing named through another, both hops read by code (`two_hops`), first; its
        # answer was read as the question asks it, not replaced by a one-hop look-up below.
        two = await asyncio.to_thread(two_hop, rc.store, rc.session_id, question)
        chain = two or await asyncio.to_thread(follow, rc.store, rc.session_id, question,
                                               layout)
        # No chain of names: the bridge's line and the answer may share only a record (a
        # commit's message and its Author line, a lab result and the patient segment).
        chain = chain or await asyncio.to_thread(follow_block, rc.store, rc.session_id,
                                                 question, layout)
        # The chain's answer does not say what is asked ("seats 140" for which floor): the
        # line's scope, or the line of a thing it names, may say it (`hops`).
        if chain is None or (two is None and not says_label(question, chain.found.answer)):
            chain = (await asyncio.to_thread(hop_through, rc.store, rc.session_id, question)
                     or await asyncio.to_thread(record_hop, rc.store, rc.session_id,
                                                question) or chain)
        # No chain at all: the question may describe one record by its values ("the
        # hearing aid that was returned through the audiology clinic - where had it been
        # found?"), and the record's field asked answers (`lookup`'s strict rules).
        if chain is None and (looked := await asyncio.to_thread(looked_up, question,
                                                                layout)) is not None:
            chain = Chain(looked, [], [])
        # "who", and the line names its person by a code or a role: the key says who.
        chain = await asyncio.to_thread(keyed_person, rc.store, rc.session_id, question,
                                        layout, chain) or chain
        # Batch 26-143's own OG is no answer about the brew repitched from it.
        if chain is not None and await asyncio.to_thread(
                about_asked, rc.store, rc.session_id, question, chain.found) is None:
            chain = None
    answer = await _look_up(rc, state, question)
    # The name the chain went through is what the question says something about, never the
    # thing it asks ("what cheese does the woman who gave the tart recipe use": not the
    # woman). For a "who" question a later name may be the answer: only things are checked.
    # Not found: grounding's re-ask would only be shown the same passages again.
    passed = [*(chain.bridges if chain else []), *answer.extra.get("bridges", [])]
    if not asks_who(question) and tier.info.is_small and state.depth == 0:
        # The bridge's names even when the chain broke further on.
        passed += await asyncio.to_thread(bridge_names, rc.store, rc.session_id, question,
                                          (await session_layout(rc))[0])
    if not asks_who(question) and names_bridge(answer.text, passed):
        return not_found_answer(tier, "the answer is a name the look-ups went through")
    if chain is not None and not answer.extra.get("not_found"):
        for ref in (*chain.links, *cited(chain.found)):
            rc.citations.add(ref)
        answer.extra["extraction"] = copied(chain.found, chain.bridges)
    return answer


async def _look_up(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    """The model's hops: search, read the excerpts, say the fact and the next name."""
    tier = rc.tier(state.depth)
    need = min(expected_hops(question), MAX_HOPS)
    known = [n for n in _NAME.findall(question) if n not in _COMMON]
    given = len(known)  # the question's own names; the model picks the rest
    entity = known[0] if known else None
    facts: list[str] = []
    shown: list[str] = []
    calls = 0
    for hop in range(1, MAX_HOPS + 1):
        query = f"{entity} {question}" if entity and hop > 1 else question
        shown_query = " ".join((entity if entity and hop > 1 else question).split())[:60]
        trajectory.progress("hop", hop, MAX_HOPS, f"hop {hop}/{MAX_HOPS}: searching "
                            f"{shown_query!r}")
        excerpts = await asyncio.to_thread(_gather, rc, query, entity)  # may build the index
        for ref, _ in excerpts:
            rc.citations.add(ref)
        shown.extend(t for _, t in excerpts if t not in shown)
        near = " ".join(t for _, t in excerpts if entity and entity.lower() in t.lower())
        names = candidates(near or " ".join(t for _, t in excerpts), known)
        body = "\n".join(f"[{i + 1}] {t}" for i, (_, t) in enumerate(excerpts))
        step = await _step(rc, tier, question, facts, body, names)
        calls += 1
        if step is None:
            break
        if step.get("fact"):
            facts.append(str(step["fact"])[:200])
        answer = str(step.get("answer") or "").strip().rstrip(".")
        # The answer must come from an excerpt about the entity just looked up: a value
        # copied from a distractor beside it does not end the chain.
        about = [t for _, t in excerpts if entity and entity.lower() in t.lower()]
        if (step.get("can_answer") and hop >= need and answer
                and any(answer.lower() in t.lower() for t in about or shown)):
            return AgentAnswer(answer, tier, calls, extra={
                "hops": hop, "bridges": await _bridges(rc, question, known[given:])})
        nxt = str(step.get("next_lookup") or "")
        if nxt in ("", _NONE) or nxt.lower() in {k.lower() for k in known}:
            nxt = names[0] if names and hop < need else ""
        if not nxt or hop == MAX_HOPS:
            break
        known.append(nxt)
        entity = nxt
    if not shown:  # no look-up found anything: the model is not asked to answer from nothing
        return not_found_answer(tier, "no look-up found a passage for the question")
    final = await call_model(rc, tier, [
        Message(role="system", content=_ANSWER_SYSTEM),
        Message(role="user", content=_final_prompt(question, facts, shown, entity))], [],
        max_tokens=ANSWER_TOKENS)
    return AgentAnswer(final.text.strip(), tier, calls + 1, extra={
        "hops": len(known), "bridges": await _bridges(rc, question, known[given:])})


async def _bridges(rc: RunContext, question: str, picked: list[str]) -> list[str]:
    """The names the model picked that the corpus links, each beside the one before: the
    answer is grounded beside the last (a verified chain), else against the question's own
    words (an invented bridge vouches for nothing)."""
    if not picked:
        return []
    return await asyncio.to_thread(linked_hops, rc.store, rc.session_id, question, picked)


async def _step(rc: RunContext, tier: Tier, question: str, facts: list[str], body: str,
                names: list[str]) -> dict[str, object] | None:
    schema = {"type": "object", "properties": {
        "fact": {"type": "string", "maxLength": 160},
        "can_answer": {"type": "boolean"},
        "answer": {"type": "string", "maxLength": 80},
        "next_lookup": enum_or_text([*names, _NONE])},
        "required": ["fact", "can_answer", "answer", "next_lookup"]}
    known = "".join(f"- {f}\n" for f in facts)
    user = (f"Question: {question}\n" + (f"Known so far:\n{known}" if known else "")
            + f"Excerpts:\n{body or '(nothing found)'}")
    return await ask_json(rc, tier, _STEP_SYSTEM, user, "rlm_hop", schema,
                          description="The fact found, and the answer or the next look-up.")


def _final_prompt(question: str, facts: list[str], shown: list[str], entity: str | None
                  ) -> str:
    """The excerpts about the last entity first: the chain ends there."""
    about = [t for t in shown if entity and entity.lower() in t.lower()]
    shown = about or shown  # the chain ends at the last entity: its excerpts, not the rest
    excerpts = "\n".join(f"[{i + 1}] {t}" for i, t in enumerate(shown[:6]))
    known = "".join(f"- {f}\n" for f in facts)
    return (f"Facts found:\n{known or '- (none)'}\nExcerpts:\n{excerpts}\n\n"
            f"Question: {question}\nAnswer:")
