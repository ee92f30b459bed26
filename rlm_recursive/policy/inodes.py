"""Identity by inode: the store's own files, and other names (hard links) of secret files.

Names can lie: a hard link, a bind mount or a second path to the data dir reaches the same
inode under an innocent name. These checks compare `(st_dev, st_ino)` instead, before a file
is opened. Opening and closing the store's `rlm.db`, `-wal` or `-shm` in a process that also
uses the store drops that process's POSIX locks on it, and SQLite then corrupts the database
(sqlite.org "How To Corrupt An SQLite Database File", section 2.2).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from .globs import Denylist

__all__ = ["ProtectedDirs", "SecretInodes"]

FileId = tuple[int, int]


def file_id(st: os.stat_result) -> FileId:
    return st.st_dev, st.st_ino


class ProtectedDirs:
    """Folders no source may be read from (the store's data dir), matched by path and inode."""

    def __init__(self) -> None:
        self.dirs: list[Path] = []
        # Folder -> protected folder it is an alias of (or None): a walk asks about the same
        # few parents thousands of times. Bounded; cleared when full.
        self._parents: dict[str, Path | None] = {}

    def add(self, folder: str | Path) -> None:
        canon = Path(os.path.realpath(folder))
        if canon not in self.dirs:
            self.dirs.append(canon)

    def _ids(self) -> dict[FileId, Path]:
        ids = {}
        for folder in self.dirs:
            try:
                ids[file_id(os.stat(folder))] = folder
            except OSError:
                continue
        return ids

    def is_protected_dir(self, st: os.stat_result) -> bool:
        """True if a folder (by its stat) is a protected folder, under whatever name."""
        return bool(self.dirs) and file_id(st) in self._ids()

    def owner(self, canon: Path, st: os.stat_result) -> Path | None:
        """The protected folder that `canon` (with stat `st`) lies in or is, else None."""
        if not self.dirs:
            return None
        for folder in self.dirs:
            if canon.is_relative_to(folder):
                return folder
        ids = self._ids()
        if file_id(st) in ids:
            return ids[file_id(st)]
        if not any(dev == st.st_dev for dev, _ in ids):
            return None  # another file system: neither an alias nor a hard link of ours
        # A bind mount or second path to the data dir somewhere above the file.
        hit = self._above(os.path.dirname(canon), ids)
        if hit is not None:
            return hit
        # Another name (hard link or bind mount) of a file of the data dir: rlm.db, -wal, -shm.
        if stat.S_ISREG(st.st_mode):
            for (dev, _), folder in ids.items():
                if dev != st.st_dev:
                    continue
                try:
                    with os.scandir(folder) as entries:
                        if any(e.inode() == st.st_ino for e in entries):
                            return folder
                except OSError:
                    continue
        return None

    def _above(self, folder: str, ids: dict[FileId, Path]) -> Path | None:
        """The protected folder that `folder` or one above it is another name of, else None."""
        if folder in self._parents:
            return self._parents[folder]
        try:
            hit = ids.get(file_id(os.stat(folder)))
        except OSError:
            hit = None
        parent = os.path.dirname(folder)
        if hit is None and parent != folder:
            hit = self._above(parent, ids)
        if len(self._parents) > 4096:
            self._parents.clear()
        self._parents[folder] = hit
        return hit


class SecretInodes:
    """The inodes of denylisted files, so another name (a hard link) of one is refused too.

    Found where secrets live: the literal folders of absolute patterns (`/etc`, `~/.ssh`), the
    home folder (two levels) and the allowed roots, each walk bounded and never following
    symlinks (a symlink is resolved and denied by name anyway). The result is cached briefly:
    it is only needed for files with more than one name, which are rare.
    """

    def __init__(
        self,
        denylist: Denylist,
        roots: Sequence[Path],
        *,
        max_entries: int = 20_000,
        ttl_s: float = 2.0,
    ) -> None:
        self._denylist = denylist
        self._roots = [r for r in roots if r != Path(r.anchor)]  # never walk all of `/`
        self._max_entries = max_entries
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._ids: set[FileId] = set()
        self._built = -1.0

    def contains(self, st: os.stat_result) -> bool:
        with self._lock:
            if time.monotonic() - self._built > self._ttl_s:
                self._ids = self._scan()
                self._built = time.monotonic()
            return file_id(st) in self._ids

    def _scan(self) -> set[FileId]:
        found: set[FileId] = set()
        home = Path(os.path.realpath(os.path.expanduser("~")))
        starts = [(h, 3) for h in self._denylist.absolute_heads()]
        starts += [(home, 2)] + [(r, 64) for r in self._roots]
        for start, depth in starts:
            self._walk(start, depth, found)
        return found

    def _walk(self, start: Path, max_depth: int, found: set[FileId]) -> None:
        try:
            st = os.lstat(start)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode):
            if self._denylist.matches_anywhere(start):
                found.add(file_id(st))
            return
        budget = self._max_entries
        stack: list[tuple[Path, int, bool]] = [(start, 0, False)]
        while stack and budget > 0:
            folder, depth, denied = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                continue
            for entry in entries[:budget]:
                budget -= 1
                path = Path(entry.path)
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth + 1 < max_depth:
                            inside = denied or self._denylist.matches_anywhere(path)
                            stack.append((path, depth + 1, inside))
                    elif entry.is_file(follow_symlinks=False) and (
                        denied or self._denylist.matches_anywhere(path)
                    ):
                        found.add(file_id(entry.stat(follow_symlinks=False)))
                except OSError:
                    continue
