"""`rlm-recursive export SESSION --repo PATH`: a session as a commit on its own branch."""

from __future__ import annotations

from typing import Annotated

import typer

from ..agent.runtime import Runtime
from ..types import ToolResult
from .common import CliState, console, err_console, print_json, run

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command()
    def export(
        ctx: typer.Context,
        session: Annotated[str, typer.Argument(help="Session id.")],
        repo: Annotated[str, typer.Option(help="A local git repository (a remote URL or "
                                          "owner/repo only with --push).")],
        branch: Annotated[str | None, typer.Option(
            help="Default: rlm/session/{timestamp}-{id8}.")] = None,
        path: Annotated[str | None, typer.Option(
            help="Default: .rlm/sessions/{timestamp}_{id8}.")] = None,
        include_docs: Annotated[bool, typer.Option(
            "--include-docs", help="Also export the documents' raw text.")] = False,
        redact: Annotated[bool, typer.Option(
            "--redact", help="Replace secrets with [REDACTED:<kind>] instead of refusing.")
        ] = False,
        allow_suspects: Annotated[bool, typer.Option(
            "--allow-suspects", help="Export unredacted although the scan found possible "
            "secrets no rule classifies (each is listed as a warning).")] = False,
        push: Annotated[bool, typer.Option(
            "--push", help="Push the branch to the configured remote (unrestricted only).")
        ] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print the output as JSON.")
                            ] = False,
    ) -> None:
        """Export a session to a new branch of a git repository (never the checked-out one)."""
        state: CliState = ctx.obj
        args = {"session_id": session, "repo": repo, "branch": branch, "path": path,
                "include_docs": include_docs, "redact": redact, "push": push,
                "allow_suspects": allow_suspects}

        async def body(rt: Runtime) -> ToolResult:
            return await rt.call("rlm_export_github", args, rt.context())

        result = run(state, json_out, body)
        out = result.output
        if json_out:
            print_json(out)
        if result.is_error:
            meta = out["meta"]
            if not json_out:
                err_console.print(f"error[{meta['error_code']}]: {out['error']}",
                                  markup=False, highlight=False)
                for loc in meta.get("details", {}).get("locations", []):
                    suspect = " (suspect)" if loc.get("confidence") == "suspect" else ""
                    err_console.print(f"  {loc['file']}:{loc['line']}: {loc['kind']}{suspect}",
                                      markup=False, highlight=False)
            raise typer.Exit(1)
        if json_out:
            return
        verb = "unchanged" if out["unchanged"] else "exported"
        console.print(f"{verb}: {out['files_exported']} files at {out['export_path']} on branch "
                      f"{out['branch']} ({out['commit_sha'][:12]})", markup=False,
                      highlight=False)
        for warning in out["warnings"]:
            console.print(f"  warning: {warning}", markup=False, highlight=False)
