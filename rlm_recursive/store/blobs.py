"""Content-addressed blob store: `blobs/ab/abcdef…` under the sha256 of the UTF-8 text."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

from cachetools import LRUCache

from ..errors import InternalError
from ..types import sha256_hex

__all__ = ["BlobStore"]

_TMP_PREFIX = ".tmp-"
_PUT_ATTEMPTS = 3


class BlobStore:
    """Writes are atomic (temp file + rename); reads are cached, bounded by total characters.

    A writer holds a `flock` on its temp file until the rename, so opening the store can tell
    a killed load's leftover (which holds document text) from a write in progress elsewhere.
    """

    def __init__(self, root: Path, *, cache_chars: int = 32_000_000) -> None:
        self.root = root
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Decoded texts: peeks and searches hit the same few documents again and again.
        self._cache: LRUCache[str, str] = LRUCache(maxsize=cache_chars, getsizeof=len)
        self.removed_orphans = self._remove_orphans()

    def path_for(self, content_hash: str) -> Path:
        return self.root / content_hash[:2] / content_hash

    def put(self, data: bytes) -> str:
        """Store bytes under their sha256 and return it; an existing blob is not rewritten."""
        content_hash = sha256_hex(data)
        target = self.path_for(content_hash)
        if target.exists():
            return content_hash
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for attempt in range(_PUT_ATTEMPTS):
            try:
                self._write(target, data)
                break
            except FileNotFoundError:
                # Another process opening the store took our temp file for a leftover in the
                # instant between its creation and our lock: write it again.
                if attempt == _PUT_ATTEMPTS - 1:
                    raise
        return content_hash

    def _write(self, target: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=_TMP_PREFIX)  # mode 0600
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.replace(tmp, target)  # still under the lock: closing the file releases it
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def text(self, content_hash: str) -> str:
        """The decoded text of a blob."""
        cached = self._cache.get(content_hash)
        if cached is not None:
            return cached
        try:
            text = self.path_for(content_hash).read_bytes().decode("utf-8")
        except FileNotFoundError as exc:
            raise InternalError(f"blob {content_hash} is missing from the store") from exc
        if len(text) <= self._cache.maxsize:
            self._cache[content_hash] = text
        return text

    def _remove_orphans(self) -> int:
        """Delete temp files a killed writer left behind (unlocked ones only); return how many."""
        removed = 0
        for tmp in self.root.glob(f"*/{_TMP_PREFIX}*"):
            try:
                fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            else:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                    removed += 1
            finally:
                os.close(fd)
        return removed
