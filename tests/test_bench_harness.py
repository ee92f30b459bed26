"""The shared bench harness with the fake model: rows, scores, the direct cut, the CLI."""

from __future__ import annotations

import json

from strategy_support import small_runtime, tool_name
from typer.testing import CliRunner

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions
from rlm_recursive.bench import oolong
from rlm_recursive.bench.harness import run_bench
from rlm_recursive.cli.app import app
from rlm_recursive.errors import ProviderError
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply, tool_reply


async def test_direct_and_runner_rows_with_scores_calls_and_tokens(tmp_path, monkeypatch):
    small_runtime(tmp_path, monkeypatch, num_ctx=2048).close()  # writes the fake catalog
    tasks = oolong.make_tasks(1, ["count"], [20_000], 3)
    direct_prompts: list[int] = []

    def script(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_count_plan":
            return tool_reply("rlm_count_plan", {})
        direct_prompts.append(len(request.messages[-1].content))
        return reply("7")  # the model used directly guesses

    seen: list[int] = []
    report = await run_bench(
        "oolong", tasks, seed=1, methods=("direct", "count"),
        options=QueryOptions(provider="fake", model="small"), data_dir=tmp_path / "bench",
        progress=lambda done, total, latest: seen.append(done),
        providers=ProviderPool({"fake": FakeProvider(script=script)}))
    assert seen == [1, 2, 3]
    rows = {row["method"]: row for row in report["rows"]}
    assert rows["runner:count"]["accuracy"] == 1.0 and rows["runner:count"]["exact"] == 1.0
    assert rows["runner:count"]["mean_model_calls"] == 0  # counted by code alone
    golds = [int(t.gold) for t in tasks]
    assert rows["direct"]["accuracy"] == round(sum(0.75 ** abs(7 - g) for g in golds) / 3, 3)
    # The direct baseline is cut to the window (2048 tokens less the reply, 3 chars each).
    assert direct_prompts and all(n <= (2048 - 1100) * 3 for n in direct_prompts)
    assert json.loads(json.dumps(report))["tasks"] == 3


def test_cli_rejects_an_unknown_kind():
    result = CliRunner().invoke(app, ["bench", "oolong", "--kinds", "count,bogus"])
    assert result.exit_code == 2
    assert "bogus" in result.output


async def test_a_provider_error_carries_its_cause(tmp_path, monkeypatch):
    small_runtime(tmp_path, monkeypatch, num_ctx=2048).close()
    tasks = oolong.make_tasks(1, ["count"], [20_000], 1)

    def script(request: ChatRequest) -> ChatResult:
        raise ProviderError("model returned invalid JSON for a tool call: bad control character")

    report = await run_bench(
        "oolong", tasks, seed=1, methods=("direct", "classify"),
        options=QueryOptions(provider="fake", model="small"), data_dir=tmp_path / "bench",
        providers=ProviderPool({"fake": FakeProvider(script=script)}))
    for outcome in report["outcomes"]:
        assert outcome["error"] == "provider_error"
        assert "invalid JSON for a tool call" in outcome["error_detail"]
