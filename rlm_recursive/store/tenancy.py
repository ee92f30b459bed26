"""API keys, tenant ownership and per-tenant daily usage (migration 0006).

Keys are `rlm_key_<random>`; only an HMAC-SHA256 of a key under a salt kept outside the
database (so a copied database alone cannot test guesses) is stored. On SQLite the salt is a
0600 file in the data dir. On a shared PostgreSQL every process must hash alike, so the salt
is a secret the operator gives them all: `RLM_API_KEY_SALT`, or `RLM_API_KEY_SALT_FILE` (a
file distributed with the configuration); without one, keys refuse to work
(`key_salt_missing`) rather than hash under a salt no other machine has.

Every tenant-facing read goes through `owned_session` / `owned_execution`, which answer
NotFound for another tenant's id, so ids never leak (404, never 403).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidArgs, KeySaltMissing, NotFound, SessionExpired, Unauthorized
from .connector import Connector, integrity_errors
from .db import utcnow
from .loads import PENDING_LOAD
from .store import Store, new_id

__all__ = ["KEY_PREFIX", "KEY_SALT_ENV", "KEY_SALT_FILE_ENV", "OWNED_EXECUTION_SELECT",
           "SALT_FILE", "SCOPES", "ApiKey", "KeyStore", "TenantStore",
           "owned_execution_record", "shared_salt", "utc_day"]

KEY_PREFIX = "rlm_key_"
SCOPES = ("read", "run", "admin")
SALT_FILE = "api_key_salt"
"""The data dir's salt file (SQLite stores)."""
KEY_SALT_ENV = "RLM_API_KEY_SALT"
KEY_SALT_FILE_ENV = "RLM_API_KEY_SALT_FILE"
MIN_SALT_BYTES = 16


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


def shared_salt(environ: Mapping[str, str] | None = None) -> bytes:
    """The API-key salt every process on a shared database uses: `RLM_API_KEY_SALT` (its
    UTF-8 bytes) or the bytes of the file `RLM_API_KEY_SALT_FILE` names, as given."""
    env = os.environ if environ is None else environ
    how = (f"set {KEY_SALT_ENV} (a random secret of at least {MIN_SALT_BYTES} bytes, e.g. "
           f"`openssl rand -hex 32`) or {KEY_SALT_FILE_ENV} to the same value on every "
           "process that shares RLM_DATABASE_URL; never store it in that database")
    if value := env.get(KEY_SALT_ENV):
        salt = value.encode("utf-8")
    elif path := env.get(KEY_SALT_FILE_ENV):
        try:
            salt = Path(path).read_bytes()
        except OSError as exc:
            raise KeySaltMissing(f"cannot read {KEY_SALT_FILE_ENV} ({exc.strerror}); "
                                 f"{how}") from None
    else:
        raise KeySaltMissing(f"API keys on a shared database need a shared salt: {how}")
    if len(salt) < MIN_SALT_BYTES:
        raise KeySaltMissing(f"the API-key salt is {len(salt)} bytes, under "
                             f"{MIN_SALT_BYTES}: {how}")
    return salt


def _salt(data_dir: Path) -> bytes:
    """The data dir's own salt (SQLite), made on first use."""
    path = data_dir / SALT_FILE
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


_KEY_REQUIRED = "a valid API key is required: Authorization: Bearer rlm_key_…"


class KeyStore:
    """Create, authenticate, list and revoke API keys (`sql`: the store's, named rows)."""

    def __init__(self, sql: Connector, data_dir: Path) -> None:
        self.sql = sql
        self._salt = _salt(data_dir) if sql.dialect == "sqlite" else shared_salt()

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
        self.sql.execute(
            "INSERT INTO api_keys (id, tenant_id, name, key_hash, scopes, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, tenant_id, name, self._hash(key), json.dumps(ordered), now))
        return key, ApiKey(key_id, tenant_id, name, ordered, now, None, None)

    def authenticate(self, key: str | None) -> ApiKey:
        """The live key record for a presented key, or Unauthorized (same message for all)."""
        return self.live(self.sql.one("SELECT * FROM api_keys WHERE key_hash = ?",
                                      (self.presented_hash(key),)))

    def presented_hash(self, key: str | None) -> str:
        """The hash to look a presented key up by; Unauthorized when it cannot be a key."""
        if not key or not key.startswith(KEY_PREFIX) or len(key) > 200:
            raise Unauthorized(_KEY_REQUIRED)
        return self._hash(key)

    @staticmethod
    def live(row: Any) -> ApiKey:
        """The key of an `api_keys` row found by `presented_hash`; Unauthorized when there
        is none or it is revoked."""
        if row is None or row["revoked_at"] is not None:
            raise Unauthorized(_KEY_REQUIRED)
        return _key(row)

    def touch(self, key_id: str) -> None:
        self.sql.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (utcnow(), key_id))

    def list(self, tenant_id: str | None = None) -> list[ApiKey]:
        query, params = "SELECT * FROM api_keys", ()
        if tenant_id is not None:
            _check_tenant(tenant_id)
            query, params = query + " WHERE tenant_id = ?", (tenant_id,)
        return [_key(r) for r in self.sql.query(query + " ORDER BY created_at, id", params)]

    def revoke(self, key_id: str) -> ApiKey:
        row = self.sql.one("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) "
                           "WHERE id = ? RETURNING *", (utcnow(), key_id))
        if row is None:
            raise NotFound(f"no API key {key_id!r}", kind="api_key")
        return _key(row)


