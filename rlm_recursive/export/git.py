"""Write an export commit onto a branch with git plumbing, never touching the user's checkout.

Every call is the `git` CLI with a fixed argument list (no shell). Files go in as blobs
(`hash-object -w`), the tree is built in a throw-away index (`GIT_INDEX_FILE` in a temp
folder, seeded from the parent commit), then `commit-tree` and a compare-and-swap
`update-ref`. The working tree, the real index and HEAD are never read or written, and no hook
runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import GitError

__all__ = ["GitRepo"]

_TIMEOUT_S = 120
_PUSH_TIMEOUT_S = 300
_FALLBACK_IDENT = {"name": "rlm-recursive", "email": "rlm-recursive@localhost.invalid"}
# Variables that would point git at another repository, index or work tree than the one named.
_SCRUBBED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_COMMON_DIR", "GIT_NAMESPACE")


class GitRepo:
    """One local repository, driven through the git CLI."""

    def __init__(self, path: Path) -> None:
        git = shutil.which("git")
        if git is None:
            raise GitError("git is not installed or not on PATH; export needs the git command "
                           "line (install git and retry)", reason="git_not_found")
        self._git = git
        self.path = path
        try:
            self.git_dir = Path(self._run("rev-parse", "--absolute-git-dir"))
        except GitError:
            raise GitError(f"{path} is not a git repository (run `git init` there, or name an "
                           "existing repository)", reason="not_a_repository") from None

    # -- plumbing --------------------------------------------------------------------------

    def _env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", **(extra or {}))
        return env

    def _run(self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
             timeout: float = _TIMEOUT_S, check: bool = True) -> str:
        try:
            done = subprocess.run([self._git, "-C", str(self.path), *args], input=stdin,
                                  capture_output=True, env=self._env(env), timeout=timeout,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} did not finish within {timeout:.0f} s",
                           reason="timeout", retryable=True) from None
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {message[-1] if message else done.returncode}",
                           reason="git_failed")
        return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else ""

    def resolve(self, ref: str) -> str | None:
        """The commit a ref points at, or None."""
        return self._run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}",
                         check=False) or None

    def tree_of(self, commit: str) -> str:
        return self._run("rev-parse", "--verify", f"{commit}^{{tree}}")

    # -- questions -------------------------------------------------------------------------

    def check_branch_name(self, branch: str) -> None:
        if branch.startswith("-") or not self._run("check-ref-format", "--branch", branch,
                                                   check=False):
            raise GitError(f"{branch!r} is not a valid branch name", reason="bad_branch")

    def checked_out_branches(self) -> set[str]:
        """Branches checked out in any work tree of this repository (HEAD included)."""
        listing = self._run("worktree", "list", "--porcelain", check=False)
        found = {line.split(" ", 1)[1].removeprefix("refs/heads/")
                 for line in listing.splitlines() if line.startswith("branch ")}
        head = self._run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        return found | ({head} if head else set())

    def default_branch(self) -> tuple[str | None, str | None]:
        """`(name, commit)` of the default branch: origin's HEAD, init.defaultBranch, main,
        master, then the branch HEAD names; `(None, None)` when none exists (no commits yet)."""
        candidates: list[str] = []
        origin = self._run("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD",
                           check=False)
        if origin:
            candidates.append(origin.split("/", 1)[1])
        configured = self._run("config", "--get", "init.defaultBranch", check=False)
        head = self._run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        candidates += [c for c in (configured, "main", "master", head) if c]
        for name in candidates:
            for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}"):
                commit = self.resolve(ref)
                if commit:
                    return name, commit
        return None, None

    def remotes(self) -> dict[str, str]:
        """Remote name → fetch URL."""
        listing = self._run("config", "--get-regexp", r"^remote\..*\.url$", check=False)
        found = {}
        for line in listing.splitlines():
            key, _, url = line.partition(" ")
            found[key.removeprefix("remote.").removesuffix(".url")] = url
        return found

    # -- writing ---------------------------------------------------------------------------

    def write_tree(self, parent: str | None, prefix: str, files: dict[str, bytes]) -> str:
        """The parent's tree with folder `prefix` replaced by `files` (relative paths)."""
        with tempfile.TemporaryDirectory(prefix="rlm-export-") as tmp:
            paths = []
            for i, data in enumerate(files.values()):
                blob = Path(tmp, f"{i}.blob")
                blob.write_bytes(data)
                paths.append(str(blob))
            shas = self._run("hash-object", "-w", "--no-filters", "--stdin-paths",
                             stdin="\n".join(paths).encode()).split()
            index = {"GIT_INDEX_FILE": str(Path(tmp, "index"))}
            if parent:
                self._run("read-tree", parent, env=index)
                old = self._run("ls-tree", "--full-tree", "-r", "-z", "--name-only", parent,
                                "--", prefix)
            else:
                self._run("read-tree", "--empty", env=index)
                old = ""
            zero = "0" * len(shas[0]) if shas else "0" * 40
            lines = [f"0 {zero}\t{p}" for p in old.split("\0") if p]
            lines += [f"100644 {sha}\t{prefix}/{rel}" for rel, sha in zip(files, shas,
                                                                            strict=True)]
            self._run("update-index", "-z", "--index-info",
                      stdin="".join(f"{line}\0" for line in lines).encode(), env=index)
            return self._run("write-tree", env=index)

    def commit(self, tree: str, parent: str | None, message: str) -> str:
        env = {}
        for field in ("name", "email"):
            if not self._run("config", "--get", f"user.{field}", check=False):
                env[f"GIT_AUTHOR_{field.upper()}"] = _FALLBACK_IDENT[field]
                env[f"GIT_COMMITTER_{field.upper()}"] = _FALLBACK_IDENT[field]
        args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
        return self._run(*args, stdin=message.encode(), env=env)

    def update_branch(self, branch: str, new: str, old: str | None) -> None:
        """Move the branch only if it still points where we read it (or is still absent)."""
        self._run("update-ref", "-m", "rlm-recursive export", f"refs/heads/{branch}", new,
                  old or "")

    def push(self, remote: str, branch: str) -> None:
        if remote.startswith("-") or not re.fullmatch(r"[A-Za-z0-9._/-]+", remote):
            raise GitError(f"invalid remote name {remote!r}", reason="bad_remote")
        ref = f"refs/heads/{branch}"
        self._run("push", "--porcelain", remote, f"{ref}:{ref}", timeout=_PUSH_TIMEOUT_S)
