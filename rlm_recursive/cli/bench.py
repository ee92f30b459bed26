"""`rlm-recursive bench sniah`: the runner against the model used directly, in numbers."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Annotated

import typer
from rich.table import Table

from ..agent.query import QueryOptions
from ..agent.strategies import Strategy
from ..bench.sniah import run_sniah
from ..errors import RlmError
from .common import CliState, ProviderChoice, console, fail, known_preset, print_json

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmarks.", no_args_is_help=True)


class _Method(StrEnum):
    direct = "direct"
    runner = "runner"


_MAX_LENGTH = 100_000_000
"""Characters per haystack: the generator holds it in memory."""


def _lengths(raw: str) -> list[int]:
    sizes = []
    for part in raw.split(","):
        part = part.strip().lower()
        scale = {"k": 1_000, "m": 1_000_000}.get(part[-1:], 1)
        sizes.append(int(float(part.rstrip("km")) * scale))
    return sizes


def _check_lengths(raw: str) -> str:
    """Option callback: every size parses and lies in 1.._MAX_LENGTH (a usage error if not)."""
    try:
        sizes = _lengths(raw)
    except (ValueError, OverflowError):
        raise typer.BadParameter(f"{raw!r}: give sizes such as 8k,32k,1m") from None
    if not all(0 < size <= _MAX_LENGTH for size in sizes):
        raise typer.BadParameter(f"{raw!r}: each size must be 1..{_MAX_LENGTH:,} characters")
    return raw


@bench_app.command()
def sniah(
    ctx: typer.Context,
    lengths: Annotated[str, typer.Option(help="Haystack sizes in characters.",
                                         callback=_check_lengths)] = "8k,32k,128k,1m",
    tasks: Annotated[int, typer.Option("--tasks", "-n", help="Tasks per length.",
                                       min=1, max=10_000)] = 10,
    seed: int = 0,
    method: Annotated[list[_Method] | None, typer.Option(help="direct and/or runner.")] = None,
    strategy: Annotated[Strategy, typer.Option(help="Runner strategy.")] = "auto",
    provider: ProviderChoice | None = None, model: str | None = None,
    preset: Annotated[str | None, typer.Option(callback=known_preset)] = None,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Single needle in a haystack at several lengths: accuracy, time, calls, tokens."""
    options = QueryOptions(provider=provider, model=model, preset=preset, strategy=strategy)

    def progress(done: int, total: int, latest: list) -> None:
        if not json_out:
            marks = " ".join(f"{o.method}={'ok' if o.correct else 'miss'}" for o in latest)
            console.print(f"[dim]task {done}/{total}: {marks}[/]")

    try:
        report = asyncio.run(run_sniah(lengths=_lengths(lengths), per_length=tasks, seed=seed,
                                       methods=tuple(method or ("direct", "runner")),
                                       options=options, progress=progress,
                                       # --profile / RLM_PROFILE of the root command.
                                       profile=ctx.ensure_object(CliState).profile))
    except RlmError as exc:
        raise fail(exc, json_out) from None
    if json_out:
        print_json(report)
        return
    table = Table("length (chars)", "method", "accuracy", "mean wall s", "model calls",
                  "prompt tokens", "errors",
                  title=f"S-NIAH · {report['model']} · num_ctx {report['num_ctx']} · "
                        f"seed {report['seed']}")
    for row in report["rows"]:
        table.add_row(f"{row['length']:,}", row["method"], f"{row['accuracy']:.0%}",
                      f"{row['mean_wall_s']}", f"{row['mean_model_calls']}",
                      f"{row['mean_prompt_tokens']:,}", ",".join(row["errors"]))
    console.print(table)
