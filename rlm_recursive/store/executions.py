"""Executions, their steps and the sub-call cache in SQLite (migration 0002). JSON only."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import NotFound
from ..types import text_checksum
from .db import utcnow

__all__ = ["EXECUTION_STATUSES", "ExecutionStatus", "ExecutionStore", "StepRecord"]

ExecutionStatus = Literal["RUNNING", "COMPLETED", "FAILED", "TIMEOUT", "BUDGET_EXCEEDED",
                          "MAX_TURNS_EXCEEDED"]
EXECUTION_STATUSES: tuple[str, ...] = ("RUNNING", "COMPLETED", "FAILED", "TIMEOUT",
                                       "BUDGET_EXCEEDED", "MAX_TURNS_EXCEEDED")

_EXECUTION_COLUMNS = ("id, session_id, mode, question, status, options, answer, error, usage, "
                      "created_at, updated_at")
_STEP_COLUMNS = ("execution_id, turn_index, code, stdout, state, span_log, tool_requests, "
                 "final, error, checksum, timings, created_at")
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
    """SQL for executions and steps, over the store's connection (one writer)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def create(
        self, execution_id: str, session_id: str, mode: str, question: str | None,
        options: dict[str, Any],
    ) -> dict[str, Any]:
        now = utcnow()
        self.db.execute(
            f"INSERT INTO executions ({_EXECUTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, "
            "NULL, '{}', ?, ?)",
            (execution_id, session_id, mode, question, "RUNNING", json.dumps(options), now, now))
        return self.get(execution_id)

    def get(self, execution_id: str) -> dict[str, Any]:
        row = self.db.execute(f"SELECT {_EXECUTION_COLUMNS} FROM executions WHERE id = ?",
                              (execution_id,)).fetchone()
        if row is None:
            raise NotFound(f"no execution {execution_id!r}")
        out = dict(row)
        for key in ("options", "usage", "error"):
            out[key] = json.loads(out[key]) if out[key] else None
        return out

    def status(self, execution_id: str) -> str | None:
        """The execution's status, or None when there is no such execution."""
        row = self.db.execute("SELECT status FROM executions WHERE id = ?",
                              (execution_id,)).fetchone()
        return None if row is None else row["status"]

    def finish(
        self, execution_id: str, status: str, *, answer: str | None = None,
        error: dict[str, Any] | None = None, usage: dict[str, Any] | None = None,
    ) -> None:
        if status not in EXECUTION_STATUSES:
            raise ValueError(f"unknown execution status {status!r}")
        self.db.execute(
            "UPDATE executions SET status = ?, answer = ?, error = ?, usage = ?, updated_at = ? "
            "WHERE id = ?",
            (status, answer, json.dumps(error) if error else None, json.dumps(usage or {}),
             utcnow(), execution_id))

    def reopen(self, execution_id: str) -> None:
        """A resumed run is RUNNING again."""
        self.db.execute("UPDATE executions SET status = 'RUNNING', updated_at = ? WHERE id = ?",
                        (utcnow(), execution_id))

    def add_step(self, execution_id: str, step: StepRecord) -> None:
        step.seal()
        values = [execution_id, step.turn_index, step.code, step.stdout]
        values += [json.dumps(getattr(step, name), ensure_ascii=False) for name in
                   ("state", "span_log", "tool_requests")]
        values += [json.dumps(step.final) if step.final is not None else None,
                   json.dumps(step.error) if step.error is not None else None,
                   step.checksum, json.dumps(step.timings), utcnow()]
        self.db.execute(f"INSERT INTO execution_steps ({_STEP_COLUMNS}) VALUES "
                        f"({', '.join('?' * len(values))})", values)
        self.db.execute("UPDATE executions SET updated_at = ? WHERE id = ?",
                        (utcnow(), execution_id))

    def steps(self, execution_id: str) -> list[StepRecord]:
        rows = self.db.execute(f"SELECT {_STEP_COLUMNS} FROM execution_steps WHERE "
                               "execution_id = ? ORDER BY turn_index", (execution_id,))
        return [_step(row) for row in rows]

    def last_step(self, execution_id: str) -> StepRecord | None:
        row = self.db.execute(f"SELECT {_STEP_COLUMNS} FROM execution_steps WHERE "
                              "execution_id = ? ORDER BY turn_index DESC LIMIT 1",
                              (execution_id,)).fetchone()
        return _step(row) if row else None

    # The temperature-0 sub-call cache. A batch of sub-calls reads and writes it from many
    # worker threads over the one store connection: a read left open on it while another
    # thread writes, after a commit by another connection (the trace writer's), is a stale
    # snapshot SQLite refuses at once ("database is locked"). One lock keeps them apart.
    _cache_lock = threading.Lock()

    def cache_get(self, key: str) -> dict[str, Any] | None:
        with self._cache_lock:
            row = self.db.execute("SELECT response FROM llm_cache WHERE key = ?",
                                  (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def cache_put(
        self, key: str, provider: str, model: str, options: str, prompt_sha256: str,
        response: dict[str, Any],
    ) -> None:
        """Best effort: a reply that could not be cached is only a later cache miss."""
        with self._cache_lock, contextlib.suppress(sqlite3.OperationalError):
            self.db.execute(
                "INSERT OR REPLACE INTO llm_cache (key, provider, model, options, "
                "prompt_sha256, response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, provider, model, options, prompt_sha256, json.dumps(response),
                 utcnow()))


def _step(row: sqlite3.Row) -> StepRecord:
    data = dict(row)
    data.pop("execution_id")
    data.pop("created_at")
    for key in _STEP_JSON:
        data[key] = json.loads(data[key]) if data[key] is not None else None
    return StepRecord(**data)
