"""Corpus commands: load, search, peek, chunk, sessions."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    DownloadColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TransferSpeedColumn,
)
from rich.table import Table
from rich.text import Text

from ..agent.runtime import Runtime
from ..corpus.loaders import LoadProgress
from ..store.sessions import discard_if_empty
from ..tools.chunks import ChunkArgs
from ..tools.search import SearchArgs
from ..types import location_label
from .common import (
    CliState,
    ResultError,
    console,
    err_console,
    full_width_console,
    print_json,
    run,
    tool_output,
)
from .documents import NoIgnoreOpt, OcrOpt, print_load_problems

__all__ = ["register"]

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the tool's output object as JSON.")]
SessionOpt = Annotated[str, typer.Option("--session", "-s", help="Session id.")]


_SearchMethod = SearchArgs.model_fields["method"].annotation
"""The tool's own Literal, so the CLI offers exactly the values the tool accepts."""
_ChunkStrategy = ChunkArgs.model_fields["strategy"].annotation


def _kind(raw: str) -> str:
    """An existing name is what it names, even with `[`/`*` in it; else a wildcard is a glob."""
    try:
        mode = os.stat(raw).st_mode
    except (OSError, ValueError):  # missing, too long, NUL byte: the loader reports it
        mode = None
    if mode is not None:
        return "directory" if stat.S_ISDIR(mode) else "file"
    return "glob" if any(c in raw for c in "*?[") else "file"


def sources_for(paths: list[str], include: str | None, exclude: str | None,
                ignore_rules: bool = True) -> list[dict]:
    """CLI paths as loader sources: folders recursive, anything with a wildcard a glob."""
    sources = []
    for raw in paths:
        kind = _kind(raw)
        source: dict[str, Any] = {"type": kind, "path": raw}
        if kind == "directory":
            source.update(recursive=True, include_pattern=include, exclude_pattern=exclude)
        if kind != "file":
            source["ignore_rules"] = ignore_rules
        sources.append(source)
    return sources


async def load_paths(
    runtime: Runtime, paths: list[str], session: str | None, name: str | None,
    include: str | None, exclude: str | None, show_progress: bool, *,
    ocr: bool | None = None, ignore_rules: bool = True,
) -> dict:
    """Create a session if needed and load paths into it; the output carries `session_id`.

    Raises when nothing at all was loaded, with the first source's code: a load (or a query)
    must not carry on as a success over an empty input. A session made for this load is
    then removed again: a failed load leaves no empty session behind.
    """
    created = session is None
    if session is None:
        session = (await tool_output(runtime, "rlm_session_create", {"name": name}))["session_id"]
    args: dict[str, Any] = {"session_id": session,
                            "sources": sources_for(paths, include, exclude, ignore_rules)}
    if ocr is not None:
        args["ocr"] = ocr
    output = await _load(runtime, args, show_progress)
    if not output["loaded"]:
        if created:
            await asyncio.to_thread(discard_if_empty, runtime.store, session)
        first = output["errors"][0] if output["errors"] else None
        raise ResultError(
            f"nothing was loaded: {first['source']}: {first['message']}" if first
            else "nothing was loaded: no files found",
            first["error_code"] if first else "file_not_found", False,
            **({} if created else {"session_id": session}), errors=output["errors"],
            skipped=output.get("skipped", {}))
    return {"session_id": session, **output}


async def _load(runtime: Runtime, args: dict[str, Any], show_progress: bool) -> dict:
    if not (show_progress and console.is_terminal):
        return await tool_output(runtime, "rlm_docs_load", args)
    with Progress(TextColumn("[bold]loading"), SpinnerColumn(),
                  TextColumn("{task.fields[files]:,} files · {task.fields[pages]:,} pages"),
                  DownloadColumn(), TransferSpeedColumn(), TextColumn("{task.description}"),
                  console=console, transient=True) as bar:
        task = bar.add_task("", total=None, files=0, pages=0)

        def advance(counts: LoadProgress, label: str) -> None:
            bar.update(task, completed=counts.bytes, files=counts.files, pages=counts.pages,
                       description=Path(label).name)

        return await tool_output(runtime, "rlm_docs_load", args, progress=advance)


