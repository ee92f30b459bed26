"""`serve`: the MCP server over stdio (default) or streamable HTTP on loopback."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..errors import RlmError
from .common import CliState, fail, serve_until_stopped

__all__ = ["register"]


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        ctx: typer.Context,
        transport: Annotated[
            Transport,
            typer.Option(
                help="stdio for a client that starts the server (Claude Code); http for a "
                "long-running server at http://HOST:PORT/mcp."
            ),
        ] = Transport.stdio,
        host: Annotated[str, typer.Option(help="HTTP only: the address to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP only: the port.")] = 8765,
        allow_remote: Annotated[
            bool,
            typer.Option(
                "--allow-remote",
                help="HTTP only: allow a non-loopback --host (needs --allowed-origin). There "
                "is no TLS: put a TLS proxy in front.",
            ),
        ] = False,
        allowed_origin: Annotated[
            list[str] | None,
            typer.Option(
                "--allowed-origin",
                help="HTTP only: an Origin (scheme://host[:port]) allowed to call, besides "
                "loopback ones; repeatable; required with --allow-remote.",
            ),
        ] = None,
        no_auth: Annotated[
            bool,
            typer.Option(
                "--no-auth",
                help="HTTP only: serve without the bearer token (a single-user machine only).",
            ),
        ] = False,
    ) -> None:
        """Serve the RLM tools and rlm_query over MCP (logs go to stderr).

        Over HTTP a bearer token is generated at start and printed once to stderr, with the
        `claude mcp add` line that passes it.
        """
        # Imported here: the MCP SDK is only needed by this command.
        from ..mcp_server import (
            RemoteBindRefused,
            check_bind_host,
            check_origin,
            new_token,
            serve_http,
            serve_stdio,
        )

        state: CliState = ctx.obj
        try:
            origins = [check_origin(o) for o in allowed_origin or []]
            if transport is Transport.http and not check_bind_host(host, allow_remote=allow_remote):
                if not origins:
                    raise RemoteBindRefused(
                        "--allow-remote needs at least one --allowed-origin (the origin remote "
                        "clients use, e.g. --allowed-origin https://rlm.example.org): Host and "
                        "Origin are checked on every bind"
                    )
                typer.echo(
                    f"rlm-recursive: WARNING: serving on non-loopback {host!r} without TLS "
                    f"(--allow-remote)",
                    err=True,
                )
            runtime = state.runtime()
        except RlmError as exc:
            raise fail(exc, False) from None
        if transport is Transport.stdio:
            serve_until_stopped(runtime, lambda: serve_stdio(runtime))
        else:
            serve_until_stopped(runtime, lambda: serve_http(
                runtime, host=host, port=port, token=None if no_auth else new_token(),
                allowed_origins=origins))
