"""The one walker of sources for every surface (CLI, MCP, HTTP API): files, folders, globs.

The policy decides what may be read (roots, denylist, sizes: `PathPolicy.iter_files`); this
module adds the ignore rules a folder load follows unless told not to: version-control and
cache folders, virtualenvs, node_modules, compiled files, and the `.gitignore` files found
in the walked tree (matched with `pathspec`). What they skip is counted, not listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pathspec

from ..errors import FileNotFound, RlmError, UnsupportedFile
from ..policy import PathPolicy, compile_glob
from ..policy.globs import split_magic

__all__ = ["IgnoreRules", "walk_source"]

_VCS = frozenset({".git", ".hg", ".svn", ".bzr"})
_CACHES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
                     ".nox", ".hypothesis", ".ipynb_checkpoints"})
_COMPILED = (".pyc", ".pyo")


class IgnoreRules:
    """The skip rule for one walk; `skipped` counts what it passed over, by reason.

    A skipped folder counts once (its contents are not walked).
    """

    def __init__(self, policy: PathPolicy, top: Path, *, enabled: bool = True) -> None:
        self.policy, self.top, self.enabled = policy, top, enabled
        self.skipped: Counter[str] = Counter()
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def __call__(self, path: Path, rel: str, is_dir: bool) -> bool:
        if not self.enabled:
            return False
        reason = self._reason(path, rel, is_dir)
        if reason is not None:
            self.skipped[reason] += 1
        return reason is not None

    def _reason(self, path: Path, rel: str, is_dir: bool) -> str | None:
        name = path.name
        if is_dir:
            if name in _VCS:
                return "version_control"
            if name in _CACHES:
                return "cache"
            if name == "node_modules":
                return "node_modules"
            if (path / "pyvenv.cfg").is_file():
                return "virtualenv"
        elif name.endswith(_COMPILED):
            return "compiled"
        return "gitignore" if self._gitignored(rel, is_dir) else None

    def _gitignored(self, rel: str, is_dir: bool) -> bool:
        """Deeper .gitignore files decide over shallower ones, as in git."""
        parts = rel.split("/")
        verdict = False
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = self._spec(folder)
            if spec is None:
                continue
            inner = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(inner)
            if result.include is not None:
                verdict = result.include
        return verdict

    def _spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            self._specs[folder] = None
            ignore_file = self.top / folder / ".gitignore"
            if ignore_file.is_file():
                try:
                    lines = self.policy.read_bytes(ignore_file, max_bytes=1_000_000)
                except RlmError:
                    return None  # denied or unreadable: no rules from it
                self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(
                    lines.decode("utf-8", "replace").splitlines())
        return self._specs[folder]


def walk_source(
    kind: str, raw_path: str, policy: PathPolicy, cap: int, *, recursive: bool = True,
    include: list[str] | None = None, exclude: list[str] | None = None,
    ignore: bool = True, skipped: Counter[str] | None = None,
) -> Iterator[tuple[Path, RlmError | None]]:
    """The files of one source as `(path, None)`, or `(path, error)` for one that is refused.

    `kind` is file, directory or glob. Files skipped by the ignore rules are added to
    `skipped` by reason. A bad root yields one error for the source.
    """
    try:
        if kind == "file":
            yield policy.resolve(raw_path, expect="file", max_bytes=cap), None
        elif kind == "directory":
            root = policy.resolve(raw_path, expect="dir")
            rules = IgnoreRules(policy, root, enabled=ignore)
            yield from policy.iter_files(root, recursive=recursive, include=include or [],
                                         exclude=exclude or [], max_bytes=cap, skip=rules)
            _add(skipped, rules)
        else:
            yield from _expand_glob(raw_path, policy, cap, ignore, skipped)
    except RlmError as exc:
        yield Path(raw_path), exc


def _add(skipped: Counter[str] | None, rules: IgnoreRules) -> None:
    if skipped is not None:
        skipped.update(rules.skipped)


def _expand_glob(
    pattern: str, policy: PathPolicy, cap: int, ignore: bool, skipped: Counter[str] | None,
) -> Iterator[tuple[Path, RlmError | None]]:
    """The files a glob matches, through the policy's bounded, confined folder walk.

    A name that exists as written (`x[1].txt`) is that file, not a pattern. The walk starts at
    the pattern's literal folder, which the policy checks first: a pattern aimed outside the
    roots (`/root/.*`) fails there, before any name is listed. Wildcards skip hidden names
    unless the pattern spells a leading dot, as in the shell.
    """
    try:
        yield policy.resolve(pattern, expect="file", max_bytes=cap), None
        return
    except (FileNotFound, UnsupportedFile):
        pass  # no such file (or a folder): a pattern. PathDenied stands: the walk would be too.
    head, rest = split_magic(pattern)
    if not rest:
        raise FileNotFound(f"no file matches the glob {pattern!r} (relative to {policy.base})")
    top = policy.resolve(head or ".", expect="dir")
    anchored = compile_glob("/" + rest)
    hidden_ok = any(part.startswith(".") for part in rest.split("/"))
    rules = IgnoreRules(policy, top, enabled=ignore)
    found = False
    for path, problem in policy.iter_files(
        top,
        recursive="/" in rest or "**" in rest,
        include=["/" + rest],
        exclude=[] if hidden_ok else ["**/.*"],
        max_bytes=cap,
        skip=rules,
    ):
        if (
            problem is not None
            and "limit" not in problem.details
            and path.is_relative_to(top)
            and not anchored.fullmatch(path.relative_to(top).as_posix())
        ):
            continue  # a denied entry the pattern does not name: not the caller's concern
        found = True
        yield path, problem
    _add(skipped, rules)
    if not found:
        raise FileNotFound(f"no file matches the glob {pattern!r} (relative to {policy.base})")
