"""LargeFileService: content too big for a message is kept as a file with a summary of it."""

from __future__ import annotations

import secrets

from ..errors import NotFound
from ..store.blobs import Blobs
from ..store.db import utcnow
from .records import FileRecord
from .store import ConversationStore
from .tokens import TokenEstimator

__all__ = ["LargeFileService"]


def _exploration(text: str, head: int = 400, tail: int = 200) -> str:
    """What the file is at a glance: size, line count, how it starts and ends."""
    lines = text.count("\n") + 1
    summary = f"{len(text):,} characters, {lines:,} lines. Starts: {text[:head].strip()!r}"
    if len(text) > head + tail:
        summary += f" … Ends: {text[-tail:].strip()!r}"
    return summary


class LargeFileService:
    """Pasted or tool-returned text over the threshold goes to the blob store (by sha256)."""

    def __init__(self, store: ConversationStore, blobs: Blobs, estimator: TokenEstimator,
                 threshold_tokens: int) -> None:
        self.store = store
        self.blobs = blobs
        self.estimator = estimator
        self.threshold_tokens = threshold_tokens

    def is_large(self, content: str) -> bool:
        return self.estimator.count(content) > self.threshold_tokens

    def store_file(self, conversation_id: int, content: str, *, file_name: str | None = None,
                   mime_type: str = "text/plain") -> FileRecord:
        data = content.encode("utf-8")
        digest = self.blobs.put(data)
        record = FileRecord(f"file_{secrets.token_hex(6)}", conversation_id, file_name,
                            mime_type, len(data), f"blob:{digest}", _exploration(content),
                            utcnow())
        self.store.insert_file(record)
        return record

    def reference(self, record: FileRecord) -> str:
        """The message text that stands in for the file: its id and exploration summary."""
        name = record.file_name or "pasted text"
        return (f"[{record.file_id}: {name}, {record.byte_size:,} bytes, kept as a file; "
                f"lcm_describe(\"{record.file_id}\") describes it]\n"
                f"{record.exploration_summary}")

    def read(self, file_id: str) -> str:
        record = self.store.get_file(file_id)
        if record is None:
            raise NotFound(f"unknown file {file_id!r}", kind="file")
        return self.blobs.text(record.storage_uri.removeprefix("blob:"))
