"""`doctor`: check Ollama, models, the embedded model, Claude, storage and policy."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import typer

from ..catalog import load_catalog
from ..config import APP_NAME
from ..errors import RlmError
from ..ops.doctor import Check, DoctorReport, run_doctor
from ..policy import load_profile
from ..policy.profiles import DEFAULT_PROFILE, PROFILE_ENV
from .common import CliState, console, fail, known_preset, print_json

__all__ = ["register"]

_MARK = {"ok": "[green]✓[/]", "fail": "[red]✗[/]", "warn": "[yellow]![/]", "info": "[dim]·[/]"}


def _data_dir(explicit: str | None) -> Path:
    """Where the store lives, without creating it: doctor reports a folder it cannot make."""
    from platformdirs import user_data_dir

    chosen = explicit or os.environ.get("RLM_DATA_DIR") or user_data_dir(APP_NAME,
                                                                       appauthor=False)
    return Path(chosen).expanduser()


def _print(report: DoctorReport) -> None:
    console.print(f"[bold]preset[/] {report.preset} · [bold]profile[/] {report.profile}")
    area = None
    for check in report.checks:
        if check.area != area:
            area = check.area
            console.print(f"[bold]{area}[/]")
        _line(check)
    console.print("[green]ready[/]" if report.ok else
                  "[red]the active preset cannot run: fix the ✗ lines above[/]")


def _line(check: Check) -> None:
    console.print(f"  {_MARK[check.status]} {check.name}: ", end="")
    console.print(check.detail, markup=False, highlight=False)
    if check.fix and check.status in ("fail", "warn"):
        console.print("      fix: ", style="dim", end="")
        console.print(check.fix, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        ctx: typer.Context,
        preset: Annotated[str | None, typer.Option(
            help="Check this preset (default: the one `query` would pick).",
            callback=known_preset)] = None,
        load: Annotated[bool, typer.Option(
            "--load/--no-load", help="Load the embedded model to prove it works.")] = True,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Check that a preset can run here; each problem comes with the command that fixes it."""
        state: CliState = ctx.obj
        try:
            catalog = load_catalog()
            name = state.profile or os.environ.get(PROFILE_ENV) or (
                catalog.preset(preset).profile if preset else None) or DEFAULT_PROFILE
            profile = load_profile(name, catalog.profiles.get(name))
            if preset and name == DEFAULT_PROFILE:
                # As `query --preset` would run it: the preset typed here is the opt-in.
                profile = profile.model_copy(update={"local_only": False})
            report = asyncio.run(run_doctor(catalog, profile, _data_dir(state.data_dir),
                                            preset, load_embedded=load))
        except RlmError as exc:
            raise fail(exc, json_out) from None
        if json_out:
            print_json(report.model_dump())
        else:
            _print(report)
        if not report.ok:
            raise typer.Exit(1)
