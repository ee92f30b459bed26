"""The classify strategy: a typed judgement per item by the model, summed in code.

1. The items are those of the kind the question names in the corpus's structure (a label's
   lines, the lines under a recurring heading, a group of records, a table's rows: see
   `counting.item_kinds`); else the session's records (lines, rows, blocks, paragraphs),
   narrowed by the field values the question names. When each alternative of the condition
   names a word some items say ("late or missing"), an item that says none of them is a "no"
   without asking.
2. Items are packed into batches that fill the window without overflowing it (at least
   `MIN_BATCH` per call); each batch gets one constrained JSON reply: one label per numbered
   item (`yes`/`no`, or the labels the question offers).
3. Python counts the labels. Every item is judged exactly once (a batch the model cannot
   answer is retried in halves once; items still unjudged are reported as such).
4. The answer gives the count or distribution, items seen / items total, and cites every
   item judged `yes` (or of the winning label).
Batches run with bounded concurrency, through the temperature-0 cache. Before the first
call the user is told the size of the job (items, calls, minutes on this model); progress
follows each call; a time budget (`classify_budget_s`, 5 min) ends it with a partial count,
marked partial.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from itertools import compress
from typing import Any

from ...corpus.records import Layout, Record
from ...corpus.word_stems import stems, words
from ...errors import Timeout
from ...types import SpanRef
from ..batching import batch_ranges, calls_in_flight
from ..context import AgentAnswer, RunContext
from ..counting.draft import MIN_ITEMS
from ..counting.item_kinds import (
    criterion_stems,
    gist,
    items_to_ask,
    narrowed_records,
    question_kind,
)
from ..grounding import not_found_answer
from ..model_call import CHARS_PER_TOKEN, window_chars
from ..recursion import RecursionState, Tier
from ..routing import asks_to_count, session_layout
from .count import computed
from .structured import ask_json

__all__ = ["MAX_BATCH", "MIN_BATCH", "Judging", "estimate", "judge_items", "labels_for",
           "not_units", "run"]

MIN_BATCH = 20
"""At most one model call per this many items."""
MAX_BATCH = 50
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
        # "going by the job cards, how many jobs involved ...": the words after "how many".
        core = re.sub(r"^.*?\b(how many|count|what number|number of)\s+(of\s+)?(the\s+)?", "",
                      question, count=1, flags=re.IGNORECASE).rstrip("?")
        return (f"Counting question: {question}\nFor each item answer yes if it should be "
                f"counted (it matches: {core}), otherwise no.")
    return f"Question: {question}\nLabel each item with one of: {', '.join(labels)}."


def _schema(size: int, labels: list[str]) -> dict[str, Any]:
    label = {"type": "string", "enum": labels}
    keys = [str(i + 1) for i in range(size)]
    return {"type": "object", "properties": {k: label for k in keys}, "required": keys}


@dataclass
class Judging:
    """Verdicts so far, the calls made, and whether the time budget cut the work short."""

    verdicts: list[str | None]
    calls: int = 0
    partial: bool = False
    seconds: float = 0.0


_MEASURED: dict[tuple[str, str], float] = {}
"""Measured / estimated seconds of the last classify run per (provider, model) in this
process: a busy machine or a slow grammar makes the size-based prior too low (3x was seen
on a loaded 2-core machine), and the next estimate starts from what was measured."""


def estimate(tier: Tier, items: int, calls: int, prompt_chars: int) -> float:
    """Seconds the judging should take on this model, before any call is made.

    From the model's size (a GGUF on this CPU prefills and generates slowly; a server is
    usually faster), scaled by what the last run on this model measured: a rough figure for
    the user, revised from the first calls as it runs.
    """
    return _prior(tier, items, calls, prompt_chars) * _MEASURED.get(
        (tier.provider, tier.model), 1.0)


def revised(expected: float, elapsed: float, done_calls: int, total_calls: int,
            in_flight: int) -> float:
    """Seconds the whole run will take, from the calls measured so far."""
    per_call = elapsed * min(in_flight, max(done_calls, 1)) / max(done_calls, 1)
    return per_call * total_calls / max(min(in_flight, total_calls), 1)


def _prior(tier: Tier, items: int, calls: int, prompt_chars: int) -> float:
    size = max(tier.info.params_b or 1.0, 0.05)
    prompt_tokens = prompt_chars / CHARS_PER_TOKEN
    reply_tokens = _REPLY_TOKENS_PER_ITEM * items / max(calls, 1)
    if tier.provider == "embedded":
        per_call = prompt_tokens / (55 / size) + reply_tokens / (3.4 / size)
    elif tier.provider == "fake":
        per_call = 0.0
    else:
        per_call = 2.0 + prompt_tokens / 2000 + reply_tokens / 40
    return per_call * calls


def _minutes(seconds: float) -> str:
    return f"~{seconds / 60:.0f} min" if seconds >= 90 else f"~{seconds:.0f} s"


async def judge_items(
    rc: RunContext, tier: Tier, question: str, items: list[Record], labels: list[str],
    stress: set[str] | None = None,
) -> Judging:
    """One label per item (None: the model gave none, or the time budget ran out first).
    `stress`: stems of the condition; an item's lines that say them are shown first."""
    criterion = _criterion(question, labels)
    budget = window_chars(tier, min(1024, tier.num_ctx // 4)) - len(criterion) - len(_SYSTEM)
    shown = [_shown(it, stress or set()) for it in items]
    # Each item costs its text, its number, and the schema entry that forces its label.
    overhead = 12 + sum(len(x) + 3 for x in labels) + 40
    ranges = batch_ranges([len(s) for s in shown], budget, overhead, MAX_BATCH)
    judging = Judging([None] * len(items))
    expected = estimate(tier, len(items), len(ranges), sum(map(len, shown)) // max(
        len(ranges), 1) + len(criterion) + len(_SYSTEM))
    _tell(rc, f"classify: ~{len(items):,} items, ~{len(ranges)} calls, {_minutes(expected)} "
              f"on {tier.model} (time budget {rc.settings.classify_budget_s:.0f} s)",
          {"phase": "estimate", "items": len(items), "calls": len(ranges),
           "seconds": round(expected, 1), "budget_s": rc.settings.classify_budget_s})
    in_flight = calls_in_flight(rc, tier)
    gate = asyncio.Semaphore(in_flight)
    told: list[float] = []
    started = time.monotonic()
    deadline = started + rc.settings.classify_budget_s

    async def ask(start: int, stop: int, retry: bool) -> None:
        async with gate:
            if time.monotonic() >= deadline:
                judging.partial = True
                return
            rc.budget.charge_sub_call()
            listing = "\n".join(f"{i - start + 1}. {shown[i]}" for i in range(start, stop))
            try:
                reply = await ask_json(rc, tier, _SYSTEM, f"{criterion}\n\nItems:\n{listing}",
                                       "rlm_item_labels", _schema(stop - start, labels),
                                       description="One label per item number.",
                                       cacheable=True)
            except Timeout:
                # One call over the provider's limit (a loaded machine) does not fail the
                # run: its items go again in halves (shorter prompts), else stay unjudged.
                reply = None
                judging.partial |= not (retry and stop - start > 1)
            judging.calls += 1
        answered = [reply.get(str(i - start + 1)) if reply else None
                    for i in range(start, stop)]
        if retry and any(a not in labels for a in answered) and stop - start > 1:
            middle = (start + stop) // 2
            await asyncio.gather(ask(start, middle, False), ask(middle, stop, False))
            return
        for i, answer in zip(range(start, stop), answered, strict=True):
            judging.verdicts[i] = answer if answer in labels else None
        done = sum(v is not None for v in judging.verdicts)
        elapsed = time.monotonic() - started
        eta = revised(expected, elapsed, judging.calls, len(ranges), in_flight)
        # Said once, when the measured pace is far from the estimate the user was given.
        line = None
        if not told and expected and not 0.67 < eta / expected < 1.5:
            told.append(eta)
            line = (f"classify: revised to {_minutes(eta)} (measured "
                    f"{elapsed / max(judging.calls, 1):.0f} s a call over {judging.calls})")
        _tell(rc, line, {"phase": "progress", "done": done, "total": len(items),
                         "calls": judging.calls, "elapsed_s": round(elapsed, 1),
                         "eta_s": round(max(eta - elapsed, 0.0), 1)})

    tasks = [asyncio.ensure_future(ask(a, b, True)) for a, b in ranges]
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=rc.settings.classify_budget_s + 1)
        for task in pending:  # a call still running at the budget's end is abandoned
            task.cancel()
            judging.partial = True
        await asyncio.gather(*pending, return_exceptions=True)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    judging.seconds = time.monotonic() - started
    if judging.calls and expected > 0:  # a partial run measured its calls too
        key = (tier.provider, tier.model)
        whole = revised(expected, judging.seconds, judging.calls, len(ranges), in_flight)
        _MEASURED[key] = whole / expected * _MEASURED.get(key, 1.0)
    return judging


