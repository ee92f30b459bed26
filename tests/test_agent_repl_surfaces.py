"""The repl strategy through the surfaces: the CLI (`query --strategy repl --json`, Ollama
mocked with respx) and the MCP answerer (`rlm_query` with strategy "repl")."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import respx
from mcp import Client
from typer.testing import CliRunner

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.cli.app import app
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

HOST = "http://127.0.0.1:11434"
LOG = "".join(f"line {i} {'ERROR' if i % 7 == 0 else 'INFO'} worker\n" for i in range(700))


def chat_body(model: str, content: str) -> dict:
    return {"model": model, "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content}, "done": True,
            "done_reason": "stop", "total_duration": 1000, "load_duration": 10,
            "prompt_eval_count": 50, "prompt_eval_duration": 10, "eval_count": 8,
            "eval_duration": 10}


def test_cli_query_strategy_repl_prints_the_execution_record(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", HOST)
    (tmp_path / "app.log").write_text(LOG)
    steps = ["n = len(context[0].regex('ERROR'))\nprint(n)", "FINAL(str(n))"]

    def respond(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        return httpx.Response(200, json=chat_body(body["model"],
                                                  f"```repl\n{steps[turn]}\n```"))

    with respx.mock(base_url=HOST, assert_all_called=False) as mock:
        mock.post("/api/chat").mock(side_effect=respond)
        result = CliRunner().invoke(app, ["query", "How many ERROR lines?", "app.log",
                                          "--strategy", "repl", "--preset", "fully-local",
                                          "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout[result.stdout.index("{"):])
    assert out["answer"] == "100" and out["strategy"] == "repl"
    execution = out["execution"]
    assert execution["id"] == out["execution_id"] and execution["status"] == "COMPLETED"
    assert [s["turn_index"] for s in execution["steps"]] == [1, 2]
    assert execution["steps"][0]["stdout"] == "100\n"
    assert len(execution["steps"][0]["span_log"]) == 100


def _catalog():
    catalog = load_catalog()
    catalog.models["coder"] = ModelInfo(name="coder", provider="fake", tools=True,
                                        params_b=70, num_ctx=32768)
    catalog.presets["coder"] = Preset(tiers=[TierSpec(model="coder")])
    return catalog


async def test_mcp_rlm_query_with_strategy_repl(data_dir: Path):
    runtime = Runtime(data_dir, "unrestricted", catalog=_catalog())
    steps = iter(["rows = context[0].lines(0, 3)\nFINAL(rows.splitlines()[2])"])

    def script(request: ChatRequest) -> ChatResult:
        return reply(f"```repl\n{next(steps)}\n```")

    server = build_server(runtime, providers=ProviderPool({"fake": FakeProvider(script=script)}))
    try:
        async with Client(server) as client:
            result = await client.call_tool("rlm_query", {
                "task": "What is the third line?", "context": LOG, "preset": "coder",
                "strategy": "repl"})
        body = json.loads(result.content[0].text)
        assert not result.is_error, body
        assert body["data"]["answer"] == "line 2 INFO worker"
        assert body["meta"]["strategy"] == "repl" and body["meta"]["execution_id"]
        (citation,) = body["data"]["citations"]
        assert (citation["start"], citation["end"]) == (0, LOG.index("line 3"))
        assert citation["doc_index"] == 0 and citation["start_char"] == 0
    finally:
        runtime.close()


async def test_peek_carries_the_citation_checksum_format(runtime: Runtime):
    from rlm_recursive.agent.citations import Citation, verify_citation
    from rlm_recursive.config import SessionConfig

    sid = runtime.store.create_session("c", SessionConfig())["session_id"]
    text = "Cafe\u0301 au lait, 3 \u20ac.\n"  # a decomposed é: NFC changes the bytes
    doc = runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                     source="nfc.txt", source_type="inline")
    out = (await runtime.call("rlm_docs_peek", {"session_id": sid, "doc_id": doc.id})).output
    assert out["checksum"].startswith("sha256:") and len(out["content_hash"]) == 64
    cited = Citation(doc_id=doc.id, start=0, end=len(text), checksum=out["checksum"])
    assert verify_citation(runtime.store, sid, cited)["valid"]
