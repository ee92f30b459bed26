"""The recorder's tree: where each call hangs, concurrent sub-calls, REPL steps, cache hits."""

from __future__ import annotations

import asyncio

from rlm_recursive import trajectory
from rlm_recursive.agent.recursion import Tier
from rlm_recursive.catalog import ModelInfo
from rlm_recursive.providers.base import ChatResult, ToolCall, Usage
from rlm_recursive.trajectory import Recorder
from rlm_recursive.trajectory.recorder import activate

TIER = Tier(provider="fake", model="m", info=ModelInfo(provider="fake"))


def _result(tokens: int = 10) -> ChatResult:
    return ChatResult(text="x", model="m", provider="fake",
                      tool_calls=[ToolCall(name="rlm_docs_list", arguments={})],
                      usage=Usage(input_tokens=tokens, output_tokens=1))


async def _sub(call_id: str, depth: int) -> None:
    with trajectory.sub_call(call_id, depth, TIER, "q", {"doc_id": "d", "start": 0, "end": 1}):
        await asyncio.sleep(0)
        with trajectory.model_call(TIER, [], []) as rec:
            await asyncio.sleep(0)
            rec.reply(_result())


async def test_parents_follow_the_calls_that_caused_them() -> None:
    events: list[tuple[str, str]] = []
    recorder = Recorder("run_x", "ses_x", "q", "full",
                        (lambda e, n: events.append((e, n.id)) if n is not None else None,))
    with activate(recorder):
        with trajectory.model_call(TIER, [], []) as rec:
            rec.reply(_result())
        with trajectory.repl_step(1, "print(llm_query_batched(...))") as step:
            await asyncio.gather(_sub("q1", 1), _sub("q2", 1))
            step.result({"stdout": "ok"})
        with trajectory.tool_call("rlm_sub_query_batch", {}) as tool:
            tool.result({"error": "bad", "meta": {"error_code": "invalid_args"}},
                        is_error=True)
        with trajectory.model_call(TIER, [], []) as rec:
            rec.reply(_result(), cache_hit=True)
    nodes = recorder.nodes
    assert nodes["m1"].parent is None and nodes["r1"].parent == "m1"
    assert {nodes["s1"].parent, nodes["s2"].parent} == {"r1"}
    inner = {n.parent for n in nodes.values() if n.kind == "model" and n.depth == 1}
    assert inner == {"s1", "s2"}  # concurrent sub-calls keep their own branch
    assert nodes["t1"].parent == "m1" and nodes["t1"].error_code == "invalid_args"
    assert nodes["m4"].parent is None and nodes["m4"].depth == 0
    assert nodes["m4"].cache_hit and nodes["m4"].input_tokens == 0
    assert nodes["m1"].meta["tool_calls"] == ["rlm_docs_list"]
    assert [e for e, _ in events].count("start") == [e for e, _ in events].count("end") == 8


def test_hooks_outside_a_run_record_nothing() -> None:
    with trajectory.tool_call("rlm_docs_list", {}) as rec:
        rec.result({"documents": []})
    assert trajectory.active() is None
