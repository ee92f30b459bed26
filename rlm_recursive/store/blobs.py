"""Content-addressed blob store: `blobs/ab/abcdef…` under the sha256 of the UTF-8 text."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cachetools import LRUCache

from ..errors import InternalError
from ..types import sha256_hex

__all__ = ["BlobStore"]


class BlobStore:
    """Writes are atomic (temp file + rename); reads are cached, bounded by total characters."""

    def __init__(self, root: Path, *, cache_chars: int = 32_000_000) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        # Decoded texts: peeks and searches hit the same few documents again and again.
        self._cache: LRUCache[str, str] = LRUCache(maxsize=cache_chars, getsizeof=len)

    def path_for(self, content_hash: str) -> Path:
        return self.root / content_hash[:2] / content_hash

    def put(self, data: bytes) -> str:
        """Store bytes under their sha256 and return it; an existing blob is not rewritten."""
        content_hash = sha256_hex(data)
        target = self.path_for(content_hash)
        if target.exists():
            return content_hash
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return content_hash

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
