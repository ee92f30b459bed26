"""Start `rlm-recursive serve --transport http` as a real subprocess on a loopback address."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

__all__ = ["HttpServer", "authed_client", "free_port", "http_server", "stop_process"]

_TOKEN = re.compile(r'--header "Authorization: Bearer ([A-Za-z0-9_\-]+)"')


@dataclass
class HttpServer:
    url: str
    host: str
    port: int
    token: str | None
    log: Path

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _env() -> dict[str, str]:
    # The conftest points data and config folders at tmp_path; the child inherits that.
    env = dict(os.environ)
    env.pop("OLLAMA_HOST", None)
    return env


@contextmanager
def http_server(
    cwd: Path, data_dir: Path, log: Path, *extra: str, host: str = "127.0.0.1"
) -> Iterator[HttpServer]:
    """Serve until the block ends; the token is read from the server's stderr, as a user would."""
    port = free_port(host)
    shown = f"[{host}]" if ":" in host else host
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), "serve",
             "--transport", "http", "--host", host, "--port", str(port), *extra],
            cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=out,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"server exited ({proc.returncode}): {log.read_text()}")
                try:
                    socket.create_connection((host, port), timeout=0.5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        pytest.fail("server did not listen within 30 s")
                    time.sleep(0.1)
            found = _TOKEN.search(log.read_text(encoding="utf-8", errors="replace"))
            yield HttpServer(url=f"http://{shown}:{port}/mcp", host=host, port=port,
                             token=found.group(1) if found else None, log=log)
        finally:
            stop_process(proc)


def stop_process(proc: subprocess.Popen, timeout_s: float = 10) -> None:
    """Terminate a server subprocess; kill it if it does not exit in time."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout_s)


def authed_client(token: str | None) -> httpx2.AsyncClient:
    """The HTTP client an MCP `Client` uses, sending the bearer token on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
