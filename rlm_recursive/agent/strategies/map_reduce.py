"""The map-reduce strategy: every chunk is asked the question (bounded concurrency), then one
call combines the partial answers."""

from __future__ import annotations

import asyncio

from ...corpus.chunking import ChunkStrategy, chunk_ranges
from ...errors import RlmError, RunError
from ...providers.base import Message
from ...types import SpanRef
from ..context import AgentAnswer, RunContext
from ..model_call import call_model, window_chars
from ..recursion import RecursionState
from .search import ANSWER_SYSTEM

__all__ = ["REDUCE_SYSTEM", "run"]

REDUCE_SYSTEM = ("You combine partial answers, each from one part of a document collection, "
                 "into one final answer. Ignore parts that say NOT FOUND. Quote values exactly.")


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth + 1 if state.can_recurse() else state.depth)
    store, session_id = rc.store, rc.session_id
    size = max(window_chars(tier, 1024) - len(question) - 600, 500)
    gate = asyncio.Semaphore(rc.settings.concurrency)

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
