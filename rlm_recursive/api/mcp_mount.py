"""MCP over streamable HTTP served by the API server at /mcp, behind an admin key.

Only a key with the `admin` scope may use it, and only inside its own tenant: the key's
tenant rides in the request scope, and every tool call is checked against it
(`mcp_server/tenancy.py`), so an admin of team-a cannot reach team-b's sessions.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import Forbidden, RlmError
from ..mcp_server.tenancy import MCP_TENANT
from .errors import error_response, request_id_from
from .state import ApiState

__all__ = ["MCP_PATH", "mcp_route"]

MCP_PATH = "/mcp"


class _AdminOnly:
    def __init__(self, app: ASGIApp, state: ApiState) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        try:
            key = await self.state.db(self.state.keys.authenticate,
                                      token.strip() if scheme.lower() == "bearer" else None)
            await self.state.hit(key.id, key.tenant_id)
            if "admin" not in key.scopes:
                raise Forbidden("MCP over HTTP needs a key with the 'admin' scope",
                                scope="admin")
        except RlmError as exc:
            values = scope.get("state") or {}
            request_id = values.get("request_id") or request_id_from(None)
            await error_response(exc, request_id)(scope, receive, send)
            return
        scope.setdefault("state", {})[MCP_TENANT] = key.tenant_id
        await self.app(scope, receive, send)


def mcp_route(mcp_app: Starlette, state: ApiState) -> Route:
    """The MCP app's endpoint as a route of the API app, behind the admin check."""
    endpoint = next(r.endpoint for r in mcp_app.routes
                    if isinstance(r, Route) and r.path == MCP_PATH)
    return Route(MCP_PATH, endpoint=_AdminOnly(endpoint, state))
