"""`rlm-recursive chat`: a terminal conversation over a corpus that never forgets.

Every turn is a query that continues one LCM conversation: follow-up questions see the
earlier turns (assembled under the model's window, old ones as summaries), and the answer
comes with its citations. Slash commands look back into the history or compact it.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from ..agent.pool import ProviderPool
from ..agent.query import QueryOptions, preflight_egress, run_query
from ..agent.runtime import Runtime
from ..catalog import load_catalog
from ..errors import RlmError
from ..lcm import LcmConfig, lcm_for
from .common import (
    CliState,
    console,
    err_console,
    print_json,
    run,
    tool_output,
    typed_model_choice,
)
from .corpus import load_paths
from .documents import print_load_problems
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
from .query import render_result

__all__ = ["register"]

HELP = ("/grep TEXT  search the whole conversation · /expand SUMMARY_ID  show what a summary "
        "covers · /compact  compact now · /quit")


async def _command(rt: Runtime, line: str, conversation_id: int | None) -> dict[str, Any]:
    """One slash command; returns what it printed, for --json."""
    name, _, rest = line[1:].partition(" ")
    if conversation_id is None and name in ("grep", "compact"):
        return {"error": "ask a question first: there is no conversation yet"}
    if name == "grep" and rest.strip():
        return await tool_output(rt, "lcm_grep", {"query": rest.strip(),
                                                  "conversation_id": conversation_id})
    if name == "expand" and rest.strip():
        return await tool_output(rt, "lcm_expand", {"summary_id": rest.strip()})
    if name == "compact":
        lcm = lcm_for(rt.store, LcmConfig.load(rt.catalog.lcm))
        result = await lcm.compaction.compact(conversation_id or 0)
        return {"compaction_id": result.compaction_id, "tokens_before": result.tokens_before,
                "tokens_after": result.tokens_after, "summaries": result.summary_ids}
    return {"help": HELP}


async def _read(prompt: str) -> str | None:
    """One line from the terminal (or a pipe); None at end of input."""
    def read() -> str | None:
        if sys.stdin.isatty():
            try:
                return console.input(prompt)
            except EOFError:
                return None
        line = sys.stdin.readline()
        return line.rstrip("\n") if line else None

    return await asyncio.to_thread(read)


def register(app: typer.Typer) -> None:
    @app.command()
    def chat(
        ctx: typer.Context,
        paths: PathsArg = None,
        session: SessionOpt = None,
        conversation: ConversationOpt = None,
        preset: PresetOpt = None,
        provider: ProviderOpt = None,
        model: ModelOpt = None,
        tier: TierOpt = None,
        strategy: StrategyOpt = "auto",
        max_iterations: MaxIterationsOpt = 20,
        json_out: Annotated[bool, typer.Option("--json", help="One JSON object per turn.")
                            ] = False,
    ) -> None:
        """Talk to a corpus: questions, follow-ups, /grep, /expand, /compact."""
        state: CliState = ctx.obj
        if not paths and not session:
            raise typer.BadParameter("give PATHs to load or --session")
        if preset and not state.profile:
            state.profile = load_catalog().preset(preset).profile
        options = QueryOptions(preset=preset, provider=provider, model=model,
                               model_tiers=tier_map(tier), strategy=strategy,
                               max_iterations=max_iterations, conversation_id=conversation,
                               operator_opt_in=typed_model_choice(provider, model, preset,
                                                                  tier))

        async def body(rt: Runtime) -> None:
            sid = session
            if paths:
                await preflight_egress(rt, options)  # a refused host: nothing gets loaded
                loaded = await load_paths(rt, paths, session, None, None, None,
                                          show_progress=not json_out)
                sid = loaded["session_id"]
                print_load_problems(err_console, loaded, limit=20)
            if not json_out:
                console.print(f"[dim]session {sid} · {HELP}[/]")
            pool = ProviderPool()
            try:
                await _turns(rt, sid or "", options, pool, json_out)
            finally:
                await pool.aclose()

        run(state, json_out, body)

    async def _turns(rt: Runtime, sid: str, options: QueryOptions, pool: ProviderPool,
                     json_out: bool) -> None:
        while (line := await _read("[bold]you>[/] ")) is not None:
            line = line.strip()
            if not line:
                continue
            if line in ("/quit", "/exit"):
                break
            if line.startswith("/"):
                try:
                    out = await _command(rt, line, options.conversation_id)
                except RlmError as exc:
                    out = exc.to_dict()
                if json_out:
                    print_json({"command": line, **out})
                else:
                    console.print_json(data=out)
                continue
            result = await run_query(rt, sid, line, options, pool)
            options = options.model_copy(update={"conversation_id": result.conversation_id})
            if json_out:
                print_json(result.model_dump())
            else:
                render_result(result)
