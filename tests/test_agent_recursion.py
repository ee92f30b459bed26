"""Recursion with the fake provider: depth caps, call traces, tiers per depth, the shared budget."""

from __future__ import annotations

import json
import re

import pytest

from rlm_recursive.agent.budget import Budget, BudgetLimits
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.recursion import RecursionState, TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import load_catalog
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import BudgetExceeded, ConfigError, InvalidArgs
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply, tool_reply

USER_MODELS = """
[models."fake-root"]
provider = "fake"
num_ctx = 16384
[models."fake-mid"]
provider = "fake"
num_ctx = 16384
[models."fake-leaf"]
provider = "fake"
num_ctx = 16384
tools = false
params_b = 0.1
[presets.fake-tiers]
tiers = [{ model = "fake-root" }, { model = "fake-mid" }, { model = "fake-leaf" }]
"""


@pytest.fixture
def rt(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(USER_MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data")
    yield runtime
    runtime.close()


@pytest.fixture
def sid(rt):
    session = rt.store.create_session("r", SessionConfig())["session_id"]
    text = "Alpha section. The vault code is 5521. " * 30
    rt.store.add_document(session, text.encode(), length_chars=len(text), source="v.txt",
                          source_type="inline")
    return session


def recursive_script(request: ChatRequest) -> ChatResult:
    """With sub-query tools: delegate once, then answer with what came back. Without: answer."""
    tool_names = {t.name for t in request.tools}
    results = [json.loads(m.content) for m in request.messages if m.role == "tool"]
    if "rlm_sub_query" in tool_names and not results:
        # The root sees doc ids in its overview, a sub-agent in its question.
        doc_id = re.search(r"doc_[0-9a-f]{12}", request.messages[0].content
                           + request.messages[1].content).group(0)
        return tool_reply("rlm_sub_query", {"query": "what is the vault code?",
                                            "doc_id": doc_id, "max_depth": 5})
    if results:
        inner = results[-1].get("response") or results[-1].get("error")
        return tool_reply("rlm_final_answer", {"answer": f"{request.model}<-{inner}"})
    return reply(f"{request.model}:5521")


async def test_three_levels_with_per_depth_tiers_option_c(rt, sid):
    fake = FakeProvider(script=recursive_script)
    # The answer is a trace of the tiers, not a grounded one (grounding: test_grounding.py).
    options = QueryOptions(preset="fake-tiers", max_depth=3, strategy="agent", grounding=False)
    result = await run_query(rt, sid, "vault code?", options,
                             providers=ProviderPool({"fake": fake}))
    # depth 0 root → 1 mid → 2 leaf → 3 leaf again (the last tier applies below it)
    trace = result.recursion["call_trace"]
    assert [c["depth"] for c in trace] == [1, 2, 3]
    assert [c["model"] for c in trace] == ["fake-mid", "fake-leaf", "fake-leaf"]
    assert [c["parent"] for c in trace] == [None, "q1", "q2"]
    assert result.recursion["final_depth"] == 3 <= result.recursion["max_depth"]
    assert result.answer == "fake-root<-fake-mid<-fake-leaf<-fake-leaf:5521"
    # Tools only while depth < max_depth: the depth-3 call is a plain completion.
    by_model_tools = [(r.model, bool(r.tools)) for r in fake.requests]
    assert by_model_tools[:4] == [("fake-root", True), ("fake-mid", True),
                                  ("fake-leaf", True), ("fake-leaf", False)]
    assert [m for m, tools in by_model_tools if not tools] == ["fake-leaf"]
    assert result.usage["sub_calls"] == 3


async def test_depth_never_exceeds_max_depth(rt, sid):
    fake = FakeProvider(script=recursive_script)
    result = await run_query(rt, sid, "q", QueryOptions(preset="fake-tiers", max_depth=1,
                                                        strategy="agent", grounding=False),
                             providers=ProviderPool({"fake": fake}))
    assert [c["depth"] for c in result.recursion["call_trace"]] == [1]
    # max_depth 1: the depth-1 sub-call is a plain completion, offered no tools.
    assert [(r.model, bool(r.tools)) for r in fake.requests] == [
        ("fake-root", True), ("fake-mid", False), ("fake-root", True)]
    assert result.answer == "fake-root<-fake-mid:5521"


async def test_option_a_recursive_model_applies_below_the_root(rt, sid):
    fake = FakeProvider(script=recursive_script)
    options = QueryOptions(provider="fake", model="fake-root", recursive_model="fake-leaf",
                           max_depth=2, strategy="agent")
    result = await run_query(rt, sid, "q", options, providers=ProviderPool({"fake": fake}))
    assert [c["model"] for c in result.recursion["call_trace"]] == ["fake-leaf", "fake-leaf"]
    assert fake.requests[0].model == "fake-root"


async def test_option_b_model_tiers_map(rt, sid):
    fake = FakeProvider(script=recursive_script)
    options = QueryOptions(model_tiers={"0": "fake/fake-mid", "1": {"model": "fake-root"}},
                           max_depth=2, strategy="agent")
    result = await run_query(rt, sid, "q", options, providers=ProviderPool({"fake": fake}))
    assert fake.requests[0].model == "fake-mid"
    assert [c["model"] for c in result.recursion["call_trace"]] == ["fake-root", "fake-root"]


def test_tier_plans_resolve_and_reject_bad_input(rt):
    catalog = rt.catalog
    plan = TierPlan.from_preset(catalog, "fake-tiers")
    assert [plan.at(d).model for d in range(5)] == ["fake-root", "fake-mid", "fake-leaf",
                                                     "fake-leaf", "fake-leaf"]
    with pytest.raises(ConfigError) as err:
        TierPlan.from_preset(catalog, "nope")
    assert err.value.code == "invalid_args" and "nope" in str(err.value)
    with pytest.raises(InvalidArgs):
        TierPlan.from_map(catalog, {"0": "fake/fake-root", "2": "fake/fake-leaf"})
    with pytest.raises(ConfigError):
        TierPlan.from_models(catalog, provider=None, model="not-catalogued")


def test_bad_models_toml_names_the_offending_key(tmp_path, monkeypatch):
    bad = tmp_path / "bad.toml"
    bad.write_text('[presets.x]\ntiers = [{ model = "ghost" }]\n')
    with pytest.raises(ConfigError) as err:
        load_catalog(bad)
    assert err.value.details["key"] == "presets.x.tiers.0.model"
    bad.write_text("[models.x\nprovider=")
    with pytest.raises(ConfigError) as err:
        load_catalog(bad)
    assert "not valid TOML" in str(err.value)
    bad.write_text('[models."m"]\nprovider = "nowhere"\n')
    with pytest.raises(ConfigError) as err:
        load_catalog(bad)
    assert err.value.details["key"].startswith("models.m.provider")


async def test_shared_budget_stops_the_tree(rt, sid):
    fake = FakeProvider(script=recursive_script)
    options = QueryOptions(preset="fake-tiers", max_depth=3, strategy="agent", max_sub_calls=2)
    with pytest.raises(BudgetExceeded) as err:
        await run_query(rt, sid, "q", options, providers=ProviderPool({"fake": fake}))
    assert err.value.details["limit"] == "max_sub_calls"
    # Two sub-calls were made (depth 1 and 2); the third was refused before any model call.
    assert [r.model for r in fake.requests] == ["fake-root", "fake-mid", "fake-leaf"]


def test_child_budget_never_outspends_its_parent():
    parent = Budget(BudgetLimits(max_sub_calls=3))
    child = parent.child(BudgetLimits(max_sub_calls=10))
    for _ in range(3):
        child.charge_sub_call()
    with pytest.raises(BudgetExceeded):
        child.charge_sub_call()
    assert parent.spent.sub_calls == 3
    grandchild = child.child(BudgetLimits(max_sub_calls=1))
    with pytest.raises(BudgetExceeded):
        grandchild.charge_sub_call()


def test_recursion_state_caps():
    with pytest.raises(InvalidArgs):
        RecursionState(max_depth=6)
    root = RecursionState(max_depth=2)
    child = root.descend("a")
    grandchild = child.descend("b", max_depth=1)  # a child may lower, not raise, the cap
    assert (grandchild.depth, grandchild.max_depth) == (2, 1)
    assert not grandchild.can_recurse()
    with pytest.raises(InvalidArgs):
        grandchild.descend("c")
    assert root.descend("x", max_depth=9).max_depth == 2


async def test_identical_temperature_zero_sub_calls_are_served_from_the_cache(rt, sid):
    from rlm_recursive.agent.query import ClientSubQueries

    doc_id = rt.store.documents(sid)[0].id
    fake = FakeProvider(script=lambda r: reply(f"answer {len(fake.requests)}"))
    ctx = rt.context(sid)
    ctx.sub_query = ClientSubQueries(rt, ProviderPool({"fake": fake}))
    args = {"session_id": sid, "query": "vault code?", "doc_ids": [doc_id, doc_id],
            "concurrency": 1, "tier_strategy": "fake-tiers"}
    result = await rt.registry.invoke("rlm_sub_query_batch", args, ctx)
    responses = [r["response"] for r in result.output["results"]]
    assert responses == ["answer 1", "answer 1"]  # the second came from the cache
    assert len(fake.requests) == 1
    other = await rt.registry.invoke("rlm_sub_query_batch", {**args, "query": "other?"}, ctx)
    assert other.output["results"][0]["response"] == "answer 2" and len(fake.requests) == 2
