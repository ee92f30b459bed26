"""The MCP surface in memory: schema fidelity, error envelopes, rlm_query, audit and egress."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from helpers import CANONICAL_TOOLS
from mcp import Client
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.cli.app import app
from rlm_recursive.errors import ProviderError
from rlm_recursive.mcp_server import (
    RemoteBindRefused,
    build_server,
    check_bind_host,
    rlm_query_schema,
)
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.tools import Registry, ToolSpec, tool_def
from rlm_recursive.types import ToolResult

MARKER = "ZEBRA-QUARTZ-91427"
CONTEXT = (
    "Pump room notes. Filters are backwashed every Tuesday.\n"
    f"The door keypad code for the chlorine room during an emergency is 7316 ({MARKER}).\n"
    "Other rooms open with staff badges.\n"
)
TASK = "What is the door keypad code for the chlorine room?"


class _NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _catalog():
    """The bundled catalog plus a scripted in-process preset, so rlm_query runs offline."""
    catalog = load_catalog()
    catalog.models["scripted"] = ModelInfo(
        name="scripted", provider="fake", tools=False, params_b=0.1, num_ctx=8192
    )
    catalog.presets["scripted"] = Preset(tiers=[TierSpec(model="scripted")])
    # A dollar per token: the first reply alone overruns the default $1 budget.
    catalog.models["pricey"] = catalog.models["scripted"].model_copy(
        update={"name": "pricey", "cost_in_per_mtok": 1e6}
    )
    catalog.presets["pricey"] = Preset(tiers=[TierSpec(model="pricey")])
    return catalog


@pytest.fixture
def fake() -> FakeProvider:
    return FakeProvider(script=lambda request: reply("7316", model=request.model))


@pytest.fixture
def rt(data_dir: Path):
    runtime = Runtime(data_dir, "unrestricted", catalog=_catalog())
    yield runtime
    runtime.close()


@pytest.fixture
def server(rt: Runtime, fake: FakeProvider):
    return build_server(rt, providers=ProviderPool({"fake": fake}))


@pytest.fixture
def restricted(data_dir: Path, fake: FakeProvider):
    """The hospital profile: paths confined to the cwd (tmp_path), local models only."""
    runtime = Runtime(data_dir, "restricted", catalog=_catalog())
    yield build_server(runtime, providers=ProviderPool({"fake": fake}))
    runtime.close()


def _body(result: Any) -> dict[str, Any]:
    """The JSON text content; it must equal the structured content."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    body = json.loads(result.content[0].text)
    assert result.structured_content == body
    return body


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error, result.content[0].text
    body = _body(result)
    assert isinstance(body["error"], str) and body["error"]
    assert set(body["meta"]) >= {"error_code", "retryable"}
    assert "data" not in body
    return body


def _code(result: Any) -> str:
    return _error(result)["meta"]["error_code"]


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    body = _body(result)
    assert "error" not in body
    return body


async def _query(client: Client, **args: Any) -> Any:
    return await client.call_tool("rlm_query", {"task": TASK, **args})


# -- listing and schemas ------------------------------------------------------------------


async def test_every_registry_tool_is_listed_with_its_spec_schema(server, rt):
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == CANONICAL_TOOLS
    for name in rt.registry.names():
        spec = rt.registry.spec(name)
        expected = tool_def(spec, for_model=False)
        assert listed[name].input_schema == expected.parameters, name
        assert listed[name].description == spec.description
    assert "session_id" in listed["rlm_docs_peek"].input_schema["properties"]


