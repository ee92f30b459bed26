"""Audit completeness (bytes, model, cost) and the per-response cap on artifacts and sub-queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import ClientSubQueries
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.fake import FakeProvider, reply

MODELS = """
[models."priced-leaf"]
provider = "fake"
num_ctx = 16384
tools = false
params_b = 0.1
cost_in_per_mtok = 3000.0
cost_out_per_mtok = 15000.0

[presets.priced]
tiers = [{ model = "priced-leaf" }]
"""
LONG = "0123456789" * 20_000  # 200,000 characters


@pytest.fixture
def rt(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch):
    models = tmp_path / "models.toml"
    models.write_text(MODELS, encoding="utf-8")
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(data_dir, "unrestricted")
    yield runtime
    runtime.close()


def _audit(data_dir: Path, tool: str) -> list[dict]:
    lines = (data_dir / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r["tool"] == tool]


async def _session(rt: Runtime, **config) -> str:
    result = await rt.call("rlm_session_create", {"name": "caps", **config})
    assert not result.is_error, result.output
    return result.output["session_id"]


async def test_docs_load_records_the_bytes_it_read(rt, data_dir, tmp_path):
    text = "Ünïcödé line 😀\n" * 100
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    sid = await _session(rt)
    result = await rt.call("rlm_docs_load", {"session_id": sid, "sources": [
        {"type": "file", "path": "a.txt"}, {"type": "inline", "content": "inline text"}]})
    assert not result.is_error and len(result.output["loaded"]) == 2
    (record,) = _audit(data_dir, "rlm_docs_load")
    assert record["bytes_read"] == len(text.encode("utf-8")) + len(b"inline text")


async def test_docs_load_over_mcp_records_the_bytes_it_read(rt, data_dir):
    async with Client(build_server(rt)) as client:
        sid = json.loads((await client.call_tool("rlm_session_create", {})).content[0].text)[
            "session_id"]
        result = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "x" * 1234}]})
    assert not result.is_error
    assert _audit(data_dir, "rlm_docs_load")[-1]["bytes_read"] == 1234


async def _loaded(rt: Runtime, sid: str, text: str) -> str:
    result = await rt.call("rlm_docs_load", {"session_id": sid, "sources": [
        {"type": "inline", "content": text}]})
    return result.output["loaded"][0]["doc_id"]


def _ctx(rt: Runtime, sid: str, fake: FakeProvider):
    ctx = rt.context(sid)
    ctx.sub_query = ClientSubQueries(rt, ProviderPool({"fake": fake}))
    return ctx


async def test_sub_query_records_model_and_cost(rt, data_dir):
    sid = await _session(rt)
    doc_id = await _loaded(rt, sid, "The vault code is 5521.")
    fake = FakeProvider(script=lambda r: reply("5521", model=r.model, tokens=(100, 10)))
    result = await rt.call("rlm_sub_query", {"session_id": sid, "query": "code?",
                                             "doc_id": doc_id, "tier_strategy": "priced"},
                           _ctx(rt, sid, fake))
    assert not result.is_error, result.output
    (record,) = _audit(data_dir, "rlm_sub_query")
    assert record["model_used"] == "priced-leaf"
    assert record["cost"] == pytest.approx(result.output["usage"]["cost_usd"])
    assert record["cost"] > 0


async def test_sub_query_batch_records_one_model_and_the_summed_cost(rt, data_dir):
    sid = await _session(rt)
    a = await _loaded(rt, sid, "Alpha 1.")
    b = await _loaded(rt, sid, "Beta 2.")
    fake = FakeProvider(script=lambda r: reply(f"ok {len(r.messages)}", model=r.model))
    result = await rt.call("rlm_sub_query_batch", {"session_id": sid, "query": "what?",
                                                   "doc_ids": [a, b], "tier_strategy": "priced"},
                           _ctx(rt, sid, fake))
    assert not result.is_error, result.output
    (record,) = _audit(data_dir, "rlm_sub_query_batch")
    costs = [r["usage"]["cost_usd"] for r in result.output["results"]]
    assert record["model_used"] == "priced-leaf"
    assert record["cost"] == pytest.approx(sum(costs)) and record["cost"] > 0


async def test_sub_query_responses_obey_the_per_response_cap(rt):
    sid = await _session(rt, max_chars_per_response=500)
    doc_id = await _loaded(rt, sid, "Some text.")
    fake = FakeProvider(script=lambda r: reply("y" * 5000, model=r.model))
    ctx = _ctx(rt, sid, fake)
    single = await rt.call("rlm_sub_query", {"session_id": sid, "query": "q", "doc_id": doc_id,
                                             "tier_strategy": "priced"}, ctx)
    assert single.output["response"] == "y" * 500 and single.output["truncated"] is True
    batch = await rt.call("rlm_sub_query_batch", {"session_id": sid, "query": "q2",
                                                  "doc_ids": [doc_id], "tier_strategy": "priced"},
                          ctx)
    (answer,) = batch.output["results"]
    assert answer["response"] == "y" * 500 and answer["truncated"] is True
    fake_short = FakeProvider(script=lambda r: reply("short", model=r.model))
    short = await rt.call("rlm_sub_query", {"session_id": sid, "query": "q3", "doc_id": doc_id,
                                            "tier_strategy": "priced"}, _ctx(rt, sid, fake_short))
    assert short.output["response"] == "short" and short.output["truncated"] is False


@pytest.mark.parametrize("content", [LONG, {"items": [LONG[:1000]] * 200}])
async def test_artifact_get_obeys_the_per_response_cap(rt, content):
    sid = await _session(rt)  # default cap: 50,000 characters
    stored = await rt.call("rlm_artifact_store", {"session_id": sid, "content": content})
    got = await rt.call("rlm_artifact_get", {"session_id": sid,
                                             "artifact_id": stored.output["artifact_id"]})
    assert not got.is_error
    body = got.output["content"]
    assert isinstance(body, str) and len(body) == 50_000 and got.output["truncated"] is True
    whole = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    assert whole.startswith(body)
    assert len(json.dumps(got.output)) < 60_000


async def test_a_short_artifact_comes_back_whole(rt):
    sid = await _session(rt)
    for content in ("short text", {"k": [1, 2, 3]}):
        stored = await rt.call("rlm_artifact_store", {"session_id": sid, "content": content})
        got = await rt.call("rlm_artifact_get", {"session_id": sid,
                                                 "artifact_id": stored.output["artifact_id"]})
        assert got.output["content"] == content and got.output["truncated"] is False
