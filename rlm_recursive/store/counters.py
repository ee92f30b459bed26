"""Limits shared by every process on one store: request counters and execution slots.

`limits` 5 keeps its counters in memory, Redis, Memcached or MongoDB; a team whose processes
share a PostgreSQL database (and no Redis) needs them there.

- `SqlCounterStorage` is a `limits` storage over a `Connector` for the fixed-window strategy:
  `incr` is one atomic upsert (`… ON CONFLICT DO UPDATE … RETURNING hits`), so concurrent
  processes never lose a hit. The SQL is portable, but only PostgreSQL has the table
  (`migrations_postgresql/0002`): one SQLite process counts in memory, as before.
- `ExecutionSlots` caps how many executions of a tenant run at once across processes: slot
  `i` of a tenant is a session-level advisory lock held on this process's own connection, so
  a process that dies frees its slots with its connection (no lease to expire).

Groundwork for issue 23: the API still counts in memory; `docs/scale-out.md` says how these
are wired in (off the event loop).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

from limits.storage import Storage

from .connector import Connector, advisory_key

__all__ = ["ExecutionSlots", "SqlCounterStorage"]

_SLOT_NAMESPACE = "rlm-recursive:execution-slot:"


def _driver_errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


class SqlCounterStorage(Storage):
    """Fixed-window counters in the store's `rate_counters` table (unix-second expiries)."""

    STORAGE_SCHEME = None  # built over a connector, never from a `limits` storage URI

    def __init__(self, connector: Connector, clock: Any = time.time) -> None:
        super().__init__()
        self.connector = connector
        self._clock = clock

    @property
    def base_exceptions(self) -> tuple[type[Exception], ...]:
        return _driver_errors()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = self._clock()
        with self.connector.transaction() as db:
            return int(db.execute(
                "INSERT INTO rate_counters (key, hits, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET "
                "hits = CASE WHEN rate_counters.expires_at <= ? THEN excluded.hits "
                "ELSE rate_counters.hits + excluded.hits END, "
                "expires_at = CASE WHEN rate_counters.expires_at <= ? "
                "THEN excluded.expires_at ELSE rate_counters.expires_at END "
                "RETURNING hits", (key, amount, now + expiry, now, now)).fetchone()[0])

    def get(self, key: str) -> int:
        rows = self.connector.query("SELECT hits FROM rate_counters WHERE key = ? AND "
                                    "expires_at > ?", (key, self._clock()))
        return int(rows[0][0]) if rows else 0

    def get_expiry(self, key: str) -> float:
        now = self._clock()
        rows = self.connector.query("SELECT expires_at FROM rate_counters WHERE key = ? AND "
                                    "expires_at > ?", (key, now))
        return float(rows[0][0]) if rows else now

    def check(self) -> bool:
        try:
            self.connector.query("SELECT 1")
        except self.base_exceptions:
            return False
        return True

    def reset(self) -> int | None:
        with self.connector.transaction() as db:
            return int(db.execute("DELETE FROM rate_counters").rowcount)

    def clear(self, key: str) -> None:
        with self.connector.transaction() as db:
            db.execute("DELETE FROM rate_counters WHERE key = ?", (key,))


class ExecutionSlots:
    """Per-tenant running-execution slots as PostgreSQL advisory locks (one connection).

    `try_acquire` takes the first free slot below the cap, or answers False when all are
    held, by this process or any other. `release` frees one slot this process holds.
    """

    def __init__(self, url: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self._conn = psycopg.connect(url, autocommit=True, application_name="rlm-recursive")
        self._lock = threading.Lock()
        self._held: dict[str, list[int]] = {}

    def _key(self, tenant_id: str, slot: int) -> int:
        return advisory_key(_SLOT_NAMESPACE + tenant_id, slot)

    def try_acquire(self, tenant_id: str, cap: int) -> bool:
        with self._lock:
            for slot in range(cap):
                # A session's advisory locks stack: never ask again for a slot we hold.
                if slot in self._held.get(tenant_id, ()):
                    continue
                if self._execute("SELECT pg_try_advisory_lock(%s)", self._key(tenant_id, slot)):
                    self._held.setdefault(tenant_id, []).append(slot)  # after a reconnect too
                    return True
            return False

    def release(self, tenant_id: str) -> None:
        with self._lock:
            held = self._held.get(tenant_id)
            if not held:
                return
            self._execute("SELECT pg_advisory_unlock(%s)", self._key(tenant_id, held.pop()))

    def held(self, tenant_id: str) -> int:
        """Slots this process holds for the tenant."""
        with self._lock:
            return len(self._held.get(tenant_id, []))

    def _execute(self, sql: str, key: int) -> bool:
        try:
            return bool(self._conn.execute(sql, (key,)).fetchone()[0])
        except self._psycopg.OperationalError:
            # The connection died, and every slot it held with it: start over on a new one.
            self._held.clear()
            self._conn = self._psycopg.connect(self._url, autocommit=True,
                                               application_name="rlm-recursive")
            return bool(self._conn.execute(sql, (key,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._held.clear()
            self._conn.close()
