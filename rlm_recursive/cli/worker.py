"""`worker`: run queued executions and loads from the shared store (PostgreSQL) until
stopped."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

import typer

from .common import CliState, nonnegative_seconds, positive_seconds, serve_until_stopped

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command()
    def worker(
        ctx: typer.Context,
        concurrency: Annotated[int, typer.Option(
            min=1, max=256, help="Jobs (executions and loads) this worker runs at once.")
        ] = 1,
        lease_s: Annotated[float, typer.Option(
            "--lease-s", parser=positive_seconds,
            help="Seconds without a heartbeat before this worker's executions are given "
            "to another worker (heartbeats go every third of it).")] = 30.0,
        shutdown_grace_s: Annotated[float, typer.Option(
            "--shutdown-grace-s", parser=nonnegative_seconds,
            help="On SIGTERM/Ctrl-C, how long running executions may finish before they go "
            "back to the queue.")] = 30.0,
        concurrent_executions: Annotated[int, typer.Option(
            min=1, max=10_000, help="Executions a tenant may run at once, across every "
            "worker and api process (give them all the same number); more wait QUEUED.")
        ] = 4,
        max_attempts: Annotated[int, typer.Option(
            min=1, max=100, help="Runs an execution or a load gets when its result is lost "
            "(the database gone at its final write); then it ends FAILED (an execution with "
            "execution_lost, a load's session with internal_error).")] = 3,
        metrics_port: Annotated[int | None, typer.Option(
            "--metrics-port", min=1, max=65535, help="Serve Prometheus metrics (jobs, "
            "executions, durations, in flight) on this port.")] = None,
        metrics_host: Annotated[str, typer.Option(
            "--metrics-host", help="The address the metrics listen on (0.0.0.0 for a "
            "scraper on another machine).")] = "127.0.0.1",
        verbose: Annotated[bool, typer.Option("--verbose", help="Log every job.")] = False,
    ) -> None:
        """Run the executions and loads `api` and `load --queue` queued (needs
        RLM_DATABASE_URL=postgresql://…)."""
        # Imported here: procrastinate and the agent are only needed by this command.
        from ..queue.worker import serve_worker

        logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                            format="%(asctime)s %(name)s %(levelname)s %(message)s")
        state: CliState = ctx.obj
        runtime = state.runtime()
        serve_until_stopped(runtime, lambda: asyncio.run(serve_worker(
            runtime, concurrency=concurrency, lease_s=lease_s,
            shutdown_grace_s=shutdown_grace_s, tenant_cap=concurrent_executions,
            max_attempts=max_attempts, metrics_port=metrics_port,
            metrics_host=metrics_host)))
