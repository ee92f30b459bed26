"""Executions, their steps and the sub-call cache, on either database (the `Connector`).

SQLite's migration 0002 and PostgreSQL's 0011 hold the same tables; the SQL below is written
once, with `?` placeholders, and reads rows by position (both connectors' rows allow it).
JSON only. On PostgreSQL, executions may also be `QUEUED` for a worker (rlm_recursive/queue):
a worker `claim`s the row, which hands it the next attempt number, and its final write is
fenced by that number.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import NotFound
from ..types import text_checksum
from .connector import Connector, Executor
from .db import utcnow

__all__ = ["EXECUTION_STATUSES", "UNFINISHED_STATUSES", "ExecutionStatus", "ExecutionStore",
           "StepRecord", "is_finished"]

ExecutionStatus = Literal["QUEUED", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT",
                          "BUDGET_EXCEEDED", "MAX_TURNS_EXCEEDED"]
EXECUTION_STATUSES: tuple[str, ...] = ("QUEUED", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT",
                                       "BUDGET_EXCEEDED", "MAX_TURNS_EXCEEDED")
UNFINISHED_STATUSES: tuple[str, ...] = ("QUEUED", "RUNNING")
"""Waiting for a worker, or running: every other status is final."""


def is_finished(status: str | None) -> bool:
    """True once an execution has a final status (QUEUED is not one: it has not started)."""
    return status is not None and status not in UNFINISHED_STATUSES


_EXECUTION_FIELDS = ("id", "session_id", "mode", "question", "status", "options", "answer",
                     "error", "usage", "created_at", "updated_at")
_EXECUTION_COLUMNS = ", ".join(_EXECUTION_FIELDS)
_STEP_FIELDS = ("turn_index", "code", "stdout", "state", "span_log", "tool_requests", "final",
                "error", "checksum", "timings")
_STEP_COLUMNS = ", ".join(_STEP_FIELDS)
_STEP_JSON = ("state", "span_log", "tool_requests", "final", "error", "timings")


@dataclass
class StepRecord:
    """One step of an execution, as persisted (seed 003 §6.1 output, plus code and timings)."""

    turn_index: int
    code: str
    stdout: str
    state: dict[str, Any]
    span_log: list[dict[str, Any]] = field(default_factory=list)
    tool_requests: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"llm": [], "search": []})
    final: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    checksum: str = ""

    def canonical(self) -> str:
        """The step's content as canonical JSON (what the checksum covers; timings excluded)."""
        body = {"turn_index": self.turn_index, "code": self.code, "stdout": self.stdout,
                "state": self.state, "span_log": self.span_log,
                "tool_requests": self.tool_requests, "final": self.final, "error": self.error}
        return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def seal(self) -> StepRecord:
        self.checksum = text_checksum(self.canonical())
        return self

    def to_dict(self) -> dict[str, Any]:
        return {"turn_index": self.turn_index, "code": self.code, "stdout": self.stdout,
                "state": self.state, "span_log": self.span_log,
                "tool_requests": self.tool_requests, "final": self.final, "error": self.error,
                "checksum": self.checksum, "timings": self.timings}


