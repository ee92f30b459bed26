"""The fixed part of every agent prompt (system text + the turn's tool menu) stays ≤ 1,500
tokens, so a 4,096-token model keeps room for a real conversation."""

from __future__ import annotations

import json

import pytest

from rlm_recursive.agent.loop import tools_for
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, build_run
from rlm_recursive.agent.recursion import RecursionState, TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.agent.strategies.agent import ROOT_SYSTEM, overview
from rlm_recursive.config import SessionConfig
from rlm_recursive.types import ToolDef

BUDGET = 1500


@pytest.fixture
def rc(runtime: Runtime):
    sid = runtime.store.create_session("p", SessionConfig())["session_id"]
    text = "Notes. " * 2000
    runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                               source="corpus/report.txt", source_type="inline")
    plan = TierPlan.from_models(runtime.catalog, provider="fake", model="m")
    return build_run(runtime, sid, plan, QueryOptions(), ProviderPool())


def _chars(system: str, tools: list[ToolDef]) -> int:
    """As the loop counts a prompt (and as an Ollama request carries the schemas)."""
    return len(system) + sum(t.chars for t in tools)


def _menus(rc) -> dict[str, list[ToolDef]]:
    root = RecursionState(depth=0, max_depth=1)
    return {
        "first turn": tools_for(rc, root),
        "look-back": tools_for(rc, root, frozenset(), lookback=True),
        "after chunking, look-back": tools_for(rc, root, frozenset({"rlm_chunk_create"}), True),
    }


def test_fixed_prompt_fits_1500_tokens_by_the_loops_own_rule(rc) -> None:
    system = ROOT_SYSTEM.format(overview=overview(rc))
    for label, tools in _menus(rc).items():
        assert _chars(system, tools) / 3 <= BUDGET, label
    first = {t.name for t in _menus(rc)["first turn"]}
    assert "lcm_grep" not in first and "rlm_span_get" not in first
    assert {"lcm_grep", "lcm_expand"} <= {t.name for t in _menus(rc)["look-back"]}


@pytest.mark.slow
def test_fixed_prompt_by_the_embedded_models_tokenizer(rc) -> None:
    pytest.importorskip("llama_cpp")
    from rlm_recursive.providers.embedded import EmbeddedProvider

    count = EmbeddedProvider().count_tokens
    system = ROOT_SYSTEM.format(overview=overview(rc))
    for label, tools in _menus(rc).items():
        schemas = json.dumps([{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools])
        assert count(system) + count(schemas) <= BUDGET, label
