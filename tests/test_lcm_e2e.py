"""End to end: a 40-turn conversation in a 4,096-token window, with the fake provider and with
Ollama mocked at the HTTP level. Every request fits; the full history would not; a question
in turn 40 about turn 2 is answered through lcm_grep and lcm_expand, citing the message."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, QueryResult, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec
from rlm_recursive.config import SessionConfig
from rlm_recursive.lcm import lcm_for
from rlm_recursive.providers.base import ChatRequest, ChatResult, ToolCall
from rlm_recursive.providers.fake import FakeProvider, reply

HOST = "http://127.0.0.1:11434"
NUM_CTX = 4096
LIMIT_CHARS = (NUM_CTX - 1024) * 3  # the loop's window rule: reply reserve, 3 chars a token
CODE = "4471-K"
Turn = list[tuple[str, str, str | None]]  # (role, content, tool_name)
Action = tuple[str, Any]


def question(turn: int) -> str:
    if turn == 2:
        return f"Note for later: my locker code is {CODE}. What do the notes say about pumps?"
    if turn == 40:
        return "What was my locker code? Cite the message."
    return f"Turn {turn}: what do the notes say about section {turn}, in detail?"


def decide(messages: Turn, tools: set[str]) -> Action:
    """The scripted model: a lossy summariser, a long-winded answerer, and a look-back."""
    system = messages[0][1]
    if not tools:
        if system.startswith("Summarise"):
            # Lossy on purpose: the first five words of each part, so the code is lost.
            parts = [" ".join(p.split()[:5]) for p in messages[-1][1].split("\n\n")]
            return "text", "; ".join(parts)
        return "text", "best effort"
    current = max(i for i, m in enumerate(messages) if m[0] == "user"
                  and not m[1].startswith("[Summary"))
    asked, results = messages[current][1], messages[current + 1:]
    if "locker code?" not in asked:
        return "answer", f"Answer: section notes say {'the pumps run at 4 bar, ' * 12}fine."
    tool_results = [(m[2], json.loads(m[1])) for m in results if m[0] == "tool"]
    if not tool_results:
        assert "lcm_grep" in tools and "lcm_expand" in tools
        return "call", ("lcm_grep", {"query": "locker code"})
    name, output = tool_results[-1]
    if name == "lcm_grep":
        # Not its own question (still raw): the older, compacted mention.
        hit = next(m for m in output["matches"] if m["kind"] == "message"
                   and m["summarised_by"])
        return "call", ("lcm_expand", {"summary_id": hit["summarised_by"][0]})
    for m in output["messages"]:
        found = re.search(r"locker code is (\S+?)\.", m["content"])
        if found:
            return "answer", f"Your locker code is {found.group(1)} [{m['id']}]."
    return "answer", "NOT FOUND"


def _fits(total_chars: int) -> bool:
    return total_chars <= LIMIT_CHARS


def _check_turn40(rt: Runtime, result: QueryResult, first_prompt: str) -> None:
    assert CODE not in first_prompt  # turn 2 was compacted out of the window
    cited = re.search(r"\[(msg_\d+)\]", result.answer)
    assert cited and CODE in result.answer
    # The citation resolves to the original, canonical message of turn 2.
    message = lcm_for(rt.store).retrieval.describe(cited.group(1))
    assert message["seq"] == 3 and message["role"] == "user"
    assert message["content"] == question(2) and message["summarised_by"]


def _overflows_without_lcm(rt: Runtime, conversation_id: int) -> bool:
    """The whole history alone is over twice the window (before system text and tools)."""
    history = sum(len(m.content) + 16 for m in lcm_for(rt.store).store.messages(conversation_id))
    return history > LIMIT_CHARS * 2


# The scripted answers here are placeholders about memory, not grounded facts: these runs
# have grounding off (its own tests: test_grounding.py).


@pytest.fixture
def rt(tmp_path, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("chat", SessionConfig())["session_id"]
    text = "Pump notes. The pumps run at 4 bar. " * 40
    runtime.store.add_document(sid, text.encode(), length_chars=len(text), source="notes.txt",
                               source_type="inline")
    yield runtime, sid
    runtime.close()


async def _converse(rt: Runtime, sid: str, options: QueryOptions, pool: ProviderPool | None,
                    seen: list[int], prompts: list[str]) -> QueryResult:
    result = None
    for turn in range(1, 41):
        before = len(prompts)
        result = await run_query(rt, sid, question(turn), options, pool)
        options = options.model_copy(update={"conversation_id": result.conversation_id})
        assert len(prompts) > before
    assert result is not None and result.conversation_id
    return result


def _fake(seen: list[int], prompts: list[str]) -> FakeProvider:
    return FakeProvider(script=_scripted(seen, prompts))


def _scripted(seen: list[int], prompts: list[str]) -> Callable[[ChatRequest], ChatResult]:
    def script(request: ChatRequest) -> ChatResult:
        chars = sum(len(m.content) + 16 + sum(len(json.dumps(c.arguments)) + len(c.name)
                                              for c in m.tool_calls) for m in request.messages)
        chars += sum(t.chars for t in request.tools)
        if request.tools:
            seen.append(chars)
            prompts.append("\n".join(m.content for m in request.messages))
        kind, value = decide([(m.role, m.content, m.tool_name) for m in request.messages],
                             {t.name for t in request.tools})
        if kind == "text":
            return reply(value)
        if kind == "call":
            return ChatResult(tool_calls=[ToolCall(name=value[0], arguments=value[1])],
                              model=request.model, provider="fake")
        return ChatResult(tool_calls=[ToolCall(name="rlm_final_answer",
                                               arguments={"answer": value})],
                          model=request.model, provider="fake")
    return script


async def test_forty_turns_with_the_fake_provider(rt) -> None:
    runtime, sid = rt
    runtime.catalog.models["tiny4k"] = ModelInfo(name="tiny4k", provider="fake",
                                                 num_ctx=NUM_CTX, params_b=8)
    seen: list[int] = []
    prompts: list[str] = []
    fake = _fake(seen, prompts)
    options = QueryOptions(provider="fake", model="tiny4k", strategy="agent", max_depth=0,
                           grounding=False)
    result = await _converse(runtime, sid, options, ProviderPool({"fake": fake}), seen, prompts)
    assert all(_fits(c) for c in seen), max(seen)
    assert not any("[trimmed" in p or "were removed to fit" in p for p in prompts)
    assert _overflows_without_lcm(runtime, result.conversation_id or 0)
    assert lcm_for(runtime.store).store.summaries(result.conversation_id or 0)
    turn40 = [p for p in prompts if "What was my locker code?" in p]
    _check_turn40(runtime, result, turn40[0])
    assert lcm_for(runtime.store).integrity.run(result.conversation_id).ok


def _ollama(seen: list[int], prompts: list[str]) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert body["options"]["num_ctx"] == NUM_CTX
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        messages = [(m["role"], m.get("content", ""), m.get("tool_name"))
                    for m in body["messages"]]
        if tools:
            seen.append(sum(len(m[1]) + 16 for m in messages) + sum(
                len(json.dumps(f["parameters"])) + len(f["description"]) + len(f["name"])
                for f in (t["function"] for t in body["tools"])))
            prompts.append("\n".join(m[1] for m in messages))
        kind, value = decide(messages, tools)
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        if kind == "text":
            message["content"] = value
        else:
            name, args = value if kind == "call" else ("rlm_final_answer", {"answer": value})
            message["tool_calls"] = [{"function": {"name": name, "arguments": args}}]
        return httpx.Response(200, json={
            "model": body["model"], "created_at": "2026-01-01T00:00:00Z", "message": message,
            "done": True, "done_reason": "stop", "total_duration": 1000, "load_duration": 10,
            "prompt_eval_count": sum(len(m[1]) for m in messages) // 4,
            "prompt_eval_duration": 100, "eval_count": 20, "eval_duration": 100})
    return respond


async def test_forty_turns_against_ollama_over_http(rt) -> None:
    runtime, sid = rt
    runtime.catalog.models["small4k"] = ModelInfo(name="small4k", provider="ollama",
                                                  num_ctx=NUM_CTX, params_b=8)
    seen: list[int] = []
    prompts: list[str] = []
    with respx.mock(base_url=HOST, assert_all_called=False) as mock:
        mock.post("/api/chat").mock(side_effect=_ollama(seen, prompts))
        options = QueryOptions(provider="ollama", model="small4k", strategy="agent",
                               max_depth=0, grounding=False)
        result = await _converse(runtime, sid, options, None, seen, prompts)
    assert all(_fits(c) for c in seen), max(seen)
    assert not any("[trimmed" in p or "were removed to fit" in p for p in prompts)
    assert _overflows_without_lcm(runtime, result.conversation_id or 0)
    turn40 = [p for p in prompts if "What was my locker code?" in p]
    _check_turn40(runtime, result, turn40[0])


@pytest.mark.parametrize(("summary_tier", "writer"), [(None, "small4k"), (0, "big4k")])
async def test_the_preset_names_the_tier_that_writes_summaries(
    rt, summary_tier: int | None, writer: str,
) -> None:
    runtime, sid = rt
    for name in ("big4k", "small4k"):
        runtime.catalog.models[name] = ModelInfo(name=name, provider="fake", num_ctx=NUM_CTX,
                                                 params_b=8)
    runtime.catalog.presets["two"] = Preset(tiers=[TierSpec(model="big4k"),
                                                   TierSpec(model="small4k")],
                                            summary_tier=summary_tier)
    seen: list[int] = []
    fake = _fake(seen, [])
    options = QueryOptions(preset="two", strategy="agent", max_depth=0,
                           grounding=False)
    for turn in range(1, 21):
        result = await run_query(runtime, sid, question(turn), options,
                                 ProviderPool({"fake": fake}))
        options = options.model_copy(update={"conversation_id": result.conversation_id})
    summarisers = {r.model for r in fake.requests
                   if not r.tools and r.messages[0].content.startswith("Summarise")}
    assert summarisers == {writer}
    assert all(_fits(c) for c in seen)


async def test_lcm_expand_with_a_question_runs_a_bounded_sub_agent(rt) -> None:
    runtime, sid = rt
    runtime.catalog.models["tiny4k"] = ModelInfo(name="tiny4k", provider="fake",
                                                 num_ctx=NUM_CTX, params_b=8)
    base = _scripted([], [])

    def script(request: ChatRequest) -> ChatResult:
        system = request.messages[0].content
        if not request.tools and system.startswith("Answer the question from the conversation"):
            found = re.search(r"\[(msg_\d+)\] user: .*locker code is (\S+?)\.",
                              request.messages[-1].content)
            return reply(f"{found.group(2)} [{found.group(1)}]" if found else "NOT FOUND")
        asked = [m for m in request.messages if m.role == "user"
                 and not m.content.startswith("[Summary")][-1].content
        results = [m for m in request.messages if m.role == "tool"]
        if "locker code?" in asked and request.tools:
            if not results:
                summaries = re.findall(r"\[Summary (sum_\w+)", "\n".join(
                    m.content for m in request.messages))
                return ChatResult(tool_calls=[ToolCall(name="lcm_expand", arguments={
                    "summary_id": summaries[0], "question": "What is the locker code?"})],
                    model=request.model, provider="fake")
            distilled = json.loads(results[-1].content)
            return ChatResult(tool_calls=[ToolCall(name="rlm_final_answer", arguments={
                "answer": f"{distilled['answer']} (via {distilled['cited_ids'][0]})"})],
                model=request.model, provider="fake")
        raise AssertionError("unexpected request")

    def combined(request: ChatRequest) -> ChatResult:
        system = request.messages[0].content
        asked = [m for m in request.messages if m.role == "user"
                 and not m.content.startswith("[Summary")]
        if system.startswith("Answer the question from the conversation") or (
                asked and "locker code?" in asked[-1].content and request.tools):
            return script(request)
        return base(request)

    fake = FakeProvider(script=combined)
    options = QueryOptions(provider="fake", model="tiny4k", strategy="agent", max_depth=0,
                           grounding=False)
    result = None
    for turn in [*range(1, 31), 40]:
        result = await run_query(runtime, sid, question(turn), options,
                                 ProviderPool({"fake": fake}))
        options = options.model_copy(update={"conversation_id": result.conversation_id})
    assert result is not None
    assert result.answer.startswith(f"{CODE} [msg_3]") and "(via sum_" in result.answer
    sub = [r for r in fake.requests if r.messages[0].content.startswith("Answer the question")]
    assert len(sub) == 1 and not sub[0].tools
    assert len(sub[0].messages[-1].content) <= NUM_CTX // 6 * 3 + 400  # the bounded expansion


async def test_a_turn_goes_on_while_another_process_compacts(rt) -> None:
    """Lock contention is not the turn's failure: it sends what fits and compacts later."""
    runtime, sid = rt
    runtime.catalog.models["tiny4k"] = ModelInfo(name="tiny4k", provider="fake",
                                                 num_ctx=NUM_CTX, params_b=8)
    seen: list[int] = []
    fake = _fake(seen, [])
    options = QueryOptions(provider="fake", model="tiny4k", strategy="agent", max_depth=0,
                           grounding=False)
    result = await run_query(runtime, sid, question(1), options, ProviderPool({"fake": fake}))
    cid = result.conversation_id or 0
    options = options.model_copy(update={"conversation_id": cid})
    lcm = lcm_for(runtime.store)
    lcm.store.acquire_lock(cid, "other-process", ttl_s=600)
    for turn in range(2, 26):
        await run_query(runtime, sid, question(turn), options, ProviderPool({"fake": fake}))
    assert not lcm.store.summaries(cid) and all(_fits(c) for c in seen)
    lcm.store.release_lock(cid, "other-process")
    await run_query(runtime, sid, question(26), options, ProviderPool({"fake": fake}))
    assert lcm.store.summaries(cid)
