"""A run's conversation memory: every turn goes to LCM, each model call gets an assembled
window instead of a trimmed list (nothing is dropped; old turns become summaries)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from ..errors import Conflict
from ..lcm import AssembledContext, ContextItem, Lcm
from ..lcm.assembler import render_item
from ..providers.base import Message, ToolCall
from ..types import ToolDef
from .recursion import Tier

__all__ = ["ConversationMemory", "prompt_budget"]

CHARS_PER_TOKEN = 3.0
"""The loop's window arithmetic (as in `model_call`), so an assembled window always fits."""


def prompt_budget(tier: Tier, tools: list[ToolDef]) -> int:
    """Tokens the messages may use: the window less the reply reserve and the tool schemas."""
    reserve = min(1024, tier.num_ctx // 4)
    return tier.num_ctx - reserve - int(sum(t.chars for t in tools) / CHARS_PER_TOKEN) - 8


def _parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if message.tool_calls and message.content:
        parts.append({"part_type": "text", "text_content": message.content})
    parts += [{"part_type": "tool", "tool_call_id": c.id, "tool_name": c.name,
               "tool_input": c.arguments, "tool_status": "called"} for c in message.tool_calls]
    if message.role == "tool":
        parts.append({"part_type": "tool", "tool_name": message.tool_name,
                      "tool_status": "completed"})
    return parts


def _canonical(message: Message) -> str:
    """The searchable text of a message: its content plus its tool calls."""
    calls = [f'{c.name}({c.arguments})' for c in message.tool_calls]
    return "\n".join(filter(None, [message.content, *calls]))


@dataclass
class ConversationMemory:
    """Binds one conversation to a run at depth 0 (sub-calls keep their own short lists)."""

    lcm: Lcm
    conversation_id: int
    live: dict[int, Message] = field(default_factory=dict)
    """Messages recorded in this process, kept as objects (tool calls and all)."""
    last: AssembledContext | None = None
    answerer: Any = None
    """`(question, text) -> answer` for lcm_expand's sub-agent mode (a bounded model call)."""

    def record(self, message: Message) -> int:
        """Append a message to the conversation (canonical, forever); its message id."""
        stored = self.lcm.append(self.conversation_id, message.role, _canonical(message),
                                 parts=_parts(message))
        if stored.content == _canonical(message):
            self.live[stored.message_id] = message
        return stored.message_id

    def _message(self, item: ContextItem) -> Message:
        if item.item_type == "summary":
            return Message(role="user", content=render_item(item)["content"])
        live = self.live.get(item.message_id or 0)
        if live is not None:
            return live
        if item.role == "assistant":
            parts = self.lcm.store.message_parts(item.message_id or 0)
            calls = [ToolCall(name=p["tool_name"], arguments=p.get("tool_input", {}),
                              id=p.get("tool_call_id")) for p in parts
                     if p["part_type"] == "tool" and p.get("tool_name")]
            if calls:
                text = next((p.get("text_content", "") for p in parts
                             if p["part_type"] == "text"), "")
                return Message(role="assistant", content=text, tool_calls=calls)
        tool_name = None
        if item.role == "tool":
            parts = self.lcm.store.message_parts(item.message_id or 0)
            tool_name = next((p.get("tool_name") for p in parts if p.get("tool_name")), None)
        return Message(role=item.role or "user", content=item.content,  # type: ignore[arg-type]
                       tool_name=tool_name)

    async def window(self, tier: Tier, system: str, tools: list[ToolDef],
                     query: str = "") -> list[Message]:
        """System + the assembled conversation under the tier's window.

        Compacts first when the active context no longer fits (or, with autocompact on, when
        it passes the threshold); what still does not fit stays searchable, never lost.
        """
        return [Message(role="system", content=system),
                *await self.assemble(prompt_budget(tier, tools), system, query)]

    async def history(self, budget_tokens: int, query: str = "") -> list[Message]:
        """Earlier turns (without the newest message, the question) within a budget, for
        strategies that build their own final prompt."""
        return await self.assemble(budget_tokens, "", query, skip_newest=True)

    async def assemble(self, budget: int, system: str, query: str, *,
                       skip_newest: bool = False) -> list[Message]:
        config = self.lcm.config
        decision = self.lcm.compaction.evaluate(self.conversation_id, budget)
        must = decision.context_tokens + self.lcm.estimator.message(system) > budget
        if must or (decision.should_compact and not config.autocompact_disabled):
            # Another process compacting it is no failure: this turn sends what fits now.
            with contextlib.suppress(Conflict):
                await self.lcm.compaction.compact(self.conversation_id, reason="threshold",
                                                  budget_tokens=budget)
        items = self.lcm.store.get_context_items(self.conversation_id, with_content=False)
        if skip_newest:
            items = items[:-1]
        assembled = self.lcm.assembler.with_contents(
            self.lcm.assembler.select(items, budget, system=system, query=query))
        self.last = assembled
        return [self._message(i) for i in assembled.items]

    def needs_lookback(self, budget_tokens: int) -> bool:
        """True once part of the conversation is out of sight: summarised, or over budget."""
        items = self.lcm.store.get_context_items(self.conversation_id, with_content=False)
        return (any(i.item_type == "summary" for i in items)
                or sum(i.token_count for i in items) > budget_tokens)
