"""The map-reduce strategy: every chunk is asked the question (bounded concurrency), then a
tree of reduce calls combines the partial answers, each call within the window."""

from __future__ import annotations

import asyncio

from ...corpus.chunking import ChunkStrategy, chunk_ranges
from ...errors import RlmError, RunError
from ...providers.base import Message
from ...types import SpanRef
from ..batching import calls_in_flight, tree_groups
from ..context import AgentAnswer, RunContext
from ..model_call import call_model, window_chars
from ..recursion import RecursionState, Tier
from .search import ANSWER_SYSTEM

__all__ = ["REDUCE_SYSTEM", "run", "tree_reduce"]

REDUCE_SYSTEM = ("You combine partial answers, each from one part of a document collection, "
                 "into one final answer. Ignore parts that say NOT FOUND. Quote values exactly.")
_REPLY_TOKENS = 1024
_ITEM_OVERHEAD = 16


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth + 1 if state.can_recurse() else state.depth)
    store, session_id = rc.store, rc.session_id
    size = max(window_chars(tier, 1024) - len(question) - 600, 500)
    gate = asyncio.Semaphore(calls_in_flight(rc, tier))

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

    def chunks() -> list[tuple[SpanRef, str]]:  # the whole corpus, read off the event loop
        out = []
        for doc in store.documents(session_id):
            text = store.text(doc)
            for start, end in chunk_ranges(text, ChunkStrategy(type="fixed", chunk_size=size)):
                out.append((SpanRef(doc_id=doc.id, start=start, end=end), text[start:end]))
        return out

    jobs = [ask(ref, text) for ref, text in await asyncio.to_thread(chunks)]
    partials = await asyncio.gather(*jobs)
    useful = [(ref, answer) for ref, answer in partials if "NOT FOUND" not in answer.upper()]
    for ref, _ in useful:
        rc.citations.add(ref)
    if len(useful) == 1:
        return AgentAnswer(useful[0][1], tier, len(partials) + 1)
    root = rc.tier(state.depth)
    answer, reduce_calls = await tree_reduce(rc, root, question, [a for _, a in useful])
    return AgentAnswer(answer, root, len(partials) + reduce_calls)


async def tree_reduce(rc: RunContext, tier: Tier, question: str, partials: list[str]
                      ) -> tuple[str, int]:
    """Combine partial answers level by level, each call within the window; (answer, calls).

    One prompt holding every partial answer overflows once there are many chunks: groups
    that fit are combined (bounded concurrency), then their results, until one remains.
    """
    budget = window_chars(tier, _REPLY_TOKENS) - len(question) - len(REDUCE_SYSTEM) - 200
    gate = asyncio.Semaphore(calls_in_flight(rc, tier))
    calls = 0

    async def combine(texts: list[str]) -> str:
        nonlocal calls
        share = budget // max(len(texts), 1) - _ITEM_OVERHEAD
        listing = "\n".join(f"- part {i + 1}: {t[:share]}" for i, t in enumerate(texts))
        messages = [Message(role="system", content=REDUCE_SYSTEM),
                    Message(role="user", content=f"Partial answers:\n{listing or '(none)'}"
                                                 f"\n\nQuestion: {question}\nAnswer:")]
        async with gate:
            calls += 1
            result = await call_model(rc, tier, messages, [], cacheable=True)
        return result.text.strip()

    if not partials:  # nothing found anywhere: the model still says so, in one call
        return await combine([]), calls
    level = partials
    while True:
        groups = tree_groups([len(t) + _ITEM_OVERHEAD for t in level], budget)
        combined = await asyncio.gather(*(combine([level[i] for i in g]) for g in groups))
        if len(combined) == 1:
            return combined[0], calls
        level = list(combined)