async def test_rlm_query_schema_requires_task_and_exactly_one_source(server):
    async with Client(server) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "rlm_query")
    schema = tool.input_schema
    assert schema == rlm_query_schema()
    assert schema["required"] == ["task"]
    # "Exactly one of" is in the description and the runtime check, never a top-level oneOf
    # (the Anthropic API refuses it and Claude Code drops the tool).
    assert not {"oneOf", "anyOf", "allOf", "not", "enum"} & set(schema)
    assert "exactly one of" in tool.description
    props = schema["properties"]
    assert props["task"]["maxLength"] == 5000
    assert props["path"] == {"type": "string", "description": props["path"]["description"]}
    assert props["budget_usd"]["minimum"] == 0.01 and props["max_turns"]["maximum"] == 10
    assert {
        "model",
        "max_bytes",
        "timeout_s",
        "language",
        "preset",
        "strategy",
        "provider",
        "context",
    } <= set(props)


# -- error envelopes for registry tools ---------------------------------------------------


async def test_registry_errors_reach_the_client_with_code_and_message(restricted, tmp_path):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    async with Client(restricted) as client:
        missing = await client.call_tool(
            "rlm_docs_peek", {"session_id": "ses_nope", "doc_id": "doc_x"}
        )
        assert _code(missing) == "not_found" and "ses_nope" in _error(missing)["error"]
        sid = _ok(await client.call_tool("rlm_session_create", {"name": "t"}))["session_id"]
        bad = await client.call_tool("rlm_search_query", {"session_id": sid})
        assert _code(bad) == "invalid_args" and "query" in _error(bad)["error"]
        wrong_type = await client.call_tool(
            "rlm_docs_peek", {"session_id": sid, "doc_id": "d", "start": "x"}
        )
        assert _code(wrong_type) == "invalid_args"
        loaded = _ok(
            await client.call_tool(
                "rlm_docs_load",
                {
                    "session_id": sid,
                    "sources": [
                        {"type": "file", "path": "../outside.txt"},
                        {"type": "file", "path": "absent.txt"},
                        {"type": "file", "path": "notes.txt"},
                    ],
                },
            )
        )
    # A batch load reports each bad source and goes on with the rest.
    assert [e["error_code"] for e in loaded["errors"]] == ["path_denied", "file_not_found"]
    assert len(loaded["loaded"]) == 1


async def test_lists_sent_as_json_strings_are_decoded(server, tmp_path):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    async with Client(server) as client:
        sid = _ok(await client.call_tool("rlm_session_create", {}))["session_id"]
        sources = json.dumps([{"type": "file", "path": "notes.txt"}])
        loaded = _ok(
            await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": sources})
        )
        # A string property stays a string, even when it looks like JSON.
        found = _ok(await client.call_tool("rlm_search_query", {"session_id": sid, "query": "[1]"}))
    assert len(loaded["loaded"]) == 1 and found["matches"] == []


async def test_run_errors_and_bugs_become_envelopes_not_hidden_exceptions(data_dir):
    async def boom(ctx, args) -> ToolResult:
        raise RuntimeError("disk on fire")

    spec = ToolSpec("rlm_test_boom", "Always fails.", _NoArgs, boom)
    runtime = Runtime(data_dir, "unrestricted", registry=Registry([spec]))
    try:
        server = build_server(runtime, allow_noncanonical_tool_names=True)
        async with Client(server) as client:
            body = _error(await client.call_tool("rlm_test_boom", {}))
    finally:
        runtime.close()
    assert body["meta"]["error_code"] == "internal_error"
    assert "rlm_test_boom failed" in body["error"] and "disk on fire" in body["error"]


async def test_session_tool_budget_exhaustion_is_budget_exceeded(server):
    async with Client(server) as client:
        sid = _ok(await client.call_tool("rlm_session_create", {"max_tool_calls": 1}))["session_id"]
        _ok(await client.call_tool("rlm_session_info", {"session_id": sid}))
        spent = await client.call_tool("rlm_session_info", {"session_id": sid})
    assert _code(spent) == "budget_exceeded"


