"""`trace RUN_ID` (the recorded trajectory, as text, JSON or one HTML file) and `runs`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.tree import Tree

from ..agent.runtime import Runtime
from ..store.lifecycle import reap_runs
from ..store.trajectory import list_runs
from ..trajectory.report import load_trajectory, render_html
from .common import CliState, console, print_json, run

__all__ = ["register"]


def _tree(trajectory: dict[str, Any]) -> Tree:
    run_row = trajectory["run"]
    root = Tree(f"run {run_row['id']} · {run_row.get('strategy') or '?'} · {run_row['status']}")
    nodes: dict[str | None, Tree] = {None: root}
    for event in sorted(trajectory["events"], key=lambda e: e["started_at"]):
        parent = nodes.get(event["parent_id"], root)
        tokens = (f" · {event['input_tokens']}→{event['output_tokens']} tok"
                  if event.get("input_tokens") is not None else "")
        error = f" · [red]{event['error_code']}[/]" if event.get("error_code") else ""
        nodes[event["id"]] = parent.add(
            f"[bold]{event['id']}[/] {event['kind']} {event['name']} "
            f"[dim]{event['duration_ms']:.1f} ms{tokens}[/]{error}")
    return root


def register(app: typer.Typer) -> None:
    @app.command()
    def trace(
        ctx: typer.Context,
        run_id: Annotated[str, typer.Argument(metavar="RUN_ID")],
        html: Annotated[Path | None, typer.Option(
            "--html", help="Write one self-contained HTML report to this file.")] = None,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Show what a run did: every model call, tool call, REPL step and sub-call."""

        async def body(rt: Runtime) -> dict[str, Any]:
            rt.store.flush()
            reap_runs(rt.store.sql)
            return load_trajectory(rt.store, run_id)

        trajectory = run(ctx.obj, json_out, body)
        if html is not None:
            html.write_text(render_html(trajectory), encoding="utf-8")
            if not json_out:
                console.print(f"wrote {html}", markup=False, highlight=False)
        if json_out:
            print_json(trajectory)
        elif html is None:
            console.print(_tree(trajectory))

    @app.command()
    def runs(
        ctx: typer.Context,
        session: Annotated[str | None, typer.Option("--session", "-s")] = None,
        limit: Annotated[int, typer.Option(min=1, max=10_000)] = 20,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """List recent runs: id, start, strategy, status, time, cost and question."""
        state: CliState = ctx.obj

        async def body(rt: Runtime) -> list[dict[str, Any]]:
            if session is not None:
                rt.store.session(session)  # an unknown session is not_found, not "no runs"
            rt.store.flush()
            reap_runs(rt.store.sql)  # a run whose process died is failed, not "running"
            keep = ("id", "session_id", "question", "question_chars", "strategy", "status",
                    "error_code", "started_at", "duration_ms", "cost_usd", "mode")
            return [{k: r.get(k) for k in keep} for r in list_runs(rt.store.sql, session, limit)]

        rows = run(state, json_out, body)
        if json_out:
            print_json(rows)
            return
        # One line per run, the question last: on a terminal it is the only part that may
        # be cut short; piped or redirected, nothing is (ids must stay copyable).
        for r in rows:
            question = r["question"] if r["question"] is not None else (
                f"({r['question_chars']} chars, not recorded)")
            status = r["status"] + (f" ({r['error_code']})" if r["error_code"] else "")
            head = (f"{r['id']}  {r['started_at'][:16].replace('T', ' ')}  "
                    f"{r['strategy'] or '?':<10} {status:<8} "
                    f"{(r['duration_ms'] or 0) / 1000:>6.1f} s  ${r['cost_usd'] or 0:.4f}  ")
            shown = question.replace("\n", " ")
            room = max(console.width - len(head), 20)
            if console.is_terminal and len(shown) > room:
                shown = shown[: room - 1] + "…"
            console.print(head + shown, markup=False, highlight=False, no_wrap=True,
                          overflow="ignore", crop=False)
        if not rows:
            console.print("no runs recorded yet")
