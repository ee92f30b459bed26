"""Path policy: canonicalise, confine to allowed roots, deny secrets and special files.

Every rule works on the canonical path (symlinks resolved), so `../..`, a symlink that points
outside, and a symlinked parent folder all fail the same containment check. Special files are
recognised with `stat`, never by opening them: opening a FIFO blocks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Literal

from ..errors import FileTooLarge, PathDenied, RlmError, UnsupportedFile
from .fsfacts import opened_path, os_error, realpath_fixed, show
from .globs import Denylist, compile_glob
from .inodes import ProtectedDirs, SecretInodes
from .profiles import ALWAYS_DENIED, DEFAULT_DENYLIST, Profile

__all__ = ["Expect", "PathPolicy", "compile_glob"]

Expect = Literal["file", "dir", "any"]

_MAX_WALK_ENTRIES = 200_000
"""A walk (folder load or glob) stops with an error after this many entries."""


class PathPolicy:
    """Turns user-supplied paths into canonical paths the profile allows, or raises."""

    def __init__(
        self,
        *,
        allowed_roots: Sequence[str | Path] = (),
        allow_absolute_paths: bool = False,
        denylist: Iterable[str] = DEFAULT_DENYLIST,
        max_bytes: int | None = None,
        profile_name: str = "custom",
        allow_hardlinks: bool = True,
        protected: Sequence[str | Path] = (),
        max_walk_entries: int = _MAX_WALK_ENTRIES,
    ) -> None:
        roots = [realpath_fixed(r) or Path(r) for r in allowed_roots] or [Path(os.getcwd())]
        self.roots: tuple[Path, ...] = tuple(roots)
        self.base = roots[0]
        self.allow_absolute_paths = allow_absolute_paths
        given = list(denylist)
        self.denylist: tuple[str, ...] = (*given, *(p for p in ALWAYS_DENIED if p not in given))
        self._deny = Denylist(self.denylist)
        self.max_bytes = max_bytes
        self.profile_name = profile_name
        self.allow_hardlinks = allow_hardlinks
        self.max_walk_entries = max_walk_entries
        self._protected = ProtectedDirs()
        for folder in protected:
            self.protect(folder)
        self._secrets = SecretInodes(self._deny, self.roots)

    @classmethod
    def from_profile(
        cls, profile: Profile, *, confined: bool = False, protected: Sequence[str | Path] = ()
    ) -> PathPolicy:
        """The path rules of a profile; `max_bytes` defaults to its per-file cap.

        `confined` is for paths from MCP and HTTP clients: they stay inside `allowed_roots`
        in every profile. Otherwise (the CLI) a profile with `read_anywhere` reads anywhere.
        `protected` folders (the store's data dir) are never read.
        """
        roots = list(profile.allowed_roots)
        anywhere = profile.read_anywhere and not confined
        if anywhere and roots:
            roots.append(Path(roots[0].anchor))
        return cls(
            allowed_roots=roots,
            allow_absolute_paths=profile.allow_absolute_paths,
            denylist=profile.denylist,
            max_bytes=profile.max_bytes_file,
            profile_name=profile.name,
            # Where the operator may read anywhere, another name of a file reveals nothing
            # more (a known secret's inode is still refused); where paths are confined, a hard
            # link could be a way out of the roots.
            allow_hardlinks=profile.allow_hardlinks or anywhere,
            protected=protected,
        )

    @classmethod
    def for_clients(cls, profile: Profile, *, protected: Sequence[str | Path] = ()
                    ) -> PathPolicy:
        """The rules for paths an HTTP client names (the API, and the workers that load
        what it queued): relative input only, never under a filesystem root, whatever the
        profile says about absolute paths (`unrestricted` adds `/` so the CLI operator may
        read anywhere; a client may not)."""
        roots = [r for r in profile.allowed_roots if Path(r) != Path(Path(r).anchor)]
        return cls(allowed_roots=roots, allow_absolute_paths=False,
                   denylist=profile.denylist, max_bytes=profile.max_bytes_file,
                   profile_name=profile.name, protected=protected)

    def protect(self, folder: str | Path) -> None:
        """Never read anything inside `folder` (under any name): the store's data dir."""
        self._protected.add(folder)

    # -- public API -------------------------------------------------------------------------

    def resolve(
        self, path: str | Path, *, max_bytes: int | None = None, expect: Expect = "any"
    ) -> Path:
        """Check a path from a client or user; return its canonical form or raise RlmError.

        Raises PathDenied (absolute when not allowed, outside the roots, denylisted, special
        file, unreadable), FileNotFound, FileTooLarge (over `max_bytes`, else the policy's
        cap) or UnsupportedFile (a folder where a file was expected, or the reverse).
        """
        return self._resolve(
            path, absolute_ok=self.allow_absolute_paths, max_bytes=max_bytes, expect=expect
        )

    def recheck(
        self, path: str | Path, *, max_bytes: int | None = None, expect: Expect = "any"
    ) -> Path:
        """Re-validate a path this policy already returned (absolute is fine; all else applies)."""
        # Only the "no absolute input" rule is skipped: containment still confines the result,
        # so passing client input here by mistake cannot escape the roots.
        return self._resolve(path, absolute_ok=True, max_bytes=max_bytes, expect=expect)

    def read_bytes(self, path: str | Path, *, max_bytes: int | None = None) -> bytes:
        """Read a file returned by resolve()/iter_files(), re-checking it at open time."""
        canon = self.recheck(path, max_bytes=max_bytes, expect="file")
        cap = self._cap(max_bytes)
        shown = show(os.fspath(path))
        # O_NOFOLLOW + fstat close the window where the file is swapped for a symlink or FIFO
        # after the check; O_NONBLOCK makes opening a swapped-in FIFO return instead of block.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(canon, flags)
        except OSError as exc:
            raise os_error(exc, shown) from None
        try:
            if opened_path(fd) not in (None, str(canon)):
                # A folder on the way was swapped for a symlink between the check and the open.
                raise PathDenied(f"{shown} changed while it was being opened")
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise self._special(shown)
            # On the descriptor itself: the name may have been re-linked since the check.
            if self._protected.owner(canon, st) is not None:
                raise self._in_store(shown)
            self._check_links(st, shown)
            if cap is not None and st.st_size > cap:
                raise self._too_large(shown, st.st_size, cap)
            chunks: list[bytes] = []
            remaining = (cap + 1) if cap is not None else None
            while True:
                chunk = os.read(fd, 1 << 20 if remaining is None else min(1 << 20, remaining))
                if not chunk:
                    break
                chunks.append(chunk)
                if remaining is not None:
                    remaining -= len(chunk)
                    if remaining <= 0:
                        # The file grew past the cap after fstat: refuse rather than truncate.
                        raise self._too_large(shown, cap + 1, cap)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def iter_files(
        self,
        root_dir: str | Path,
        *,
        recursive: bool = True,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        max_bytes: int | None = None,
        skip: Callable[[Path, str, bool], bool] | None = None,
    ) -> Iterator[tuple[Path, RlmError | None]]:
        """Walk a folder: `(canonical, None)` per allowed file, `(path, error)` per denied one.

        `root_dir` should come from resolve() (which applies the no-absolute rule to user
        input); a bad root raises at once, per-file denials are yielded. Symlinked
        folders are followed only while they stay inside the roots (an escaping one is
        reported, a cycle is entered once); every file is re-checked by resolve()'s rules.
        `include`/`exclude` are globs on the path relative to `root_dir`; an excluded folder is
        pruned. Files come out in sorted, depth-first order, each canonical path once.
        `skip(path, rel, is_dir)` passes over an entry (a folder is pruned) before any check:
        the walker's ignore rules (corpus.walk), which count what they skip.
        """
        top = self.recheck(root_dir, expect="dir")
        inc = [compile_glob(p) for p in include]
        exc = [compile_glob(p) for p in exclude]
        seen: set[Path] = set()
        # Folders are walked by their lexical path (so globs see paths relative to `top`) and
        # remembered by their canonical one, so a symlink cycle is entered at most once.
        visited: set[Path] = {top}
        stack = [top]
        budget = self.max_walk_entries
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as err:
                yield folder, os_error(err, show(str(folder)))
                continue
            subdirs: list[Path] = []
            budget -= len(entries)
            if budget < 0:
                # Bounded: a huge tree (or a trick to hang the server) ends with an error.
                yield folder, PathDenied(
                    f"the walk under {show(str(root_dir))} stopped after "
                    f"{self.max_walk_entries} entries; load a narrower folder or pattern",
                    limit="max_walk_entries",
                )
                return
            for entry in entries:
                walked = Path(entry.path)
                rel = walked.relative_to(top).as_posix()
                if any(p.fullmatch(rel) for p in exc):
                    continue
                try:
                    is_dir = entry.is_dir()  # follows symlinks; containment is checked below
                except OSError as err:
                    yield walked, os_error(err, show(rel))
                    continue
                if is_dir:
                    if not recursive or (skip is not None and skip(walked, rel, True)):
                        continue
                    canon = realpath_fixed(walked)
                    if canon is None or not self._inside(canon):
                        yield walked, self._outside(show(rel))
                        continue
                    if self._is_store(canon):
                        continue  # the store's data dir: skipped silently (see ProtectedDirs)
                    denied = self._denied(canon, walked, "")
                    if denied is not None:
                        yield walked, denied
                    elif canon not in visited:
                        visited.add(canon)
                        subdirs.append(walked)
                    continue
                if inc and not any(p.fullmatch(rel) for p in inc):
                    continue
                if skip is not None and skip(walked, rel, False):
                    continue
                try:
                    canon = self.recheck(walked, max_bytes=max_bytes, expect="file")
                except RlmError as err:
                    yield walked, err
                    continue
                if canon not in seen:
                    seen.add(canon)
                    yield canon, None
            stack.extend(reversed(subdirs))

    # -- the rules --------------------------------------------------------------------------

    def _resolve(
        self, path: str | Path, *, absolute_ok: bool, max_bytes: int | None, expect: Expect
    ) -> Path:
        if not isinstance(path, str | os.PathLike):
            raise PathDenied("the path must be a string", profile=self.profile_name)
        raw = os.fspath(path)
        if not isinstance(raw, str) or not raw.strip():
            raise PathDenied("the path is empty; pass a file or folder path")
        shown = show(raw)
        if "\x00" in raw:
            raise PathDenied(f"the path {shown} contains a NUL byte")
        try:
            raw.encode(errors="surrogateescape")
        except UnicodeError:
            raise PathDenied(f"the path {shown} is not valid text for a file name") from None
        given = Path(raw)
        if given.is_absolute() and not absolute_ok:
            raise PathDenied(
                f"absolute paths are not allowed in the {self.profile_name!r} profile: {shown}; "
                f"pass a path relative to {self.base}, or set allow_absolute_paths = true in "
                f"[profiles.{self.profile_name}] of models.toml",
                profile=self.profile_name,
            )
        # realpath() on the joined path, not on a normpath()'d one: `link/../x` must mean what
        # the OS means (`..` of the link's target), not a lexical shortcut.
        joined = self.base / given
        lexical = Path(os.path.normpath(joined))  # only for matching names the caller typed
        canon = self._canonical(joined, shown)
        # Containment before existence: a missing path outside the roots says "denied", so the
        # policy never works as an oracle for what exists elsewhere.
        if not self._inside(canon):
            raise self._outside(shown)
        denied = self._denied(canon, lexical, given.name)
        if denied is not None:
            raise denied
        try:
            st = os.stat(canon)
        except OSError as exc:
            raise os_error(exc, shown) from None
        # Before anything is opened: see ProtectedDirs for why the store's files never are.
        if self._protected.owner(canon, st) is not None:
            raise self._in_store(shown)
        if stat.S_ISDIR(st.st_mode):
            if expect == "file":
                raise UnsupportedFile(
                    f"{shown} is a folder; pass a file, or load the folder instead",
                )
            return canon
        if not stat.S_ISREG(st.st_mode):
            raise self._special(shown)
        if expect == "dir":
            raise UnsupportedFile(f"{shown} is a file; pass a folder")
        self._check_links(st, shown)
        cap = self._cap(max_bytes)
        if cap is not None and st.st_size > cap:
            raise self._too_large(shown, st.st_size, cap)
        return canon

    def _canonical(self, joined: Path, shown: str) -> Path:
        try:
            canon = realpath_fixed(joined)
        except OSError as exc:
            raise os_error(exc, shown) from None
        if canon is None:
            raise PathDenied(f"{shown} goes through too many levels of symlinks")
        return canon

    def _cap(self, max_bytes: int | None) -> int | None:
        return self.max_bytes if max_bytes is None else max_bytes

    def _inside(self, canon: Path) -> bool:
        return any(canon.is_relative_to(root) for root in self.roots)

    def _denied(self, canon: Path, lexical: Path, name: str) -> PathDenied | None:
        """A PathDenied if the path, a folder above it, or the name given matches the denylist."""
        if canon in self.roots:
            return None  # an allowed root itself is the operator's choice, whatever its name
        pattern = self._deny.match((canon, lexical), self.roots, name)
        if pattern is None:
            return None
        return PathDenied(
            f"{show(name or str(lexical))} matches the denylist pattern {pattern!r}; "
            f"files that may hold secrets are never read. If it is safe, copy it under "
            f"another name, or edit denylist in [profiles.{self.profile_name}]",
            pattern=pattern,
            profile=self.profile_name,
        )

    def _is_store(self, folder: Path) -> bool:
        try:
            return self._protected.owner(folder, os.stat(folder)) is not None
        except OSError:
            return False

    def _check_links(self, st: os.stat_result, shown: str) -> None:
        """Refuse a regular file with other names (hard links) where they are not allowed."""
        if st.st_nlink <= 1:
            return
        if not self.allow_hardlinks:
            raise PathDenied(
                f"{shown} has {st.st_nlink} names (hard links), and another name may be a file "
                f"outside the roots or a secret; copy it, or set allow_hardlinks = true in "
                f"[profiles.{self.profile_name}]",
                profile=self.profile_name,
            )
        if self._secrets.contains(st):
            raise PathDenied(
                f"{shown} is another name (a hard link) of a file on the denylist; "
                f"files that may hold secrets are never read",
                profile=self.profile_name,
            )

    def _in_store(self, shown: str) -> PathDenied:
        return PathDenied(
            f"{shown} is inside this program's own data dir, which is never loaded as a "
            f"source: reading the live database can corrupt it",
            profile=self.profile_name,
        )

    def _outside(self, shown: str) -> PathDenied:
        roots = ", ".join(str(r) for r in self.roots)
        return PathDenied(
            f"{shown} is outside the allowed roots ({roots}); add its folder to allowed_roots "
            f"in [profiles.{self.profile_name}] of models.toml, or copy it inside a root",
            profile=self.profile_name,
        )

    def _special(self, shown: str) -> PathDenied:
        return PathDenied(
            f"{shown} is not a regular file (a device, FIFO or socket); only regular files "
            f"and folders can be read",
            profile=self.profile_name,
        )

    def _too_large(self, shown: str, size: int, cap: int) -> FileTooLarge:
        return FileTooLarge(
            f"{shown} is {size} bytes, over the {cap}-byte limit. The limit is the lowest of "
            f"max_bytes_file (and max_bytes_query for rlm_query) in [profiles."
            f"{self.profile_name}] of models.toml and the session's max_file_bytes; raise "
            f"it there, or load a smaller excerpt",
            size=size,
            max_bytes=cap,
        )
