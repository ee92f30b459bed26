"""`rlm-recursive bench sniah|oolong|multihop|suite|routing`: the runner against the model used
directly, and the routing of `auto` on the phrasing suite."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..agent.query import QueryOptions
from ..agent.strategies import STRATEGIES
from ..agent.strategies import Strategy as StrategyName
from ..bench import multihop, oolong, routing, suite, written
from ..bench.harness import Outcome, run_bench
from ..bench.sniah import run_sniah
from ..errors import RlmError
from .common import (
    CliState,
    ProviderChoice,
    console,
    fail,
    known_preset,
    print_json,
    typed_model_choice,
)

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmarks.", no_args_is_help=True)

MethodName = StrEnum("MethodName", {m: m for m in ("direct", "runner", *STRATEGIES)})
"""The direct baseline, `runner` (= --strategy) or any strategy by name (Typer takes a list
of enum members, not of Literals)."""
Methods = Annotated[list[MethodName] | None, typer.Option(
    "--method", help="direct and/or runner strategies (auto, search, iterative, count, "
                     "classify, map-reduce, …); 'runner' means --strategy. Repeatable.")]
Strategy = Annotated[StrategyName, typer.Option(help="The strategy 'runner' stands for.")]
Tasks = Annotated[int, typer.Option("--tasks", "-n", help="Tasks per row.", min=1, max=10_000)]
Provider = Annotated[ProviderChoice | None, typer.Option()]
Preset = Annotated[str | None, typer.Option(callback=known_preset)]
JsonOut = Annotated[bool, typer.Option("--json")]
Part = Annotated[str, typer.Option(help="A part (dev, heldout, …) or several, comma-separated.")]
ClassifyBudget = Annotated[float, typer.Option(
    help="Seconds of judging per classify run before a partial count.", min=1)]

_MAX_LENGTH = 100_000_000
"""Characters per context: the generators hold it in memory."""


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
    if not sizes or not all(0 < size <= _MAX_LENGTH for size in sizes):
        raise typer.BadParameter(f"{raw!r}: each size must be 1..{_MAX_LENGTH:,} characters")
    return raw


Lengths = Annotated[str, typer.Option(help="Context sizes in characters.",
                                      callback=_check_lengths)]


def _methods(method: list[str] | None, strategy: str) -> tuple[str, ...]:
    chosen = [str(m) for m in method] if method else ["direct", "runner"]
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


def _profile(ctx: typer.Context) -> str | None:
    """--profile / RLM_PROFILE of the root command: every bench runs under its egress policy."""
    return ctx.ensure_object(CliState).profile


def _options(provider: str | None, model: str | None, preset: str | None) -> QueryOptions:
    # A bench runs many sub-calls per task (classify batches, map-reduce chunks).
    return QueryOptions(provider=provider, model=model, preset=preset, max_sub_calls=2000,
                        operator_opt_in=typed_model_choice(provider, model, preset))


@bench_app.command()
def sniah(
    ctx: typer.Context, lengths: Lengths = "8k,32k,128k,1m",
    tasks: Tasks = 10, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: Provider = None, model: str | None = None, preset: Preset = None,
    json_out: JsonOut = False,
) -> None:
    """Single needle in a haystack at several lengths: accuracy, time, calls, tokens."""
    options = _options(provider, model, preset)
    _run("S-NIAH", json_out, lambda progress: run_sniah(
        lengths=_lengths(lengths), per_length=tasks, seed=seed,
        methods=_methods(method, strategy), options=options, progress=progress,
        profile=_profile(ctx)))


@bench_app.command("oolong")
def oolong_cmd(
    ctx: typer.Context,
    kinds: Annotated[str, typer.Option(help="count, judge and/or most, comma-separated.")
                     ] = "count,judge,most",
    lengths: Lengths = "32k,200k,1m",
    judge_items: Annotated[int, typer.Option(help="Notes per judge task.", min=1,
                                             max=100_000)] = 500,
    tasks: Tasks = 5, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: Provider = None, model: str | None = None, preset: Preset = None,
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
        progress=progress, profile=_profile(ctx)))


@bench_app.command("multihop")
def multihop_cmd(
    ctx: typer.Context,
    hops: Annotated[str, typer.Option(help="Chain lengths, comma-separated (2, 3).")] = "2,3",
    lengths: Lengths = "32k,200k,1m",
    tasks: Tasks = 5, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: Provider = None, model: str | None = None, preset: Preset = None,
    json_out: JsonOut = False,
) -> None:
    """Two- and three-hop look-ups among distractor facts."""
    try:
        chosen = [int(h) for h in hops.split(",") if h.strip()]
    except ValueError:
        raise typer.BadParameter("hops must be 2 and/or 3", param_hint="--hops") from None
    if not chosen or set(chosen) - set(multihop.HOPS):
        raise typer.BadParameter("hops must be 2 and/or 3", param_hint="--hops")
    generated = multihop.make_tasks(seed, chosen, _lengths(lengths), tasks)
    options = _options(provider, model, preset)
    _run("multi-hop", json_out, lambda progress: run_bench(
        "multihop", generated, seed=seed, methods=_methods(method, strategy), options=options,
        progress=progress, profile=_profile(ctx)))


def _parts(part: str, known_parts: tuple[str, ...]) -> list[str]:
    """--part, checked (a usage error names what is allowed)."""
    parts = [p.strip() for p in part.split(",") if p.strip()]
    if not parts or set(parts) - set(known_parts):
        raise typer.BadParameter(f"use {', '.join(known_parts)} (comma-separated)",
                                 param_hint="--part")
    return parts


def _parts_and_families(part: str, families: str, known_parts: tuple[str, ...],
                        known_families: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """--part and --families, checked (a usage error names what is allowed)."""
    parts = _parts(part, known_parts)
    chosen = [f.strip() for f in families.split(",") if f.strip()]
    unknown = sorted(set(chosen) - set(known_families))
    if not chosen or unknown:
        raise typer.BadParameter(f"unknown famil(ies) {', '.join(unknown)}; use "
                                 f"{', '.join(known_families)}", param_hint="--families")
    return parts, chosen


@bench_app.command("suite")
def suite_cmd(
    ctx: typer.Context,
    part: Part = "heldout",
    families: Annotated[str, typer.Option(help="Families, comma-separated: "
                                               + ", ".join(suite.FAMILIES))
                        ] = ",".join(suite.FAMILIES),
    length: Lengths = "200k",
    classify_items: Annotated[int, typer.Option(help="Notes per classify task.", min=1,
                                                max=100_000)] = 300,
    classify_budget: ClassifyBudget = 300.0,
    tasks: Tasks = 5, seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: Provider = None, model: str | None = None, preset: Preset = None,
    json_out: JsonOut = False,
) -> None:
    """Every family over varied generators, dev and held-out: accuracy, time, calls, tokens,
    against the direct baseline."""
    parts, chosen = _parts_and_families(part, families, suite.PARTS, suite.FAMILIES)
    generated = suite.make_tasks(seed, parts, chosen, _lengths(length)[0], tasks,
                                 classify_items)
    options = _options(provider, model, preset).model_copy(
        update={"classify_budget_s": classify_budget})
    _run("suite", json_out, lambda progress: run_bench(
        "suite", generated, seed=seed, methods=_methods(method, strategy), options=options,
        progress=progress, profile=_profile(ctx)))


@bench_app.command("written")
def written_cmd(
    ctx: typer.Context,
    part: Part = "dev",
    families: Annotated[str, typer.Option(help="Families, comma-separated: "
                                               + ", ".join(written.FAMILIES))
                        ] = ",".join(written.FAMILIES),
    length: Lengths = "200k",
    classify_budget: ClassifyBudget = 300.0,
    seed: int = 0, method: Methods = None, strategy: Strategy = "auto",
    provider: Provider = None, model: str | None = None, preset: Preset = None,
    json_out: JsonOut = False,
) -> None:
    """Hand-written documents and questions (no generator), dev and held-out."""
    parts, chosen = _parts_and_families(part, families, written.PARTS, written.FAMILIES)
    tasks = written.make_tasks(seed, parts, chosen, _lengths(length)[0])
    options = _options(provider, model, preset).model_copy(
        update={"classify_budget_s": classify_budget})
    _run("written", json_out, lambda progress: run_bench(
        "written", tasks, seed=seed, methods=_methods(method, strategy), options=options,
        progress=progress, profile=_profile(ctx)))


@bench_app.command("routing")
def routing_cmd(
    part: Part = "dev,heldout",
    json_out: JsonOut = False,
) -> None:
    """Routing accuracy of `auto` on the adversarial phrasing suite (no model is called)."""
    parts = _parts(part, routing.PARTS)
    reports = [routing.evaluate(p) for p in parts]  # type: ignore[arg-type]
    if json_out:
        print_json({"parts": reports})
        return
    table = Table("part", "questions", "accuracy", "by expected route",
                  title="routing · phrasing suite")
    for r in reports:
        table.add_row(r["part"], str(r["questions"]), f"{r['accuracy']:.1%}",
                      ", ".join(f"{k} {v}" for k, v in r["by_route"].items()))
    console.print(table)
