"""Glob patterns: gitignore-style matching and the denylist built on it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["Denylist", "compile_glob", "has_magic", "split_magic"]

_MAGIC = re.compile(r"[*?[]")


def has_magic(text: str) -> bool:
    """True if a path segment holds a glob wildcard."""
    return _MAGIC.search(text) is not None


def split_magic(pattern: str) -> tuple[str, str]:
    """(the literal folder prefix, the rest with wildcards): `docs/a/*.md` -> (`docs/a`, `*.md`)."""
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        if has_magic(part):
            head = "/".join(parts[:i])
            return (head or ("/" if pattern.startswith("/") else "")), "/".join(parts[i:])
    return pattern, ""


def compile_glob(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a gitignore-style glob for `fullmatch` against a `/`-joined relative path.

    `*` and `?` stay inside one segment, `**/` spans folders, and a pattern without `/`
    matches a name at any depth (`*.pem` means `**/*.pem`).
    """
    pat = pattern.strip().lstrip("/") if "/" in pattern.strip() else "**/" + pattern.strip()
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        elif pat[i] == "[" and (close := pat.find("]", i + 2)) != -1:
            body = pat[i + 1 : close]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    return re.compile("".join(out), re.IGNORECASE if ignore_case else 0)


class Denylist:
    """Patterns for files that may hold secrets.

    A pattern starting with `/` or `~/` is absolute: it matches the whole canonical path (or a
    folder above it), wherever the roots are. Any other pattern matches below the most specific
    allowed root, so a root such as ~/tokens-project does not deny every file inside it.
    Matching ignores case: `.ENV` or `API_TOKEN.txt` are just as secret, and macOS is
    case-insensitive anyway.
    """

    def __init__(self, patterns: Iterable[str], *, home: str | None = None) -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        home = home if home is not None else os.path.expanduser("~")
        self._relative: list[tuple[str, re.Pattern[str]]] = []
        self._absolute: list[tuple[str, re.Pattern[str]]] = []
        self._absolute_sources: list[str] = []
        for pattern in self.patterns:
            if pattern.startswith(("~/", "/")):
                full = os.path.realpath(home) + pattern[1:] if pattern[0] == "~" else pattern
                self._absolute.append((pattern, compile_glob(full, ignore_case=True)))
                self._absolute_sources.append(full)
            else:
                self._relative.append((pattern, compile_glob(pattern, ignore_case=True)))
        # One alternation per kind: one regex call per candidate path on the common (allowed)
        # path; which pattern matched is looked up only after a hit.
        self._any = _alternation(self._relative)
        self._any_absolute = _alternation(self._absolute)

    def absolute_heads(self) -> list[Path]:
        """The literal part of each absolute pattern: where the secrets it names are found."""
        heads = {split_magic(source)[0] for source in self._absolute_sources}
        return [Path(h) for h in sorted(heads) if h]

    def match(
        self, paths: Sequence[Path], roots: Sequence[Path], name: str = ""
    ) -> str | None:
        """The first pattern one of `paths` (or a folder above it, or `name`) matches."""
        relative: set[str] = {name} if name else set()
        absolute: set[str] = set()
        for path in paths:
            parts = _rel_parts(path, roots)
            if parts:
                relative.update("/".join(parts[: i + 1]) for i in range(len(parts)))
            whole = path.parts[1:]
            absolute.update("/".join(whole[: i + 1]) for i in range(len(whole)))
        for combined, each, candidates in (
            (self._any_absolute, self._absolute, absolute),
            (self._any, self._relative, relative),
        ):
            if combined is None or not any(combined.fullmatch(c) for c in candidates):
                continue
            for pattern, regex in each:
                if any(regex.fullmatch(c) for c in candidates):
                    return pattern
        return None

    def matches_anywhere(self, path: Path) -> bool:
        """Like match(), with every trailing run of segments tried as if below a root.

        For finding secrets wherever they are (another name of one may be inside the roots).
        """
        parts = path.parts[1:]
        if self._any is not None and any(
            self._any.fullmatch("/".join(parts[i:])) for i in range(len(parts))
        ):
            return True
        return self.match([path], ()) is not None


def _alternation(patterns: list[tuple[str, re.Pattern[str]]]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{r.pattern})" for _, r in patterns), re.IGNORECASE)


def _rel_parts(path: Path, roots: Sequence[Path]) -> tuple[str, ...] | None:
    """The path's segments below the most specific root containing it, else None."""
    best = max(
        (r for r in roots if path.is_relative_to(r)), key=lambda r: len(r.parts), default=None
    )
    return None if best is None else path.relative_to(best).parts
