"""`api`: the tenant-isolated HTTP API /v1 on uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer

from ..config import DEFAULT_MAX_BODY_BYTES
from ..errors import InvalidArgs, RlmError
from .common import CliState, fail, serve_until_stopped

__all__ = ["register"]


def _supervise(workers: int, host: str, port: int) -> None:
    """Start `workers` one-process `api` commands on one socket (api/workers.py)."""
    import socket
    import sys

    from ..api.workers import supervise
    from ..store.connector import database_url

    if not hasattr(socket, "send_fds"):  # Windows: connections cannot be handed over
        raise fail(InvalidArgs(
            "--workers > 1 needs a Unix system; on Windows run several `api` processes on "
            "their own ports behind a load balancer"), False)
    if database_url() is None:
        raise fail(InvalidArgs(
            "--workers > 1 needs RLM_DATABASE_URL: each process would otherwise count rate "
            "limits and running executions on its own"), False)
    command = [sys.executable, "-m", "rlm_recursive", *_without_workers(sys.argv[1:])]
    raise typer.Exit(supervise(command, workers, host, port))


def _without_workers(args: list[str]) -> list[str]:
    """The command line with its --workers option taken out (each worker runs one process)."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--workers":
            skip = True
        elif not arg.startswith("--workers="):
            kept.append(arg)
    return kept


def register(app: typer.Typer) -> None:
    @app.command()
    def api(
        ctx: typer.Context,
        host: Annotated[str, typer.Option(help="The address to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="The port.")] = 8780,
        allow_remote: Annotated[bool, typer.Option(
            "--allow-remote", help="Allow a non-loopback --host (put TLS in front of it).")
        ] = False,
        requests_per_minute: Annotated[int, typer.Option(
            min=1, help="Per key; a tenant gets twice this.")] = 600,
        concurrent_executions: Annotated[int, typer.Option(
            min=1, help="Executions a tenant may run at once.")] = 4,
        max_body_bytes: Annotated[int, typer.Option(
            min=1024, help="Largest request body (inline documents count); larger is 413.")
        ] = DEFAULT_MAX_BODY_BYTES,
        mcp: Annotated[bool, typer.Option(
            "--mcp", help="Also serve MCP over streamable HTTP at /mcp (admin keys only).")
        ] = False,
        workers: Annotated[int, typer.Option(
            min=1, max=64, help="API processes on one port (needs RLM_DATABASE_URL: they "
            "share limits, keys and executions through it).")] = 1,
    ) -> None:
        """Serve the HTTP API (/v1, docs at /docs); clients need a key from `keys create`."""
        # Imported here: FastAPI and uvicorn are only needed by this command.
        from ..api import ApiSettings, serve_api
        from ..mcp_server import check_bind_host

        state: CliState = ctx.obj
        if workers > 1:
            _supervise(workers, host, port)
            return
        try:
            if not check_bind_host(host, allow_remote=allow_remote):
                typer.echo(
                    f"rlm-recursive: WARNING: serving on non-loopback {host!r} over plain "
                    "HTTP: API keys and documents cross the network in clear text; put a "
                    "TLS-terminating proxy in front of it (--allow-remote)", err=True)
            settings = ApiSettings(key_requests_per_minute=requests_per_minute,
                                   tenant_requests_per_minute=2 * requests_per_minute,
                                   tenant_concurrent_executions=concurrent_executions,
                                   max_body_bytes=max_body_bytes)
            runtime = state.runtime()
        except RlmError as exc:
            raise fail(exc, False) from None
        serve_until_stopped(runtime, lambda: serve_api(runtime, host=host, port=port,
                                                       settings=settings, with_mcp=mcp))
