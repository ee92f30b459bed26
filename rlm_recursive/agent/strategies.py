"""Answering strategies: the model drives the tools (agent), or the runtime does (search,
map-reduce) for small models that cannot."""

from __future__ import annotations

import asyncio
import re
from typing import Literal

from ..corpus.chunking import ChunkStrategy, chunk_ranges
from ..errors import InvalidArgs, RlmError, RunError
from ..providers.base import Message
from ..tools.search import search_session
from ..types import SpanRef
from .loop import CHARS_PER_TOKEN, AgentAnswer, RunContext, call_model, run_agent
from .recursion import RecursionState, Tier

__all__ = ["STRATEGIES", "Strategy", "choose_strategy", "run_strategy"]

Strategy = Literal["agent", "search", "map-reduce", "auto"]
STRATEGIES = ("agent", "search", "map-reduce", "auto")

ROOT_SYSTEM = """You answer a question about a document collection that is too large to read \
at once. It is stored outside your context; reach it only through the tools:
- rlm_search_query finds passages by keywords (bm25) or exact text (literal, regex);
- rlm_docs_peek reads a character range of a document; rlm_docs_list lists documents;
- rlm_chunk_create and rlm_span_get cut a document into spans and read them;
- rlm_sub_query hands a long span to a helper model with a question.
Search first, read around the best matches, and call rlm_final_answer with a short, exact \
answer as soon as you know it. Quote values exactly as they appear.

The collection: {overview}"""

ANSWER_SYSTEM = ("Answer the question using only the excerpts given. Quote the exact value "
                 "(number, word or identifier) as it appears in the excerpt.")
REDUCE_SYSTEM = ("You combine partial answers, each from one part of a document collection, "
                 "into one final answer. Ignore parts that say NOT FOUND. Quote values exactly.")
_QUOTED = re.compile(r"\"([^\"]{2,})\"|'([^']{2,})'")
_IDENTIFIER = re.compile(r"\b[\w-]*\d[\w-]*\b")


def choose_strategy(requested: Strategy, tier: Tier) -> str:
    """auto: the agent loop for capable models, the search strategy for small ones."""
    if requested != "auto":
        return requested
    return "search" if tier.info.is_small else "agent"


async def run_strategy(
    rc: RunContext, state: RecursionState, strategy: str, question: str,
) -> AgentAnswer:
    if strategy == "agent":
        return await run_agent(rc, state, ROOT_SYSTEM.format(overview=_overview(rc)), question)
    if strategy == "search":
        return await _search(rc, state, question)
    if strategy == "map-reduce":
        return await _map_reduce(rc, state, question)
    raise InvalidArgs(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")


def _overview(rc: RunContext, limit: int = 30) -> str:
    store, session_id = rc.tool_ctx.store, rc.tool_ctx.require_session()
    stats = store.session_stats(session_id)
    lines = [f"{stats['documents']} documents, {stats['total_chars']:,} characters."]
    for doc in store.documents(session_id, limit):
        lines.append(f"- {doc.id}: {doc.source} ({doc.length_chars:,} chars)")
    if stats["documents"] > limit:
        lines.append(f"- … {stats['documents'] - limit} more (rlm_docs_list)")
    return "\n".join(lines)


def _window_chars(tier: Tier, reserve_tokens: int) -> int:
    return int((tier.num_ctx - reserve_tokens) * CHARS_PER_TOKEN)


def _exact_terms(question: str) -> list[str]:
    """Quoted phrases and identifiers with digits are looked up literally as well."""
    terms = [a or b for a, b in _QUOTED.findall(question)]
    return terms + [t for t in _IDENTIFIER.findall(question) if len(t) >= 3]


async def _search(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    """BM25 (plus literal look-ups) picks the passages; the model answers from them only."""
    tier = rc.tier(state.depth)
    store, session_id = rc.tool_ctx.store, rc.tool_ctx.require_session()
    context_chars = int(rc.options.get("context_chars", 300))
    hits, _, _, docs = search_session(store, session_id, question, "bm25", limit=8)
    for term in _exact_terms(question):
        exact, _, _, _ = search_session(store, session_id, term, "literal", limit=2)
        hits = exact + hits
    # Small models lose the thread in long prompts: a few focused excerpts, not a full window.
    budget = min(_window_chars(tier, 1024) - len(question) - 500,
                 int(rc.options.get("max_excerpt_chars", 2400)))
    excerpts, refs = [], []
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
        excerpts.append(text[ref.start : ref.end])
    for ref in refs:
        rc.citations.add(ref)
    body = "\n\n".join(f"[Excerpt {i + 1}]\n{e}" for i, e in enumerate(excerpts))
    messages = [Message(role="system", content=ANSWER_SYSTEM),
                Message(role="user", content=f"{body or '(no matching text found)'}\n\n"
                                             f"Question: {question}\nAnswer:")]
    result = await call_model(rc, tier, messages, [])
    return AgentAnswer(result.text.strip(), tier, 1)


async def _map_reduce(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    """Every chunk is asked the question (bounded concurrency); a reduce call combines."""
    tier = rc.tier(state.depth + 1 if state.can_recurse() else state.depth)
    store, session_id = rc.tool_ctx.store, rc.tool_ctx.require_session()
    size = max(_window_chars(tier, 1024) - len(question) - 600, 500)
    gate = asyncio.Semaphore(int(rc.options.get("concurrency", 4)))

    async def ask(ref: SpanRef, text: str) -> tuple[SpanRef, str]:
        async with gate:
            rc.budget.charge_sub_call()
            messages = [Message(role="system", content=ANSWER_SYSTEM + " If the excerpt does "
                                "not contain the answer, reply NOT FOUND."),
                        Message(role="user", content=f"{text}\n\nQuestion: {question}\nAnswer:")]
            try:
                result = await call_model(rc, tier, messages, [], cacheable=True)
            except RunError:
                raise
            except RlmError as exc:
                return ref, f"NOT FOUND ({exc.code})"
            return ref, result.text.strip()

    jobs = []
    for doc in store.documents(session_id):
        text = store.text(doc)
        for start, end in chunk_ranges(text, ChunkStrategy(type="fixed", chunk_size=size)):
            jobs.append(ask(SpanRef(doc_id=doc.id, start=start, end=end), text[start:end]))
    partials = await asyncio.gather(*jobs)
    useful = [(ref, answer) for ref, answer in partials if "NOT FOUND" not in answer.upper()]
    for ref, _ in useful:
        rc.citations.add(ref)
    if len(useful) == 1:
        return AgentAnswer(useful[0][1], tier, len(partials) + 1)
    listing = "\n".join(f"- part {i + 1}: {a}" for i, (_, a) in enumerate(useful))
    messages = [Message(role="system", content=REDUCE_SYSTEM),
                Message(role="user", content=f"Partial answers:\n{listing or '(none)'}\n\n"
                                             f"Question: {question}\nAnswer:")]
    root = rc.tier(state.depth)
    result = await call_model(rc, root, messages, [])
    return AgentAnswer(result.text.strip(), root, len(partials) + 1)
