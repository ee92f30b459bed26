"""Shared fixtures: a private data dir per test, no real network, a runtime and a session."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.types import ToolResult

# Real PostgreSQL and S3 (moto) servers: `postgres_url`, `database_url`, `s3_bucket`.
pytest_plugins = ["backends"]

# CI runs the same generated cases every time: a red build is reproducible, never bad luck
# (tests that assert how many cases of each kind they drew depend on it). Locally, random.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.strip("[]").split("%", 1)[0]
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _blocked(address: Any) -> str | None:
    """Why an address may not be reached, or None for loopback (and non-IP families)."""
    if isinstance(address, tuple) and address and not _is_loopback(address[0]):
        return f"tests may not open network connections (tried {address!r})"
    return None


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only loopback: a test that reaches the internet is flaky and may leak data."""
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and (why := _blocked(address)):
            raise ConnectionRefusedError(why)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and (why := _blocked(address)):
            raise ConnectionRefusedError(why)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        # A DNS lookup is already traffic; loopback names and literal IPs resolve locally.
        if host is not None and not _is_loopback(host):
            try:
                ipaddress.ip_address(host.decode() if isinstance(host, bytes) else host)
            except ValueError:
                raise socket.gaierror(
                    socket.EAI_NONAME, f"tests may not resolve {host!r}"
                ) from None
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data dir and config dir; the cwd is tmp_path.

    The default `unrestricted` profile roots relative paths at the cwd (read when a Runtime is
    built), and denylist globs such as `*token*` are matched below that root only, so a test
    named `test_token_…` must not see its own tmp folder name matched.
    """
    folder = tmp_path / "data"
    monkeypatch.setenv("RLM_DATA_DIR", str(folder))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    for name in ("RLM_PROFILE", "RLM_MODELS", "RLM_DATABASE_URL", "RLM_BLOB_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return folder


@pytest.fixture
def runtime(data_dir: Path) -> Iterator[Runtime]:
    """A runtime on the test's data dir (unrestricted profile), closed afterwards."""
    rt = Runtime(data_dir, "unrestricted")
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def small_rt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    """A runtime whose model is the small fake one of `strategy_support`, closed afterwards."""
    from strategy_support import small_runtime

    rt = small_runtime(tmp_path, monkeypatch)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def call(runtime: Runtime) -> Callable[..., Any]:
    """`await call(name, **args)`: one registry call through the runtime."""

    async def _call(name: str, **args: Any) -> ToolResult:
        return await runtime.call(name, args)

    return _call


@pytest.fixture
async def session(runtime: Runtime) -> str:
    """A fresh session id with default limits."""
    result = await runtime.call("rlm_session_create", {"name": "test"})
    assert not result.is_error, result.output
    return result.output["session_id"]


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """`write("a/b.txt", "text")` or `write("x.bin", b"bytes")`: a file under tmp_path."""

    def _write(relative: str, content: str | bytes) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        # Bytes as given; text as UTF-8 with no newline translation (CRLF stays CRLF).
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        path.write_bytes(data)
        return path

    return _write
