"""Documents on the command line: `docs` (what a session holds, as parsed), the load options
OCR and ignore rules, and the report of files a load did not take."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..agent.runtime import Runtime
from .common import console, print_json, run

__all__ = ["NoIgnoreOpt", "OcrOpt", "print_load_problems", "register"]

OcrOpt = Annotated[bool | None, typer.Option(
    "--ocr/--no-ocr", help="Read image-only PDF pages with tesseract (default: on when it is "
    "installed; see `doctor`).")]
NoIgnoreOpt = Annotated[bool, typer.Option(
    "--no-ignore", help="Also load .git, caches, virtualenvs, node_modules and what "
    ".gitignore names.")]


def print_load_problems(out: Console, load: dict[str, Any], *, limit: int | None = None) -> None:
    """Every file not loaded, with its reason; parser warnings; ignored files as counts."""
    errors = load.get("errors") or []
    for err in errors[:limit]:
        out.print(f"  not loaded: {err['source']}: {err['error_code']}: {err['message']}",
                  markup=False, highlight=False, style="yellow")
    if limit is not None and len(errors) > limit:
        out.print(f"  … and {len(errors) - limit} more not loaded (see load --json)",
                  markup=False, highlight=False, style="yellow")
    for doc in load.get("loaded") or []:
        for warning in doc.get("warnings") or []:
            out.print(f"  warning: {warning}", markup=False, highlight=False, style="yellow")
    skipped = load.get("skipped") or {}
    if skipped:
        counts = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in skipped.items())
        out.print(f"  ignored: {counts} (--no-ignore loads them)", markup=False,
                  highlight=False, style="dim")


def not_loaded_note(load: dict[str, Any]) -> str | None:
    """One line for a query's answer when its corpus lost files on the way in."""
    errors = load.get("errors") or []
    if not errors:
        return None
    return (f"note: {len(errors)} file{'s' if len(errors) != 1 else ''} could not be loaded, "
            "so this answer does not draw on them: "
            + "; ".join(f"{e['source']} ({e['error_code']})" for e in errors[:5])
            + (" …" if len(errors) > 5 else ""))


def _documents(rt: Runtime, session: str) -> list[dict[str, Any]]:
    rt.store.session(session)  # NotFound for an unknown session
    rows = []
    for doc in rt.store.documents(session):
        info = rt.store.parses.info(doc.id)
        rows.append({"doc_id": doc.id, "source": doc.source, "format": info.format,
                     "pages": info.page_count, "length_chars": doc.length_chars,
                     "parser_version": info.parser_version, "encoding": info.encoding,
                     "raw_sha256": info.raw_sha256, "version": info.version,
                     "previous_doc_id": info.previous_doc_id, "warnings": info.warnings})
    return rows


def register(app: typer.Typer) -> None:
    @app.command()
    def docs(
        ctx: typer.Context,
        session: Annotated[str, typer.Option("--session", "-s", help="Session id.")],
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """List a session's documents: id, source, format, pages, characters, parser."""

        async def body(rt: Runtime) -> list[dict[str, Any]]:
            return _documents(rt, session)

        rows = run(ctx.obj, json_out, body)
        if json_out:
            print_json({"session_id": session, "documents": rows})
            return
        table = Table("doc_id", "source", "format", "pages", "chars", "parser", "warnings")
        for row in rows:
            table.add_row(row["doc_id"], Text(row["source"]), row["format"],
                          str(row["pages"] or ""), f"{row['length_chars']:,}",
                          row["parser_version"] or "", str(len(row["warnings"]) or ""))
        console.print(table)
        for row in rows:
            for warning in row["warnings"]:
                console.print(f"warning: {warning}", markup=False, highlight=False,
                              style="yellow")
