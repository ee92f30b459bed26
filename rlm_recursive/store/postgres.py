"""The PostgreSQL connector: a psycopg 3 connection pool, migrations under an advisory lock.

Every connection is autocommit outside `transaction()`, loads `timestamptz` as the same ISO
text the SQLite backend stores (records compare equal across backends) and `numeric` as
float. Migrations live in `migrations_postgresql/NNNN_*.sql`, beside SQLite's, and are
applied in one transaction holding a transaction-level advisory lock: processes starting at
once on a fresh database wait for the first instead of racing it.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from importlib import resources
from typing import Any

import psycopg
from psycopg.rows import RowMaker, no_result
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.numeric import FloatLoader
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StoreUnavailable
from .connector import Cursor, Dialect, advisory_key, redact_url

__all__ = ["NamedRow", "PostgresConnector", "close_pools", "configure_types", "maybe_dropped",
           "migrations", "named_row", "to_pg"]

MIGRATIONS_PACKAGE = "migrations_postgresql"
_MIGRATION_LOCK = "rlm-recursive:migrations"
_MIGRATED: set[str] = set()
"""URLs this process has brought up to date (the check costs a locked transaction)."""
_MIGRATED_LOCK = threading.Lock()


class _IsoTimestamptzLoader(TimestamptzLoader):
    """`timestamptz` as ISO 8601 text in UTC with milliseconds, like `db.utcnow()`."""

    def load(self, data: Any) -> Any:
        return super().load(data).astimezone(UTC).isoformat(timespec="milliseconds")


def configure_types(conn: Any) -> None:
    """Read times and numbers as the SQLite store gives them (every connection, sync or
    async, of every pool)."""
    conn.adapters.register_loader("timestamptz", _IsoTimestamptzLoader)
    conn.adapters.register_loader("numeric", FloatLoader)


def to_pg(sql: str) -> str:
    """`?` placeholders to psycopg's `%s` (a literal `%` is doubled first).

    The store's own statements never carry `?` inside a string literal.
    """
    return sql.replace("%", "%%").replace("?", "%s")


class NamedRow(tuple):  # type: ignore[type-arg]
    """A row readable by index and by column name, as `sqlite3.Row` is: `row[0]`,
    `row["id"]`, `row.keys()`, `dict(row)`, and unpacking like any tuple."""

    _index: dict[str, int]

    def __new__(cls, values: Any, index: dict[str, int]) -> NamedRow:
        row = super().__new__(cls, values)
        row._index = index
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                key = self._index[key]
            except KeyError:
                raise IndexError("No item with that key") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def named_row(cursor: Any) -> RowMaker[NamedRow]:
    """psycopg row factory for `NamedRow` (the column index is built once per result)."""
    if cursor.description is None:
        return no_result
    index = {column.name: i for i, column in enumerate(cursor.description)}
    return lambda values: NamedRow(values, index)


class _PgExecutor:
    def __init__(self, conn: psycopg.Connection[Any], named_rows: bool = False) -> None:
        self.conn = conn
        self._rows = named_row if named_rows else None

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        cursor = self.conn.cursor(row_factory=self._rows) if self._rows else self.conn.cursor()
        return cursor.execute(to_pg(sql), params)  # type: ignore[arg-type]

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            with self.conn.cursor() as cursor:
                cursor.executemany(to_pg(sql), rows)  # type: ignore[arg-type]


_POOLS: dict[str, tuple[ConnectionPool, int]] = {}
"""One pool per database URL in this process, with how many connectors use it."""
_POOLS_LOCK = threading.Lock()


def _check_if_dropped(conn: psycopg.Connection[Any]) -> None:
    """A pooled connection the server dropped (a restart, a failover, an admin's
    `pg_terminate_backend`) is replaced before use, not handed out to fail the caller's
    first statement.

    An idle connection has nothing to read: a server that ends it sends its last message
    and closes, which makes the socket readable. Only then is it pinged (which fails, and
    the pool replaces it). A ping on every checkout was a round trip and a fifth of a small
    API request's CPU. Notifications pending on a connection that LISTENs also make it
    readable; the ping then reads them, as before.
    """
    if maybe_dropped(conn):
        ConnectionPool.check_connection(conn)


def maybe_dropped(conn: Any) -> bool:
    """Whether an idle pooled connection's socket has something to read (see above): only
    then is it worth a ping. For sync and async connections alike."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(0))


