"""Options that several commands share, declared once (help, bounds and checks alike)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..agent.strategies import Strategy
from .common import ProviderChoice, known_preset

__all__ = ["ConversationOpt", "GroundingOpt", "MaxIterationsOpt", "ModelOpt", "PathsArg",
           "PresetOpt",
           "ProviderOpt", "SessionOpt", "StrategyOpt"]

PathsArg = Annotated[list[str] | None, typer.Argument(help="Files or folders to load.")]
SessionOpt = Annotated[str | None, typer.Option("--session", "-s")]
ConversationOpt = Annotated[int | None, typer.Option(
    "--conversation", min=1, max=2**63 - 1,  # a SQLite row id
    help="Continue this conversation (see `lcm list`).")]
PresetOpt = Annotated[str | None, typer.Option(
    help="A preset from models.toml.", callback=known_preset)]
ProviderOpt = Annotated[ProviderChoice | None, typer.Option(
    help="auto (default), ollama, claude or embedded.")]
ModelOpt = Annotated[str | None, typer.Option(help="Model for the root.")]
StrategyOpt = Annotated[Strategy, typer.Option(
    help="agent, search, map-reduce, repl, iterative, count, classify or auto.")]
MaxIterationsOpt = Annotated[int, typer.Option(min=1, max=200)]
GroundingOpt = Annotated[bool, typer.Option(
    "--grounding/--no-grounding",
    help="Check the answer against the spans it cites; when it fails, re-ask once, quote "
         "the best sentence, else answer 'not found' (exit 3).")]
