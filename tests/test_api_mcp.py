"""MCP over streamable HTTP served with the API at /mcp: admin keys only."""

from __future__ import annotations

import httpx
from api_support import auth, new_key

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import create_app
from rlm_recursive.api.server import background_server
from rlm_recursive.mcp_server import build_server

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def test_mcp_is_served_beside_the_api_for_admin_keys_only(data_dir):
    runtime = Runtime(data_dir)
    try:
        app = create_app(runtime, mcp_app=build_server(runtime).streamable_http_app())
        with background_server(app) as base:
            admin = auth(new_key(runtime, "ops", ("admin",)))
            user = auth(new_key(runtime, "acme", ("read", "run")))
            ok = httpx.post(base + "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **admin},
                            timeout=30)
            assert ok.status_code == 200, ok.text
            assert "rlm" in ok.text and "serverInfo" in ok.text
            refused = httpx.post(base + "/mcp", json=INITIALIZE,
                                 headers={**MCP_HEADERS, **user}, timeout=30)
            assert refused.status_code == 403
            assert refused.json()["error"]["code"] == "forbidden"
            anonymous = httpx.post(base + "/mcp", json=INITIALIZE, headers=MCP_HEADERS)
            assert anonymous.status_code == 401
            assert anonymous.json()["error"]["request_id"] == anonymous.headers["x-request-id"]
            # The API itself is unchanged beside it.
            assert httpx.get(base + "/v1/sessions", headers=user).status_code == 200
    finally:
        runtime.close()
