"""`verify CITATIONS.json|-`: recompute every citation's checksum against the store."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..agent.runtime import Runtime
from ..errors import InvalidArgs
from ..ops.verify import CitationCheck, load_citations, verify_citations
from ..types import location_label
from .common import CliState, console, print_json, run

__all__ = ["register"]

_MARK = {"valid": "[green]✓ valid[/]", "changed": "[red]✗ changed[/]",
         "missing": "[red]✗ missing[/]"}


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text("utf-8")
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise InvalidArgs(f"cannot read {source!r}: {getattr(exc, 'strerror', None) or exc}"
                          ) from None


def _print(checks: list[CitationCheck], verbose: bool) -> None:
    for check in checks:
        c = check.citation
        console.print(f"{_MARK[check.status]} ", end="")
        console.print(f"{location_label(c.model_dump())} [{c.start}:{c.end}] "
                      f"{c.checksum[:23]}… — {check.detail}", markup=False, highlight=False)
        if verbose and check.text is not None:
            for line in check.text.splitlines() or [""]:
                console.print(f"    │ {line}", markup=False, highlight=False, style="dim")
    bad = sum(c.status != "valid" for c in checks)
    console.print(f"{len(checks) - bad} of {len(checks)} citations valid")


def register(app: typer.Typer) -> None:
    @app.command()
    def verify(
        ctx: typer.Context,
        source: Annotated[str, typer.Argument(
            metavar="CITATIONS.json|-", help="A `--json` answer or its citations array.")],
        session: Annotated[str | None, typer.Option(
            "--session", "-s", help="The session (default: from the answer or the doc ids).")
        ] = None,
        verbose: Annotated[bool, typer.Option("-v", "--verbose",
                                              help="Show the cited text.")] = False,
        against_source: Annotated[bool, typer.Option(
            "--source", help="Re-read and re-parse each cited original file and check the "
            "text there, not the stored copy.")] = False,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Check that each cited span still has the text it had; exit 1 if any does not."""
        state: CliState = ctx.obj

        async def body(rt: Runtime) -> list[CitationCheck]:
            citations, answer_session = load_citations(_read(source))
            return await asyncio.to_thread(
                verify_citations, rt.store, citations, session or answer_session,
                rt.policy if against_source else None)

        checks = run(state, json_out, body)
        if json_out:
            print_json({"ok": all(c.status == "valid" for c in checks),
                        "citations": [c.model_dump(exclude_none=not verbose) for c in checks]})
        else:
            _print(checks, verbose)
        if any(c.status != "valid" for c in checks):
            raise typer.Exit(1)
