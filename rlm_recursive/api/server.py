"""Run the API on uvicorn (the `rlm-recursive api` command)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from ..agent.runtime import Runtime
from .app import create_app
from .state import ApiSettings
from .workers import HANDOFF_FD_ENV, run_server

__all__ = ["background_server", "serve_api", "wait_healthy"]


def serve_api(runtime: Runtime, *, host: str, port: int,
              settings: ApiSettings | None = None, with_mcp: bool = False) -> None:
    """Serve /v1 (and MCP at /mcp for admin keys, if asked) until interrupted."""
    mcp_app = None
    if with_mcp:
        from ..mcp_server import build_server

        mcp_app = build_server(runtime).streamable_http_app(host=host)
    app = create_app(runtime, settings, mcp_app=mcp_app)
    if HANDOFF_FD_ENV not in os.environ:  # else one of `api --workers N`'s processes
        shown = f"[{host}]" if ":" in host else host
        also = f", MCP at http://{shown}:{port}/mcp for admin keys" if with_mcp else ""
        print(f"rlm-recursive: HTTP API at http://{shown}:{port}/v1 (docs /docs{also}, "
              f"profile {runtime.profile.name}, data {runtime.store.data_dir})",
              file=sys.stderr)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    run_server(config)


@contextmanager
def background_server(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `app` on a free port in a thread (tests, benchmarks); yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def wait_healthy(base: str, process: subprocess.Popen[Any] | None = None,
                 timeout_s: float = 30.0) -> None:
    """Wait until an API server started elsewhere (`api` in a subprocess: tests, benchmarks)
    answers GET /v1/health; RuntimeError if its process exits or time runs out."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the API server at {base} exited ({process.returncode})")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the API server at {base} did not start in {timeout_s:g} s")
        time.sleep(0.1)
