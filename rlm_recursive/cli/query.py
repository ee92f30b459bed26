"""Query commands: `query` (answer a question with citations) and `models` (tiers per depth)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.tree import Tree

from ..agent.query import QueryOptions, QueryResult, preflight_egress, run_query
from ..agent.recursion import TierPlan
from ..agent.runtime import Runtime
from ..catalog import MAX_SERVER_NUM_CTX, load_catalog
from ..types import location_label
from .common import (
    CliState,
    console,
    err_console,
    known_preset,
    positive_seconds,
    print_json,
    run,
    typed_model_choice,
)
from .corpus import load_paths
from .documents import NoIgnoreOpt, OcrOpt, not_loaded_note, print_load_problems
from .live import live_progress
from .options import (
    ConversationOpt,
    MaxIterationsOpt,
    ModelOpt,
    PathsArg,
    PresetOpt,
    ProviderOpt,
    SessionOpt,
    StrategyOpt,
    TierOpt,
    tier_map,
)

__all__ = ["register", "render_result"]


def render_result(result: QueryResult) -> None:
    """The answer, its citations and one line of provenance (and the call tree on a tty)."""
    console.print(result.answer, markup=False, highlight=False)
    console.print()
    if result.citations:
        console.print("[bold]citations[/]")
        for c in result.citations:
            console.print(f"  {location_label(c.model_dump())} [{c.start}:{c.end}] "
                          f"{c.checksum[:23]}…", markup=False, highlight=False)
    usage = result.usage
    console.print(f"[dim]{result.provider}/{result.model} · num_ctx {result.plan[0]['num_ctx']} · "
                  f"strategy {result.strategy} · "
                  f"{usage['model_calls']} model calls · {usage['wall_s']} s · "
                  f"session {result.session_id}"
                  + (f" · conversation {result.conversation_id}" if result.conversation_id
                     else "")
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


def _show_step(event: dict) -> None:
    """A REPL step as it runs (terminal only): its code, stdout excerpt and sub-calls."""
    if event.get("event") != "repl_step":
        return
    code = event["code"].strip().splitlines()
    shown = "\n".join(f"  │ {line}" for line in code[:8])
    more = f"\n  │ … {len(code) - 8} more lines" if len(code) > 8 else ""
    err_console.print(f"[bold]step {event['turn']}[/] [dim]{event['ms']} ms, "
                      f"{event['sub_calls']} sub-calls[/]")
    err_console.print(shown + more, markup=False, highlight=False)
    out = event["stdout"].strip()
    if out:
        err_console.print("  → " + out[:300].replace("\n", "\n    "), markup=False,
                          highlight=False)
    if event["error"]:
        err_console.print(f"  [red]{event['error']['type']}[/]: {event['error']['message']}")
def _tiers(plan: TierPlan) -> list[dict]:
    """`describe()`, plus where each window comes from: an uncatalogued model on a server
    (Ollama, OpenAI-compatible) gets the server's length (capped) at run time, and a listing
    asks no server."""
    rows = plan.describe()
    for row, tier in zip(rows, plan.tiers, strict=True):
        # Ollama, openai and [providers.NAME] groups ask their server for the window.
        from_server = not tier.info.catalogued and tier.provider not in (
            "embedded", "claude", "fake")
        row["num_ctx_from"] = "server" if from_server else "catalog"
        if from_server:
            row["num_ctx"] = None
    return rows


def _window(tier: dict) -> str:
    if tier.get("num_ctx_from") == "server":
        return f"server (≤ {MAX_SERVER_NUM_CTX})"
    return str(tier["num_ctx"])


def register(app: typer.Typer) -> None:
    @app.command()
    def query(
        ctx: typer.Context,
        question: Annotated[str, typer.Argument(help="The question.")],
        paths: PathsArg = None,
        session: SessionOpt = None,
        conversation: ConversationOpt = None,
        preset: PresetOpt = None,
        provider: ProviderOpt = None,
        model: ModelOpt = None,
        tier: TierOpt = None,
        max_depth: Annotated[int, typer.Option(min=0, max=5)] = 1,
        max_iterations: MaxIterationsOpt = 20,
        strategy: StrategyOpt = "auto",
        timeout: Annotated[float | None, typer.Option(
            help="Seconds for the whole run.", parser=positive_seconds)] = None,
        max_tool_calls: Annotated[int, typer.Option(
            min=1, help="Tool calls the run may make (all depths).")] = 200,
        max_sub_calls: Annotated[int, typer.Option(
            min=0, help="Sub-model calls the run may make.")] = 64,
        max_usd: Annotated[float | None, typer.Option(
            min=0, help="Dollar cap for the run (cloud models).")] = None,
        ocr: OcrOpt = None,
        no_ignore: NoIgnoreOpt = False,
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
            preset=preset, provider=provider, model=model, model_tiers=tier_map(tier),
            max_depth=max_depth,
            max_iterations=max_iterations, strategy=strategy, timeout_s=timeout,
            max_tool_calls=max_tool_calls, max_sub_calls=max_sub_calls, budget_usd=max_usd,
            conversation_id=conversation,
            operator_opt_in=typed_model_choice(provider, model, preset, tier))

        execution: dict = {}
        load: dict = {}

        async def body(rt: Runtime) -> QueryResult:
            sid = session
            if paths:
                await preflight_egress(rt, options)  # a refused host: nothing gets loaded
                loaded = await load_paths(rt, paths, session, None, None, None,
                                          show_progress=not json_out, ocr=ocr,
                                          ignore_rules=not no_ignore)
                sid = loaded["session_id"]
                load.update(errors=loaded["errors"], skipped=loaded["skipped"],
                            warnings=[w for d in loaded["loaded"] for w in d.get("warnings")
                                      or []])
                if not json_out:
                    print_load_problems(err_console, loaded)
            if json_out:
                result = await run_query(rt, sid or "", question, options)
                if result.execution_id:
                    execution.update(await rt.executions.get(result.execution_id, True))
                return result
            limits = options.model_dump(include={"max_tool_calls", "max_sub_calls", "timeout_s"})
            steps = _show_step if err_console.is_terminal else None
            with live_progress(console, question, limits):
                return await run_query(rt, sid or "", question, options, progress=steps)

        result = run(state, json_out, body)
        if result.uncited:
            err_console.print("warning: the answer cites nothing the run read, so no document "
                              "backs it; check it before relying on it", markup=False,
                              highlight=False)
        note = not_loaded_note(load)
        if json_out:
            # `load`: the files this query's PATHs lost (errors) or ignored (skipped counts).
            print_json({**result.model_dump(), **({"execution": execution} if execution
                                                  else {}), **({"load": load} if load else {})})
        else:
            render_result(result)
            if note:
                console.print(note, markup=False, highlight=False, style="yellow")

    @app.command()
    def models(
        ctx: typer.Context,
        preset: Annotated[str | None, typer.Option(
            help="Show one preset.", callback=known_preset)] = None,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Show the model tier per depth for each preset (or one)."""

        async def body(rt: Runtime) -> dict:
            names = [preset] if preset else list(rt.catalog.presets)
            return {name: {"profile": rt.catalog.preset(name).profile,
                           "tiers": _tiers(TierPlan.from_preset(rt.catalog, name))}
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
                              tier["model"], _window(tier), entry["profile"] or "")
        console.print(table)


