"""CompactionEngine: old raw turns become leaf summaries, adjacent summaries condense.

Canonical messages are never touched: a summary only replaces their *context items*, and its
lineage (`summary_messages`, `summary_parents`) leads back to them. One transaction per
summary; one lease per conversation, so two processes never compact it at once.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from .assembler import item_tokens
from .config import LcmConfig
from .records import CompactionBatch, ContextItem
from .store import ConversationStore
from .tokens import TokenEstimator

__all__ = ["CompactionDecision", "CompactionEngine", "CompactionResult", "Summariser",
           "extractive_summary"]

Summariser = Callable[[list[str], int, str], Awaitable[str]]
"""`(source texts, target tokens, kind) -> summary text`; the agent layer passes a model."""

Reason = Literal["threshold", "manual", "maintenance"]
_LOCK_TTL_S = 300.0
_log = logging.getLogger("rlm_recursive.lcm")
_SENTENCE = re.compile(r"(?<=[.!?])\s")


async def extractive_summary(texts: list[str], target_tokens: int, kind: str) -> str:
    """A model-free summary: the opening of every source, within the target size.

    Deterministic, so tests and `--no-model` compaction give the same lineage every time;
    the full text is always one `lcm_expand` away.
    """
    budget = target_tokens * 3
    per = max(48, budget // max(len(texts), 1))
    lines = []
    for text in texts:
        first = _SENTENCE.split(" ".join(text.split()), maxsplit=1)[0]
        lines.append(first if len(first) <= per else first[: per - 1] + "…")
    return "\n".join(lines)[:budget]


@dataclass(frozen=True)
class CompactionDecision:
    should_compact: bool
    reason: Reason | None
    context_tokens: int
    threshold_tokens: int
    active_messages: int


@dataclass
class CompactionResult:
    compaction_id: str
    conversation_id: int
    reason: str
    tokens_before: int
    tokens_after: int
    leaf_ids: list[str] = field(default_factory=list)
    condensed_ids: list[str] = field(default_factory=list)

    @property
    def summary_ids(self) -> list[str]:
        return [*self.leaf_ids, *self.condensed_ids]


class CompactionEngine:
    """Leaf pass, then condensed pass, under the conversation's lease."""

    def __init__(self, store: ConversationStore, estimator: TokenEstimator, config: LcmConfig,
                 summariser: Summariser | None = None) -> None:
        self.store = store
        self.estimator = estimator
        self.config = config
        self.summariser = summariser or extractive_summary

    def evaluate(self, conversation_id: int, budget_tokens: int,
                 max_active_messages: int | None = None) -> CompactionDecision:
        """Is the active context past the threshold (or past a message cap)?"""
        items = self.store.get_context_items(conversation_id, with_content=False)
        tokens = sum(item_tokens(i) for i in items)
        active = sum(1 for i in items if i.item_type == "message")
        threshold = int(self.config.context_threshold * budget_tokens)
        reason: Reason | None = None
        if tokens >= threshold:
            reason = "threshold"
        elif max_active_messages is not None and active > max_active_messages:
            reason = "maintenance"
        return CompactionDecision(reason is not None, reason, tokens, threshold, active)

    async def compact(self, conversation_id: int, *, reason: Reason = "manual",
                      budget_tokens: int | None = None) -> CompactionResult:
        """Compact under the lease. Manual compaction takes every eligible window; threshold
        compaction stops once the context is back under the threshold."""
        owner = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.store.acquire_lock(conversation_id, owner, _LOCK_TTL_S)
        try:
            return await self._compact(conversation_id, reason, budget_tokens)
        finally:
            self.store.release_lock(conversation_id, owner)

    async def _compact(self, cid: int, reason: Reason, budget: int | None) -> CompactionResult:
        items = self.store.get_context_items(cid)
        before = sum(item_tokens(i) for i in items)
        result = CompactionResult(f"cmp_{secrets.token_hex(6)}", cid, reason, before, before)
        goal = int(self.config.context_threshold * budget) if budget and reason != "manual" \
            else 0
        while result.tokens_after > goal and (window := self._leaf_window(items)):
            result.leaf_ids.append(await self._write(result, window, "leaf"))
            items = self.store.get_context_items(cid)
            result.tokens_after = sum(item_tokens(i) for i in items)
        while group := self._condense_group(items):
            result.condensed_ids.append(await self._write(result, group, "condensed"))
            items = self.store.get_context_items(cid)
            result.tokens_after = sum(item_tokens(i) for i in items)
        _log.info("lcm compaction", extra={
            "conversation_id": cid, "compaction_id": result.compaction_id,
            "trigger_reason": reason, "token_before": before, "token_after": result.tokens_after,
            "summary_id": ",".join(result.summary_ids)})
        return result

    def _leaf_window(self, items: list[ContextItem]) -> list[ContextItem]:
        """The oldest run of adjacent raw messages outside the fresh tail, up to the window."""
        raw = [i for i in items if i.item_type == "message"]
        tail = self.config.fresh_tail_count
        protected = {i.ordinal for i in raw[len(raw) - tail:]} if tail else set()
        target = self.config.leaf_target_tokens
        limit = target * self.config.leaf_window_factor
        window: list[ContextItem] = []
        for item in items:
            if item.item_type == "message" and item.ordinal not in protected:
                window.append(item)
                if sum(i.token_count for i in window) >= limit:
                    break
            elif window:
                if len(window) >= 2 and sum(i.token_count for i in window) > target:
                    break
                window = []  # too small to be worth a summary: look further on
        if len(window) < 2 or sum(i.token_count for i in window) <= target:
            return []
        return window

    def _condense_group(self, items: list[ContextItem]) -> list[ContextItem]:
        """The oldest `condense_fanout` adjacent summaries worth condensing, if any."""
        fanout = self.config.condense_fanout
        run: list[ContextItem] = []
        for item in items:
            if item.item_type != "summary":
                run = []
                continue
            run.append(item)
            if len(run) == fanout:
                if sum(i.token_count for i in run) > self.config.condensed_target_tokens:
                    return run
                run = run[1:]
        return []

    async def _write(self, result: CompactionResult, group: list[ContextItem], kind: str) -> str:
        target = (self.config.leaf_target_tokens if kind == "leaf"
                  else self.config.condensed_target_tokens)
        texts = [f"{i.role} {i.ref}: {i.content}" if kind == "leaf" else i.content
                 for i in group]
        content = (await self.summariser(texts, target, kind)).strip() or texts[0][:200]
        cap = int(target * self.estimator.chars_per_token * 1.5)
        if self.estimator.count(content) > target * 1.5:
            content = content[:cap]  # a model that overshoots must not undo the compaction
        source_tokens = sum(i.token_count for i in group)
        batch = CompactionBatch(
            conversation_id=result.conversation_id, kind=kind,  # type: ignore[arg-type]
            content=content, token_count=self.estimator.message(content),
            ordinals=[i.ordinal for i in group],
            message_ids=[i.message_id for i in group if kind == "leaf" and i.message_id],
            parent_ids=[i.summary_id for i in group if kind == "condensed" and i.summary_id],
            compaction={"compaction_id": result.compaction_id, "reason": result.reason,
                        "source_tokens": source_tokens, "sources": [i.ref for i in group]},
            auto=result.reason != "manual")
        return self.store.commit_compaction(batch).summary_id
