"""Sessions: close freezes, statuses follow the seed, nested config and model_hints, tool names."""

from __future__ import annotations

import pytest
from helpers import CANONICAL_TOOLS, error_code, ok
from mcp import Client
from pydantic import BaseModel, ConfigDict

from rlm_recursive.agent.hints import plan_from_hints
from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import load_catalog
from rlm_recursive.errors import ConfigError
from rlm_recursive.mcp_server import build_server
from rlm_recursive.mcp_server.query_tool import RLM_QUERY_NAME
from rlm_recursive.tools import Registry, ToolSpec
from rlm_recursive.tools.names import (
    ALLOW_NONCANONICAL_ENV,
    PINNED_TOOLS,
    ToolNamingError,
    check_tool_names,
)
from rlm_recursive.types import ToolResult


@pytest.fixture(autouse=True)
def _backend(database_url: str | None) -> str | None:
    """Every test on both store backends: SQLite and PostgreSQL."""
    return database_url

# -- close freezes ----------------------------------------------------------------------------


async def test_close_freezes_the_session_but_reads_still_work(runtime, session, write):
    write("a.txt", "alpha beta gamma\n")
    loaded = ok(await runtime.call("rlm_docs_load", {
        "session_id": session, "sources": [{"type": "file", "path": "a.txt"}]}))
    doc_id = loaded["loaded"][0]["doc_id"]
    art = ok(await runtime.call("rlm_artifact_store", {"session_id": session, "content": "x"}))
    closed = ok(await runtime.call("rlm_session_close", {"session_id": session}))
    assert closed["status"] == "completed" and closed["closed_at"]
    assert closed["summary"]["documents"] == 1 and closed["summary"]["artifacts"] == 1

    load = await runtime.call("rlm_docs_load", {
        "session_id": session, "sources": [{"type": "inline", "content": "more"}]})
    assert error_code(load) == "session_closed"
    store = await runtime.call("rlm_artifact_store", {"session_id": session, "content": "y"})
    assert error_code(store) == "session_closed"
    anchored = await runtime.call("rlm_artifact_store", {
        "session_id": session, "content": "y", "doc_id": doc_id, "start": 0, "end": 5})
    assert error_code(anchored) == "session_closed"
    # Nothing was added, and every read still answers.
    info = ok(await runtime.call("rlm_session_info", {"session_id": session}))
    assert info["document_count"] == 1 and info["status"] == "completed"
    assert ok(await runtime.call("rlm_docs_peek", {"session_id": session, "doc_id": doc_id,
                                                   "end": 5}))["content"] == "alpha"
    assert ok(await runtime.call("rlm_search_query", {"session_id": session,
                                                      "query": "beta"}))["matches"]
    listed = ok(await runtime.call("rlm_artifact_list", {"session_id": session}))
    assert [a["artifact_id"] for a in listed["artifacts"]] == [art["artifact_id"]]
    assert ok(await runtime.call("rlm_artifact_get", {"session_id": session,
                                                      "artifact_id": art["artifact_id"]}))
    assert ok(await runtime.call("rlm_chunk_create", {"session_id": session, "doc_id": doc_id,
                                                      "strategy": "fixed", "chunk_size": 5}))


async def test_close_is_idempotent_and_keeps_exported_status(runtime, session, tmp_path):
    from test_export import make_repo

    first = ok(await runtime.call("rlm_session_close", {"session_id": session}))
    again = ok(await runtime.call("rlm_session_close", {"session_id": session}))
    assert again["closed_at"] == first["closed_at"]
    repo = make_repo(tmp_path / "repo")
    out = ok(await runtime.call("rlm_export_github",
                                {"session_id": session, "repo": str(repo)}))
    assert not any("still active" in w for w in out["warnings"])
    assert ok(await runtime.call("rlm_session_info", {"session_id": session}))["status"] == (
        "exported")
    ok(await runtime.call("rlm_session_close", {"session_id": session}))
    assert ok(await runtime.call("rlm_session_info", {"session_id": session}))["status"] == (
        "exported")


async def test_active_session_reports_active(runtime, session):
    assert ok(await runtime.call("rlm_session_info", {"session_id": session}))["status"] == (
        "active")


async def test_closed_session_is_refused_over_mcp_as_an_envelope(runtime, session):
    ok(await runtime.call("rlm_session_close", {"session_id": session}))
    async with Client(build_server(runtime)) as client:
        result = await client.call_tool("rlm_artifact_store",
                                        {"session_id": session, "content": "late"})
    assert result.is_error
    assert result.structured_content["meta"]["error_code"] == "session_closed"


# -- nested config and model hints -------------------------------------------------------------


async def test_nested_config_and_model_hints(runtime):
    hints = {"root_model": "claude-sonnet-4-5", "subcall_model": "claude-haiku-4-5",
             "bulk_model": "claude-haiku-4-5"}
    created = ok(await runtime.call("rlm_session_create", {
        "name": "n", "config": {"max_tool_calls": 7, "max_chars_per_peek": 500,
                                "model_hints": hints}}))
    info = ok(await runtime.call("rlm_session_info", {"session_id": created["session_id"]}))
    assert info["config"]["max_tool_calls"] == 7 and info["config"]["max_chars_per_peek"] == 500
    assert info["config"]["model_hints"] == hints
    assert info["tool_calls_remaining"] == 6  # the info call itself spent one
    flat = ok(await runtime.call("rlm_session_create", {
        "max_tool_calls": 9, "model_hints": {"root_model": "qwen3:8b"}}))
    assert flat["config"]["max_tool_calls"] == 9
    assert flat["config"]["model_hints"] == {"root_model": "qwen3:8b"}


