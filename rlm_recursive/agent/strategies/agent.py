"""The agent strategy: the model drives the RLM tools (for capable models)."""

from __future__ import annotations

from ..context import AgentAnswer, RunContext
from ..loop import run_agent
from ..recursion import RecursionState

__all__ = ["ROOT_SYSTEM", "overview", "run"]

ROOT_SYSTEM = """You answer a question about a document collection that is too large to read \
at once. It is stored outside your context; reach it only through the tools (each says what \
it does). Search first, read around the best matches, hand long spans to rlm_sub_query if \
offered, and call rlm_final_answer with a short, exact answer as soon as you know it. Quote \
values exactly as they appear.

The collection: {overview}"""


def overview(rc: RunContext, limit: int = 30) -> str:
    """Document count, size and the first `limit` documents, for a root prompt."""
    stats = rc.store.session_stats(rc.session_id)
    lines = [f"{stats['documents']} documents, {stats['total_chars']:,} characters."]
    for doc in rc.store.documents(rc.session_id, limit):
        lines.append(f"- {doc.id}: {doc.source} ({doc.length_chars:,} chars)")
    if stats["documents"] > limit:
        lines.append(f"- … {stats['documents'] - limit} more (rlm_docs_list)")
    return "\n".join(lines)


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    return await run_agent(rc, state, ROOT_SYSTEM.format(overview=overview(rc)), question)