class ExecutionStore:
    """SQL for executions and steps over the store's connector (`store.sql`)."""

    def __init__(self, db: Connector) -> None:
        self.db = db

    def create(
        self, execution_id: str, session_id: str, mode: str, question: str | None,
        options: dict[str, Any], *, status: str = "RUNNING", tx: Executor | None = None,
    ) -> dict[str, Any]:
        """Insert the row (in `tx`, the caller's transaction, when given) and return it."""
        if status not in UNFINISHED_STATUSES:
            raise ValueError(f"an execution starts QUEUED or RUNNING, not {status!r}")
        now = utcnow()
        values = (execution_id, session_id, mode, question, status, json.dumps(options), now,
                  now)
        sql = (f"INSERT INTO executions ({_EXECUTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, "
               "NULL, '{}', ?, ?)")
        if tx is not None:
            tx.execute(sql, values)
            return _execution((*values[:6], None, None, "{}", *values[6:]))
        with self.db.transaction() as own:
            own.execute(sql, values)
        return self.get(execution_id)

    def get(self, execution_id: str) -> dict[str, Any]:
        rows = self.db.query(f"SELECT {_EXECUTION_COLUMNS} FROM executions WHERE id = ?",
                             (execution_id,))
        if not rows:
            raise NotFound(f"no execution {execution_id!r}")
        return _execution(rows[0])

    def result(self, execution_id: str) -> dict[str, Any] | None:
        """What the run stored beyond its answer (citations, strategy, …), if it ended."""
        rows = self.db.query("SELECT result FROM executions WHERE id = ?", (execution_id,))
        return json.loads(rows[0][0]) if rows and rows[0][0] else None

    def unfinished(self, session_id: str) -> list[str]:
        """The session's executions still QUEUED or RUNNING."""
        rows = self.db.query("SELECT id FROM executions WHERE session_id = ? AND status IN "
                             "('QUEUED', 'RUNNING') ORDER BY created_at", (session_id,))
        return [row[0] for row in rows]

    def status(self, execution_id: str) -> str | None:
        """The execution's status, or None when there is no such execution."""
        rows = self.db.query("SELECT status FROM executions WHERE id = ?", (execution_id,))
        return rows[0][0] if rows else None

    def finish(
        self, execution_id: str, status: str, *, answer: str | None = None,
        error: dict[str, Any] | None = None, usage: dict[str, Any] | None = None,
        result: dict[str, Any] | None = None, attempt: int | None = None,
        tx: Executor | None = None,
    ) -> bool:
        """Give the execution its final status (and its `result`, when given, in the same
        write). With `attempt` (a queued run's), only while that attempt still owns an
        unfinished row: False when it does not, and nothing is written."""
        if status not in EXECUTION_STATUSES or status in UNFINISHED_STATUSES:
            raise ValueError(f"unknown final execution status {status!r}")
        sets = "status = ?, answer = ?, error = ?, usage = ?, updated_at = ?"
        values: tuple[Any, ...] = (status, answer, json.dumps(error) if error else None,
                                   json.dumps(usage or {}), utcnow())
        if result is not None:
            sets += ", result = ?"
            values += (json.dumps(result, ensure_ascii=False),)
        sql = f"UPDATE executions SET {sets} WHERE id = ?"
        values += (execution_id,)
        if attempt is not None:
            sql += " AND attempt = ? AND status IN ('QUEUED', 'RUNNING')"
            values += (attempt,)
        with _in(self.db, tx) as run:
            return run.execute(sql, values).rowcount == 1

    def reopen(self, execution_id: str) -> None:
        """A resumed run is RUNNING again."""
        with self.db.transaction() as tx:
            tx.execute("UPDATE executions SET status = 'RUNNING', updated_at = ? WHERE id = ?",
                       (utcnow(), execution_id))

    def add_step(self, execution_id: str, step: StepRecord) -> None:
        step.seal()
        values = [execution_id, step.turn_index, step.code, step.stdout]
        values += [json.dumps(getattr(step, name), ensure_ascii=False) for name in
                   ("state", "span_log", "tool_requests")]
        values += [json.dumps(step.final) if step.final is not None else None,
                   json.dumps(step.error) if step.error is not None else None,
                   step.checksum, json.dumps(step.timings), utcnow()]
        with self.db.transaction() as tx:
            tx.execute(f"INSERT INTO execution_steps (execution_id, {_STEP_COLUMNS}, "
                       f"created_at) VALUES ({', '.join('?' * len(values))})", tuple(values))
            tx.execute("UPDATE executions SET updated_at = ? WHERE id = ?",
                       (utcnow(), execution_id))

    def steps(self, execution_id: str) -> list[StepRecord]:
        rows = self.db.query(f"SELECT {_STEP_COLUMNS} FROM execution_steps WHERE "
                             "execution_id = ? ORDER BY turn_index", (execution_id,))
        return [_step(row) for row in rows]

    def last_step(self, execution_id: str) -> StepRecord | None:
        rows = self.db.query(f"SELECT {_STEP_COLUMNS} FROM execution_steps WHERE "
                             "execution_id = ? ORDER BY turn_index DESC LIMIT 1",
                             (execution_id,))
        return _step(rows[0]) if rows else None

    # The queue's side (PostgreSQL): which job runs a row, and which attempt owns it.
    def set_job(self, execution_id: str, job_id: int, tx: Executor) -> None:
        tx.execute("UPDATE executions SET job_id = ? WHERE id = ?", (job_id, execution_id))

    def job_id(self, execution_id: str) -> int | None:
        rows = self.db.query("SELECT job_id FROM executions WHERE id = ?", (execution_id,))
        return rows[0][0] if rows else None

    def claim(self, execution_id: str) -> int | None:
        """A worker takes an unfinished execution: RUNNING, with the next attempt number
        (returned). None when it is finished already (a retried job that had completed)."""
        with self.db.transaction() as tx:
            row = tx.execute(
                "UPDATE executions SET status = 'RUNNING', attempt = attempt + 1, "
                "updated_at = ? WHERE id = ? AND status IN ('QUEUED', 'RUNNING') "
                "RETURNING attempt", (utcnow(), execution_id)).fetchone()
        return None if row is None else int(row[0])

    # The temperature-0 sub-call cache. A batch of sub-calls reads and writes it from many
    # worker threads over the one embedded store connection: a read left open on it while
    # another thread writes, after a commit by another connection (the trace writer's), is a
    # stale snapshot SQLite refuses at once ("database is locked"). One lock keeps them apart.
    _cache_lock = threading.Lock()

    def cache_get(self, key: str) -> dict[str, Any] | None:
        with self._cache_lock:
            rows = self.db.query("SELECT response FROM llm_cache WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def cache_put(
        self, key: str, provider: str, model: str, options: str, prompt_sha256: str,
        response: dict[str, Any],
    ) -> None:
        """Best effort: a reply that could not be cached is only a later cache miss."""
        with self._cache_lock, contextlib.suppress(sqlite3.OperationalError), \
                self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO llm_cache (key, provider, model, options, prompt_sha256, "
                "response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO "
                "UPDATE SET provider = excluded.provider, model = excluded.model, "
                "options = excluded.options, prompt_sha256 = excluded.prompt_sha256, "
                "response = excluded.response, created_at = excluded.created_at",
                (key, provider, model, options, prompt_sha256, json.dumps(response),
                 utcnow()))


@contextmanager
def _in(db: Connector, tx: Executor | None) -> Iterator[Executor]:
    """The caller's transaction when it passed one, else a transaction of our own."""
    if tx is not None:
        yield tx
        return
    with db.transaction() as own:
        yield own


def _execution(row: Sequence[Any]) -> dict[str, Any]:
    out = dict(zip(_EXECUTION_FIELDS, row, strict=True))
    for key in ("options", "usage", "error"):
        out[key] = json.loads(out[key]) if out[key] else None
    return out


def _step(row: Sequence[Any]) -> StepRecord:
    data = dict(zip(_STEP_FIELDS, row, strict=True))
    for key in _STEP_JSON:
        data[key] = json.loads(data[key]) if data[key] is not None else None
    return StepRecord(**data)
