"""Audit records written behind the responses they describe, in batches.

An API server answers first and records after (the client never waits on the audit). Under
load that is one database statement per request; this writer instead takes whatever records
queued while it wrote the last batch and appends them in one write (one transaction of one
multi-row insert on PostgreSQL, one `write()` on the JSONL file). At low load a batch is one
record, written as soon as it is queued: nothing waits for a timer.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import Any

from ..errors import InternalError
from .audit import AuditLog

__all__ = ["AuditWriter"]

MAX_BATCH = 500
"""Records per write at most (a statement of bounded size)."""


class AuditWriter:
    """A thread that appends queued records to `log`; `close()` writes what is left."""

    def __init__(self, log: AuditLog) -> None:
        self.log = log
        self._queue: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="rlm-audit-writer", daemon=True)
        self._thread.start()

    def record(self, **fields: Any) -> None:
        """Queue one record (the fields of `AuditLog.entry`), checked now, written soon."""
        if self.log.enabled:
            self._queue.put(self.log.entry(**fields))

    def close(self, timeout_s: float = 10.0) -> None:
        """Write everything queued so far, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout_s)

    def _run(self) -> None:
        stopping = False
        while not stopping:
            batch: list[dict[str, Any]] = []
            item = self._queue.get()
            while True:
                if item is None:
                    stopping = True
                else:
                    batch.append(item)
                if len(batch) >= MAX_BATCH:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            try:
                self.log.write(batch)
            except InternalError as exc:
                # Nobody waits for these records: say so where an operator looks.
                print(f"rlm-recursive: {len(batch)} audit records lost: {exc.message}",
                      file=sys.stderr)
