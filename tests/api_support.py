"""A real uvicorn server on 127.0.0.1 in a thread, and keys, for the HTTP API tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.api.server import background_server
from rlm_recursive.store.tenancy import KeyStore


@contextmanager
def live_api(runtime: Runtime, settings: ApiSettings | None = None,
             providers: ProviderPool | None = None) -> Iterator[str]:
    """Serve `create_app(runtime, …)` on a free loopback port; yields the base URL."""
    with background_server(create_app(runtime, settings, providers)) as base:
        yield base


def new_key(runtime: Runtime, tenant: str, scopes: tuple[str, ...] = ("read", "run")) -> str:
    key, _ = KeyStore(runtime.store.sql, runtime.store.data_dir).create(tenant, "test", scopes)
    return key


def auth(key: str) -> dict[str, Any]:
    return {"Authorization": f"Bearer {key}"}
