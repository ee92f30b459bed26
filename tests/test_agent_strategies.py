"""Runtime-driven strategies (search, map-reduce) and `auto`, with the scripted fake provider."""

from __future__ import annotations

import asyncio

import pytest

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.agent.strategies import choose_strategy
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

NEEDLE = "The special magic uuid for amber-quay-17 is 5f0c8a2e-91b4-4d7e-a1c3-77e2d9b04f15."
SMALL = '[models."small"]\nprovider = "fake"\nnum_ctx = 2048\ntools = false\nparams_b = 0.1\n'


@pytest.fixture
def rt(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(SMALL)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    filler = "Boats were painted blue in the spring and green in the autumn. " * 60
    for i in range(3):
        text = filler + (NEEDLE + " " if i == 1 else "") + filler
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source=f"part{i}.txt", source_type="inline")
    yield runtime, sid
    runtime.close()


def _answer_from_prompt(request: ChatRequest) -> ChatResult:
    """A 'model' that can only copy what it was shown: proves what reached the prompt."""
    prompt = request.messages[-1].content
    if "amber-quay-17 is " in prompt:
        return reply(prompt.split("amber-quay-17 is ")[1].split(".")[0][:36])
    if "Partial answers" in prompt:
        return reply(prompt.split("- part 1: ")[1].split("\n")[0])
    return reply("NOT FOUND")


async def test_search_strategy_reads_the_best_passage_and_cites_it(rt):
    runtime, sid = rt
    fake = FakeProvider(script=_answer_from_prompt)
    result = await run_query(runtime, sid, "What is the special magic uuid for amber-quay-17?",
                             QueryOptions(provider="fake", model="small", strategy="search"),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "5f0c8a2e-91b4-4d7e-a1c3-77e2d9b04f15"
    assert len(fake.requests) == 1 and fake.requests[0].tools == []
    # The excerpt shown to the model is small (a few passages, not the corpus).
    assert len(fake.requests[0].messages[-1].content) < 4000
    text = runtime.store.text(runtime.store.documents(sid)[1])
    start = text.index(NEEDLE)
    assert any(c.start <= start and c.end >= start + len(NEEDLE) and
               verify_citation(runtime.store, sid, c)["valid"] for c in result.citations)


async def test_map_reduce_asks_every_chunk_within_a_concurrency_bound(rt):
    runtime, sid = rt
    in_flight, peak = 0, 0

    async def script(request: ChatRequest) -> ChatResult:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return _answer_from_prompt(request)

    fake = FakeProvider(script=script)
    result = await run_query(runtime, sid, "What is the special magic uuid for amber-quay-17?",
                             QueryOptions(provider="fake", model="small",
                                          strategy="map-reduce"),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "5f0c8a2e-91b4-4d7e-a1c3-77e2d9b04f15"
    total = sum(d.length_chars for d in runtime.store.documents(sid))
    # 2048-token window: each chunk is well under the corpus, so there are several calls.
    assert len(fake.requests) >= total // ((2048 - 1024) * 3)
    assert 1 < peak <= 4
    assert all(len(r.messages[-1].content) <= (2048 - 1024) * 3 for r in fake.requests)
    # Only the chunk that held the answer is cited.
    assert len(result.citations) == 1
    assert verify_citation(runtime.store, sid, result.citations[0])["valid"]


def test_auto_picks_agent_for_capable_models_and_search_for_small(rt):
    runtime, _ = rt
    small = TierPlan.from_models(runtime.catalog, provider=None, model="small").at(0)
    big = TierPlan.from_models(runtime.catalog, provider=None, model="qwen3:8b").at(0)
    tiny_ollama = TierPlan.from_models(runtime.catalog, provider=None, model="qwen3:1.7b").at(0)
    assert choose_strategy("auto", small) == "search"
    assert choose_strategy("auto", big) == "agent"
    assert choose_strategy("auto", tiny_ollama) == "search"
    assert choose_strategy("map-reduce", big) == "map-reduce"


async def test_auto_is_recorded_in_the_result(rt):
    runtime, sid = rt
    fake = FakeProvider(script=_answer_from_prompt)
    result = await run_query(runtime, sid, "What is the special magic uuid for amber-quay-17?",
                             QueryOptions(provider="fake", model="small"),
                             providers=ProviderPool({"fake": fake}))
    assert result.strategy == "search" and result.provider == "fake"


def test_auto_routes_questions_that_compute_over_the_corpus_to_repl(rt):
    runtime, _ = rt
    big = TierPlan.from_models(runtime.catalog, provider="ollama", model="qwen3:8b").at(0)
    small = TierPlan.from_models(runtime.catalog, provider="fake", model="small").at(0)
    computing = ["How many log lines are ERROR from service billing?",
                 "Count the invoices that are overdue.", "What is the total of all refunds?",
                 "List all pairs of users that share an address.",
                 "Which error code is the most common per service?"]
    looking_up = ["What is the special magic uuid for amber-quay-17?",
                  "Who signed the lease?", "When was the pump serviced?"]
    assert [choose_strategy("auto", big, q) for q in computing] == ["repl"] * 5
    assert [choose_strategy("auto", big, q) for q in looking_up] == ["agent"] * 3
    # Small models cannot write the code: the runtime counts for them (issue 10's strategy).
    assert choose_strategy("auto", small, computing[0]) == "count"
