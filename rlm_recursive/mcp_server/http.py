"""Streamable HTTP: bearer-token auth, Host/Origin validation for every bind, loopback checks.

Both protections are the SDK's own: `AuthSettings` with a `TokenVerifier` (401 without the
token) and `TransportSecuritySettings` (421 for a foreign Host, 403 for a foreign Origin).
"""

from __future__ import annotations

import ipaddress
import secrets
import sys
from urllib.parse import urlsplit

import anyio
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from ..agent.runtime import Runtime
from ..errors import RlmError
from ..policy import is_loopback_url
from .server import DEFAULT_HOST, DEFAULT_PORT, HTTP_PATH, build_server

__all__ = [
    "RemoteBindRefused",
    "StaticToken",
    "check_bind_host",
    "check_origin",
    "new_token",
    "normalise_host",
    "serve_http",
    "transport_security",
]


class RemoteBindRefused(RlmError):
    """`serve --host` named a non-loopback address without `--allow-remote`."""

    code = "invalid_args"


def normalise_host(host: str) -> str:
    """One spelling per address: `[::ffff:127.0.0.1]` -> `127.0.0.1`, `0:0::1` -> `::1`.

    Names are lower-cased and kept; they are loopback only when they are `localhost`.
    """
    bare = host.strip().strip("[]").split("%", 1)[0].rstrip(".").lower()
    try:
        addr = ipaddress.ip_address(bare)
    except ValueError:
        return bare
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.compressed


def _is_loopback_host(host: str) -> bool:
    # The egress policy's rule: `localhost` or a loopback IP literal; any other name needs DNS.
    return is_loopback_url(f"http://{_host_header(normalise_host(host))}")


def check_bind_host(host: str, *, allow_remote: bool) -> bool:
    """True if `host` is loopback; raise RemoteBindRefused for any other host unless allowed."""
    if _is_loopback_host(host):
        return True
    if allow_remote:
        return False
    raise RemoteBindRefused(
        f"refusing to serve on {host!r}, which is not a loopback address: the HTTP transport "
        f"has no TLS, so anyone who can reach the port could try the bearer token and read what "
        f"it carries. Bind to 127.0.0.1 (the default) and tunnel to it, or pass --allow-remote "
        f"with --allowed-origin if a trusted network (and ideally a TLS proxy) is in front of it",
    )


def _host_header(host: str) -> str:
    """A host as the Host header spells it (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host else host


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Wildcard binds are never a Host to accept: browsers send `0.0.0.0` for pages that attack
# local services ("0.0.0.0 day").
_WILDCARDS = frozenset({"0.0.0.0", "::"})


def transport_security(
    host: str, *, allowed_origins: list[str] | tuple[str, ...] = ()
) -> TransportSecuritySettings:
    """Host/Origin (DNS-rebinding) validation for any bind, through the SDK's own settings.

    The SDK turns it on by itself only for the exact strings `127.0.0.1`, `localhost` and
    `::1`; any other spelling of loopback (`127.0.0.2`, `0:0:0:0:0:0:0:1`) would be served with
    no check at all, so the settings are always given. Requests may name the server by any
    loopback spelling or the bound address; browsers may call from a loopback origin or one
    the operator listed (`--allowed-origin`, required for a remote bind).
    """
    names = {*_LOOPBACK_HOSTS}
    for spelling in (host.strip().strip("[]"), normalise_host(host)):
        if spelling and spelling not in _WILDCARDS:
            names.add(_host_header(spelling))
    hosts = [f"{name}:*" for name in sorted(names)]
    origins = [f"{scheme}://{name}:*" for name in sorted(names) for scheme in ("http", "https")]
    for origin in allowed_origins:
        netloc = urlsplit(origin).netloc
        origins.append(origin)
        hosts.append(netloc)  # a client of that origin names the server the same way
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def check_origin(origin: str) -> str:
    """An `--allowed-origin` value: `scheme://host[:port]` exactly, as browsers send it."""
    try:
        parts = urlsplit(origin)
        _ = parts.port
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise RemoteBindRefused(
            f"--allowed-origin {origin!r} is not an origin; give scheme://host[:port], "
            f"e.g. https://rlm.example.org"
        )
    return f"{parts.scheme}://{parts.netloc}"


class StaticToken:
    """The SDK's TokenVerifier for one bearer token fixed at start (compared in constant time)."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if secrets.compare_digest(token.encode("utf-8", "surrogateescape"), self._token):
            return AccessToken(token=token, client_id="rlm-http", scopes=[])
        return None


def new_token() -> str:
    """A fresh bearer token: 256 bits from the OS's CSPRNG, URL-safe."""
    return secrets.token_urlsafe(32)


def serve_http(
    runtime: Runtime,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    token: str | None = None,
    allowed_origins: list[str] | tuple[str, ...] = (),
) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp until interrupted.

    With `token`, every request needs `Authorization: Bearer <token>` (401 otherwise); the
    token and the `claude mcp add` line that carries it are printed once, to stderr.
    """
    url = f"http://{_host_header(host.strip('[]'))}:{port}{HTTP_PATH}"
    auth = (
        {"auth": AuthSettings(issuer_url=url, resource_server_url=None),
         "token_verifier": StaticToken(token)}
        if token else {}
    )
    server = build_server(runtime, **auth)
    print(
        f"rlm-recursive: MCP over streamable HTTP at {url} "
        f"(profile {runtime.profile.name}, data {runtime.store.data_dir})",
        file=sys.stderr,
    )
    if token:
        print(
            "rlm-recursive: bearer token required (printed only now). Register with:\n"
            f"  claude mcp add --transport http rlm-http {url} "
            f'--header "Authorization: Bearer {token}"',
            file=sys.stderr,
        )
    else:
        print("rlm-recursive: WARNING: authentication is off (--no-auth): any local user or "
              "process that can reach the port can use every tool", file=sys.stderr)
    sys.stderr.flush()
    security = transport_security(host, allowed_origins=allowed_origins)

    async def main() -> None:
        await server.run_streamable_http_async(
            host=host.strip("[]"), port=port, streamable_http_path=HTTP_PATH,
            transport_security=security,
        )

    anyio.run(main)