def _shown(item: Record, stress: set[str]) -> str:
    """An item as the model sees it, cut to `_ITEM_CHARS`. A block its fields spell out (a
    JSON object, a YAML mapping) shows its prose fields first, as `key: value`: the body of
    a ticket, not its id, timestamps, indents and braces, fits the cut. Lines and fields that
    say the condition's words (`stress`) come first of all."""
    fields = getattr(item, "fields", None) or {}
    block = "\n" in item.text.strip() or item.text.lstrip().startswith("{")
    if block and fields and _spelled_out(item.text, fields):
        ordered = sorted(fields.items(), key=lambda kv: (
            not stress & set(stems(f"{kv[0]} {kv[1]}")), -len(kv[1].split())))
        text = "; ".join(f"{k}: {v}" for k, v in ordered)
    else:
        text = gist(item.text, stress, _ITEM_CHARS)
    return text[:_ITEM_CHARS].replace("\n", " ")


def _spelled_out(text: str, fields: dict[str, str]) -> bool:
    """The fields say (nearly) every word of the text: nothing is lost showing them alone."""
    said = set(words(" ".join(f"{k} {v}" for k, v in fields.items())))
    own = words(text)
    return sum(w in said for w in own) >= _SPELLED_OUT * len(own)


_SPELLED_OUT = 0.95
"""Share of a block's words its fields must hold to be shown by its fields."""


