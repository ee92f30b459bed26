"""Request dependencies: the caller's key and tenant, scopes and the per-minute limits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Request

from ..errors import Forbidden
from .state import ApiState

__all__ = ["Principal", "api_state", "require"]


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    key_id: str
    scopes: tuple[str, ...]


def api_state(request: Request) -> ApiState:
    return request.app.state.api


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization") or ""
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def require(scope: str) -> Callable[[Request], Awaitable[Principal]]:
    """A dependency: authenticate, count the request, and check the key has `scope`."""

    async def dependency(request: Request) -> Principal:
        state = api_state(request)
        key = await state.authenticate(_bearer(request))
        principal = Principal(key.tenant_id, key.id, key.scopes)
        request.state.principal = principal  # for the audit record and metrics
        await state.hit(key.id, key.tenant_id)
        if state.should_touch(key.id):
            await state.db(state.keys.touch, key.id)
        if scope not in key.scopes and "admin" not in key.scopes:
            raise Forbidden(f"this key lacks the {scope!r} scope", scope=scope)
        return principal

    return dependency
