"""The one model call of every strategy: egress check, window fitting, budget, cache."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from typing import Any

from .. import trajectory
from ..errors import ContextOverflow
from ..providers.base import ChatOptions, ChatRequest, ChatResult, Message
from ..types import ToolDef
from .context import RunContext
from .recursion import Tier

__all__ = ["CHARS_PER_TOKEN", "call_model", "check_egress", "fit_messages", "window_chars"]

CHARS_PER_TOKEN = 3.0
"""Conservative: code, numbers and ids tokenise worse than the usual 4 chars per token."""

_DROPPED_NOTE = ("[Earlier tool exchanges were removed to fit the window; search or read "
                 "again if you need them.]")


def window_chars(tier: Tier, reserve_tokens: int) -> int:
    """The characters a prompt to `tier` may use, keeping `reserve_tokens` for the reply."""
    return int((tier.num_ctx - reserve_tokens) * CHARS_PER_TOKEN)


def _message_chars(message: Message) -> int:
    calls = sum(len(json.dumps(c.arguments)) + len(c.name) for c in message.tool_calls)
    return len(message.content) + 16 + calls


def fit_messages(
    messages: list[Message], tools: list[ToolDef], num_ctx: int, reserve_tokens: int,
) -> int:
    """Fit the prompt into the window, or refuse; returns its size in characters.

    Trims IN PLACE, so a later turn of the same history does not redo the work: the oldest
    tool results become short notes first, then the oldest exchanges (an assistant turn with
    its tool results) are dropped; the latest exchange always stays.
    """
    limit = int((num_ctx - reserve_tokens) * CHARS_PER_TOKEN)
    sizes = [_message_chars(m) for m in messages]
    total = sum(sizes) + sum(t.chars for t in tools)
    for i, msg in enumerate(messages[:-1]):
        if total <= limit:
            break
        if msg.role == "tool" and len(msg.content) > 80:
            note = f"[trimmed {len(msg.content)} chars to fit the window; read again if needed]"
            messages[i] = msg.model_copy(update={"content": note})
            trimmed = _message_chars(messages[i])
            total -= sizes[i] - trimmed
            sizes[i] = trimmed
    turns = [i for i, m in enumerate(messages) if m.role == "assistant"]
    if total > limit and len(turns) > 1:
        noted = any(m.content == _DROPPED_NOTE for m in messages)
        if not noted:
            total += len(_DROPPED_NOTE) + 16
        cut = turns[0]
        for following in turns[1:]:
            if total <= limit:
                break
            total -= sum(sizes[cut:following])
            cut = following
        del messages[turns[0] : cut]
        if not noted:
            messages.insert(turns[0], Message(role="user", content=_DROPPED_NOTE))
    if total > limit:
        need = math.ceil(total / CHARS_PER_TOKEN) + reserve_tokens
        raise ContextOverflow(
            f"the prompt needs about {need} tokens but the model window is {num_ctx}; "
            "give it a smaller span (chunk first)", needed_tokens=need, num_ctx=num_ctx)
    return total


def check_egress(rc: RunContext, tier: Tier) -> None:
    """The run's egress policy over every host the tier's provider may contact, before any."""
    if rc.egress is not None:
        kind, endpoints = rc.providers.endpoints(tier.provider)
        rc.egress.check_all(kind, endpoints, model=tier.model,
                            model_overridden=rc.model_overridden)


async def call_model(
    rc: RunContext, tier: Tier, messages: list[Message], tools: list[ToolDef],
    *, cacheable: bool = False, tool_runner: Any = None,
) -> ChatResult:
    """One model call: egress-checked, measured against the window, budgeted, maybe cached."""
    check_egress(rc, tier)
    reserve = min(1024, tier.num_ctx // 4)
    prompt_chars = fit_messages(messages, tools, tier.num_ctx, reserve)
    # Always the tier's window: the plan shows it, and `fit_messages` measured against it.
    options = ChatOptions(temperature=tier.temperature, num_ctx=tier.num_ctx,
                          think=tier.info.think, max_tokens=reserve, native_tools=tier.info.tools,
                          timeout_s=rc.settings.timeout_s,
                          max_turns=rc.settings.max_iterations)
    request = ChatRequest(model=tier.model, messages=messages, tools=tools, options=options,
                          tool_runner=tool_runner)
    key = cached = None
    # A constrained-JSON call (tools, no runner) is as pure as a plain one; a runner has effects.
    if cacheable and tier.temperature == 0 and tool_runner is None:
        key, cached = await _cached(rc, tier, options, messages, tools)
    with trajectory.model_call(tier, messages, tools) as record:
        if cached is not None:
            record.reply(cached, cache_hit=True)
            return cached
        rc.budget.charge_prompt(prompt_chars)
        result = await rc.providers.get(tier).chat(request)
        record.reply(result)
    usage = result.usage
    cost = usage.cost_usd if usage.cost_usd is not None else tier.info.cost(
        usage.input_tokens, usage.output_tokens)
    rc.budget.record_usage(usage.input_tokens, usage.output_tokens, cost)
    if key is not None:
        rc.providers.cache[key.key] = result
        if rc.cache_store is not None:
            await asyncio.to_thread(rc.cache_store.cache_put, key.key, tier.provider,
                                    tier.model, key.options, key.prompt_sha256,
                                    result.model_dump(mode="json"))
    return result


class _CacheKey:
    """Provider, model, options (less the per-run timeouts) and the prompt's sha256 (its
    messages and the tool definitions a constrained call must choose from)."""

    def __init__(self, tier: Tier, options: ChatOptions, messages: list[Message],
                 tools: list[ToolDef]) -> None:
        prompt = json.dumps([[m.model_dump(mode="json") for m in messages],
                             [t.model_dump(mode="json") for t in tools]], sort_keys=True)
        self.options = options.model_dump_json(exclude={"timeout_s", "max_turns"})
        self.prompt_sha256 = hashlib.sha256(prompt.encode()).hexdigest()
        self.key = hashlib.sha256("|".join(
            [tier.provider, tier.model, self.options, self.prompt_sha256]).encode()).hexdigest()


async def _cached(
    rc: RunContext, tier: Tier, options: ChatOptions, messages: list[Message],
    tools: list[ToolDef],
) -> tuple[_CacheKey, ChatResult | None]:
    """The in-memory cache first, then the persistent one (a rerun costs no model calls)."""
    key = _CacheKey(tier, options, messages, tools)
    hit = rc.providers.cache.get(key.key)
    if hit is None and rc.cache_store is not None:
        stored = await asyncio.to_thread(rc.cache_store.cache_get, key.key)
        if stored is not None:
            hit = rc.providers.cache[key.key] = ChatResult.model_validate(stored)
    return key, hit
