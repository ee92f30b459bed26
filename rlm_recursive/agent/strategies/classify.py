"""The classify strategy: a typed judgement per item by the model, summed in code.

1. The session is split into items (lines, records, paragraphs or delimited pieces).
2. Items are packed into batches that fill the window without overflowing it (at least
   `MIN_BATCH` per call); each batch gets one constrained JSON reply: one label per numbered
   item (`yes`/`no`, or the labels the question offers).
3. Python counts the labels. Every item is judged exactly once (a batch the model cannot
   answer is retried in halves once; items still unjudged are reported as such).
4. The answer gives the count or distribution, items seen / items total, and cites every
   item judged `yes` (or of the winning label).
Batches run with bounded concurrency, through the temperature-0 cache.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from typing import Any

from ...corpus.items import Item, split_items
from ...types import SpanRef
from ..batching import batch_ranges, calls_in_flight
from ..context import AgentAnswer, RunContext
from ..model_call import window_chars
from ..recursion import RecursionState, Tier
from .structured import ask_json

__all__ = ["MAX_BATCH", "MIN_BATCH", "judge_items", "labels_for", "run"]

MIN_BATCH = 20
"""At most one model call per this many items."""
MAX_BATCH = 40
"""Small models lose track of long numbered lists; the window is not the only limit."""
_REPLY_TOKENS_PER_ITEM = 8
_ITEM_CHARS = 300
"""An item longer than this is shown cut (the judgement needs its gist, not all of it)."""
_OFFERED = re.compile(r":\s*([\w -]+(?:,\s*[\w -]+)*,?\s+or\s+[\w -]+)\?\s*$")
_SYSTEM = ("You label numbered items. For each item, answer the question about that item "
           "alone. Reply with one label per item number.")


def labels_for(question: str) -> list[str]:
    """The labels the question offers ("...: a, b or c?"), else yes/no."""
    match = _OFFERED.search(question)
    if not match:
        return ["yes", "no"]
    parts = re.split(r",\s*|\s+or\s+", match.group(1))
    return [p.strip() for p in parts if p.strip()] or ["yes", "no"]


def _criterion(question: str, labels: list[str]) -> str:
    if labels == ["yes", "no"]:
        core = re.sub(r"^\s*(how many|count|what number)\s+(of\s+)?(the\s+)?", "", question,
                      flags=re.IGNORECASE).rstrip("?")
        return (f"Counting question: {question}\nFor each item answer yes if it should be "
                f"counted (it matches: {core}), otherwise no.")
    return f"Question: {question}\nLabel each item with one of: {', '.join(labels)}."


def _schema(size: int, labels: list[str]) -> dict[str, Any]:
    label = {"type": "string", "enum": labels}
    keys = [str(i + 1) for i in range(size)]
    return {"type": "object", "properties": {k: label for k in keys}, "required": keys}


async def judge_items(
    rc: RunContext, tier: Tier, question: str, items: list[Item], labels: list[str],
) -> tuple[list[str | None], int]:
    """One label per item (None: the model gave none), and the number of model calls."""
    criterion = _criterion(question, labels)
    budget = window_chars(tier, min(1024, tier.num_ctx // 4)) - len(criterion) - len(_SYSTEM)
    shown = [it.text[:_ITEM_CHARS].replace("\n", " ") for it in items]
    # Each item costs its text, its number, and the schema entry that forces its label.
    overhead = 12 + sum(len(x) + 3 for x in labels) + 40
    ranges = batch_ranges([len(s) for s in shown], budget, overhead, MAX_BATCH)
    verdicts: list[str | None] = [None] * len(items)
    gate = asyncio.Semaphore(calls_in_flight(rc, tier))
    calls = 0

    async def ask(start: int, stop: int, retry: bool) -> None:
        nonlocal calls
        async with gate:
            rc.budget.charge_sub_call()
            listing = "\n".join(f"{i - start + 1}. {shown[i]}" for i in range(start, stop))
            reply = await ask_json(rc, tier, _SYSTEM, f"{criterion}\n\nItems:\n{listing}",
                                   "rlm_item_labels", _schema(stop - start, labels),
                                   description="One label per item number.", cacheable=True)
            calls += 1
        answered = [reply.get(str(i - start + 1)) if reply else None
                    for i in range(start, stop)]
        if retry and any(a not in labels for a in answered) and stop - start > 1:
            middle = (start + stop) // 2
            await asyncio.gather(ask(start, middle, False), ask(middle, stop, False))
            return
        for i, answer in zip(range(start, stop), answered, strict=True):
            verdicts[i] = answer if answer in labels else None

    await asyncio.gather(*(ask(a, b, True) for a, b in ranges))
    return verdicts, calls


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth + 1 if state.can_recurse() else state.depth)
    items = await asyncio.to_thread(lambda: split_items(
        [(doc.id, rc.store.text(doc)) for doc in rc.store.documents(rc.session_id)]))
    labels = labels_for(question)
    verdicts, calls = await judge_items(rc, tier, question, items, labels)
    counts = Counter(v for v in verdicts if v is not None)
    seen = sum(counts.values())
    if labels == ["yes", "no"]:
        chosen, head = "yes", f"{counts['yes']}"
    else:
        chosen = max(labels, key=lambda x: counts[x])
        head = f"{chosen} ({', '.join(f'{x}: {counts[x]}' for x in labels)})"
    cited = [it for it, v in zip(items, verdicts, strict=True) if v == chosen]
    for item in cited:
        rc.citations.add(SpanRef(doc_id=item.doc_id, start=item.start, end=item.end))
    sample = "\n".join(f"- {it.text[:160]}" for it in cited[:5])
    text = (f"{head} — {len(cited)} of {len(items)} items judged '{chosen}' by the model, "
            f"one label per item, counted by code (items seen {seen} / items total "
            f"{len(items)}, {calls} model calls)." + (f"\nExamples:\n{sample}" if sample else ""))
    return AgentAnswer(text, tier, calls, extra={
        "items_total": len(items), "items_seen": seen, "counts": dict(counts),
        "model_calls": calls})
