"""Export one session to a branch of a git repository: render, scan, (redact), commit, (push)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EgressDenied, FileNotFound, GitError, SecretsFound
from ..policy import PathPolicy, Profile
from ..policy.profiles import DEFAULT_PROFILE
from ..secretscan import KnownSecrets
from .git import GitRepo
from .layout import ExportNames
from .secrets import Finding, redact_file, scan_file

__all__ = ["ExportPlan", "ScanResult", "locate_repo", "scan_and_redact", "write_export"]

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


@dataclass
class ScanResult:
    """The files to write, how many secrets were redacted, and what the caller must be told."""

    files: dict[str, str]
    redacted: int = 0
    warnings: list[str] = field(default_factory=list)


def scan_and_redact(names: ExportNames, files: dict[str, str], *, redact: bool,
                    allow_suspects: bool = False, known: KnownSecrets | None = None,
                    hidden: list[Finding] | None = None) -> ScanResult:
    """Scan every file; refuse, redact or warn (the rule is in the README and secrets.md).

    - A `rule` finding (or a secret part already hidden in an excerpt, `hidden`) refuses the
      export unless `redact`.
    - `suspect` findings (an entropy-only string, a line that names a secret with no value
      any rule knows) refuse it too, unless `redact` (they are redacted where they have a
      span, and reported where they do not) or `allow_suspects` (exported as they are, with
      a warning that says where). An export is never silent about a scan that is not clean.
    """
    hidden = hidden or []
    findings = [f for name, content in files.items()
                for f in scan_file(f"{names.path}/{name}", content, known)]
    sure = [f for f in findings if f.confidence == "rule"] + hidden
    suspects = [f for f in findings if f.confidence == "suspect"]
    if not redact:
        if sure:
            _refuse(sure + suspects, "export refused")
        if suspects and not allow_suspects:
            _refuse(suspects, "export refused: possible secrets that no rule classifies",
                    suspects_only=True)
        return ScanResult(files, 0, [_suspect_warning(suspects, "exported unredacted")]
                          if suspects else [])
    redacted = {name: redact_file(name, content, known) for name, content in files.items()}
    clean = {name: content for name, (content, _) in redacted.items()}
    left = [f for name, content in clean.items()
            for f in scan_file(f"{names.path}/{name}", content, known)]
    still = [f for f in left if f.kind != "secret_mention"]
    if still:  # a detector that disagrees with itself: never write what it still flags
        _refuse(still, "redaction left secrets behind; export refused")
    warnings = [_suspect_warning(left, "left as they are: review them")] if left else []
    count = sum(found for _, found in redacted.values()) + len(hidden)
    return ScanResult(clean, count, warnings)


def _suspect_warning(findings: list[Finding], what: str) -> str:
    first = findings[0]
    return (f"{len(findings)} possible secrets (lines that name a secret with no value any "
            f"rule knows, or high-entropy strings) {what}; first: {first.file}:{first.line} "
            f"({first.kind})")


def _refuse(findings: list[Finding], prefix: str, *, suspects_only: bool = False) -> None:
    first = findings[0]
    how = ("export with redact=true to replace each with [REDACTED:<kind>], or with "
           "allow_suspects=true after reviewing them" if suspects_only else
           "remove them from the session, or export with redact=true to replace each with "
           "[REDACTED:<kind>]")
    raise SecretsFound(
        f"{prefix}: {len(findings)} possible secrets (first: {first.file}:{first.line}, "
        f"{first.kind}); {how}",
        count=len(findings), suspects_only=suspects_only,
        locations=[f.to_dict() for f in _spread(findings)])


def _spread(findings: list[Finding]) -> list[Finding]:
    """At most _MAX_LOCATIONS findings, taken from every file in turn (each file shows)."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding)
    chosen: list[Finding] = []
    while len(chosen) < _MAX_LOCATIONS and any(by_file.values()):
        for queue in by_file.values():
            if queue and len(chosen) < _MAX_LOCATIONS:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda f: (f.file, f.line))


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
