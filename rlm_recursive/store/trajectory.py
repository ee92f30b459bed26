"""Rows of the trajectory tables (`runs`, `run_events`): queued writes, plain reads."""

from __future__ import annotations

import json
from typing import Any

from .connector import Connector
from .tracewriter import SqlRecord

__all__ = ["EVENT_COLUMNS", "RUN_COLUMNS", "event_insert", "list_runs", "load_events",
           "load_run", "run_finish", "run_heartbeat", "run_insert"]

RUN_COLUMNS = ("id", "session_id", "mode", "question", "question_chars", "strategy",
               "provider", "model", "status", "error_code", "started_at", "ended_at",
               "duration_ms", "cost_usd", "usage", "limits", "plan", "answer", "answer_chars",
               "citations", "heartbeat_at", "owner")
EVENT_COLUMNS = ("run_id", "id", "parent_id", "seq", "kind", "depth", "name", "status",
                 "error_code", "started_at", "duration_ms", "input_tokens", "output_tokens",
                 "cost_usd", "cache_hit", "input_chars", "output_chars", "meta", "input",
                 "output")
_JSON_RUN = ("usage", "limits", "plan", "citations", "grounding")
_JSON_EVENT = ("meta", "input", "output")
"""Decoded on load; the writer hands them over already encoded (it measured their size)."""
_FINISH = ("status", "error_code", "ended_at", "duration_ms", "cost_usd", "usage", "answer",
           "answer_chars", "citations", "strategy", "provider", "model", "plan", "limits",
           "grounding")


def _encode(row: dict[str, Any], json_columns: tuple[str, ...]) -> dict[str, Any]:
    return {k: json.dumps(v, ensure_ascii=False, default=str)
            if k in json_columns and v is not None else v for k, v in row.items()}


def run_insert(row: dict[str, Any]) -> SqlRecord:
    row = _encode(row, _JSON_RUN)
    return (f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
            tuple(row.get(c) for c in RUN_COLUMNS))


def run_finish(run_id: str, fields: dict[str, Any]) -> SqlRecord:
    fields = _encode({k: v for k, v in fields.items() if k in _FINISH}, _JSON_RUN)
    return (f"UPDATE runs SET {', '.join(f'{k} = ?' for k in fields)} WHERE id = ?",
            (*fields.values(), run_id))


def run_heartbeat(run_id: str, now: str) -> SqlRecord:
    """Renew a running run's lease (store/lifecycle.py)."""
    return ("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = 'running'",
            (now, run_id))


_EVENT_UPSERT = (f"INSERT INTO run_events ({', '.join(EVENT_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(EVENT_COLUMNS))}) ON CONFLICT (run_id, id) "
                 "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in EVENT_COLUMNS[2:]))


def event_insert(row: dict[str, Any]) -> SqlRecord:
    """Insert an event, or replace the one with its id (a node written again when it ends)."""
    return (_EVENT_UPSERT, tuple(row.get(c) for c in EVENT_COLUMNS))


_SELECT_RUN = f"SELECT {', '.join(RUN_COLUMNS)}, grounding FROM runs"
_SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM run_events"


def _decode(row: Any, json_columns: tuple[str, ...]) -> dict[str, Any]:
    out = dict(row)
    for key in json_columns:
        if out.get(key) is not None:
            out[key] = json.loads(out[key])
    return out


def list_runs(db: Connector, session_id: str | None = None,
              limit: int = 20) -> list[dict[str, Any]]:
    """Recent runs, newest first (named rows: `Store.sql`)."""
    where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
    order = "rowid" if db.dialect == "sqlite" else "row_seq"
    rows = db.query(f"{_SELECT_RUN} {where} ORDER BY started_at DESC, {order} DESC LIMIT ?",
                    (*params, limit))
    return [_decode(r, _JSON_RUN) for r in rows]


def load_run(db: Connector, run_id: str) -> dict[str, Any] | None:
    row = db.one(f"{_SELECT_RUN} WHERE id = ?", (run_id,))
    return None if row is None else _decode(row, _JSON_RUN)


def load_events(db: Connector, run_id: str) -> list[dict[str, Any]]:
    rows = db.query(f"{_SELECT_EVENTS} WHERE run_id = ? ORDER BY seq", (run_id,))
    return [_decode(r, _JSON_EVENT) for r in rows]
