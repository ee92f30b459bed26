"""Export one session to a branch of a git repository: render, scan, (redact), commit, (push)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EgressDenied, FileNotFound, GitError, SecretsFound
from ..policy import PathPolicy, Profile
from ..policy.profiles import DEFAULT_PROFILE
from .git import GitRepo
from .layout import ExportNames
from .secrets import Finding, redact_file, scan_file

__all__ = ["ExportPlan", "locate_repo", "scan_and_redact", "write_export"]

_MAX_LOCATIONS = 100
_OWNER_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass
class ExportPlan:
    """Everything the git step needs; built on the event loop, written in a worker thread."""

    repo: GitRepo
    remote: str | None
    names: ExportNames
    files: dict[str, str]
    warnings: list[str] = field(default_factory=list)


def _is_url(repo: str) -> bool:
    return "://" in repo or repo.startswith("git@")


def _same_remote(url: str, wanted: str) -> bool:
    def norm(u: str) -> str:
        return u.strip().rstrip("/").removesuffix(".git").lower()

    url, wanted = norm(url), norm(wanted)
    return url == wanted or (bool(_OWNER_REPO.match(wanted))
                             and url.endswith(("/" + wanted, ":" + wanted)))


def locate_repo(repo: str, policy: PathPolicy, profile: Profile, push: bool) -> tuple[GitRepo,
                                                                                      str | None]:
    """The local repository to write into and the remote to push to (None: no push).

    `repo` is a local path. A URL or `owner/repo` names a remote instead: it is accepted only
    with `push`, in a profile that may push, and when a remote of the repository around the
    working directory points at it.
    """
    if push and (profile.name == "restricted" or profile.local_only):
        hint = ("; to push from here, opt in with --profile unrestricted (or "
                "RLM_PROFILE=unrestricted)" if profile.name == DEFAULT_PROFILE else "")
        raise EgressDenied(f"the {profile.name!r} profile never pushes: export to a local "
                           f"repository and push it yourself after review{hint}",
                           profile=profile.name)
    local = None
    if not _is_url(repo):
        try:
            local = GitRepo(policy.resolve(repo, expect="dir"))
        except FileNotFound:
            if not _OWNER_REPO.match(repo):
                raise
    if local is not None:
        if not push:
            return local, None
        if "origin" not in local.remotes():
            raise GitError(f"push needs a remote named origin in {local.path}",
                           reason="no_remote")
        return local, "origin"
    if not push:
        raise GitError(f"{repo!r} is not a local repository path; a remote URL or owner/repo "
                       "needs push=true (and a configured remote)", reason="remote_needs_push")
    local = GitRepo(policy.base)
    for name, url in sorted(local.remotes().items()):
        if _same_remote(url, repo):
            return local, name
    raise GitError(f"no remote of the repository at {local.path} points at {repo!r}; add one "
                   "with `git remote add` first", reason="no_remote")


def scan_and_redact(names: ExportNames, files: dict[str, str], *,
                    redact: bool) -> tuple[dict[str, str], int]:
    """The files to write and how many secrets were found; refuses unless `redact`."""
    findings: list[Finding] = [f for name, content in files.items()
                               for f in scan_file(f"{names.path}/{name}", content)]
    if findings and not redact:
        _refuse(findings, "export refused")
    if not findings:
        return files, 0
    clean = {name: redact_file(name, content)[0] for name, content in files.items()}
    left = [f for name, content in clean.items()
            for f in scan_file(f"{names.path}/{name}", content)]
    if left:  # a detector that disagrees with itself: never write what it still flags
        _refuse(left, "redaction left secrets behind; export refused")
    return clean, len(findings)


def _refuse(findings: list[Finding], prefix: str) -> None:
    first = findings[0]
    raise SecretsFound(
        f"{prefix}: {len(findings)} possible secrets (first: {first.file}:{first.line}, "
        f"{first.kind}); remove them from the session, or export with redact=true to replace "
        "each with [REDACTED:<kind>]",
        count=len(findings), locations=[f.to_dict() for f in findings[:_MAX_LOCATIONS]])


def write_export(plan: ExportPlan, session_id: str, secrets_found: int) -> dict[str, Any]:
    """Commit the files on the export branch (no commit when nothing changed); push if asked."""
    repo, names = plan.repo, plan.names
    repo.check_branch_name(names.branch)
    base_name, base_commit = repo.default_branch()
    protected = {"main", "master", *([base_name] if base_name else [])}
    checked_out = repo.checked_out_branches()
    if names.branch in protected | checked_out:
        why = "is checked out" if names.branch in checked_out else "is the default branch"
        raise GitError(f"refusing to export onto {names.branch!r}: it {why}; exports go to "
                       "their own rlm/session/… branch", reason="protected_branch")
    current = repo.resolve(f"refs/heads/{names.branch}")
    parent = current or base_commit
    data = {name: content.encode("utf-8") for name, content in plan.files.items()}
    tree = repo.write_tree(parent, names.path, data)
    unchanged = current is not None and repo.tree_of(current) == tree
    if unchanged:
        commit = current
        plan.warnings.append("session unchanged since the last export: no new commit")
    else:
        message = (f"Export RLM session {session_id}\n\npath: {names.path}\n"
                   f"files: {len(data)}\nsecrets redacted: {secrets_found}\n")
        commit = repo.commit(tree, parent, message)
        repo.update_branch(names.branch, commit, current)
    if plan.remote:
        repo.push(plan.remote, names.branch)
    return {"branch": names.branch, "commit_sha": commit, "export_path": names.path,
            "files_exported": len(data), "warnings": plan.warnings,
            "secrets_found": secrets_found, "repo": str(Path(repo.path)),
            "unchanged": unchanged, "pushed_to": plan.remote}