def _key(row: Any) -> ApiKey:
    return ApiKey(row["id"], row["tenant_id"], row["name"], tuple(json.loads(row["scopes"])),
                  row["created_at"], row["last_used_at"], row["revoked_at"])


OWNED_EXECUTION_SELECT = (
    "e.id, e.session_id, e.mode, e.status, e.options, e.answer, e.error, e.usage, e.result, "
    "e.created_at, e.updated_at, s.tenant_id FROM executions e JOIN sessions s "
    "ON s.id = e.session_id AND COALESCE(s.readiness, '') != 'DELETED'")
"""An execution with its session's tenant (never one of a deleted session); callers add
the WHERE clause."""


def owned_execution_record(row: Any, execution_id: str) -> dict[str, Any]:
    """The record of an `OWNED_EXECUTION_SELECT` row (JSON columns parsed), or NotFound: the
    same for another tenant's execution as for none at all."""
    if row is None:
        raise NotFound(f"no execution {execution_id!r}", kind="execution")
    out = dict(row)
    del out["tenant_id"]
    for name in ("options", "error", "usage", "result"):
        out[name] = json.loads(out[name]) if out[name] else None
    return out


class TenantStore:
    """Tenant-filtered reads and writes over the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sql = store.sql

    def claim_session(self, session_id: str, tenant_id: str, readiness: str,
                      expires_at: str | None = None) -> None:
        self.sql.execute("UPDATE sessions SET tenant_id = ?, readiness = ?, expires_at = ? "
                        "WHERE id = ?", (tenant_id, readiness, expires_at, session_id))

    def discard_session(self, session_id: str) -> None:
        """Undo a create the client never saw: the row goes, or (documents already in) it is
        hidden as DELETED and closed, and `gc` collects what only it referenced."""
        try:
            self.sql.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        except integrity_errors():  # rows point at it (documents, traces)
            self.sql.execute(
                "UPDATE sessions SET readiness = 'DELETED', "
                "closed_at = COALESCE(closed_at, ?) WHERE id = ?", (utcnow(), session_id))

    def sweep_orphans(self, older_than: str) -> int:
        """API sessions still CREATING since before `older_than` (their load died with its
        server): FAILED, with the reason. Returns how many. A load waiting in the queue or
        running on a worker (PostgreSQL) is not an orphan, however long it takes: a dead
        worker's job goes to another one after its lease."""
        error = json.dumps({"errors": [{"code": "internal_error", "message":
                                        "the server stopped before the documents loaded; "
                                        "create the session again"}]})
        queued = f" AND NOT {PENDING_LOAD}" if self.sql.dialect == "postgresql" else ""
        return self.sql.execute(
            "UPDATE sessions SET readiness = 'FAILED', load_error = ? "
            f"WHERE readiness = 'CREATING' AND created_at < ?{queued}", (error, older_than))

    def set_readiness(self, session_id: str, readiness: str,
                      error: dict[str, Any] | None = None) -> None:
        self.sql.execute("UPDATE sessions SET readiness = ?, load_error = ? WHERE id = ?",
                        (readiness, json.dumps(error) if error else None, session_id))

    def owned_session(self, tenant_id: str, session_id: str) -> Any:
        row = self.sql.one(
            "SELECT * FROM sessions WHERE id = ? AND tenant_id = ? "
            "AND COALESCE(readiness, '') != 'DELETED'", (session_id, tenant_id))
        if row is None:
            raise NotFound(f"no session {session_id!r}", kind="session")
        if row["readiness"] == "EXPIRED" or (row["expires_at"] and row["expires_at"] <= utcnow()):
            raise SessionExpired(f"session {session_id} expired at {row['expires_at']}; "
                                 "create it again", session_id=session_id)
        return row

    def sessions(self, tenant_id: str, limit: int = 100) -> list[Any]:
        return self.sql.query(
            "SELECT * FROM sessions WHERE tenant_id = ? AND COALESCE(readiness, '') != "
            "'DELETED' ORDER BY created_at DESC LIMIT ?", (tenant_id, limit))

    def owned_execution(self, tenant_id: str, execution_id: str) -> dict[str, Any]:
        row = self.sql.one(f"SELECT {OWNED_EXECUTION_SELECT} WHERE e.id = ? AND "
                           "s.tenant_id = ?", (execution_id, tenant_id))
        return owned_execution_record(row, execution_id)

    def save_result(self, execution_id: str, result: dict[str, Any]) -> None:
        self.sql.execute("UPDATE executions SET result = ? WHERE id = ?",
                         (json.dumps(result, ensure_ascii=False), execution_id))

    def add_usage(self, tenant_id: str, *, executions: int = 0, sub_calls: int = 0,
                  tokens: int = 0, usd: float = 0.0) -> None:
        self.sql.execute(
            "INSERT INTO tenant_usage (tenant_id, day, executions, sub_calls, tokens, usd) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, day) DO UPDATE SET "
            "executions = tenant_usage.executions + excluded.executions, "
            "sub_calls = tenant_usage.sub_calls + excluded.sub_calls, "
            "tokens = tenant_usage.tokens + excluded.tokens, "
            "usd = tenant_usage.usd + excluded.usd",
            (tenant_id, utc_day(), executions, sub_calls, tokens, usd))

    def usage_today(self, tenant_id: str) -> dict[str, float]:
        row = self.sql.one(
            "SELECT executions, sub_calls, tokens, usd FROM tenant_usage WHERE tenant_id = ? "
            "AND day = ?", (tenant_id, utc_day()))
        if row is None:
            return {"executions": 0, "sub_calls": 0, "tokens": 0, "usd": 0.0}
        return dict(row)
