"""`store copy`: move the embedded store (a data dir's SQLite file, blobs and audit log) into
the shared PostgreSQL store (`RLM_DATABASE_URL` or `--to`) and blob store (`RLM_BLOB_URL`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from ..catalog import load_catalog
from ..config import resolve_data_dir
from ..errors import InternalError, InvalidArgs, RlmError
from ..policy import EgressPolicy, load_profile
from ..policy.profiles import DEFAULT_PROFILE, PROFILE_ENV
from ..store.connector import DATABASE_URL_ENV, database_url
from ..store.storecopy import CopyReport, copy_store
from .common import CliState, console, err_console, fail, print_json

__all__ = ["store_app"]

store_app = typer.Typer(no_args_is_help=True, help="Move a store between backends.")


@store_app.command("copy")
def copy(
    ctx: typer.Context,
    to: Annotated[str | None, typer.Option(
        "--to", help="The target postgresql:// URL (default: RLM_DATABASE_URL).")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print what would be copied; write nothing.")] = False,
    skip_keys: Annotated[bool, typer.Option(
        "--skip-keys", help="Leave the API keys behind (when the shared salt is not the "
        "data dir's, they could never authenticate).")] = False,
    batch_rows: Annotated[int, typer.Option(
        "--batch-rows", min=1, help="Rows read from SQLite per batch.")] = 5000,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Copy the data dir's SQLite store, blobs and audit log into PostgreSQL (an empty
    database) and RLM_BLOB_URL, keeping every id; the data dir is only read."""
    state: CliState = ctx.obj
    try:
        url = database_url({"RLM_DATABASE_URL": to} if to else None)
        if url is None:
            raise InvalidArgs("name the target: --to postgresql://… or RLM_DATABASE_URL")
        _check_store_hosts(state.profile, url)
        data_dir = resolve_data_dir(state.data_dir)
        report = copy_store(Path(data_dir), url, dry_run=dry_run, skip_keys=skip_keys,
                            batch_rows=batch_rows,
                            progress=None if json_out else _progress)
    except RlmError as exc:
        raise fail(exc, json_out) from None
    except Exception as exc:  # a bug: still a coded error
        raise fail(InternalError(f"{type(exc).__name__}: {exc}"), json_out) from exc
    if json_out:
        print_json(report.to_dict())
        return
    _print(report)


def _check_store_hosts(profile: str | None, url: str) -> None:
    """The profile's rule for the store's hosts (`restricted`: local only), as the runtime
    applies it to every other surface, before anything connects: the copy sends every
    document to the target."""
    name = profile or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    chosen = load_profile(name, load_catalog().profiles.get(name))
    EgressPolicy(chosen, env={**os.environ, DATABASE_URL_ENV: url}).check_store()


def _progress(line: str) -> None:
    err_console.print(line, markup=False, highlight=False)


def _print(report: CopyReport) -> None:
    out: dict[str, Any] = report.to_dict()
    verb = "would copy" if report.dry_run else "copied"
    lines = [f"{verb} {report.source} -> {report.target}"]
    lines += [f"  {table:<18} {rows:>10,} rows" for table, rows in report.tables.items()]
    lines.append(f"  {'audit_log':<18} {report.audit_records:>10,} records")
    where = "kept in the data dir (RLM_BLOB_URL unset)" if report.blobs_in_place \
        else f"to {report.blob_target}"
    lines.append(f"  blobs {report.blobs:,} ({report.blob_bytes:,} bytes) {where}")
    if not report.dry_run:
        lines.append(f"  {out['rows']:,} rows and {report.blob_bytes:,} bytes in "
                     f"{out['seconds']:.2f} s; row counts and blob hashes verified")
    if report.keys_skipped:
        lines.append(f"  {report.keys_skipped} API keys left behind (--skip-keys)")
    if report.unfinished_executions:
        lines.append(f"  {len(report.unfinished_executions)} executions were still QUEUED or "
                     "RUNNING: no worker will take them up; cancel them "
                     "(POST /v1/executions/{id}/cancel)")
    for line in lines:
        console.print(line, markup=False, highlight=False)
