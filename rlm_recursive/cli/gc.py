"""`gc`: expire sessions past their TTL, record dead runs as failed, and collect the blobs and
search indexes no live session references (a dry run unless `--delete`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..agent.runtime import Runtime
from ..store.gc import GRACE_S, collect
from ..store.lifecycle import expire_sessions, reap_runs
from .common import CliState, console, nonnegative_seconds, print_json, run

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command()
    def gc(
        ctx: typer.Context,
        delete: Annotated[bool, typer.Option(
            "--delete", help="Delete what is found (default: only report it).")] = False,
        grace_s: Annotated[float, typer.Option(
            "--grace-s", parser=nonnegative_seconds,
            help="Keep files younger than this many seconds.")] = GRACE_S,
        json_out: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Collect blobs and search indexes that no live session references (dry run)."""
        state: CliState = ctx.obj

        async def body(rt: Runtime) -> dict[str, Any]:
            rt.store.flush()
            expired = expire_sessions(rt.store.sql)
            reaped = reap_runs(rt.store.sql)
            report = collect(rt.store.sql, rt.store.data_dir, dry_run=not delete,
                             grace_s=grace_s, blobs=rt.store.blobs)
            return {**report.to_dict(), "expired_sessions": expired, "failed_runs": reaped}

        out = run(state, json_out, body)
        if json_out:
            print_json(out)
            return
        verb = "would delete" if out["dry_run"] else "deleted"
        console.print(f"{verb} {out['blobs']} blobs and {out['indexes']} search indexes "
                      f"({out['bytes']:,} bytes); {len(out['expired_sessions'])} sessions "
                      f"expired, {out['failed_runs']} abandoned runs recorded as failed",
                      markup=False, highlight=False)
        if out["blobs_shared"]:
            console.print("blobs live in a shared store (RLM_BLOB_URL): not collected here",
                          markup=False)
        if out["dry_run"] and (out["blobs"] or out["indexes"]):
            console.print("run `rlm-recursive gc --delete` to delete them", markup=False)
