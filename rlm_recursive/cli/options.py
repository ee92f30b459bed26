"""Options that several commands share, declared once (help, bounds and checks alike)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..agent.strategies import Strategy
from .common import ProviderChoice, known_preset

__all__ = ["ConversationOpt", "MaxIterationsOpt", "ModelOpt", "PathsArg", "PresetOpt",
           "ProviderOpt", "SessionOpt", "StrategyOpt", "TierOpt", "tier_map"]

PathsArg = Annotated[list[str] | None, typer.Argument(help="Files or folders to load.")]
SessionOpt = Annotated[str | None, typer.Option("--session", "-s")]
ConversationOpt = Annotated[int | None, typer.Option(
    "--conversation", min=1, max=2**63 - 1,  # a SQLite row id
    help="Continue this conversation (see `lcm list`).")]
PresetOpt = Annotated[str | None, typer.Option(
    help="A preset from models.toml.", callback=known_preset)]
ProviderOpt = Annotated[ProviderChoice | None, typer.Option(
    help="auto (default), ollama, openai (OPENAI_BASE_URL), claude or embedded.")]
ModelOpt = Annotated[str | None, typer.Option(help="Model for the root.")]
StrategyOpt = Annotated[Strategy, typer.Option(
    help="agent, search, map-reduce, repl, iterative, count, classify or auto.")]
MaxIterationsOpt = Annotated[int, typer.Option(min=1, max=200)]
TierOpt = Annotated[list[str] | None, typer.Option(
    "--tier", metavar="DEPTH=MODEL",
    help="The model at one depth, e.g. --tier 0=qwen3:8b --tier 1=ollama/qwen3:1.7b; "
         "repeat for each depth. Wins over --model and --preset.")]


def tier_map(values: list[str] | None) -> dict[str, str] | None:
    """`["0=qwen3:8b", "1=openai/m"]` → `{"0": "qwen3:8b", "1": "openai/m"}` (option B)."""
    if not values:
        return None
    tiers: dict[str, str] = {}
    for value in values:
        depth, sep, model = value.partition("=")
        if not sep or not depth.strip().isdigit() or not model.strip():
            raise typer.BadParameter(f"{value!r} is not DEPTH=MODEL (e.g. 0=qwen3:8b)",
                                     param_hint="--tier")
        if depth.strip() in tiers:
            raise typer.BadParameter(f"depth {depth.strip()} is given twice", param_hint="--tier")
        tiers[str(int(depth))] = model.strip()
    return tiers