@pytest.mark.parametrize("args", [
    {"max_tool_calls": 5, "config": {"max_tool_calls": 6}},
    {"config": {"model_hints": {"root_model": "a"}}, "model_hints": {"root_model": "b"}},
    {"config": {"unknown": 1}},
    {"model_hints": {"root": "x"}},
    {"config": {"max_tool_calls": 0}},
])
async def test_bad_nested_config_is_invalid_args(runtime, args):
    assert error_code(await runtime.call("rlm_session_create", args)) == "invalid_args"


async def test_same_limit_flat_and_nested_is_accepted(runtime):
    created = ok(await runtime.call("rlm_session_create", {
        "max_tool_calls": 5, "config": {"max_tool_calls": 5}}))
    assert created["config"]["max_tool_calls"] == 5


def test_model_hints_build_a_tier_plan():
    catalog = load_catalog()
    plan = plan_from_hints(catalog, {"root_model": "claude-sonnet-4-5",
                                     "bulk_model": "claude-haiku-4-5"})
    assert plan.source == "model_hints"
    assert [(t["depth"], t["model"]) for t in plan.describe()] == [
        (0, "claude-sonnet-4-5"), (1, "claude-sonnet-4-5"), (2, "claude-haiku-4-5")]
    assert plan.at(5).model == "claude-haiku-4-5"
    same = plan_from_hints(catalog, {"root_model": "qwen3:8b", "subcall_model": "qwen3:8b"})
    assert len(same.tiers) == 1
    assert plan_from_hints(catalog, None) is None and plan_from_hints(catalog, {}) is None
    # Without a root hint the base plan supplies depth 0.
    base = TierPlan.from_preset(catalog, "fully-local")
    mixed = plan_from_hints(catalog, {"subcall_model": "ollama/qwen3:1.7b"}, base)
    assert mixed.at(0) == base.at(0) and mixed.at(1).model == "qwen3:1.7b"
    assert plan_from_hints(catalog, {"subcall_model": "qwen3:4b"}) is None
    with pytest.raises(ConfigError):
        plan_from_hints(catalog, {"root_model": "no-such-model"})


# -- tool names -------------------------------------------------------------------------------


class _NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


async def _noop(ctx, args) -> ToolResult:
    return ToolResult(output={})


def test_pinned_list_is_what_the_server_registers(runtime):
    assert set(PINNED_TOOLS) == CANONICAL_TOOLS
    assert len(PINNED_TOOLS) == len(set(PINNED_TOOLS))
    assert {*runtime.registry.names(), RLM_QUERY_NAME} == set(PINNED_TOOLS)
    check_tool_names(PINNED_TOOLS)  # no drift, strict


def test_drifted_names_fail_start_up_unless_compat(monkeypatch, capsys):
    monkeypatch.delenv(ALLOW_NONCANONICAL_ENV, raising=False)
    with pytest.raises(ToolNamingError) as err:
        check_tool_names([*PINNED_TOOLS, "rlm_docs_loader"])
    assert "rlm_docs_loader" in str(err.value) and err.value.code == "invalid_args"
    check_tool_names(["rlm_docs_loader"], allow_noncanonical=True)
    monkeypatch.setenv(ALLOW_NONCANONICAL_ENV, "1")
    check_tool_names(["rlm_docs_loader"])
    # A dotted name is refused in both modes: Claude's rule would drop it.
    with pytest.raises(ToolNamingError, match="no dots"):
        check_tool_names(["rlm.docs.load"], allow_noncanonical=True)


async def test_server_refuses_to_start_with_a_drifted_tool(data_dir, monkeypatch):
    monkeypatch.delenv(ALLOW_NONCANONICAL_ENV, raising=False)
    rt = Runtime(data_dir, "unrestricted",
                 registry=Registry([ToolSpec("rlm_session_make", "drift", _NoArgs, _noop)]))
    try:
        with pytest.raises(ToolNamingError):
            build_server(rt)
        async with Client(build_server(rt, allow_noncanonical_tool_names=True)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
        assert "rlm_session_make" in names
    finally:
        rt.close()


def test_serve_refuses_to_start_when_a_name_drifts(data_dir, monkeypatch):
    from typer.testing import CliRunner

    from rlm_recursive.cli.app import app
    from rlm_recursive.tools import names

    monkeypatch.delenv(ALLOW_NONCANONICAL_ENV, raising=False)
    # As if rlm_query had been renamed in the code but not in the pinned list.
    monkeypatch.setattr(names, "PINNED_TOOLS", tuple(n for n in PINNED_TOOLS
                                                     if n != RLM_QUERY_NAME))
    result = CliRunner().invoke(app, ["serve"], input="")
    assert result.exit_code == 1
    assert "error[invalid_args]" in result.stderr and RLM_QUERY_NAME in result.stderr
