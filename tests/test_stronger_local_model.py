"""A stronger local model when the user has one: any GGUF as the embedded model, and the small
code models as first-class tiers (the `coder-local` preset)."""

from __future__ import annotations

import pytest
from strategy_support import load

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import load_catalog
from rlm_recursive.errors import ProviderError
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.embedded import EmbeddedProvider, default_model_path
from rlm_recursive.providers.fake import FakeProvider, reply


def test_rlm_embedded_model_names_any_gguf(tmp_path, monkeypatch):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("RLM_EMBEDDED_MODEL", str(gguf))
    assert default_model_path() == gguf
    assert EmbeddedProvider().model_path == gguf
    # A models.toml entry's own gguf still wins for that model.
    other = tmp_path / "other.gguf"
    assert EmbeddedProvider(model_path=other).model_path == other


def test_a_missing_rlm_embedded_model_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("RLM_EMBEDDED_MODEL", str(tmp_path / "nope.gguf"))
    with pytest.raises(ProviderError, match="RLM_EMBEDDED_MODEL"):
        default_model_path()


def test_the_coder_local_preset_puts_a_code_model_at_the_root_and_smollm2_below():
    catalog = load_catalog()
    plan = TierPlan.from_preset(catalog, "coder-local")
    root, leaf = plan.at(0), plan.at(1)
    assert root.model == "qwen2.5-coder:1.5b" and root.provider == "ollama"
    assert root.info.code and root.info.is_small
    assert leaf.model == "smollm2-135m" and leaf.provider == "embedded"
    assert catalog.model("qwen2.5-coder:0.5b", "ollama").code


CODER = ('[models."coder-small"]\nprovider = "fake"\nnum_ctx = 8192\ntools = false\n'
         'params_b = 1.5\ncode = true\n')


async def test_a_small_code_model_writes_the_count_the_runtime_cannot_plan(tmp_path,
                                                                          monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(CODER)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "store")
    try:
        lines = "".join(f"req {i} took {i * 7 % 900}ms\n" for i in range(60))
        sid = load(runtime, lines)
        gold = sum(i * 7 % 900 > 500 for i in range(60))
        code = ("import re\nn = 0\nfor m in context[0].regex(r'took (\\d+)ms'):\n"
                "    if int(m['groups'][0]) > 500:\n        n = n + 1\nFINAL(str(n))")

        def script(request: ChatRequest) -> ChatResult:
            return reply(f"```repl\n{code}\n```")

        fake = FakeProvider(script=script)
        result = await run_query(runtime, sid, "How many requests took over 500 ms?",
                                 QueryOptions(provider="fake", model="coder-small"),
                                 providers=ProviderPool({"fake": fake}))
        assert result.strategy == "repl" and result.answer == str(gold)
        # A plain count it can plan exactly is still counted by code, with no model call.
        counted = await run_query(runtime, sid, "How many lines mention req?",
                                  QueryOptions(provider="fake", model="coder-small"),
                                  providers=ProviderPool({"fake": FakeProvider(script=script)}))
        assert counted.strategy == "count" and counted.answer.startswith("60 ")
    finally:
        runtime.close()