def _tell(rc: RunContext, line: str | None, event: dict[str, Any]) -> None:
    """The estimate goes to stderr (the CLI user sees it before waiting); events to the
    surface's progress callback."""
    if line is not None:
        print(f"rlm-recursive: {line}", file=sys.stderr)
    if rc.progress is not None:
        rc.progress({"event": "progress", "task": "classify", **event})


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    tier = rc.tier(state.depth + 1 if state.can_recurse() else state.depth)
    layout, texts = await session_layout(rc)
    labels = labels_for(question)
    kind = question_kind(question, layout, texts)
    asked: list[bool] | None = None
    stress: set[str] = set()
    if kind is not None:
        # Items of the kind the question names are units by construction (one comment, one
        # block, one row each).
        title = layout.titles.get(kind.doc_id, "")
        items, unit = list(kind.items), "item"
        scope = f" among the {kind.describe(title.split(chr(10), 1)[0])}"
        stress = criterion_stems(question, kind, title)
        if labels == ["yes", "no"]:
            asked = items_to_ask(question, kind, title)
    else:
        items, unit, narrowed = narrowed_records(question, layout)
        scope = f" among the {unit}s with {narrowed}" if narrowed else ""
        mismatch = not_units(items, layout) if asks_to_count(question) else None
        if mismatch is not None:
            # A yes/no per chunk of text is no count of what the question counts: a table
            # pasted whole is one item, however many rows it holds.
            return not_found_answer(tier, f"no count: {mismatch}")
    asked = asked or [True] * len(items)
    judging = await judge_items(rc, tier, question, list(compress(items, asked)), labels,
                                stress)
    # An item that says none of the condition's words is a "no" without asking the model.
    answered = iter(judging.verdicts)
    verdicts = [next(answered) if ask else "no" for ask in asked]
    calls, skipped = judging.calls, asked.count(False)
    counts = Counter(v for v in verdicts if v is not None)
    seen = sum(counts.values())
    if labels == ["yes", "no"]:
        chosen, head = "yes", f"{counts['yes']}"
    else:
        chosen = max(labels, key=lambda x: counts[x])
        head = f"{chosen} ({', '.join(f'{x}: {counts[x]}' for x in labels)})"
    if judging.partial and labels == ["yes", "no"] and seen:
        head = f"~{round(counts['yes'] * len(items) / seen)}"
    cited = [it for it, v in zip(items, verdicts, strict=True) if v == chosen]
    for item in cited:
        rc.citations.add(SpanRef(doc_id=item.doc_id, start=item.start, end=item.end))
    sample = "\n".join(f"- {it.text[:160]}" for it in cited[:5])
    cut = (f" PARTIAL: the {rc.settings.classify_budget_s:.0f} s time budget ran out after "
           f"{seen} of {len(items)} items; the estimate scales the share judged '{chosen}' "
           f"({counts[chosen]}) to all items." if judging.partial else "")
    text = (f"{head} — judged by the model, not an exact count: {len(cited)} of {len(items)} "
            f"items{scope} judged '{chosen}', one label per item (items seen {seen} / items "
            f"total {len(items)}, {calls} model calls, {judging.seconds:.0f} s).{cut}"
            + (f" {skipped} item(s) say none of the condition's words: 'no' without asking."
               if skipped else "")
            + (f"\nExamples:\n{sample}" if sample else ""))
    plan = f"model judged each {unit}{scope}: {question.strip()}"
    return AgentAnswer(text, tier, calls, extra={
        "items_total": len(items), "items_seen": seen, "counts": dict(counts),
        "items_asked": len(items) - skipped,
        "model_calls": calls, "partial": judging.partial,
        "computed": computed("classify", plan, counts[chosen], counts[chosen] > 0,
                             judging.partial, exact=False)})


