"""An admin key of one tenant stays inside that tenant over /mcp (a real MCP client over a real
uvicorn server): another tenant's session cannot be searched, written, loaded into or closed."""

from __future__ import annotations

import json

import anyio
import httpx
from api_support import auth, new_key
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import create_app
from rlm_recursive.api.server import background_server
from rlm_recursive.cli.app import app as cli
from rlm_recursive.mcp_server import build_server

SECRET_DOC = {"docs": [{"text": "team-b quarterly numbers: revenue 42 million. " * 5,
                        "source_name": "b.txt"}]}


def _out(result) -> dict:
    return json.loads(result.content[0].text)


async def _mcp_calls(base: str, key: str, calls: list[tuple[str, dict]]) -> list[dict]:
    outputs = []
    with anyio.fail_after(60):
        async with (
            httpx.AsyncClient(headers=auth(key), timeout=30) as http,
            Client(streamable_http_client(base + "/mcp", http_client=http),
                   read_timeout_seconds=30) as client,
        ):
            for name, args in calls:
                result = await client.call_tool(name, args)
                outputs.append({"is_error": result.is_error, **_out(result)})
    return outputs


def test_a_tenant_admin_key_cannot_reach_another_tenants_session_over_mcp(data_dir):
    runtime = Runtime(data_dir)
    try:
        app = create_app(runtime, mcp_app=build_server(runtime).streamable_http_app())
        with background_server(app) as base:
            admin_a = new_key(runtime, "team-a", ("admin",))
            user_b = auth(new_key(runtime, "team-b"))
            sid_b = httpx.post(base + "/v1/sessions", headers=user_b,
                               json=SECRET_DOC).json()["session_id"]
            attempts = [
                ("rlm_search_query", {"session_id": sid_b, "query": "revenue"}),
                ("rlm_docs_peek", {"session_id": sid_b}),
                ("rlm_artifact_store", {"session_id": sid_b, "content": "planted"}),
                ("rlm_docs_load", {"session_id": sid_b, "sources": [
                    {"type": "inline", "content": "planted text", "name": "p.txt"}]}),
                ("rlm_session_close", {"session_id": sid_b}),
                ("rlm_session_info", {"session_id": sid_b}),
                ("rlm_execution_create", {"session_id": sid_b}),
            ]
            outputs = anyio.run(_mcp_calls, base, admin_a, attempts)
            for (name, _), out in zip(attempts, outputs, strict=True):
                assert out["is_error"], name
                assert out["meta"]["error_code"] == "not_found", (name, out)
                assert "revenue" not in json.dumps(out)
            # Team b's session is untouched.
            row = runtime.store.db.execute("SELECT closed_at FROM sessions WHERE id = ?",
                                           (sid_b,)).fetchone()
            assert row["closed_at"] is None
            assert runtime.store.artifacts(sid_b) == []
            assert len(runtime.store.documents(sid_b)) == 1
            view = httpx.get(f"{base}/v1/sessions/{sid_b}", headers=user_b).json()
            assert view["status"] == "READY" and len(view["docs"]) == 1
    finally:
        runtime.close()


def test_sessions_an_admin_makes_over_mcp_belong_to_its_tenant(data_dir):
    runtime = Runtime(data_dir)
    try:
        app = create_app(runtime, mcp_app=build_server(runtime).streamable_http_app())
        with background_server(app) as base:
            admin_a = new_key(runtime, "team-a", ("admin",))
            created = anyio.run(_mcp_calls, base, admin_a,
                                [("rlm_session_create", {"name": "mine"})])[0]
            sid = created["session_id"]
            outputs = anyio.run(_mcp_calls, base, admin_a, [
                ("rlm_docs_load", {"session_id": sid, "sources": [
                    {"type": "inline", "content": "alpha beta gamma", "name": "a.txt"}]}),
                ("rlm_search_query", {"session_id": sid, "query": "gamma"}),
            ])
            assert [o["is_error"] for o in outputs] == [False, False]
            assert runtime.store.db.execute("SELECT tenant_id FROM sessions WHERE id = ?",
                                            (sid,)).fetchone()[0] == "team-a"
            # Its tenant's API keys see it; the other tenant's do not, nor its admin over /mcp.
            user_a = auth(new_key(runtime, "team-a"))
            listed = httpx.get(base + "/v1/sessions", headers=user_a).json()["sessions"]
            assert [s["session_id"] for s in listed] == [sid]
            user_b = auth(new_key(runtime, "team-b"))
            assert httpx.get(f"{base}/v1/sessions/{sid}", headers=user_b).status_code == 404
            admin_b = new_key(runtime, "team-b", ("admin",))
            refused = anyio.run(_mcp_calls, base, admin_b,
                                [("rlm_search_query", {"session_id": sid, "query": "gamma"})])
            assert refused[0]["meta"]["error_code"] == "not_found"
            # A session made outside the API (the CLI's, no tenant) is no tenant's either.
            cli_sid = runtime.store.create_session("cli", runtime.store.session_config(sid))
            refused = anyio.run(_mcp_calls, base, admin_a, [
                ("rlm_session_info", {"session_id": cli_sid["session_id"]})])
            assert refused[0]["meta"]["error_code"] == "not_found"
    finally:
        runtime.close()


def test_keys_create_admin_json_still_returns_a_key(data_dir):
    result = CliRunner().invoke(cli, ["keys", "create", "--tenant", "team-a", "--scope",
                                      "admin", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["key"].startswith("rlm_key_") and record["tenant_id"] == "team-a"
    assert record["scopes"] == ["admin"]
