"""The tool loop: a model answers by calling RLM tools until it gives a final answer."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ContextOverflow, InvalidArgs, RlmError, RunError, UnknownTool
from ..policy import EgressPolicy
from ..providers.base import ChatOptions, ChatRequest, ChatResult, Message, ToolCall
from ..tools import Registry, ToolContext
from ..types import ToolDef
from .budget import Budget
from .citations import CitationLog
from .pool import ProviderPool
from .recursion import RecursionState, Tier, TierPlan

__all__ = ["FINAL_ANSWER", "AgentAnswer", "RunContext", "call_model", "fit_messages",
           "run_agent"]

FINAL_ANSWER = ToolDef(
    name="rlm_final_answer",
    description="Give the final answer to the question. Call this once you know the answer.",
    parameters={"type": "object", "properties": {"answer": {"type": "string"}},
                "required": ["answer"]},
)
MODEL_TOOLS = ["rlm_docs_list", "rlm_docs_peek", "rlm_search_query", "rlm_chunk_create",
               "rlm_span_get", "rlm_artifact_store"]
RECURSIVE_TOOLS = ["rlm_sub_query", "rlm_sub_query_batch"]
CHARS_PER_TOKEN = 3.0
"""Conservative: code, numbers and ids tokenise worse than the usual 4 chars per token."""


@dataclass
class RunContext:
    """Everything one recursion tree shares."""

    registry: Registry
    tool_ctx: ToolContext
    plan: TierPlan
    providers: ProviderPool
    budget: Budget = field(default_factory=Budget)
    citations: CitationLog = field(default_factory=CitationLog)
    egress: EgressPolicy | None = None
    model_overridden: bool = False
    max_iterations: int = 20
    plan_offset: int = 0
    """Depth at which `plan` starts: a sub-query with its own tiers re-bases them."""
    options: dict[str, Any] = field(default_factory=dict)

    def tier(self, depth: int) -> Tier:
        return self.plan.at(max(depth - self.plan_offset, 0))

    def derive(self, **changes: Any) -> RunContext:
        return replace(self, **changes)


@dataclass
class AgentAnswer:
    text: str
    tier: Tier
    iterations: int
    stopped: str = "answer"


_DROPPED_NOTE = ("[Earlier tool exchanges were removed to fit the window; search or read "
                 "again if you need them.]")


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


async def call_model(
    rc: RunContext, tier: Tier, messages: list[Message], tools: list[ToolDef],
    *, cacheable: bool = False, tool_runner: Any = None,
) -> ChatResult:
    """One model call: egress-checked, measured against the window, budgeted, maybe cached."""
    if rc.egress is not None:
        rc.egress.check(tier.provider, endpoint=rc.providers.endpoint(tier.provider),
                        model=tier.model, model_overridden=rc.model_overridden)
    reserve = min(1024, tier.num_ctx // 4)
    prompt_chars = fit_messages(messages, tools, tier.num_ctx, reserve)
    # Always the tier's window: the plan shows it, and `fit_messages` measured against it.
    options = ChatOptions(temperature=tier.temperature, num_ctx=tier.num_ctx,
                          think=tier.info.think,
                          max_tokens=reserve, native_tools=tier.info.tools,
                          timeout_s=rc.options.get("timeout_s", 180.0),
                          max_turns=rc.max_iterations)
    request = ChatRequest(model=tier.model, messages=messages, tools=tools, options=options,
                          tool_runner=tool_runner)
    key = None
    if cacheable and tier.temperature == 0 and not tools:
        prompt = json.dumps([m.model_dump() for m in messages], sort_keys=True)
        key = "|".join([tier.provider, tier.model, options.model_dump_json(),
                        hashlib.sha256(prompt.encode()).hexdigest()])
        if key in rc.providers.cache:
            return rc.providers.cache[key]
    rc.budget.charge_prompt(prompt_chars)
    result = await rc.providers.get(tier).chat(request)
    usage = result.usage
    cost = usage.cost_usd if usage.cost_usd is not None else tier.info.cost(
        usage.input_tokens, usage.output_tokens)
    rc.budget.record_usage(usage.input_tokens, usage.output_tokens, cost)
    if key is not None:
        rc.providers.cache[key] = result
    return result


def tools_for(rc: RunContext, state: RecursionState) -> list[ToolDef]:
    names = MODEL_TOOLS + (RECURSIVE_TOOLS if state.can_recurse() else [])
    return [*rc.registry.tool_defs(for_model=True, names=names), FINAL_ANSWER]


async def run_tool(rc: RunContext, state: RecursionState, call: ToolCall) -> str:
    """Run one tool call for the model; its mistakes come back to it as an error result."""
    allowed = {t.name for t in tools_for(rc, state)}
    try:
        if call.name not in allowed:
            raise UnknownTool(f"tool {call.name!r} is not available here; use one of "
                              f"{', '.join(sorted(allowed))}")
        rc.budget.charge_tool_call()
        ctx = rc.tool_ctx
        from .subcalls import SubQueryCaller  # the sub-query tools call back into the loop

        ctx = replace(ctx, read_log=rc.citations, sub_query=SubQueryCaller(rc, state),
                      in_run=True)
        result = await rc.registry.invoke(call.name, call.arguments, ctx)
        return json.dumps(result.output, ensure_ascii=False)
    except RunError:
        raise
    except RlmError as exc:
        return json.dumps(exc.to_dict(), ensure_ascii=False)


async def run_agent(
    rc: RunContext, state: RecursionState, system: str, question: str,
) -> AgentAnswer:
    """Iterate until a final answer, a plain-text reply, or `max_iterations`."""
    tier = rc.tier(state.depth)
    tools = tools_for(rc, state)
    messages = [Message(role="system", content=system), Message(role="user", content=question)]

    answered: list[str] = []

    async def runner(name: str, args: dict[str, Any]) -> str:
        # For providers that run the tool loop themselves (Claude SDK).
        if name == FINAL_ANSWER.name and isinstance(args.get("answer"), str):
            answered.append(args["answer"])
            return "Answer recorded."
        return await run_tool(rc, state, ToolCall(name=name, arguments=args))

    for iteration in range(1, rc.max_iterations + 1):
        result = await call_model(rc, tier, messages, tools, tool_runner=runner)
        if not result.tool_calls:
            text = answered[-1] if answered else result.text
            return AgentAnswer(text.strip(), tier, iteration)
        messages.append(Message(role="assistant", content=result.text,
                                tool_calls=result.tool_calls))
        for call in result.tool_calls:
            if call.name == FINAL_ANSWER.name:
                answer = call.arguments.get("answer")
                if isinstance(answer, str) and answer.strip():
                    return AgentAnswer(answer.strip(), tier, iteration)
                output = json.dumps(InvalidArgs("rlm_final_answer needs a non-empty "
                                                "'answer' string").to_dict())
            else:
                output = await run_tool(rc, state, call)
            messages.append(Message(role="tool", content=output, tool_name=call.name,
                                    tool_call_id=call.id))
    # Out of steps: one last call without tools, so the run still ends with an answer.
    messages.append(Message(role="user", content="You are out of tool calls. Give your best "
                                                 "final answer now, from what you have read."))
    result = await call_model(rc, tier, messages, [])
    return AgentAnswer(result.text.strip(), tier, rc.max_iterations, stopped="max_iterations")