async def test_sub_query_model_override_is_refused_by_default(server, rt, data_dir):
    async with Client(server) as client:
        sid = _ok(await client.call_tool("rlm_session_create", {}))["session_id"]
        result = await client.call_tool(
            "rlm_sub_query",
            {"session_id": sid, "query": "q", "doc_id": "doc_x", "model": "claude-sonnet-4-5"},
        )
    assert _code(result) == "egress_denied"
    assert "allow_model_override" in _error(result)["error"]
    records = [json.loads(line) for line in (data_dir / "audit.jsonl").read_text().splitlines()]
    assert records[-1]["tool"] == "rlm_sub_query"
    assert records[-1]["error_code"] == "egress_denied"


# -- rlm_query ----------------------------------------------------------------------------


async def test_rlm_query_over_context_answers_with_citations(server, fake):
    async with Client(server) as client:
        body = _ok(await _query(client, context=CONTEXT, preset="scripted"))
        sid = body["data"]["session_id"]
        # The fresh session stays open for follow-up reads and checks.
        listed = _ok(await client.call_tool("rlm_docs_list", {"session_id": sid}))
        cited = {k: v for k, v in body["data"]["citations"][0].items() if k != "source"}
        verified = _ok(await client.call_tool("rlm_citation_verify", {"session_id": sid, **cited}))
    data, meta = body["data"], body["meta"]
    assert set(body) == {"data", "meta"}
    assert data["answer"] == "7316"
    assert data["citations"] and all(c["checksum"].startswith("sha256:") for c in data["citations"])
    assert data["budget_summary"]["total_cost_usd"] == 0.0
    assert meta["source"] == {
        "type": "context",
        "bytes_read": len(CONTEXT.encode()),
        "truncated": False,
    }
    assert meta["model_used"] == "scripted" and meta["provider"] == "fake"
    assert meta["strategy"] == "search" and meta["trace_included"] is False
    assert listed["total"] == 1
    assert verified["valid"] is True
    # The model saw the question and the matching passage.
    prompt = fake.requests[-1].messages[-1].content
    assert TASK in prompt and "7316" in prompt


async def test_rlm_query_over_a_path_reads_through_the_policy(server, tmp_path):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    async with Client(server) as client:
        body = _ok(await _query(client, path="notes.txt", preset="scripted", language="text"))
    assert body["meta"]["source"] == {
        "type": "path",
        "path": "notes.txt",
        "bytes_read": len(CONTEXT.encode()),
        "truncated": False,
    }
    assert body["data"]["answer"] == "7316"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"context": CONTEXT, "path": "notes.txt"}, "invalid_args"),
        ({}, "invalid_args"),
        ({"context": CONTEXT, "max_turns": 11}, "invalid_args"),
        ({"context": CONTEXT, "budget_usd": 0}, "invalid_args"),
        ({"context": CONTEXT, "timeout_s": 0}, "invalid_args"),
        ({"context": CONTEXT, "surprise": 1}, "invalid_args"),
        ({"path": "../outside.txt"}, "path_denied"),
        ({"path": "sub/../../outside.txt"}, "path_denied"),
        ({"path": ".env"}, "path_denied"),
        ({"path": "absent.txt"}, "file_not_found"),
        ({"path": "notes.txt", "max_bytes": 10}, "file_too_large"),
        ({"path": "blob.bin"}, "unsupported_file"),
        ({"context": CONTEXT, "preset": "no-such-preset"}, "invalid_args"),
    ],
)
async def test_rlm_query_failures_carry_the_sdd_codes(restricted, tmp_path, args, code):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    (tmp_path / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "sub").mkdir()
    (tmp_path.parent / "outside.txt").write_text("outside\n", encoding="utf-8")
    async with Client(restricted) as client:
        result = await _query(client, **args)
    assert _code(result) == code


async def test_task_over_5000_chars_is_invalid(server):
    async with Client(server) as client:
        result = await client.call_tool("rlm_query", {"task": "x" * 5001, "context": "y"})
    assert _code(result) == "invalid_args"


