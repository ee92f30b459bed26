"""Which model answers: option B (`model_tiers`) on every surface, and a session's
`model_hints` honoured wherever no explicit choice is given."""

from __future__ import annotations

import pytest
import typer

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import ClientSubQueries, QueryOptions, resolve_plan, run_query
from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api.routes.executions import ExecutionIn
from rlm_recursive.catalog import load_catalog
from rlm_recursive.cli.options import tier_map
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import EgressDenied
from rlm_recursive.mcp_server.query_tool import RlmQueryArgs, rlm_query_schema
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.tools.subquery import SubQueryArgs

USER_MODELS = """
[models."fake-root"]
provider = "fake"
num_ctx = 16384
[models."fake-sub"]
provider = "fake"
num_ctx = 16384
[providers.gpu-box]
type = "openai"
base_url = "http://127.0.0.1:8000/v1"
[profiles.{profile}]
allow_model_override = {override}
"""


def _runtime(tmp_path, monkeypatch, *, override: bool, profile: str = "unrestricted"):
    models = tmp_path / "models.toml"
    models.write_text(USER_MODELS.format(profile=profile, override=str(override).lower()))
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data", profile=profile)
    return runtime


def _session(runtime: Runtime, hints: dict[str, str] | None) -> str:
    sid = runtime.store.create_session("m", SessionConfig(model_hints=hints))["session_id"]
    text = "Alpha section. The vault code is 5521. " * 30
    doc = runtime.store.add_document(sid, text.encode(), length_chars=len(text), source="v.txt",
                                     source_type="inline")
    runtime.doc_id = doc.id  # type: ignore[attr-defined]
    return sid


def _echo(request: ChatRequest) -> ChatResult:
    return reply(f"{request.model} says 5521 (Alpha section)", model=request.model)


def test_tier_flags_parse_and_bad_ones_are_refused() -> None:
    assert tier_map(["0=qwen3:8b", "1=openai/Qwen/Qwen3-8B"]) == {
        "0": "qwen3:8b", "1": "openai/Qwen/Qwen3-8B"}
    assert tier_map(None) is None
    for bad in (["qwen3:8b"], ["x=qwen3:8b"], ["0="], ["0=a", "0=b"]):
        with pytest.raises(typer.BadParameter):
            tier_map(bad)


def test_a_provider_prefix_counts_only_when_it_names_a_provider(tmp_path, monkeypatch) -> None:
    runtime = _runtime(tmp_path, monkeypatch, override=True)
    plan = TierPlan.from_map(runtime.catalog, {"0": "openai/Qwen/Qwen3-8B",
                                               "1": "gpu-box/Qwen/Qwen3-8B"})
    assert [(t.provider, t.model) for t in plan.tiers] == [
        ("openai", "Qwen/Qwen3-8B"), ("gpu-box", "Qwen/Qwen3-8B")]
    runtime.close()


def test_model_tiers_is_a_field_of_mcp_rlm_query_sub_query_and_http_execution() -> None:
    tiers = {"0": "fake/fake-root", "1": "fake/fake-sub"}
    assert "model_tiers" in rlm_query_schema()["properties"]
    args = RlmQueryArgs(task="q", context="text", model_tiers=tiers)
    assert args.model_tiers == tiers
    sub = SubQueryArgs(session_id="s", query="q", doc_id="d", model_tiers=tiers)
    assert sub.model_tiers == tiers
    body = ExecutionIn.model_validate({"question": "q", "models": {"model_tiers": tiers}})
    assert body.query_options().model_tiers == tiers


async def test_session_hints_choose_root_and_sub_models(tmp_path, monkeypatch) -> None:
    runtime = _runtime(tmp_path, monkeypatch, override=True)
    sid = _session(runtime, {"root_model": "fake/fake-root", "subcall_model": "fake/fake-sub"})
    fake = FakeProvider(script=_echo)
    pool = ProviderPool({"fake": fake})
    result = await run_query(runtime, sid, "What is the vault code?",
                             QueryOptions(strategy="search", max_depth=0), providers=pool)
    assert result.model == "fake-root" and "model_hints" in result.provider_reason
    # A client's sub-query runs at depth 1: the hinted sub-call model answers it.
    sub = await ClientSubQueries(runtime, pool).run(
        runtime.context(sid), SubQueryArgs(session_id=sid, query="code?",
                                                doc_id=runtime.doc_id))
    assert sub.output["model"] == "fake-sub"
    # An explicit choice still wins over the hints.
    explicit = await run_query(runtime, sid, "q?", QueryOptions(
        model_tiers={"0": "fake/fake-sub"}, strategy="search", max_depth=0), providers=pool)
    assert explicit.model == "fake-sub"
    await pool.aclose()
    runtime.close()


async def test_a_missing_hint_takes_the_default_plan_tier(tmp_path, monkeypatch) -> None:
    runtime = _runtime(tmp_path, monkeypatch, override=True)
    catalog = load_catalog()
    plan, reason = await resolve_plan(catalog, runtime.profile, QueryOptions(provider="embedded"),
                                      {"subcall_model": "fake/fake-sub"})
    assert [plan.at(0).model, plan.at(1).model] == ["smollm2-135m", "fake-sub"]
    assert reason.startswith("session model_hints over")
    runtime.close()


async def test_a_clients_hints_follow_the_profiles_override_rule(tmp_path, monkeypatch):
    runtime = _runtime(tmp_path, monkeypatch, override=False)
    sid = _session(runtime, {"root_model": "fake/fake-root"})
    pool = ProviderPool({"fake": FakeProvider(script=_echo)})
    with pytest.raises(EgressDenied, match="allow_model_override"):
        await run_query(runtime, sid, "q?", QueryOptions(strategy="search", max_depth=0,
                                                           client_override=True), providers=pool)
    # The operator's own run (CLI) on the same session uses them.
    result = await run_query(runtime, sid, "q?", QueryOptions(strategy="search", max_depth=0),
                             providers=pool)
    assert result.model == "fake-root"
    await pool.aclose()
    runtime.close()
