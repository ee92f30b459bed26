"""Query commands: `query` (answer a question with citations) and `models` (tiers per depth)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.tree import Tree

from ..agent.query import QueryOptions, QueryResult, run_query
from ..agent.recursion import TierPlan
from ..agent.runtime import Runtime
from ..catalog import load_catalog
from .common import CliState, console, print_json, run
from .corpus import load_paths
from .live import live_progress

__all__ = ["register"]


def _render(result: QueryResult) -> None:
    console.print(result.answer, markup=False, highlight=False)
    console.print()
    if result.citations:
        console.print("[bold]citations[/]")
        for c in result.citations:
            console.print(f"  {c.source or c.doc_id} [{c.start}:{c.end}] {c.checksum[:23]}…",
                          markup=False, highlight=False)
    usage = result.usage
    console.print(f"[dim]{result.provider}/{result.model} · strategy {result.strategy} · "
                  f"{usage['model_calls']} model calls · {usage['wall_s']} s · "
                  f"session {result.session_id}"
                  + (f" · run {result.run_id}" if result.run_id else "") + "[/]")
    trace = result.recursion["call_trace"]
    if trace and console.is_terminal:
        tree = Tree(f"depth 0: {result.provider}/{result.model}")
        nodes = {None: tree}
        for call in trace:
            parent = nodes.get(call["parent"], tree)
            nodes[call["call_id"]] = parent.add(
                f"{call['call_id']} depth {call['depth']}: {call['provider']}/{call['model']} "
                f"— {call['query'][:60]}")
        console.print(tree)


def register(app: typer.Typer) -> None:
    @app.command()
    def query(
        ctx: typer.Context,
        question: Annotated[str, typer.Argument(help="The question.")],
        paths: Annotated[list[str] | None, typer.Argument(help="Files or folders to load.")
                         ] = None,
        session: Annotated[str | None, typer.Option("--session", "-s")] = None,
        preset: Annotated[str | None, typer.Option(help="A preset from models.toml.")] = None,
        provider: Annotated[str | None, typer.Option(
            help="auto (default), ollama, claude or embedded.")] = None,
        model: Annotated[str | None, typer.Option(help="Model for the root.")] = None,
        max_depth: Annotated[int, typer.Option(min=0, max=5)] = 1,
        max_iterations: Annotated[int, typer.Option(min=1)] = 20,
        strategy: Annotated[str, typer.Option(
            help="agent, search, map-reduce or auto.")] = "auto",
        timeout: Annotated[float | None, typer.Option(help="Seconds for the whole run.")] = None,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Answer a question over loaded documents (loading PATHs first if given)."""
        state: CliState = ctx.obj
        if not paths and not session:
            raise typer.BadParameter("give PATHs to load or --session")
        if preset and not state.profile:
            # The hospital preset implies the restricted profile, for loading too.
            state.profile = load_catalog().preset(preset).profile
        options = QueryOptions(
            preset=preset, provider=provider, model=model, max_depth=max_depth,
            max_iterations=max_iterations, strategy=strategy, timeout_s=timeout)

        async def body(rt: Runtime) -> QueryResult:
            sid = session
            if paths:
                loaded = await load_paths(rt, paths, session, None, None, None,
                                          show_progress=not json_out)
                sid = loaded["session_id"]
            if json_out:
                return await run_query(rt, sid or "", question, options)
            limits = options.model_dump(include={"max_tool_calls", "max_sub_calls", "timeout_s"})
            with live_progress(console, question, limits):
                return await run_query(rt, sid or "", question, options)

        result = run(state, json_out, body)
        if json_out:
            print_json(result.model_dump())
        else:
            _render(result)

    @app.command()
    def models(
        ctx: typer.Context,
        preset: Annotated[str | None, typer.Option(help="Show one preset.")] = None,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Show the model tier per depth for each preset (or one)."""

        async def body(rt: Runtime) -> dict:
            names = [preset] if preset else list(rt.catalog.presets)
            return {name: {"profile": rt.catalog.preset(name).profile,
                           "tiers": TierPlan.from_preset(rt.catalog, name).describe()}
                    for name in names}

        out = run(ctx.obj, json_out, body)
        if json_out:
            print_json(out)
            return
        table = Table("preset", "depth", "provider", "model", "num_ctx", "profile")
        for name, entry in out.items():
            for tier in entry["tiers"]:
                last = tier["depth"] == len(entry["tiers"]) - 1
                table.add_row(name if tier["depth"] == 0 else "",
                              f"{tier['depth']}{'+' if last else ''}", tier["provider"],
                              tier["model"], str(tier["num_ctx"]), entry["profile"] or "")
        console.print(table)


