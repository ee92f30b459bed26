"""The tool loop: a model answers by calling RLM tools until it gives a final answer."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..errors import InvalidArgs, RlmError, RunError, UnknownTool
from ..providers.base import Message, ToolCall
from ..tools.lcm import LCM_TOOL_NAMES, bind_conversation
from ..types import ToolDef
from .context import AgentAnswer, RunContext
from .memory import ConversationMemory, prompt_budget
from .model_call import call_model
from .recursion import RecursionState
from .tool_menu import terse

__all__ = ["FINAL_ANSWER", "LOOKBACK_TOOLS", "MODEL_TOOLS", "RECURSIVE_TOOLS", "allowed_tools",
           "run_agent", "run_tool", "tools_for"]

FINAL_ANSWER = ToolDef(
    name="rlm_final_answer",
    description="Give the final answer to the question. Call this once you know the answer.",
    parameters={"type": "object", "properties": {"answer": {"type": "string"}},
                "required": ["answer"]},
)
MODEL_TOOLS = ["rlm_docs_list", "rlm_docs_peek", "rlm_search_query", "rlm_chunk_create",
               "rlm_span_get", "rlm_artifact_store"]
RECURSIVE_TOOLS = ["rlm_sub_query", "rlm_sub_query_batch"]
LOOKBACK_TOOLS = ["lcm_grep", "lcm_expand"]
"""The look-back tools a model is offered (lcm_describe stays in the registry: grep results
already carry lineage, and every schema costs window)."""
OVERVIEW_LIMIT = 30
"""Documents the root prompt's overview lists (the agent strategy's `overview`)."""


def tools_for(rc: RunContext, state: RecursionState, used: frozenset[str] = frozenset(),
              lookback: bool = False) -> list[ToolDef]:
    """The tools this turn can use, tersely: the document list only when the overview could
    not list every document, span reads and batches once spans exist, sub-queries while the
    model may recurse, the look-back tools once the conversation outgrew the window."""
    names = ["rlm_search_query", "rlm_docs_peek", "rlm_chunk_create"]
    if not lookback:  # in a conversation past its window every read is kept already
        names.append("rlm_artifact_store")
    if rc.store.session_stats(rc.session_id)["documents"] > OVERVIEW_LIMIT:
        names.insert(0, "rlm_docs_list")
    chunked = "rlm_chunk_create" in used
    if chunked:
        names.append("rlm_span_get")
    if state.can_recurse():
        names += ["rlm_sub_query", "rlm_sub_query_batch"] if chunked else ["rlm_sub_query"]
    if lookback:
        names += LOOKBACK_TOOLS
    return [*terse(rc.registry.tool_defs(for_model=True, names=names)), FINAL_ANSWER]


def allowed_tools(rc: RunContext, state: RecursionState) -> set[str]:
    """Every tool a model at this depth may call (a menu may show fewer)."""
    names = MODEL_TOOLS + (RECURSIVE_TOOLS if state.can_recurse() else [])
    if _memory(rc, state) is not None:
        names = names + LCM_TOOL_NAMES
    return {*names, FINAL_ANSWER.name}


def _memory(rc: RunContext, state: RecursionState) -> ConversationMemory | None:
    """Only the root run writes to the conversation; sub-calls keep short private lists."""
    return rc.memory if state.depth == 0 else None


async def run_tool(rc: RunContext, state: RecursionState, call: ToolCall) -> str:
    """Run one tool call for the model; its mistakes come back to it as an error result."""
    allowed = allowed_tools(rc, state)
    try:
        if call.name not in allowed:
            raise UnknownTool(f"tool {call.name!r} is not available here; use one of "
                              f"{', '.join(sorted(allowed))}")
        rc.budget.charge_tool_call()
        sub_query = rc.sub_queries(rc, state) if rc.sub_queries is not None else None
        ctx = replace(rc.tool_ctx, read_log=rc.citations, sub_query=sub_query, in_run=True)
        memory = _memory(rc, state)
        if memory is not None:
            # An expansion may take a sixth of the window: it must fit beside the history.
            cap = max(256, rc.tier(state.depth).num_ctx // 6)
            ctx = replace(ctx, extras=bind_conversation(ctx.extras, memory.lcm,
                                                        memory.conversation_id, memory.answerer,
                                                        cap))
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
    memory = _memory(rc, state)
    used: set[str] = set()
    tools = tools_for(rc, state)
    messages = [Message(role="system", content=system), Message(role="user", content=question)]

    async def refresh() -> None:
        """This turn's menu and, in a conversation, its assembled window."""
        nonlocal messages, tools
        if memory is None:
            tools = tools_for(rc, state, frozenset(used))
            return
        lookback = memory.needs_lookback(prompt_budget(tier, tools))
        tools = tools_for(rc, state, frozenset(used), lookback)
        messages = await memory.window(tier, system, tools, question)

    async def add(new: list[Message]) -> None:
        if memory is None:
            messages.extend(new)
        else:
            for message in new:
                memory.record(message)
        await refresh()

    await refresh()  # in a conversation, the question is already its newest message
    answered: list[str] = []

    async def runner(name: str, args: dict[str, Any]) -> str:
        # For providers that run the tool loop themselves (Claude SDK).
        if name == FINAL_ANSWER.name and isinstance(args.get("answer"), str):
            answered.append(args["answer"])
            return "Answer recorded."
        return await run_tool(rc, state, ToolCall(name=name, arguments=args))

    for iteration in range(1, rc.settings.max_iterations + 1):
        result = await call_model(rc, tier, messages, tools, tool_runner=runner)
        if not result.tool_calls:
            text = answered[-1] if answered else result.text
            return AgentAnswer(text.strip(), tier, iteration)
        exchange = [Message(role="assistant", content=result.text,
                            tool_calls=result.tool_calls)]
        for call in result.tool_calls:
            if call.name == FINAL_ANSWER.name:
                answer = call.arguments.get("answer")
                if isinstance(answer, str) and answer.strip():
                    return AgentAnswer(answer.strip(), tier, iteration)
                output = json.dumps(InvalidArgs("rlm_final_answer needs a non-empty "
                                                "'answer' string").to_dict())
            else:
                output = await run_tool(rc, state, call)
            exchange.append(Message(role="tool", content=output, tool_name=call.name,
                                    tool_call_id=call.id))
            used.add(call.name)
        await add(exchange)
    # Out of steps: one last call without tools, so the run still ends with an answer.
    await add([Message(role="user", content="You are out of tool calls. Give your best "
                                            "final answer now, from what you have read.")])
    result = await call_model(rc, tier, messages, [])
    return AgentAnswer(result.text.strip(), tier, rc.settings.max_iterations,
                       stopped="max_iterations")