async def test_rlm_query_model_override_is_egress_denied_unless_enabled(server):
    async with Client(server) as client:
        result = await _query(client, context=CONTEXT, model="scripted", provider="auto")
    body = _error(result)
    assert body["meta"]["error_code"] == "egress_denied"
    assert "allow_model_override" in body["error"]


@pytest.mark.parametrize(
    ("failure", "preset", "code"),
    [
        ("down", "scripted", "provider_error"),
        ("sleep", "scripted", "timeout"),
        ("answer", "pricey", "budget_exceeded"),
    ],
)
async def test_failed_runs_return_no_partial_answer(rt, data_dir, failure, preset, code):
    async def script(request: ChatRequest) -> ChatResult:
        if failure == "sleep":
            await asyncio.sleep(30)
        if failure == "down":
            raise ProviderError("backend down")
        return reply("7316", model=request.model, tokens=(1000, 10))

    server = build_server(rt, providers=ProviderPool({"fake": FakeProvider(script=script)}))
    async with Client(server) as client:
        result = await _query(client, context=CONTEXT, preset=preset, timeout_s=1)
    body = _error(result)
    assert body["meta"]["error_code"] == code
    assert "7316" not in body["error"]
    record = json.loads((data_dir / "audit.jsonl").read_text().splitlines()[-1])
    assert record["tool"] == "rlm_query" and record["error_code"] == code


async def test_a_bug_in_rlm_query_is_internal_error_and_logs_no_content(
    server, monkeypatch, capsys
):
    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"leaked {MARKER}")

    monkeypatch.setattr("rlm_recursive.mcp_server.query_tool.run_query", broken)
    async with Client(server) as client:
        body = _error(await _query(client, context=CONTEXT, preset="scripted"))
    assert body["meta"]["error_code"] == "internal_error" and body["meta"]["retryable"]
    correlation_id = body["meta"]["details"]["correlation_id"]
    assert correlation_id in body["error"] and MARKER not in body["error"]
    logged = capsys.readouterr().err
    assert correlation_id in logged and "RuntimeError" in logged and MARKER not in logged


async def test_audit_has_one_content_free_record_per_query(server, data_dir, tmp_path):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    async with Client(server) as client:
        _ok(await _query(client, context=CONTEXT, preset="scripted"))
        _ok(await _query(client, path="notes.txt", preset="scripted"))
        _code(await _query(client, path="notes.txt", max_bytes=5))
    text = (data_dir / "audit.jsonl").read_text(encoding="utf-8")
    assert MARKER not in text and "7316" not in text and "keypad" not in text
    records = [json.loads(line) for line in text.splitlines()]
    queries = [r for r in records if r["tool"] == "rlm_query"]
    assert len(queries) == 3 and len(records) == 3  # no extra records for the inner calls
    size = len(CONTEXT.encode())
    assert [r["bytes_read"] for r in queries] == [size, size, 0]
    assert [r["model_used"] for r in queries] == ["scripted", "scripted", None]
    assert [r["error_code"] for r in queries] == [None, None, "file_too_large"]
    assert queries[0]["cost"] == 0.0 and queries[0]["correlation_id"]


# -- restricted profile: egress -----------------------------------------------------------


