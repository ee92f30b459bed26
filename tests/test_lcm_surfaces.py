"""LCM on every surface: registry tools, MCP (tools and rlm_query follow-ups), CLI, chat;
each on both backends (SQLite in the data dir, PostgreSQL by RLM_DATABASE_URL)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lcm_fixtures import TURN3_FACT, RawDatabase, build_conversation, small_config
from mcp import Client
from typer.testing import CliRunner

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.cli import chat as chat_cli
from rlm_recursive.cli.app import app
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply


@pytest.fixture(autouse=True)
def backend(database_url: str | None) -> str | None:
    return database_url


def _catalog():
    catalog = load_catalog()
    catalog.models["scripted"] = ModelInfo(name="scripted", provider="fake", tools=False,
                                           params_b=0.1, num_ctx=8192)
    catalog.presets["scripted"] = Preset(tiers=[TierSpec(model="scripted")])
    return catalog


def _echo(request: ChatRequest) -> ChatResult:
    """Answers with how many earlier turns it was shown, and the question it got."""
    asked = request.messages[-1].content.rsplit("Question: ", 1)[-1].split("\n")[0]
    return reply(f"({len(request.messages) - 2} earlier) answer to: {asked}",
                 model=request.model)


def _body(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def test_model_schemas_hide_the_bound_conversation(runtime: Runtime) -> None:
    for name in ("lcm_describe", "lcm_grep", "lcm_expand"):
        model = runtime.registry.tool_defs(for_model=True, names=[name])[0]
        client = runtime.registry.tool_defs(for_model=False, names=[name])[0]
        assert "conversation_id" not in model.parameters["properties"]
        assert "conversation_id" in client.parameters["properties"]


async def test_rlm_query_follow_up_continues_the_conversation(data_dir: Path) -> None:
    rt = Runtime(data_dir, "unrestricted", catalog=_catalog())
    fake = FakeProvider(script=_echo)
    server = build_server(rt, providers=ProviderPool({"fake": fake}))
    context = "The pump room keypad code is 7316. " + "Filler about valves. " * 40
    try:
        async with Client(server) as client:
            # search is the strategy that shows the model the conversation so far.
            first = _body(await client.call_tool("rlm_query", {
                "task": "What is the keypad code?", "context": context, "preset": "scripted",
                "strategy": "search"}))
            cid = first["data"]["conversation_id"]
            second = _body(await client.call_tool("rlm_query", {
                "task": "And which room was that for?", "context": "Valve log, nothing else.",
                "preset": "scripted", "conversation_id": cid, "strategy": "search"}))
            found = _body(await client.call_tool("lcm_grep", {
                "query": "keypad", "conversation_id": cid}))
            described = _body(await client.call_tool("lcm_describe", {
                "id": found["matches"][0]["id"]}))
            wrong = await client.call_tool("lcm_grep", {"query": "x", "conversation_id": 999})
    finally:
        rt.close()
    assert isinstance(cid, int) and second["data"]["conversation_id"] == cid
    assert second["data"]["session_id"] == first["data"]["session_id"]
    # The follow-up saw the first question and its answer (2 earlier messages).
    assert second["data"]["answer"].startswith("(2 earlier)")
    history = [m.content for m in fake.requests[-1].messages]
    assert "What is the keypad code?" in history and first["data"]["answer"] in history
    assert described["kind"] == "message" and described["content"] == "What is the keypad code?"
    assert wrong.is_error and json.loads(wrong.content[0].text)["meta"]["error_code"] == \
        "not_found"


def _rlm(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                           *args], capture_output=True, text=True, timeout=120)


def test_lcm_cli_commands(data_dir: Path) -> None:
    lcm, cid, texts = build_conversation(data_dir, 60, config=small_config())
    listed = json.loads(_rlm("lcm", "list", "--json", data_dir=data_dir).stdout)
    assert listed[0]["conversation_id"] == cid and listed[0]["message_count"] == 60
    out = _rlm("lcm", "compact", "-c", str(cid), "--json", data_dir=data_dir)
    compacted = json.loads(out.stdout)
    assert compacted["tokens_after"] < compacted["tokens_before"] and compacted["leaf_ids"]
    grep = json.loads(_rlm("lcm", "grep", "Rotterdam", "-c", str(cid), "--json",
                           data_dir=data_dir).stdout)
    assert grep["matches"][0]["id"] == "msg_3"
    leaf = grep["matches"][0]["summarised_by"][0]
    expanded = json.loads(_rlm("lcm", "expand", leaf, "--json", data_dir=data_dir).stdout)
    assert expanded["messages"][0]["content"] == texts[0] and not expanded["truncated"]
    described = json.loads(_rlm("lcm", "describe", leaf, "--json", data_dir=data_dir).stdout)
    assert described["kind"] == "summary" and described["source_messages"]["first"] == "msg_1"
    plain = _rlm("lcm", "expand", leaf, data_dir=data_dir)
    assert TURN3_FACT.split(".")[0] in plain.stdout
    # Styling is rendered, never printed as raw markup (issue 21).
    assert "[bold]" not in plain.stdout and "[/]" not in plain.stdout
    assert "msg_1 #1 " in plain.stdout
    check = _rlm("lcm", "check", "--json", data_dir=data_dir)
    assert check.returncode == 0 and json.loads(check.stdout)["ok"]
    RawDatabase(data_dir).execute("DELETE FROM summary_messages WHERE summary_id = ?", (leaf,))
    broken = _rlm("lcm", "check", "--json", data_dir=data_dir)
    report = json.loads(broken.stdout)
    assert broken.returncode == 1 and report["violations"][0]["kind"] == "summary_without_source"
    assert report["repair_plan"]["actions"][0]["destructive"] is False
    missing = _rlm("lcm", "describe", "sum_nope", "--json", data_dir=data_dir)
    assert missing.returncode == 1 and json.loads(missing.stdout)["meta"]["error_code"] == \
        "not_found"
    lcm.close()


def _objects(text: str) -> list[dict[str, Any]]:
    decoder, found, i = json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) >= 0:
        obj, i = decoder.raw_decode(text, i)
        found.append(obj)
    return found


def test_chat_remembers_and_looks_back(data_dir: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeProvider(script=_echo)
    monkeypatch.setattr(chat_cli, "ProviderPool", lambda: ProviderPool({"fake": fake}))
    notes = tmp_path / "notes.txt"
    notes.write_text("The pump pressure is 4 bar. " * 20, encoding="utf-8")
    script = ("What is the pump pressure?\n/grep pump pressure\n/compact\n"
              "Say it again?\n/expand sum_missing\n/quit\n")
    # The CLI names only real providers; the scripted model is catalogued for "fake".
    models = tmp_path / "models.toml"
    models.write_text('[models.echo]\nprovider = "fake"\nnum_ctx = 8192\ntools = false\n')
    monkeypatch.setenv("RLM_MODELS", str(models))
    result = CliRunner().invoke(app, ["chat", str(notes), "--model", "echo", "--strategy",
                                      "search", "--json"], input=script)
    assert result.exit_code == 0, result.output
    turns = _objects(result.stdout)
    first, grep, compact, second, missing = turns
    assert first["answer"].startswith("(0 earlier)") and first["citations"]
    assert grep["command"] == "/grep pump pressure"
    assert grep["matches"][0]["id"].startswith("msg_")
    assert "compaction_id" in compact
    assert second["conversation_id"] == first["conversation_id"]
    assert second["answer"].startswith("(2 earlier)")
    assert missing["meta"]["error_code"] == "not_found"
