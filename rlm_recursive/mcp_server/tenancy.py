"""Tenant walls for MCP served by the HTTP API at /mcp.

The API's /mcp route authenticates an admin key and puts its tenant in the request scope
(`MCP_TENANT`). The MCP tools address sessions by id across the whole store, so every call
that arrives with a tenant is checked here before it runs: each session, execution and
conversation it names must belong to that tenant (another tenant's id, or a CLI session, is
`not_found`, as on /v1: ids never leak). Sessions the call creates (`rlm_session_create`,
`rlm_query`) are claimed for the tenant. Over stdio, or `serve`'s own HTTP, there is no tenant
and nothing changes: the operator owns the whole store.
"""

from __future__ import annotations

from typing import Any

from ..errors import NotFound
from ..store import Store
from ..store.connector import Connector, database_errors
from ..store.lifecycle import expires_at

__all__ = ["MCP_TENANT", "check_tenant", "claim_created", "request_tenant"]

MCP_TENANT = "mcp_tenant"
"""The key under the ASGI scope's `state` that carries the caller's tenant id."""
MCP_SESSION_TTL_MINUTES = 7 * 24 * 60
"""Sessions made over /mcp expire like the API's own (its default TTL)."""


def request_tenant(context: Any) -> str | None:
    """The tenant of the HTTP request behind an MCP call; None over stdio or plain `serve`."""
    try:
        request = context.request_context.request
    except (AttributeError, ValueError, LookupError):
        return None
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    tenant = (scope.get("state") or {}).get(MCP_TENANT)
    return tenant if isinstance(tenant, str) else None


def _session_owner(db: Connector, session_id: Any) -> str | None:
    if not isinstance(session_id, str):
        return None
    row = db.one("SELECT tenant_id, readiness FROM sessions WHERE id = ?", (session_id,))
    if row is None or row["readiness"] in ("DELETED", "EXPIRED"):
        return None
    return row["tenant_id"]


def _lookup(db: Connector, query: str, key: Any) -> str | None:
    if isinstance(key, bool) or not isinstance(key, str | int):
        return None
    try:  # a key of the wrong type for its column (`'x'` for an integer id) finds nothing
        row = db.one(query, (key,))
    except (*database_errors(), OverflowError):
        return None
    return row[0] if row is not None else None


def check_tenant(store: Store, tenant: str, arguments: Any) -> None:
    """NotFound unless every session, execution and conversation named is the tenant's."""
    if not isinstance(arguments, dict):
        return  # the registry refuses it: nothing is reached
    db = store.sql
    named: list[tuple[str, Any, str | None]] = []
    if "session_id" in arguments:
        named.append(("session", arguments["session_id"], arguments["session_id"]))
    if "execution_id" in arguments:
        execution_id = arguments["execution_id"]
        session = (store.execution_session(execution_id)
                   if isinstance(execution_id, str) else None)
        named.append(("execution", arguments["execution_id"], session))
    if arguments.get("conversation_id") is not None:
        session = _lookup(db, "SELECT session_id FROM conversations WHERE conversation_id = ?",
                          arguments["conversation_id"])
        named.append(("conversation", arguments["conversation_id"], session))
    for kind, given, session_id in named:
        if given is None and kind == "session":
            continue  # optional and absent: the tool asks for it if it needs it
        if _session_owner(db, session_id) != tenant:
            raise NotFound(f"no {kind} {str(given)[:100]!r}", kind=kind)


def claim_created(store: Store, tenant: str, name: str, output: dict[str, Any]) -> None:
    """A session made by this call belongs to the tenant (READY: MCP loads synchronously)."""
    if name not in ("rlm_session_create", "rlm_query"):
        return
    data = output.get("data") if isinstance(output.get("data"), dict) else output
    session_id = data.get("session_id") if isinstance(data, dict) else None
    if isinstance(session_id, str):
        store.sql.execute(
            "UPDATE sessions SET tenant_id = ?, readiness = 'READY', expires_at = ? "
            "WHERE id = ? AND tenant_id IS NULL",
            (tenant, expires_at(MCP_SESSION_TTL_MINUTES), session_id))
