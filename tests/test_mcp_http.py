"""The HTTP transport's protections, through a real server subprocess on loopback addresses.

Bearer token by default (401 without it or with a wrong one), `--no-auth` as the explicit
opt-out, and Host/Origin (DNS-rebinding) validation on every bind, `127.0.0.2` and spelled-out
IPv6 loopback included. "Foreign" names are `.invalid`: nothing here leaves the machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from http_server import HttpServer, authed_client, http_server
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from rlm_recursive.cli.app import app
from rlm_recursive.mcp_server import (
    RemoteBindRefused,
    check_bind_host,
    check_origin,
    normalise_host,
    transport_security,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _post(server: HttpServer, **headers: str) -> httpx.Response:
    """One `initialize` POST, as any local process could send it."""
    return httpx.post(server.url, json=INITIALIZE, headers={**HEADERS, **headers}, timeout=30)


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def served(tmp_path: Path, data_dir: Path) -> Iterator[HttpServer]:
    with http_server(tmp_path, data_dir, tmp_path / "serve.log") as server:
        yield server


def test_a_token_is_generated_and_printed_once_with_the_claude_line(served):
    log = served.stderr()
    assert served.token and len(served.token) >= 40
    line = (f'claude mcp add --transport http rlm-http http://127.0.0.1:{served.port}/mcp '
            f'--header "Authorization: Bearer {served.token}"')
    assert line in log
    assert log.count(served.token) == 1


def test_requests_without_the_right_token_get_401(served):
    assert _post(served).status_code == 401
    assert _post(served, Authorization="Bearer wrong-token").status_code == 401
    assert _post(served, Authorization=f"Basic {served.token}").status_code == 401
    # One character off, and the token as a prefix: still refused.
    assert _post(served, **_bearer(served.token[:-1] + "x")).status_code == 401
    assert _post(served, **_bearer(served.token + "x")).status_code == 401
    assert _post(served, **_bearer(served.token)).status_code == 200


async def test_an_mcp_client_with_the_token_calls_tools(served):
    with anyio.fail_after(60):
        async with (
            authed_client(served.token) as http,
            Client(streamable_http_client(served.url, http_client=http),
                   read_timeout_seconds=30) as client,
        ):
            result = await client.call_tool("rlm_session_create", {"name": "authed"})
            assert not result.is_error
            assert json.loads(result.content[0].text)["session_id"]


def test_a_different_token_each_start(tmp_path: Path, data_dir: Path):
    with http_server(tmp_path, data_dir, tmp_path / "a.log") as first:
        token = first.token
    with http_server(tmp_path, data_dir, tmp_path / "b.log") as second:
        assert second.token and second.token != token
        assert _post(second, **_bearer(token)).status_code == 401


def test_no_auth_is_an_explicit_opt_out(tmp_path: Path, data_dir: Path):
    with http_server(tmp_path, data_dir, tmp_path / "serve.log", "--no-auth") as server:
        assert server.token is None
        assert "Bearer" not in server.stderr() and "--no-auth" in server.stderr()
        assert _post(server).status_code == 200
        # Authentication off does not turn the rebinding checks off.
        assert _post(server, Host="rebind.invalid").status_code == 421


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "0:0:0:0:0:0:0:1", "::1"])
def test_rebinding_host_and_origin_are_refused_on_every_loopback_bind(
    tmp_path: Path, data_dir: Path, host: str
):
    with http_server(tmp_path, data_dir, tmp_path / "serve.log", host=host) as server:
        auth = _bearer(server.token)
        netloc = server.url.split("/")[2]
        assert _post(server, **auth).status_code == 200
        assert _post(server, **auth, Host=f"rebind.invalid:{server.port}").status_code == 421
        assert _post(server, **auth, Host="rebind.invalid").status_code == 421
        assert _post(server, **auth, Origin="http://rebind.invalid").status_code == 403
        assert _post(server, **auth, Origin=f"http://rebind.invalid:{server.port}"
                     ).status_code == 403
        assert _post(server, **auth, Origin=f"http://{netloc}").status_code == 200
        # Any loopback name for the same port is fine.
        assert _post(server, **auth, Host=f"localhost:{server.port}").status_code == 200


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("127.0.0.2", "127.0.0.2"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::FFFF:7f00:1", "127.0.0.1"),
        ("LocalHost.", "localhost"),
        ("::1%lo", "::1"),
        ("rlm.example.invalid", "rlm.example.invalid"),
    ],
)
def test_addresses_are_normalised_before_the_loopback_check(given, expected):
    assert normalise_host(given) == expected


@pytest.mark.parametrize(
    "host", ["127.0.0.2", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "[::1]", "localhost"]
)
def test_loopback_spellings_are_loopback(host):
    assert check_bind_host(host, allow_remote=False) is True


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "::ffff:0.0.0.0", "localhost.invalid"])
def test_non_loopback_spellings_are_refused(host):
    with pytest.raises(RemoteBindRefused):
        check_bind_host(host, allow_remote=False)


def test_validation_is_on_for_every_bind_and_wildcards_are_never_a_host():
    for host in ("127.0.0.2", "0:0:0:0:0:0:0:1", "0.0.0.0", "::"):
        settings = transport_security(host)
        assert settings.enable_dns_rebinding_protection
        assert not any(h.startswith(("0.0.0.0", "[::]")) for h in settings.allowed_hosts)
    spelled = transport_security("0:0:0:0:0:0:0:1").allowed_hosts
    assert "[::1]:*" in spelled and "[0:0:0:0:0:0:0:1]:*" in spelled
    remote = transport_security("0.0.0.0", allowed_origins=["https://rlm.example.invalid"])
    assert "https://rlm.example.invalid" in remote.allowed_origins
    assert "rlm.example.invalid" in remote.allowed_hosts


def test_allow_remote_requires_an_origin_allowlist():
    result = CliRunner().invoke(
        app, ["serve", "--transport", "http", "--host", "0.0.0.0", "--allow-remote"]
    )
    assert result.exit_code == 1
    assert "error[invalid_args]" in result.output and "--allowed-origin" in result.output


@pytest.mark.parametrize(
    "origin", ["rlm.example.invalid", "ftp://x.invalid", "https://x.invalid/path",
               "https://u:p@x.invalid", "https://x.invalid:99999", "https://"]
)
def test_allowed_origins_must_be_origins(origin):
    with pytest.raises(RemoteBindRefused, match="not an origin"):
        check_origin(origin)
    result = CliRunner().invoke(app, ["serve", "--transport", "http", "--host", "0.0.0.0",
                                      "--allow-remote", "--allowed-origin", origin])
    assert result.exit_code == 1 and "error[invalid_args]" in result.output
    assert re.search(r"Traceback", result.output) is None
