"""`rlm-recursive lcm …`: look into conversations (describe, grep, expand), check, compact."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from ..agent.runtime import Runtime
from ..lcm import LcmConfig, lcm_for
from .common import console, print_json, run, tool_output

__all__ = ["lcm_app"]

lcm_app = typer.Typer(no_args_is_help=True, help="Conversation memory: look back, check, compact.")
JsonOpt = Annotated[bool, typer.Option("--json")]
ConvOpt = Annotated[int, typer.Option("--conversation", "-c", help="Conversation id.",
                                       min=1, max=2**63 - 1)]


def _lcm(rt: Runtime) -> Any:
    return lcm_for(rt.store, LcmConfig.load(rt.catalog.lcm))


def _show(value: dict[str, Any], json_out: bool) -> None:
    if json_out:
        print_json(value)
    else:
        console.print_json(data=value)


@lcm_app.command("list")
def list_(ctx: typer.Context, session: Annotated[str | None, typer.Option("--session", "-s")
                                                  ] = None, json_out: JsonOpt = False) -> None:
    """List conversations (of one session)."""

    async def body(rt: Runtime) -> list[dict[str, Any]]:
        if session is not None:
            rt.store.session(session)  # an unknown session is not_found, not an empty list
        return [vars(c) for c in _lcm(rt).store.conversations(session)]

    rows = run(ctx.obj, json_out, body)
    if json_out:
        print_json(rows)
        return
    table = Table("id", "session", "messages", "title", "updated")
    for r in rows:
        table.add_row(str(r["conversation_id"]), r["session_id"], str(r["message_count"]),
                      r["title"] or "", r["updated_at"])
    console.print(table)


@lcm_app.command()
def describe(ctx: typer.Context, id: Annotated[str, typer.Argument(help="sum_…, file_… or msg_…")],
             json_out: JsonOpt = False) -> None:
    """What an id is: a summary's lineage and message range, a file, a message."""
    _show(run(ctx.obj, json_out, lambda rt: tool_output(rt, "lcm_describe", {"id": id})),
          json_out)


@lcm_app.command()
def grep(
    ctx: typer.Context, query: str, conversation: ConvOpt,
    mode: Annotated[Literal["full_text", "regex"], typer.Option(
        help="full_text or regex")] = "full_text",
    scope: Annotated[Literal["messages", "summaries", "both"], typer.Option(
        help="messages, summaries or both")] = "both",
    limit: int = 10, json_out: JsonOpt = False,
) -> None:
    """Search a conversation's whole history, compacted parts included."""
    args = {"query": query, "conversation_id": conversation, "mode": mode, "scope": scope,
            "limit": limit}
    out = run(ctx.obj, json_out, lambda rt: tool_output(rt, "lcm_grep", args))
    if json_out:
        print_json(out)
        return
    for m in out["matches"]:
        lineage = m.get("summarised_by") or m.get("source_ids") or []
        console.print(f"[bold]{m['id']}[/] ({m['kind']}) {escape(m['snippet'])}", highlight=False)
        if lineage:
            console.print(f"  [dim]↳ {', '.join(lineage[:8])}[/]")


@lcm_app.command()
def expand(
    ctx: typer.Context, summary_id: str, depth: int = 2,
    include_raw: Annotated[bool, typer.Option("--raw/--no-raw")] = True,
    token_cap: Annotated[int | None, typer.Option(help="Stop after about this many tokens.")
                         ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show the child summaries and original messages behind a summary."""
    args: dict[str, Any] = {"summary_id": summary_id, "depth": depth, "include_raw": include_raw}
    if token_cap:
        args["token_cap"] = token_cap
    out = run(ctx.obj, json_out, lambda rt: tool_output(rt, "lcm_expand", args))
    if json_out:
        print_json(out)
        return
    console.print(f"[bold]{escape(summary_id)}[/] ({out['kind']}): {escape(out['summary'])}",
                  highlight=False)
    for c in out["children"]:
        console.print(f"  [bold]{escape(c['id'])}[/] {escape(c['content'])}", highlight=False)
    for m in out["messages"]:  # markup on, every value escaped: `[bold]` is styling here
        console.print(f"  [bold]{escape(m['id'])}[/] #{m['seq']} {escape(m['role'])}: "
                      f"{escape(m['content'])}", highlight=False)
    if out["truncated"]:
        console.print("[yellow]truncated at the token cap[/]")


@lcm_app.command()
def check(
    ctx: typer.Context,
    conversation: Annotated[int | None, typer.Option("--conversation", "-c", min=1,
                                                     max=2**63 - 1)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Verify the four lineage invariants; print violations and a repair plan (exit 1 if any)."""

    async def body(rt: Runtime) -> dict[str, Any]:
        lcm = _lcm(rt)
        if conversation is not None:
            lcm.store.conversation(conversation)  # unknown: not_found, not a clean report
        checker = lcm.integrity
        report = checker.run(conversation)
        return {**report.to_dict(), "repair_plan": checker.plan_repairs(report)}

    out = run(ctx.obj, json_out, body)
    if json_out:
        print_json(out)
    elif out["ok"]:
        console.print("[green]ok[/]: every summary has sources, every context item a target, "
                      "no duplicate ordinals, no canonical row missing")
    else:
        for v, action in zip(out["violations"], out["repair_plan"]["actions"], strict=True):
            console.print(f"[red]invariant {v['invariant']}[/] {v['kind']} {v['ids']}: "
                          f"{v['detail']}\n  plan: {action['action']}", highlight=False)
    if not out["ok"]:
        raise typer.Exit(1)


@lcm_app.command()
def compact(ctx: typer.Context, conversation: ConvOpt, json_out: JsonOpt = False) -> None:
    """Compact a conversation now (model-free extractive summaries; canonical rows stay)."""

    async def body(rt: Runtime) -> dict[str, Any]:
        lcm = _lcm(rt)
        lcm.store.conversation(conversation)  # unknown: not_found, not an empty compaction
        result = await lcm.compaction.compact(conversation)
        return {"compaction_id": result.compaction_id, "conversation_id": conversation,
                "tokens_before": result.tokens_before, "tokens_after": result.tokens_after,
                "leaf_ids": result.leaf_ids, "condensed_ids": result.condensed_ids}

    out = run(ctx.obj, json_out, body)
    if json_out:
        print_json(out)
    else:
        console.print(f"{out['compaction_id']}: {out['tokens_before']} → {out['tokens_after']} "
                      f"tokens, {len(out['leaf_ids'])} leaf and {len(out['condensed_ids'])} "
                      "condensed summaries")
