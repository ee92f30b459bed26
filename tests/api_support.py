"""A real uvicorn server on 127.0.0.1 in a thread or in its own `api` process, and keys,
for the HTTP API tests."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.api.server import background_server, wait_healthy
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def api_process(env: dict[str, str], data_dir: Path, cwd: Path, *args: str
                ) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A real `rlm-recursive api` process (uvicorn) on a free loopback port."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), "api", "--port",
         str(port), *args], cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, server, timeout_s=60)
        yield base, server
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=20)
