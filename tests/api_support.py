"""A real uvicorn server on 127.0.0.1 in a thread, for the HTTP API tests and benchmark."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.store.tenancy import KeyStore


@contextmanager
def live_api(runtime: Runtime, settings: ApiSettings | None = None,
             providers: ProviderPool | None = None) -> Iterator[str]:
    """Serve `create_app(runtime, …)` on a free loopback port; yields the base URL."""
    app = create_app(runtime, settings, providers)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def new_key(runtime: Runtime, tenant: str, scopes: tuple[str, ...] = ("read", "run")) -> str:
    key, _ = KeyStore(runtime.store.db, runtime.store.data_dir).create(tenant, "test", scopes)
    return key


def auth(key: str) -> dict[str, Any]:
    return {"Authorization": f"Bearer {key}"}
