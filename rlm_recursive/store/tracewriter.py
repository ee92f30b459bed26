"""Batched trace writes: a queue drained by one writer thread with its own connection.

A tool call used to pay for a synchronous INSERT plus a JSONL append (200–300 µs). Now it
only queues a record; the writer wakes at most every `interval_s`, encodes the records and
writes them in one transaction (and one append per JSONL file). `flush()` waits until every
record queued before it is written; `close()` and interpreter exit flush as well, so no
record is lost on a normal exit. Audit records never come through here: they stay
synchronous (policy/audit.py).

The writer opens its own connector: on SQLite a second connection to `rlm.db` (so a batch
never waits for the store's connection), on PostgreSQL the process's shared pool, from which
each batch takes one connection for its transaction.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import sys
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .connector import Connector

__all__ = ["SqlRecord", "TraceWriter", "summarise", "tool_trace"]

SqlRecord = tuple[str, tuple[Any, ...]]
"""One statement and its parameters."""
Prepare = Callable[["Connector"], tuple[list[SqlRecord], list[tuple[str, str]]]]
"""Runs in the writer thread: the statements and (path, line) appends of one record (it may
read through the connector it is given)."""

_STOP = object()
_LIVE: weakref.WeakSet[TraceWriter] = weakref.WeakSet()
# Values summarise returns unchanged; skipping the call for them halves its cost.
_ATOMS = frozenset({int, float, bool, type(None)})


def summarise(value: Any, limit: int = 200) -> Any:
    """Traces keep the shape of inputs and outputs, not whole documents."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}… ({len(value)} chars)"
    if isinstance(value, dict):
        return {k: v if type(v) in _ATOMS else summarise(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [v if type(v) in _ATOMS else summarise(v, limit) for v in value[:20]]
        return items + ([f"… {len(value) - 20} more"] if len(value) > 20 else [])
    return value


class TraceWriter:
    """One writer thread per store, started on the first record."""

    def __init__(self, open_db: Callable[[], Connector], *, interval_s: float = 0.25) -> None:
        self.open_db = open_db
        self.interval_s = interval_s
        self.errors = 0
        """Batches that failed to write (traces are best effort; the run goes on)."""
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, prepare: Prepare) -> None:
        """Queue one record; its encoding happens in the writer thread."""
        if self._thread is None:
            self._start()
        self._queue.put(prepare)

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything queued so far is written; False on timeout."""
        if self._thread is None or not self._thread.is_alive():
            return True
        done = threading.Event()
        self._queue.put(done)
        self._wake.set()
        return done.wait(timeout_s)

    def close(self, timeout_s: float = 30.0) -> None:
        """Write what is queued, then stop the thread."""
        with self._lock:
            thread, self._closed = self._thread, True
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            self._wake.set()
            thread.join(timeout_s)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            if self._closed:
                raise RuntimeError("trace writer is closed")
            self._thread = threading.Thread(target=self._run, name="rlm-trace-writer",
                                            daemon=True)
            self._thread.start()
            _LIVE.add(self)

    def _run(self) -> None:
        conn = self.open_db()
        try:
            while True:
                batch = [self._queue.get()]
                # Let records pile up for a while: one transaction for many of them.
                self._wake.wait(self.interval_s)
                self._wake.clear()
                while True:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                records = [item for item in batch if callable(item)]
                if records:
                    self._write(conn, records)
                for item in batch:
                    if isinstance(item, threading.Event):
                        item.set()
                if any(item is _STOP for item in batch):
                    return
        finally:
            conn.close()

    def _write(self, conn: Connector, records: list[Prepare]) -> None:
        statements: list[SqlRecord] = []
        lines: dict[str, list[str]] = {}
        try:
            for prepare in records:
                sql, appends = prepare(conn)
                statements += sql
                for path, line in appends:
                    lines.setdefault(path, []).append(line)
            with conn.transaction() as tx:
                for sql_text, params in statements:
                    tx.execute(sql_text, params)
            for path, chunk in lines.items():
                _append(path, "".join(f"{line}\n" for line in chunk))
        except Exception as exc:  # never kill the writer: later batches may still succeed
            self.errors += 1
            print(f"rlm-recursive: trace write failed: {type(exc).__name__}: {exc}",
                  file=sys.stderr)


def _append(path: str, text: str) -> None:
    # Traces may hold document text: private files in a private folder.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, flags, 0o600)
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def tool_trace(
    data_dir: Path, known: set[str], session_id: str | None, op: str, ts: str,
    input_: Any, output: Any, duration_ms: float,
) -> Prepare:
    """A tool-call trace: one `traces` row and one line in the session's JSONL file."""

    def prepare(conn: Connector) -> tuple[list[SqlRecord], list[tuple[str, str]]]:
        input_json = json.dumps(summarise(input_), default=str)
        output_json = json.dumps(summarise(output), default=str)
        # Byte for byte json.dumps({"ts", "op", "input", "output", "duration_ms"}).
        line = (f'{{"ts": {json.dumps(ts)}, "op": {json.dumps(op)}, "input": {input_json}, '
                f'"output": {output_json}, "duration_ms": {json.dumps(round(duration_ms, 3))}}}')
        # Only a real session names a file: an id from a client could be `../../x`.
        if session_id is not None and session_id not in known and conn.one(
                "SELECT 1 FROM sessions WHERE id = ?", (session_id,)):
            known.add(session_id)
        name = session_id if session_id in known else "_global"
        sql = ("INSERT INTO traces (session_id, ts, op, input, output, duration_ms) "
               "VALUES (?, ?, ?, ?, ?, ?)")
        return ([(sql, (session_id, ts, op, input_json, output_json, duration_ms))],
                [(os.path.join(data_dir, "traces", f"{name}.jsonl"), line)])

    return prepare


@atexit.register
def _flush_all() -> None:
    """Interpreter exit: write every queued record (the writer threads are daemons)."""
    for writer in list(_LIVE):
        writer.close()