def register(app: typer.Typer) -> None:
    @app.command()
    def load(
        ctx: typer.Context,
        paths: Annotated[list[str], typer.Argument(help="Files, folders or globs.")],
        session: Annotated[str | None, typer.Option("--session", "-s")] = None,
        name: Annotated[str | None, typer.Option(help="Name for a new session.")] = None,
        include: Annotated[str | None, typer.Option(help="Glob of files to keep.")] = None,
        exclude: Annotated[str | None, typer.Option(help="Glob of files to skip.")] = None,
        ocr: OcrOpt = None,
        no_ignore: NoIgnoreOpt = False,
        queue: Annotated[bool, typer.Option(
            "--queue", help="Let a worker load them (needs RLM_DATABASE_URL; the paths are "
            "read on the worker's machine): prints the new session's id at once.")] = False,
        wait: Annotated[bool, typer.Option(
            "--wait", help="With --queue: wait until the session is READY or FAILED.")
        ] = False,
        json_out: JsonOpt = False,
    ) -> None:
        """Load documents into a session (a new one unless --session is given)."""
        state: CliState = ctx.obj
        if wait and not queue:
            raise typer.BadParameter("--wait goes with --queue", param_hint="--wait")
        if queue:
            _queued(state, paths, name, include, exclude, session=session, ocr=ocr,
                    ignore_rules=not no_ignore, wait=wait, json_out=json_out)
            return
        out = run(state, json_out, lambda rt: load_paths(
            rt, paths, session, name, include, exclude, show_progress=not json_out, ocr=ocr,
            ignore_rules=not no_ignore))
        if json_out:
            print_json(out)
            return
        # Names and messages are printed as they are: markup off, or `[/]` in a name would
        # be read as a Rich tag.
        pages = f", {out['total_pages']:,} pages" if out.get("total_pages") else ""
        console.print(f"session {out['session_id']}: {len(out['loaded'])} documents{pages}, "
                      f"{out['total_chars']:,} chars (~{out['total_tokens_est']:,} tokens)",
                      markup=False, highlight=False)
        print_load_problems(console, out)

    def _queued(state: CliState, paths: list[str], name: str | None, include: str | None,
                exclude: str | None, *, session: str | None, ocr: bool | None,
                ignore_rules: bool, wait: bool, json_out: bool) -> None:
        from .queued_load import queue_load

        sources = sources_for(paths, include, exclude, ignore_rules)
        out = run(state, json_out, lambda rt: queue_load(rt, sources, name, session=session,
                                                         ocr=ocr, wait=wait))
        if json_out:
            print_json(out)
        elif not wait:  # the id alone on stdout: `sid=$(rlm-recursive load --queue …)`
            sys.stdout.write(out["session_id"] + "\n")
            err_console.print("queued: a worker loads it (load --queue --wait waits)",
                              highlight=False)
        else:
            console.print(f"session {out['session_id']}: {out['status']}, "
                          f"{out['documents']} documents, {out['total_chars']:,} chars",
                          markup=False, highlight=False)
            for err in out["errors"]:
                console.print(f"  not loaded: {err['source']}: {err['error_code']}: "
                              f"{err['message']}", markup=False, highlight=False,
                              style="yellow")
            for warning in out["warnings"]:
                console.print(f"  warning: {warning['source']}: {warning['message']}",
                              markup=False, highlight=False, style="yellow")

    @app.command()
    def search(
        ctx: typer.Context, query: str, session: SessionOpt,
        method: Annotated[_SearchMethod, typer.Option(help="bm25, regex or literal.")] = "bm25",
        limit: int = 10, context_chars: int = 200, json_out: JsonOpt = False,
    ) -> None:
        """Search a session's documents."""
        args = {"session_id": session, "query": query, "method": method, "limit": limit,
                "context_chars": context_chars}
        out = run(ctx.obj, json_out, lambda rt: tool_output(rt, "rlm_search_query", args))
        if json_out:
            print_json(out)
            return
        for m in out["matches"]:
            span = m["span"]
            console.rule(Text(f"{location_label(m)} · {m['doc_id']} "
                              f"[{span['start']}:{span['end']}] score {m['score']}"))
            console.print(m["context"], markup=False, highlight=False)
        console.print(f"{out['total_matches']} matches")

    @app.command()
    def peek(
        ctx: typer.Context, doc_id: str, session: SessionOpt, start: int = 0, end: int = -1,
        page: Annotated[int | None, typer.Option(
            min=1, help="A PDF page; start and end then count from its start.")] = None,
        json_out: JsonOpt = False,
    ) -> None:
        """Print characters [start, end) of a document, or of one of its pages."""
        args = {"session_id": session, "doc_id": doc_id, "start": start, "end": end,
                "page": page}
        out = run(ctx.obj, json_out, lambda rt: tool_output(rt, "rlm_docs_peek", args))
        if json_out:
            print_json(out)
        else:
            # The characters exactly: rich would wrap long lines and expand tabs.
            sys.stdout.write(out["content"])

    @app.command()
    def chunk(
        ctx: typer.Context, doc_id: str, session: SessionOpt,
        strategy: Annotated[_ChunkStrategy, typer.Option(
            help="fixed, lines, delimiter or paragraphs.")],
        chunk_size: int | None = None, line_count: int | None = None,
        delimiter: str | None = None, regex: bool = False, overlap: int = 0,
        max_chunks: int | None = None,
        offset: Annotated[int, typer.Option(help="List spans from this index on.")] = 0,
        json_out: JsonOpt = False,
    ) -> None:
        """Cut a document into spans."""
        args = {"session_id": session, "doc_id": doc_id, "strategy": strategy,
                "chunk_size": chunk_size, "line_count": line_count, "delimiter": delimiter,
                "regex": regex, "overlap": overlap, "max_chunks": max_chunks, "offset": offset}
        out = run(ctx.obj, json_out, lambda rt: tool_output(rt, "rlm_chunk_create", args))
        if json_out:
            print_json(out)
            return
        table = Table("span_id", "start", "end", "preview")
        for s in out["spans"]:
            table.add_row(s["span_id"], str(s["span"]["start"]), str(s["span"]["end"]), Text(
                          s["preview"][:60].replace("\n", " ")))
        console.print(table)
        console.print(f"{out['total_spans']} spans{' (cached)' if out['cached'] else ''}")
        if out["next_offset"] is not None:
            console.print(f"more: --offset {out['next_offset']}")

    @app.command()
    def sessions(ctx: typer.Context, json_out: JsonOpt = False) -> None:
        """List sessions."""

        async def body(rt: Runtime) -> list[dict]:
            return [{"session_id": r["id"], "name": r["name"], "status": r["status"],
                     "created_at": r["created_at"], "tool_calls_used": r["tool_calls_used"],
                     **rt.store.session_stats(r["id"])} for r in rt.store.list_sessions()]

        out = run(ctx.obj, json_out, body)
        if json_out:
            print_json({"sessions": out})
            return
        # Ids are never cut (they are copied into the next command); piped, nothing is.
        table = Table()
        table.add_column("session_id", no_wrap=True,
                         min_width=max((len(s["session_id"]) for s in out), default=10))
        for header in ("name", "status", "documents", "chars", "created_at"):
            table.add_column(header)
        for s in out:
            # Text cells: a session name such as `[/]` is not Rich markup.
            table.add_row(s["session_id"], Text(s["name"] or ""), s["status"], str(s["documents"]),
                          f"{s['total_chars']:,}", s["created_at"])
        full_width_console().print(table)
