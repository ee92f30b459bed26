"""`rlm_export_github`: a session's manifest, artifacts and traces as a commit on its own branch."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict, Field

from ..policy import Profile, load_profile
from ..store.sessions import export_record, mark_exported
from ..types import ToolResult
from .spec import ToolContext, ToolSpec

__all__ = ["EXPORT_TOOLS", "ExportArgs"]


class ExportArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    repo: str = Field(description="Path of a local git repository. A remote URL or owner/repo "
                      "only with push=true and a remote of the current repository pointing at "
                      "it (unrestricted profile)")
    branch: str | None = Field(None, description="Default: rlm/session/{timestamp}-{id8}")
    path: str | None = Field(None, description="Default: .rlm/sessions/{timestamp}_{id8}")
    include_docs: bool = Field(False, description="Also export the documents' raw text")
    redact: bool = Field(False, description="Replace secrets with [REDACTED:<kind>] instead of "
                         "refusing the export")
    allow_suspects: bool = Field(False, description="Export without redact although the scan "
                                 "found possible secrets that no rule classifies (high-entropy "
                                 "strings, lines that name a secret with no known value); "
                                 "each is listed in the warnings")
    push: bool = Field(False, description="Push the branch to the configured remote "
                       "(never in the restricted profile)")


async def export_github(ctx: ToolContext, args: ExportArgs) -> ToolResult:
    # Imported on use: detect-secrets (with requests) adds ~160 ms to every CLI start.
    from ..export import (
        ExportNames,
        ExportPlan,
        locate_repo,
        render_session,
        scan_and_redact,
        stamp_now,
        write_export,
    )
    from ..secretscan import KnownSecrets
    from ..store.secretspans import session_secrets

    session_id = ctx.require_session()
    profile = ctx.profile
    record = export_record(ctx.store, session_id)
    # The first export's timestamp names the branch and folder for good: re-exports update them.
    names = ExportNames.for_session(session_id, record["stamp"] or stamp_now(), args.branch,
                                    args.path)
    secrets = session_secrets(ctx.store, session_id)
    files, hidden = render_session(ctx.store, session_id, names, include_docs=args.include_docs,
                                   redact=args.redact, secrets=secrets)
    warnings = _warnings(ctx, session_id, args, traces=profile.traces if profile else ctx.traces)

    def work() -> dict:
        repo, remote = locate_repo(args.repo, ctx.policy, profile or _local_only(), args.push)
        scan = scan_and_redact(names, files, redact=args.redact,
                               allow_suspects=args.allow_suspects,
                               known=KnownSecrets(secrets.known), hidden=hidden)
        if scan.redacted:
            warnings.append(f"{scan.redacted} secrets redacted")
        warnings.extend(scan.warnings)
        return write_export(ExportPlan(repo, remote, names, scan.files, warnings), session_id,
                            scan.redacted)

    output = await asyncio.to_thread(work)
    mark_exported(ctx.store, session_id, stamp=names.stamp, branch=output["branch"],
                  commit=output["commit_sha"])
    return ToolResult(output=output)


def _warnings(ctx: ToolContext, session_id: str, args: ExportArgs, *, traces: bool) -> list[str]:
    warnings = []
    if ctx.store.session(session_id)["closed_at"] is None:
        warnings.append("the session is still active: changes after this export need another "
                        "export (or close it first)")
    if args.include_docs:
        count = ctx.store.session_stats(session_id)["documents"]
        warnings.append(f"include_docs: the raw text of {count} documents is in the export")
    if not traces:
        warnings.append("this profile keeps no traces: traces/trace.jsonl is empty")
    return warnings


def _local_only() -> Profile:
    """Without a runtime (a bare registry), behave like the restricted profile: never push."""
    return load_profile("restricted")


EXPORT_TOOLS = [
    ToolSpec("rlm_export_github",
             "Export a session (manifest with document checksums, artifacts, traces; raw "
             "documents only with include_docs) as a commit on its own branch "
             "rlm/session/{timestamp}-{id8} of a local git repository, without touching the "
             "checked-out branch or working tree. Refused with secrets_found unless redact.",
             ExportArgs, export_github),
]
