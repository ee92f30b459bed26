"""`serve`: the MCP server over stdio (default) or streamable HTTP on loopback."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..errors import InternalError, RlmError
from .common import CliState, fail

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
                help="HTTP only: allow a non-loopback --host. The transport has "
                "no authentication or TLS.",
            ),
        ] = False,
    ) -> None:
        """Serve the RLM tools and rlm_query over MCP (logs go to stderr)."""
        # Imported here: the MCP SDK is only needed by this command.
        from ..mcp_server import check_bind_host, serve_http, serve_stdio

        state: CliState = ctx.obj
        try:
            if transport is Transport.http and not check_bind_host(host, allow_remote=allow_remote):
                typer.echo(
                    f"rlm-recursive: WARNING: serving on non-loopback {host!r} without "
                    f"authentication or TLS (--allow-remote)",
                    err=True,
                )
            runtime = state.runtime()
        except RlmError as exc:
            raise fail(exc, False) from None
        try:
            if transport is Transport.stdio:
                serve_stdio(runtime)
            else:
                serve_http(runtime, host=host, port=port)
        except KeyboardInterrupt:
            pass
        except RlmError as exc:
            raise fail(exc, False) from None
        except Exception as exc:
            raise fail(InternalError(f"{type(exc).__name__}: {exc}"), False) from exc
        finally:
            runtime.close()
