"""Content-addressed blob stores: each blob is kept under the sha256 of its bytes.

`RLM_BLOB_URL` chooses where (`blob_store_for`):
- unset: the data dir's `blobs/ab/abcdef…` (the embedded default);
- `file:///shared/path`: the same layout on a volume several machines mount;
- `s3://bucket/prefix`: any S3-compatible store (`s3blobs.S3BlobStore`; the endpoint comes
  from `AWS_ENDPOINT_URL`, as the AWS tools read it).
Every backend dedupes (a blob already there is not rewritten) and puts atomically: readers
see the whole blob or none of it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from cachetools import LRUCache

from ..errors import ConfigError, InternalError
from ..types import sha256_hex

__all__ = ["BLOB_URL_ENV", "BlobStore", "Blobs", "CachedTexts", "blob_store_for"]

BLOB_URL_ENV = "RLM_BLOB_URL"


class Blobs(Protocol):
    """What the store and LCM need of a blob backend."""

    url: str

    def put(self, data: bytes) -> str:
        """Store bytes under their sha256 and return it; an existing blob is not rewritten."""
        ...

    def text(self, content_hash: str) -> str: ...
    def size(self, content_hash: str) -> int: ...


def blob_store_for(data_dir: Path, environ: Mapping[str, str] | None = None) -> Blobs:
    """The blob store `RLM_BLOB_URL` names, or the data dir's `blobs/` folder."""
    env = os.environ if environ is None else environ
    url = (env.get(BLOB_URL_ENV) or "").strip()
    if not url:
        return BlobStore(data_dir / "blobs")
    parts = urlsplit(url)
    if parts.scheme == "file" and parts.netloc in ("", "localhost") and parts.path[:1] == "/":
        return BlobStore(Path(unquote(parts.path)))
    if parts.scheme == "s3" and parts.netloc:
        try:
            from .s3blobs import S3BlobStore  # obstore is an optional extra
        except ImportError as exc:
            raise ConfigError(f"{BLOB_URL_ENV} names S3, but its client is not installed: "
                              "pip install 'rlm-recursive[s3]'") from exc
        return S3BlobStore(parts.netloc, parts.path.strip("/"))
    raise ConfigError(f"{BLOB_URL_ENV} must be file:///absolute/path or s3://bucket/prefix "
                      f"(got {url!r}); leave it unset to keep blobs in the data dir")


class CachedTexts:
    """Decoded texts of blobs, bounded by total characters: peeks and searches hit the same
    few documents again and again. Subclasses read the bytes."""

    def __init__(self, cache_chars: int) -> None:
        self._cache: LRUCache[str, str] = LRUCache(maxsize=cache_chars, getsizeof=len)

    def _read(self, content_hash: str) -> bytes:
        raise NotImplementedError

    def data(self, content_hash: str) -> bytes:
        """A blob's bytes, uncached (S3 checks them against the hash)."""
        return self._read(content_hash)

    def text(self, content_hash: str) -> str:
        """The decoded text of a blob."""
        cached = self._cache.get(content_hash)
        if cached is not None:
            return cached
        text = self._read(content_hash).decode("utf-8")
        if len(text) <= self._cache.maxsize:
            self._cache[content_hash] = text
        return text

_TMP_PREFIX = ".tmp-"
_PUT_ATTEMPTS = 3


class BlobStore(CachedTexts):
    """Files under `root`: writes are atomic (temp file + rename); reads are cached.

    A writer holds a `flock` on its temp file until the rename, so opening the store can tell
    a killed load's leftover (which holds document text) from a write in progress elsewhere.
    """

    def __init__(self, root: Path, *, cache_chars: int = 32_000_000) -> None:
        super().__init__(cache_chars)
        self.root = root
        self.url = root.resolve().as_uri()
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
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

    def _read(self, content_hash: str) -> bytes:
        try:
            return self.path_for(content_hash).read_bytes()
        except FileNotFoundError as exc:
            raise InternalError(f"blob {content_hash} is missing from the store") from exc

    def size(self, content_hash: str) -> int:
        try:
            return self.path_for(content_hash).stat().st_size
        except FileNotFoundError as exc:
            raise InternalError(f"blob {content_hash} is missing from the store") from exc

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
