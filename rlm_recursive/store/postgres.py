"""The PostgreSQL connector: a psycopg 3 connection pool, migrations under an advisory lock.

Every connection is autocommit outside `transaction()`, loads `timestamptz` as the same ISO
text the SQLite backend stores (records compare equal across backends) and `numeric` as
float. Migrations live in `migrations_postgresql/NNNN_*.sql`, beside SQLite's, and are
applied in one transaction holding a transaction-level advisory lock: processes starting at
once on a fresh database wait for the first instead of racing it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from importlib import resources
from typing import Any

import psycopg
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.numeric import FloatLoader
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StoreUnavailable
from .connector import Cursor, Dialect, advisory_key, redact_url

__all__ = ["PostgresConnector", "migrations", "to_pg"]

MIGRATIONS_PACKAGE = "migrations_postgresql"
_MIGRATION_LOCK = "rlm-recursive:migrations"
_MIGRATED: set[str] = set()
"""URLs this process has brought up to date (the check costs a locked transaction)."""
_MIGRATED_LOCK = threading.Lock()


class _IsoTimestamptzLoader(TimestamptzLoader):
    """`timestamptz` as ISO 8601 text in UTC with milliseconds, like `db.utcnow()`."""

    def load(self, data: Any) -> Any:
        return super().load(data).astimezone(UTC).isoformat(timespec="milliseconds")


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.adapters.register_loader("timestamptz", _IsoTimestamptzLoader)
    conn.adapters.register_loader("numeric", FloatLoader)


def to_pg(sql: str) -> str:
    """`?` placeholders to psycopg's `%s` (a literal `%` is doubled first).

    The store's own statements never carry `?` inside a string literal.
    """
    return sql.replace("%", "%%").replace("?", "%s")


class _PgExecutor:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        return self.conn.execute(to_pg(sql), params)  # type: ignore[arg-type]

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            with self.conn.cursor() as cursor:
                cursor.executemany(to_pg(sql), rows)  # type: ignore[arg-type]


class PostgresConnector:
    """A pool of connections to one database; `close()` closes the pool."""

    dialect: Dialect = "postgresql"

    def __init__(self, url: str, *, max_size: int = 8, timeout_s: float = 10.0) -> None:
        self.url = url
        self.pool = ConnectionPool(
            url, min_size=1, max_size=max_size, open=False, name="rlm-recursive",
            kwargs={"autocommit": True, "application_name": "rlm-recursive",
                    "connect_timeout": max(2, int(timeout_s))},
            configure=_configure, timeout=timeout_s,
            # A connection the server dropped (a restart, a failover) is replaced before use,
            # not handed out to fail the caller's first statement.
            check=ConnectionPool.check_connection)
        try:
            self.pool.open(wait=True, timeout=timeout_s)
            self._migrate()
        except PoolTimeout as exc:
            self.pool.close()
            raise StoreUnavailable(
                f"cannot connect to PostgreSQL at {redact_url(url)} within {timeout_s:g} s; "
                "is the server up and RLM_DATABASE_URL right?") from exc
        except BaseException:
            self.pool.close()
            raise

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection of one's own (e.g. to hold a session-level advisory lock)."""
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[_PgExecutor]:
        with self.pool.connection() as conn, conn.transaction():
            yield _PgExecutor(conn)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.pool.connection() as conn:
            return conn.execute(to_pg(sql), params).fetchall()  # type: ignore[arg-type]

    def close(self) -> None:
        self.pool.close()

    def _migrate(self) -> None:
        with _MIGRATED_LOCK:
            if self.url in _MIGRATED:
                return
            with self.pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)",
                             (advisory_key(_MIGRATION_LOCK),))
                conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER "
                             "PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                applied = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
                for version, script in migrations():
                    if version not in applied:
                        conn.execute(script.encode())  # no parameters: several statements
                        conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)",
                                     (version,))
            _MIGRATED.add(self.url)


def migrations() -> list[tuple[int, str]]:
    """The numbered PostgreSQL migrations, in order."""
    folder = resources.files(__package__) / MIGRATIONS_PACKAGE
    found = [(int(entry.name.split("_", 1)[0]), entry.read_text("utf-8"))
             for entry in folder.iterdir() if entry.name.endswith(".sql")]
    return sorted(found)
