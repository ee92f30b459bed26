"""The tool loop with the scripted fake provider: history, errors back to the model, citations."""

from __future__ import annotations

import json

import pytest

from rlm_recursive.agent.citations import Citation, verify_citation
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import BudgetExceeded
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply, tool_reply

NEEDLE = "The special magic number for ledger-7 is 48213."


@pytest.fixture
def loaded(tmp_path):
    rt = Runtime(tmp_path / "data")
    sid = rt.store.create_session("t", SessionConfig())["session_id"]
    filler = "Rivers and lakes are measured every week by the survey team. " * 40
    text = filler + NEEDLE + " " + filler
    doc = rt.store.add_document(sid, text.encode(), length_chars=len(text), source="a.txt",
                                source_type="inline")
    yield rt, sid, doc, text
    rt.close()


def _last_tool_output(request: ChatRequest) -> dict:
    return json.loads(next(m for m in reversed(request.messages) if m.role == "tool").content)


def _options(**kw) -> QueryOptions:
    # These tests are about the loop's mechanics, with placeholder answers ("done"): the
    # grounding of answers has its own tests (test_grounding.py).
    kw.setdefault("grounding", False)
    return QueryOptions(provider="fake", model="root", strategy="agent", **kw)


async def test_two_step_loop_keeps_history_and_cites_what_was_read(loaded):
    rt, sid, _, text = loaded

    def script(request: ChatRequest) -> ChatResult:
        turn = sum(1 for m in request.messages if m.role == "assistant")
        if turn == 0:
            return tool_reply("rlm_search_query", {"query": "special magic number ledger"})
        if turn == 1:
            match = _last_tool_output(request)["matches"][0]
            return tool_reply("rlm_docs_peek", {"doc_id": match["doc_id"],
                                                "start": match["span"]["start"],
                                                "end": match["span"]["end"]})
        content = _last_tool_output(request)["content"]
        value = content.split("ledger-7 is ")[1].split(".")[0]
        return tool_reply("rlm_final_answer", {"answer": value})

    fake = FakeProvider(script=script)
    result = await run_query(rt, sid, "What is the magic number for ledger-7?", _options(),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "48213"
    assert result.strategy == "agent" and result.recursion["call_trace"] == []
    last = fake.requests[-1].messages
    assert [m.role for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert last[1].content == "What is the magic number for ledger-7?"
    assert [m.tool_name for m in last if m.role == "tool"] == ["rlm_search_query",
                                                               "rlm_docs_peek"]
    offered = {t.name for t in fake.requests[0].tools}
    assert {"rlm_search_query", "rlm_docs_peek", "rlm_final_answer", "rlm_sub_query"} <= offered
    assert "rlm_docs_load" not in offered
    assert all("session_id" not in t.parameters["properties"] for t in fake.requests[0].tools)
    # The needle was read, so a citation covers it and verifies against the store.
    start = text.index(NEEDLE)
    covering = [c for c in result.citations if c.start <= start and c.end >= start + len(NEEDLE)]
    assert covering and all(verify_citation(rt.store, sid, c)["valid"] for c in covering)
    assert result.usage["model_calls"] == 3


async def test_invalid_arguments_and_unknown_tools_go_back_to_the_model(loaded):
    rt, sid, _, _ = loaded
    fake = FakeProvider([
        tool_reply("rlm_docs_peek", {"doc_id": 42, "bogus": True}),
        tool_reply("rlm_docs_load", {"sources": []}),
        ChatResult(tool_calls=[{"name": "rlm_search_query",
                                "arguments": {"_invalid_json": "{query: oops"}}],
                   model="m", provider="fake"),
        reply("recovered"),
    ])
    result = await run_query(rt, sid, "q", _options(), providers=ProviderPool({"fake": fake}))
    assert result.answer == "recovered"
    tool_msgs = [m for m in fake.requests[-1].messages if m.role == "tool"]
    codes = [json.loads(m.content)["meta"]["error_code"] for m in tool_msgs]
    assert codes == ["invalid_args", "unknown_tool", "invalid_args"]
    assert "bogus" in tool_msgs[0].content


async def test_max_iterations_ends_with_a_tool_free_answer(loaded):
    rt, sid, _, _ = loaded
    fake = FakeProvider(script=lambda r: reply("best effort") if not r.tools
                        else tool_reply("rlm_docs_list", {}))
    result = await run_query(rt, sid, "q", _options(max_iterations=3),
                             providers=ProviderPool({"fake": fake}))
    assert result.stopped == "max_iterations" and result.answer == "best effort"
    assert len(fake.requests) == 4 and fake.requests[-1].tools == []


async def test_tool_budget_of_the_run_ends_it_with_budget_exceeded(loaded):
    rt, sid, _, _ = loaded
    fake = FakeProvider(script=lambda r: tool_reply("rlm_docs_list", {}))
    with pytest.raises(BudgetExceeded) as err:
        await run_query(rt, sid, "q", _options(max_tool_calls=2),
                        providers=ProviderPool({"fake": fake}))
    assert err.value.code == "budget_exceeded"
    assert len(fake.requests) == 3


async def test_history_too_long_is_compacted_not_sent_blindly(loaded):
    rt, sid, doc, _ = loaded
    seen: list[int] = []

    def script(request: ChatRequest) -> ChatResult:
        if not request.tools:  # the summariser (LCM compaction)
            return reply("Read doc 0-2000 again; nothing new.")
        seen.append(sum(len(m.content) for m in request.messages))
        if len(seen) < 14:
            return tool_reply("rlm_docs_peek", {"doc_id": doc.id, "start": 0, "end": 2000})
        return reply("done")

    rt.catalog.models["tiny"] = rt.catalog.model("tiny", "fake").model_copy(
        update={"num_ctx": 8192, "catalogued": True, "name": "tiny"})
    fake = FakeProvider(script=script)
    result = await run_query(rt, sid, "q", QueryOptions(provider="fake", model="tiny",
                             strategy="agent", grounding=False),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "done"
    # (8192 - 1024 reserved) tokens at 3 chars each: every request stayed inside the window.
    assert max(seen) <= (8192 - 1024) * 3
    # Lossless: older exchanges became summaries; nothing was cut to a "[trimmed" note.
    last = fake.requests[-1].messages
    assert any(m.content.startswith("[Summary sum_") for m in last)
    assert not any(m.content.startswith("[trimmed") for m in last)


async def test_tampered_citation_fails_verification(loaded):
    rt, sid, doc, text = loaded
    start = text.index(NEEDLE)
    from rlm_recursive.types import text_checksum

    good = Citation(doc_id=doc.id, start=start, end=start + len(NEEDLE),
                    checksum=text_checksum(NEEDLE))
    assert verify_citation(rt.store, sid, good) == {"valid": True, "text": NEEDLE}
    shifted = good.model_copy(update={"start": start + 1})
    assert verify_citation(rt.store, sid, shifted)["valid"] is False
    forged = good.model_copy(update={"checksum": text_checksum(NEEDLE.replace("48213", "48214"))})
    assert verify_citation(rt.store, sid, forged)["valid"] is False
    out = await rt.call("rlm_citation_verify", {"session_id": sid, **good.model_dump(
        exclude={"source"})})
    assert out.output["valid"] is True