REMOTE_OLLAMA = "http://gpu-box.invalid:11434"
"""A "remote" Ollama: `.invalid` never resolves, and the conftest guard refuses to try."""


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every address a socket tries to reach and every name looked up (the guard still refuses).

    Installed over the conftest guard, so each attempt is recorded and then refused by it.
    """
    seen: list[Any] = []
    inner, inner_ex = socket.socket.connect, socket.socket.connect_ex
    inner_resolve = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return inner(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        return inner_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((host.decode() if isinstance(host, bytes) else host, "resolve"))
        return inner_resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return seen


def _non_loopback(addresses: list[Any]) -> list[Any]:
    return [
        a
        for a in addresses
        if isinstance(a, tuple)
        and a[0] is not None
        and not str(a[0]).startswith(("127.", "::1", "localhost"))
    ]


async def test_restricted_refuses_a_remote_ollama_before_connecting(
    restricted,
    connects,
    monkeypatch,
):
    monkeypatch.setenv("OLLAMA_HOST", REMOTE_OLLAMA)
    async with Client(restricted) as client:
        result = await _query(client, context=CONTEXT, preset="fully-local")
    body = _error(result)
    assert body["meta"]["error_code"] == "egress_denied"
    assert "gpu-box.invalid" in body["error"] and "loopback" in body["error"]
    assert _non_loopback(connects) == []


@pytest.mark.parametrize("tool", ["rlm_query", "rlm_sub_query"])
async def test_restricted_does_not_probe_a_remote_ollama_for_auto_detection(
    restricted, connects, monkeypatch, tool
):
    monkeypatch.setenv("OLLAMA_HOST", REMOTE_OLLAMA)
    async with Client(restricted) as client:
        if tool == "rlm_query":
            result = await _query(client, context=CONTEXT)
        else:
            sid = _ok(await client.call_tool("rlm_session_create", {}))["session_id"]
            result = await client.call_tool(
                "rlm_sub_query", {"session_id": sid, "query": "q", "doc_id": "doc_x"}
            )
    body = _error(result)
    assert body["meta"]["error_code"] == "egress_denied" and "OLLAMA_HOST" in body["error"]
    assert _non_loopback(connects) == []


async def test_the_guard_sees_the_attempt_when_the_profile_allows_it(
    server,
    connects,
    monkeypatch,
):
    """Control for the tests above: unrestricted lets the same call try the remote name.

    The recorder sees the lookup of gpu-box.invalid; the conftest guard refuses it, so nothing
    leaves the machine either way.
    """
    monkeypatch.setenv("OLLAMA_HOST", REMOTE_OLLAMA)
    async with Client(server) as client:
        result = await _query(client, context=CONTEXT, preset="fully-local", timeout_s=3)
    assert _code(result) != "egress_denied"
    assert any(a[0] == "gpu-box.invalid" for a in _non_loopback(connects))


async def test_restricted_refuses_a_cloud_preset(restricted, connects, data_dir):
    async with Client(restricted) as client:
        result = await _query(client, context=CONTEXT, preset="quality-first")
    assert _code(result) == "egress_denied"
    assert _non_loopback(connects) == []
    record = json.loads((data_dir / "audit.jsonl").read_text().splitlines()[-1])
    assert record["profile"] == "restricted" and record["error_code"] == "egress_denied"


async def test_restricted_refuses_a_model_override(restricted):
    async with Client(restricted) as client:
        result = await _query(client, context=CONTEXT, model="qwen3:8b")
    assert _code(result) == "egress_denied"


async def test_restricted_rejects_absolute_paths(restricted, tmp_path):
    (tmp_path / "notes.txt").write_text(CONTEXT, encoding="utf-8")
    async with Client(restricted) as client:
        result = await _query(client, path=str(tmp_path / "notes.txt"))
    assert _code(result) == "path_denied"


# -- serve --------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_are_served(host):
    assert check_bind_host(host, allow_remote=False) is True


@pytest.mark.parametrize("host", ["0.0.0.0", "lan-host.invalid", "::", "example.org"])
def test_other_hosts_need_allow_remote(host):
    with pytest.raises(RemoteBindRefused, match="not a loopback address"):
        check_bind_host(host, allow_remote=False)
    assert check_bind_host(host, allow_remote=True) is False


def test_serve_refuses_a_non_loopback_host_without_allow_remote():
    result = CliRunner().invoke(app, ["serve", "--transport", "http", "--host", "0.0.0.0"])
    assert result.exit_code == 1
    assert "error[invalid_args]" in result.output and "--allow-remote" in result.output