_LIST_LINES = 5
"""A block of this many like lines, in a text of one-line items, is a list of its own."""
_UNEVEN = 4
_COLUMN_GAP = re.compile(r"\S(?:\s*[|\t]\s*|\s{2,})(?=\S)")
"""Between two cells of a row: a `|` or tab, or two spaces or more (aligned columns)."""


def not_units(items: list[Record], layout: Layout) -> str | None:
    """Why the items judged are not one counted thing each, or None when they may be.

    Records a format marks (rows, JSON objects, calendar events) are units. Items of free
    text are units when they are a list: at least `MIN_ITEMS` of them. A text of one-line
    items with a table among them many times their size (rows of aligned or `|`-separated
    cells, pasted whole) is read wrong for counting: that table is one item however many
    rows it holds, so a label per item would count blocks, not what the question counts."""
    if not items or any(layout.formats.get(it.doc_id) != "prose" for it in items):
        return None
    if len(items) < MIN_ITEMS:
        return (f"the named text splits into {len(items)} item(s) of free text, not a list "
                "of the things asked about")
    by_doc: dict[str, list[Record]] = {}
    for item in items:
        by_doc.setdefault(item.doc_id, []).append(item)
    for own in by_doc.values():
        sizes = sorted(it.text.strip().count("\n") + 1 for it in own)
        middle = sizes[len(sizes) // 2]
        for item in own:
            rows = _table_rows(item.text)
            if rows >= _LIST_LINES and rows >= _UNEVEN * middle:
                return (f"the text is not one item per thing counted: one item is a table of "
                        f"{rows} rows where most items are {middle} line(s), so a label per "
                        "item would count blocks")
    return None


def _table_rows(text: str) -> int:
    """Lines of the most common column count (two or more cells) in a block."""
    counts = Counter(len(_COLUMN_GAP.findall(line.strip())) for line in text.splitlines())
    return max((n for cells, n in counts.items() if cells >= 2), default=0)
