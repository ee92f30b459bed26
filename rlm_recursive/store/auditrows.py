"""The audit log as rows of the shared database (`RLM_DATABASE_URL`), instead of a JSONL file
per data dir: every API and worker process appends to one `audit_log` table.

The record is built and checked by policy/audit.py (content cannot reach it by construction);
this module only stores it. An insert that fails raises, so the audited call fails closed as
it does when the file cannot be written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .connector import Connector

__all__ = ["AUDIT_COLUMNS", "audit_rows", "audit_sink"]

AUDIT_COLUMNS = ("ts", "profile", "correlation_id", "tool", "duration_ms", "bytes_read",
                 "model_used", "cost", "error_code", "tenant_id", "key_id", "route", "status",
                 "execution_id", "tokens")
"""policy/audit.py's AUDIT_FIELDS (a test keeps them equal)."""

_INSERT = (f"INSERT INTO audit_log ({', '.join(AUDIT_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(AUDIT_COLUMNS))})")


def audit_sink(sql: Connector) -> Callable[[list[dict[str, Any]]], None]:
    """A function that appends audit records (dicts of AUDIT_COLUMNS) to `audit_log`, all in
    one transaction (a busy API server writes its requests' records in batches)."""

    def append(records: list[dict[str, Any]]) -> None:
        with sql.transaction() as tx:
            tx.executemany(_INSERT, [tuple(r[c] for c in AUDIT_COLUMNS) for r in records])

    return append


def audit_rows(sql: Connector, limit: int = 100) -> list[dict[str, Any]]:
    """The newest audit records, oldest first (for operators and tests)."""
    rows = sql.query(f"SELECT {', '.join(AUDIT_COLUMNS)} FROM audit_log ORDER BY id DESC "
                     "LIMIT ?", (limit,))
    return [dict(zip(AUDIT_COLUMNS, row, strict=True)) for row in reversed(rows)]
