"""Audit log: one JSONL line per call with ids, sizes, timing, model, cost and error code only.

There is no free-form field anywhere, so content cannot reach the log by construction: every
string is checked against a narrow pattern and replaced by a placeholder when it does not fit.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InternalError, RlmError

__all__ = ["AUDIT_FIELDS", "AuditEntry", "AuditLog", "audited", "new_correlation_id"]

AUDIT_FIELDS: tuple[str, ...] = (
    "ts",
    "profile",
    "correlation_id",
    "tool",
    "duration_ms",
    "bytes_read",
    "model_used",
    "cost",
    "error_code",
    # HTTP API requests (issue 12); null for tool calls from the CLI and MCP.
    "tenant_id",
    "key_id",
    "route",
    "status",
    "execution_id",
    "tokens",
)
"""Every key of an audit record, and nothing else (SDD 7.2)."""

_REDACTED = "<redacted>"
# Identifiers, tool names and model names never need spaces, quotes or long runs of text; a
# value that does not fit is more likely leaked content than a name.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+\-]{0,199}")
_CODE = re.compile(r"[a-z][a-z_]{0,63}")
_ROUTE = re.compile(r"[A-Z]{3,7} /[A-Za-z0-9_/{}.\-]{0,200}")
"""A method and a route template (`GET /v1/executions/{execution_id}`), never a filled path."""


def new_correlation_id() -> str:
    """A fresh id for one call, when the surface did not supply one."""
    return uuid.uuid4().hex


@dataclass(slots=True)
class AuditEntry:
    """What a caller fills in during an `audited()` block; slots forbid any other attribute."""

    tool: str
    correlation_id: str
    bytes_read: int = 0
    model_used: str | None = None
    cost: float | None = None
    """Dollars, when the provider reports them."""
    error_code: str | None = None


class AuditLog:
    """Appends audit records to a JSONL file (mode 0600); a disabled log writes nothing.

    With a `sink` (the shared database's `audit_log` table, store/auditrows.py) each record
    goes there instead: every process's calls in one place. A sink blocks on the network, so
    `audited` calls it from a thread.
    """

    def __init__(self, path: Path, *, profile: str = "unrestricted", enabled: bool = True,
                 sink: Callable[[list[dict[str, Any]]], None] | None = None) -> None:
        self.path = Path(path)
        self.profile = profile
        self.enabled = enabled
        self.sink = sink

    def record(self, **fields: Any) -> None:
        """Append one record (the fields of `entry`); raises InternalError if the log cannot be
        written (fail closed)."""
        if self.enabled:
            self.write([self.entry(**fields)])

    def entry(
        self,
        *,
        correlation_id: str,
        tool: str,
        duration_ms: float,
        bytes_read: int = 0,
        model_used: str | None = None,
        cost: float | None = None,
        error_code: str | None = None,
        tenant_id: str | None = None,
        key_id: str | None = None,
        route: str | None = None,
        status: int | None = None,
        execution_id: str | None = None,
        tokens: int | None = None,
    ) -> dict[str, Any]:
        """One checked record: every string fits its narrow pattern or is redacted."""
        return {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "profile": _text(self.profile, _ID),
            "correlation_id": _text(correlation_id, _ID),
            "tool": _text(tool, _ID),
            "duration_ms": _number(duration_ms, integer=True),
            "bytes_read": _number(bytes_read, integer=True),
            "model_used": _text(model_used, _MODEL),
            "cost": _number(cost, integer=False),
            "error_code": _text(error_code, _CODE),
            "tenant_id": _text(tenant_id, _ID),
            "key_id": _text(key_id, _ID),
            "route": _text(route, _ROUTE),
            "status": None if status is None else _number(status, integer=True),
            "execution_id": _text(execution_id, _ID),
            "tokens": None if tokens is None else _number(tokens, integer=True),
        }

    def write(self, records: list[dict[str, Any]]) -> None:
        """Append checked records in one write (one statement on a database sink); raises
        InternalError if the log cannot be written."""
        if not self.enabled or not records:
            return
        if self.sink is not None:
            try:
                self.sink(records)
            except Exception as exc:
                raise InternalError(
                    f"cannot write the audit log to the database ({type(exc).__name__}); "
                    "check RLM_DATABASE_URL's server, or set audit = false in the profile",
                ) from None
            return
        data = "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in records).encode("ascii")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One O_APPEND write() per batch: concurrent writers (threads or processes) each
            # land whole lines at the end of the file instead of interleaving.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            raise InternalError(
                f"cannot write the audit log ({exc.strerror}); fix its folder's permissions "
                f"or disk space, or set audit = false in the profile",
            ) from None


@asynccontextmanager
async def audited(
    log: AuditLog | None, tool: str, correlation_id: str | None = None
) -> AsyncIterator[AuditEntry]:
    """Time a call and record it; the caller sets bytes_read, model_used and cost on the entry.

    On an exception the record gets the RlmError's code (`internal_error` for anything else,
    `cancelled` for cancellation) and the exception propagates unchanged.
    """
    entry = AuditEntry(tool=tool, correlation_id=correlation_id or new_correlation_id())
    start = time.monotonic()
    try:
        yield entry
    except BaseException as exc:
        if isinstance(exc, RlmError):
            entry.error_code = exc.code
        elif isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
            entry.error_code = "cancelled"
        else:
            entry.error_code = "internal_error"
        try:
            await _write(log, entry, start)
        except InternalError as audit_exc:
            # The call already failed; keep its error and note the audit failure on it.
            exc.add_note(str(audit_exc))
        raise
    await _write(log, entry, start)


async def _write(log: AuditLog | None, entry: AuditEntry, start: float) -> None:
    if log is None:
        return
    write = functools.partial(
        log.record,
        correlation_id=entry.correlation_id,
        tool=entry.tool,
        duration_ms=(time.monotonic() - start) * 1000.0,
        bytes_read=entry.bytes_read,
        model_used=entry.model_used,
        cost=entry.cost,
        error_code=entry.error_code,
    )
    if log.sink is None:
        write()  # one local append, as cheap as ever
    else:
        await asyncio.to_thread(write)  # the shared database: off the event loop


def _text(value: object, pattern: re.Pattern[str]) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) and pattern.fullmatch(value) else _REDACTED


def _number(value: object, *, integer: bool) -> int | float | None:
    # bool is an int subclass, and a non-finite float has no JSON form: neither is a measurement.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0 if integer else None
    return max(0, round(value)) if integer else round(float(value), 6)