def _open_pool(url: str, max_size: int, timeout_s: float) -> ConnectionPool:
    pool = ConnectionPool(
        url, min_size=1, max_size=max_size, open=False, name="rlm-recursive",
        kwargs={"autocommit": True, "application_name": "rlm-recursive",
                "connect_timeout": max(2, int(timeout_s))},
        configure=configure_types, timeout=timeout_s, check=_check_if_dropped)
    try:
        pool.open(wait=True, timeout=timeout_s)
    except PoolTimeout as exc:
        pool.close()
        raise StoreUnavailable(
            f"cannot connect to PostgreSQL at {redact_url(url)} within {timeout_s:g} s; "
            "is the server up and RLM_DATABASE_URL right?") from exc
    return pool


def _acquire_pool(url: str, max_size: int, timeout_s: float) -> ConnectionPool:
    """This process's pool for `url`, opened by the first user (connecting outside the lock)."""
    with _POOLS_LOCK:
        if (entry := _POOLS.get(url)) is not None:
            _POOLS[url] = (entry[0], entry[1] + 1)
            return entry[0]
    pool = _open_pool(url, max_size, timeout_s)
    with _POOLS_LOCK:
        if (entry := _POOLS.get(url)) is not None:  # another thread opened one meanwhile
            _POOLS[url] = (entry[0], entry[1] + 1)
        else:
            _POOLS[url] = (pool, 1)
            return pool
    pool.close()
    return entry[0]


def _release_pool(url: str, pool: ConnectionPool) -> None:
    with _POOLS_LOCK:
        entry = _POOLS.get(url)
        if entry is None or entry[0] is not pool:
            return  # closed by close_pools() already
        if entry[1] > 1:
            _POOLS[url] = (pool, entry[1] - 1)
            return
        del _POOLS[url]
    pool.close()


def close_pools(url: str | None = None) -> None:
    """Close this process's pool for `url` (every pool if None), whoever still uses it: for
    shutdown, and for tests that drop a database."""
    with _POOLS_LOCK:
        urls = [url] if url is not None else list(_POOLS)
        closing = [_POOLS.pop(u)[0] for u in urls if u in _POOLS]
    for pool in closing:
        pool.close()


class PostgresConnector:
    """One database through this process's shared pool for its URL: connectors opened per
    run (as LCM's are) reuse the connections of the long-lived ones. `close()` gives the
    pool back; the last user closes it."""

    dialect: Dialect = "postgresql"
    # 16: an API process's store threads, its shared-database threads, the trace writer and
    # LCM all draw from this one pool (a few API processes stay far below max_connections).

    def __init__(self, url: str, *, max_size: int = 16, timeout_s: float = 10.0,
                 named_rows: bool = False) -> None:
        self.url = url
        self.named_rows = named_rows
        self.pool = _acquire_pool(url, max_size, timeout_s)
        self._closed = False
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[_PgExecutor]:
        with _available(self.url), self.pool.connection() as conn, conn.transaction():
            yield _PgExecutor(conn, self.named_rows)

    @contextmanager
    def connection(self) -> Iterator[_PgExecutor]:
        """A pooled connection in autocommit (each statement its own transaction)."""
        with _available(self.url), self.pool.connection() as conn:
            yield _PgExecutor(conn, self.named_rows)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.connection() as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self.connection() as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchone() if cursor.description is not None else None

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        with self.connection() as conn:
            return conn.execute(sql, params).rowcount

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _release_pool(self.url, self.pool)

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


@contextmanager
def _available(url: str) -> Iterator[None]:
    """A server that is down, restarting or refusing connections (no pooled connection in
    time, a connection lost mid-statement) is `store_unavailable`: retryable, HTTP 503.
    Errors of the statement itself (a violated key, bad SQL) pass through."""
    try:
        yield
    except (PoolTimeout, psycopg.OperationalError) as exc:
        raise StoreUnavailable(
            f"the shared database at {redact_url(url)} is unavailable ({type(exc).__name__}); "
            "retry once it is back", retry_after_s=2) from exc


def migrations() -> list[tuple[int, str]]:
    """The numbered PostgreSQL migrations, in order."""
    folder = resources.files(__package__) / MIGRATIONS_PACKAGE
    found = [(int(entry.name.split("_", 1)[0]), entry.read_text("utf-8"))
             for entry in folder.iterdir() if entry.name.endswith(".sql")]
    return sorted(found)
