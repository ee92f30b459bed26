"""API keys, tenant ownership and per-tenant daily usage (migration 0006).

Keys are `rlm_key_<random>`; only an HMAC-SHA256 of a key under a per-data-dir salt (a 0600
file, so a copied database alone cannot test guesses) is stored. Every tenant-facing read goes
through `owned_session` / `owned_execution`, which answer NotFound for another tenant's id, so
ids never leak (404, never 403).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidArgs, NotFound, SessionExpired, Unauthorized
from .db import utcnow
from .store import new_id

__all__ = ["KEY_PREFIX", "SCOPES", "ApiKey", "KeyStore", "TenantStore", "utc_day"]

KEY_PREFIX = "rlm_key_"
SCOPES = ("read", "run", "admin")
_SALT_FILE = "api_key_salt"


def utc_day() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class ApiKey:
    id: str
    tenant_id: str
    name: str | None
    scopes: tuple[str, ...]
    created_at: str
    last_used_at: str | None
    revoked_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tenant_id": self.tenant_id, "name": self.name,
                "scopes": list(self.scopes), "created_at": self.created_at,
                "last_used_at": self.last_used_at, "revoked_at": self.revoked_at}


def _salt(data_dir: Path) -> bytes:
    path = data_dir / _SALT_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    salt = secrets.token_bytes(32)
    try:  # O_EXCL: two processes creating it at once agree on the first one's salt
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    try:
        os.write(fd, salt)
    finally:
        os.close(fd)
    return salt


_TENANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
"""Tenant ids land in audit records, URLs and terminals: plain names only."""


def _check_tenant(tenant_id: str) -> None:
    if not _TENANT_ID.fullmatch(tenant_id):
        raise InvalidArgs("a tenant id is 1 to 128 letters, digits, '_', '.' or '-', "
                          "starting with a letter or digit")


class KeyStore:
    """Create, authenticate, list and revoke API keys."""

    def __init__(self, db: sqlite3.Connection, data_dir: Path) -> None:
        self.db = db
        self._salt = _salt(data_dir)

    def _hash(self, key: str) -> str:
        return hmac.new(self._salt, key.encode("utf-8"), hashlib.sha256).hexdigest()

    def create(self, tenant_id: str, name: str | None = None,
               scopes: tuple[str, ...] = ("read", "run")) -> tuple[str, ApiKey]:
        """A new key (returned once, never stored) and its record."""
        _check_tenant(tenant_id)
        unknown = set(scopes) - set(SCOPES)
        if unknown or not scopes:
            raise InvalidArgs(f"scopes are some of {', '.join(SCOPES)}; got {sorted(scopes)}")
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        key_id, now = new_id("key"), utcnow()
        ordered = tuple(s for s in SCOPES if s in scopes)
        self.db.execute(
            "INSERT INTO api_keys (id, tenant_id, name, key_hash, scopes, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, tenant_id, name, self._hash(key), json.dumps(ordered), now))
        return key, ApiKey(key_id, tenant_id, name, ordered, now, None, None)

    def authenticate(self, key: str | None) -> ApiKey:
        """The live key record for a presented key, or Unauthorized (same message for all)."""
        if not key or not key.startswith(KEY_PREFIX) or len(key) > 200:
            raise Unauthorized("a valid API key is required: Authorization: Bearer rlm_key_…")
        row = self.db.execute("SELECT * FROM api_keys WHERE key_hash = ?",
                              (self._hash(key),)).fetchone()
        if row is None or row["revoked_at"] is not None:
            raise Unauthorized("a valid API key is required: Authorization: Bearer rlm_key_…")
        return _key(row)

    def touch(self, key_id: str) -> None:
        self.db.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (utcnow(), key_id))

    def list(self, tenant_id: str | None = None) -> list[ApiKey]:
        query, params = "SELECT * FROM api_keys", ()
        if tenant_id is not None:
            _check_tenant(tenant_id)
            query, params = query + " WHERE tenant_id = ?", (tenant_id,)
        return [_key(r) for r in self.db.execute(query + " ORDER BY created_at, id", params)]

    def revoke(self, key_id: str) -> ApiKey:
        self.db.execute("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
                        (utcnow(), key_id))
        row = self.db.execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        if row is None:
            raise NotFound(f"no API key {key_id!r}", kind="api_key")
        return _key(row)


def _key(row: sqlite3.Row) -> ApiKey:
    return ApiKey(row["id"], row["tenant_id"], row["name"], tuple(json.loads(row["scopes"])),
                  row["created_at"], row["last_used_at"], row["revoked_at"])


class TenantStore:
    """Tenant-filtered reads and writes over the store's connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def claim_session(self, session_id: str, tenant_id: str, readiness: str,
                      expires_at: str | None = None) -> None:
        self.db.execute("UPDATE sessions SET tenant_id = ?, readiness = ?, expires_at = ? "
                        "WHERE id = ?", (tenant_id, readiness, expires_at, session_id))

    def discard_session(self, session_id: str) -> None:
        """Undo a create the client never saw: the row goes, or (documents already in) it is
        hidden as DELETED and closed, and `gc` collects what only it referenced."""
        try:
            self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        except sqlite3.IntegrityError:  # rows point at it (documents, traces)
            self.db.execute(
                "UPDATE sessions SET readiness = 'DELETED', "
                "closed_at = COALESCE(closed_at, ?) WHERE id = ?", (utcnow(), session_id))

    def sweep_orphans(self, older_than: str) -> int:
        """API sessions still CREATING since before `older_than` (their load died with its
        server): FAILED, with the reason. Returns how many."""
        error = json.dumps({"errors": [{"code": "internal_error", "message":
                                        "the server stopped before the documents loaded; "
                                        "create the session again"}]})
        return self.db.execute(
            "UPDATE sessions SET readiness = 'FAILED', load_error = ? "
            "WHERE readiness = 'CREATING' AND created_at < ?", (error, older_than)).rowcount

    def set_readiness(self, session_id: str, readiness: str,
                      error: dict[str, Any] | None = None) -> None:
        self.db.execute("UPDATE sessions SET readiness = ?, load_error = ? WHERE id = ?",
                        (readiness, json.dumps(error) if error else None, session_id))

    def owned_session(self, tenant_id: str, session_id: str) -> sqlite3.Row:
        row = self.db.execute(
            "SELECT * FROM sessions WHERE id = ? AND tenant_id = ? "
            "AND COALESCE(readiness, '') != 'DELETED'", (session_id, tenant_id)).fetchone()
        if row is None:
            raise NotFound(f"no session {session_id!r}", kind="session")
        if row["readiness"] == "EXPIRED" or (row["expires_at"] and row["expires_at"] <= utcnow()):
            raise SessionExpired(f"session {session_id} expired at {row['expires_at']}; "
                                 "create it again", session_id=session_id)
        return row

    def sessions(self, tenant_id: str, limit: int = 100) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM sessions WHERE tenant_id = ? AND COALESCE(readiness, '') != "
            "'DELETED' ORDER BY created_at DESC LIMIT ?", (tenant_id, limit)).fetchall()

    def owned_execution(self, tenant_id: str, execution_id: str) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT e.id, e.session_id, e.mode, e.status, e.options, e.answer, e.error, "
            "e.usage, e.result, e.created_at, e.updated_at FROM executions e "
            "JOIN sessions s ON s.id = e.session_id WHERE e.id = ? AND s.tenant_id = ? "
            "AND COALESCE(s.readiness, '') != 'DELETED'", (execution_id, tenant_id)).fetchone()
        if row is None:
            raise NotFound(f"no execution {execution_id!r}", kind="execution")
        out = dict(row)
        for name in ("options", "error", "usage", "result"):
            out[name] = json.loads(out[name]) if out[name] else None
        return out

    def save_result(self, execution_id: str, result: dict[str, Any]) -> None:
        self.db.execute("UPDATE executions SET result = ? WHERE id = ?",
                        (json.dumps(result, ensure_ascii=False), execution_id))

    def add_usage(self, tenant_id: str, *, executions: int = 0, sub_calls: int = 0,
                  tokens: int = 0, usd: float = 0.0) -> None:
        self.db.execute(
            "INSERT INTO tenant_usage (tenant_id, day, executions, sub_calls, tokens, usd) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, day) DO UPDATE SET "
            "executions = executions + excluded.executions, "
            "sub_calls = sub_calls + excluded.sub_calls, tokens = tokens + excluded.tokens, "
            "usd = usd + excluded.usd",
            (tenant_id, utc_day(), executions, sub_calls, tokens, usd))

    def usage_today(self, tenant_id: str) -> dict[str, float]:
        row = self.db.execute(
            "SELECT executions, sub_calls, tokens, usd FROM tenant_usage WHERE tenant_id = ? "
            "AND day = ?", (tenant_id, utc_day())).fetchone()
        if row is None:
            return {"executions": 0, "sub_calls": 0, "tokens": 0, "usd": 0.0}
        return dict(row)
