"""`rlm-recursive bench sniah|oolong|multihop`: the runner against the model used directly."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..agent.query import QueryOptions
from ..bench import multihop, oolong
from ..bench.harness import Outcome, run_bench
from ..bench.sniah import run_sniah
from ..errors import RlmError
from .common import console, fail, print_json

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmarks.", no_args_is_help=True)

Methods = Annotated[list[str] | None, typer.Option(
    "--method", help="direct and/or runner strategies (auto, search, iterative, count, "
                     "classify, map-reduce); 'runner' means --strategy. Repeatable.")]
Strategy = Annotated[str, typer.Option(help="The strategy 'runner' stands for.")]
Tasks = Annotated[int, typer.Option("--tasks", "-n", help="Tasks per row.")]
JsonOut = Annotated[bool, typer.Option("--json")]


def _lengths(raw: str) -> list[int]:
    sizes = []
    for part in raw.split(","):
        part = part.strip().lower()
        scale = {"k": 1_000, "m": 1_000_000}.get(part[-1:], 1)
        sizes.append(int(float(part.rstrip("km")) * scale))
    return sizes


def _methods(method: list[str] | None, strategy: str) -> tuple[str, ...]:
    chosen = method or ["direct", "runner"]
    return tuple(dict.fromkeys(strategy if m == "runner" else m for m in chosen))


def _run(title: str, json_out: bool,
         start: Callable[[Callable[[int, int, list[Outcome]], None]], Awaitable[dict[str, Any]]],
         ) -> None:
    """Run a bench under a progress bar, then print its table (or its JSON)."""
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[last]}"), console=console,
                  disable=json_out, transient=False) as bar:
        handle = bar.add_task(title, total=None, last="")

        def progress(done: int, total: int, latest: list[Outcome]) -> None:
            marks = " ".join(f"{o.method}={o.score:.2f}" for o in latest)
            bar.update(handle, completed=done, total=total, last=marks)

        try:
            report = asyncio.run(start(progress))
        except RlmError as exc:
            raise fail(exc, json_out) from None
    if json_out:
        print_json(report)
        return
    table = Table("row", "method", "tasks", "score", "exact", "mean wall s", "model calls",
                  "prompt tokens", "notes",
                  title=f"{title} · {report['model']} · num_ctx {report['num_ctx']} · "
                        f"seed {report['seed']}")
    for row in report["rows"]:
        notes = [f"{k} {v}" for k, v in row.get("means", {}).items()]
        notes += [",".join(row["strategies"])] if row["strategies"] else []
        notes += [f"errors: {','.join(row['errors'])}"] if row["errors"] else []
        table.add_row(row["group"], row["method"], str(row["tasks"]), f"{row['accuracy']:.3f}",
                      f"{row['exact']:.0%}", f"{row['mean_wall_s']}",
                      f"{row['mean_model_calls']}", f"{row['mean_prompt_tokens']:,}",
                      "; ".join(notes))
    console.print(table)


def _options(provider: str | None, model: str | None, preset: str | None) -> QueryOptions:
    # A bench runs many sub-calls per task (classify batches, map-reduce chunks).
    return QueryOptions(provider=provider, model=model, preset=preset, max_sub_calls=2000)


@bench_app.command()
def sniah(
    lengths: Annotated[str, typer.Option(help="Haystack sizes in characters.")
                       ] = "8k,32k,128k,1m",
    tasks: Tasks = 10, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: str | None = None, model: str | None = None, preset: str | None = None,
    json_out: JsonOut = False,
) -> None:
    """Single needle in a haystack at several lengths: accuracy, time, calls, tokens."""
    options = _options(provider, model, preset)
    _run("S-NIAH", json_out, lambda progress: run_sniah(
        lengths=_lengths(lengths), per_length=tasks, seed=seed,
        methods=_methods(method, strategy), options=options, progress=progress))


@bench_app.command("oolong")
def oolong_cmd(
    kinds: Annotated[str, typer.Option(help="count, judge and/or most, comma-separated.")
                     ] = "count,judge,most",
    lengths: Annotated[str, typer.Option(help="Context sizes (count, most) in characters.")
                       ] = "32k,200k,1m",
    judge_items: Annotated[int, typer.Option(help="Notes per judge task.")] = 500,
    tasks: Tasks = 5, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: str | None = None, model: str | None = None, preset: str | None = None,
    json_out: JsonOut = False,
) -> None:
    """OOLONG-style aggregation: counting, judged counting, most frequent label."""
    chosen = [k.strip() for k in kinds.split(",") if k.strip()]
    unknown = sorted(set(chosen) - set(oolong.KINDS))
    if unknown:
        raise typer.BadParameter(f"unknown kind(s) {', '.join(unknown)}; use "
                                 f"{', '.join(oolong.KINDS)}", param_hint="--kinds")
    generated = oolong.make_tasks(seed, chosen, _lengths(lengths), tasks, judge_items)
    options = _options(provider, model, preset)
    _run("OOLONG", json_out, lambda progress: run_bench(
        "oolong", generated, seed=seed, methods=_methods(method, strategy), options=options,
        progress=progress))


@bench_app.command("multihop")
def multihop_cmd(
    hops: Annotated[str, typer.Option(help="Chain lengths, comma-separated (2, 3).")] = "2,3",
    lengths: Annotated[str, typer.Option(help="Context sizes in characters.")
                       ] = "32k,200k,1m",
    tasks: Tasks = 5, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: str | None = None, model: str | None = None, preset: str | None = None,
    json_out: JsonOut = False,
) -> None:
    """Two- and three-hop look-ups among distractor facts."""
    chosen = [int(h) for h in hops.split(",") if h.strip()]
    if set(chosen) - set(multihop.HOPS):
        raise typer.BadParameter("hops must be 2 and/or 3", param_hint="--hops")
    generated = multihop.make_tasks(seed, chosen, _lengths(lengths), tasks)
    options = _options(provider, model, preset)
    _run("multi-hop", json_out, lambda progress: run_bench(
        "multihop", generated, seed=seed, methods=_methods(method, strategy), options=options,
        progress=progress))
