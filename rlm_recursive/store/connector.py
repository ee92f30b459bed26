"""One connector interface over the store's two databases: SQLite (embedded) and PostgreSQL.

A connector owns the connection(s), applies its numbered migrations once (under a lock) and
hands out transactions. SQL given to a connector uses `?` placeholders; the PostgreSQL one
rewrites them to psycopg's `%s`, so a statement both engines understand is written once.

`RLM_DATABASE_URL=postgresql://user@host:port/db` selects PostgreSQL; unset, the store is
the data dir's SQLite file (nothing changes for a single user).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import zlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from ..errors import ConfigError
from .db import connect

__all__ = [
    "DATABASE_URL_ENV",
    "Connector",
    "Cursor",
    "Dialect",
    "SqliteConnector",
    "advisory_key",
    "database_errors",
    "database_url",
    "integrity_errors",
    "open_connector",
    "redact_url",
]

DATABASE_URL_ENV = "RLM_DATABASE_URL"
Dialect = Literal["sqlite", "postgresql"]
_POSTGRES_SCHEMES = ("postgresql", "postgres")


class Cursor(Protocol):
    """What both drivers' cursors offer (DB-API)."""

    description: Any
    rowcount: int

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Executor(Protocol):
    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor: ...
    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None: ...


class Connector(Protocol):
    """A database the store's backends talk to (procrastinate's connector, in spirit).

    Rows are plain tuples, or with `named_rows=True` rows readable by index *and* by column
    name (`row[0]`, `row["id"]`, `dict(row)`, `row.keys()`): `sqlite3.Row` on SQLite, the
    same behaviour on PostgreSQL (`postgres.NamedRow`).
    """

    dialect: Dialect

    def transaction(self) -> AbstractContextManager[Executor]:
        """One transaction that takes write locks up front on SQLite; commits or rolls back."""
        ...

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of one statement (a read, or a write with RETURNING), in its own transaction."""
        ...

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """The first row of one statement, or None."""
        ...

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Run one write statement in its own transaction; the number of rows it changed."""
        ...

    def close(self) -> None: ...


def database_url(environ: Mapping[str, str] | None = None) -> str | None:
    """`RLM_DATABASE_URL` if set to a PostgreSQL URL; None for the embedded SQLite default."""
    env = os.environ if environ is None else environ
    url = (env.get(DATABASE_URL_ENV) or "").strip()
    if not url:
        return None
    if urlsplit(url).scheme not in _POSTGRES_SCHEMES:
        raise ConfigError(f"{DATABASE_URL_ENV} must be a postgresql:// URL (got "
                          f"{redact_url(url)!r}); leave it unset for the local SQLite store")
    return url


def advisory_key(namespace: str, ident: int = 0) -> int:
    """A signed 64-bit PostgreSQL advisory-lock key: the namespace's crc32 in the high 32
    bits, the id's low 32 bits below (ids 2**32 apart share a key: a spurious, retryable
    wait, never a missed lock)."""
    key = (zlib.crc32(namespace.encode()) << 32) | (ident & 0xFFFFFFFF)
    return key - (1 << 64) if key >= 1 << 63 else key


def redact_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def open_connector(sqlite_path: Path, url: str | None = None, *,
                   named_rows: bool = False) -> Connector:
    """PostgreSQL when `url` (or `RLM_DATABASE_URL`) names one, else SQLite at `sqlite_path`."""
    url = url or database_url()
    if url is None:
        return SqliteConnector(sqlite_path, named_rows=named_rows)
    try:
        from .postgres import PostgresConnector  # psycopg is an optional extra
    except ImportError as exc:
        raise ConfigError(f"{DATABASE_URL_ENV} names PostgreSQL, but its driver is not "
                          "installed: pip install 'rlm-recursive[postgres]'") from exc
    return PostgresConnector(url, named_rows=named_rows)


def integrity_errors() -> tuple[type[Exception], ...]:
    """The exceptions either driver raises for a violated constraint (a foreign key, a
    unique key): callers that turn one into "keep the row" catch these."""
    return _driver_errors("IntegrityError")


def database_errors() -> tuple[type[Exception], ...]:
    """Every error either driver raises (DB-API `Error`)."""
    return _driver_errors("Error")


def _driver_errors(name: str) -> tuple[type[Exception], ...]:
    errors: list[type[Exception]] = [getattr(sqlite3, name)]
    try:
        import psycopg
    except ImportError:
        return tuple(errors)
    return (*errors, getattr(psycopg, name))


class _SqliteExecutor:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        return self._db.execute(sql, params)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self._db.executemany(sql, rows)


class SqliteConnector:
    """The data dir's SQLite file (WAL, migrated by `db.connect`), one connection per owner.

    Rows are plain tuples by default (the LCM assembler's hot path reads thousands per
    turn); `named_rows=True` keeps `sqlite3.Row`. `db` is the raw connection, for the SQLite
    only code that has not moved onto the interface.
    """

    dialect: Dialect = "sqlite"

    def __init__(self, path: Path, *, named_rows: bool = False) -> None:
        self.path = path
        self.db = connect(path)
        self.db.row_factory = sqlite3.Row if named_rows else None
        self._lock = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[Executor]:
        """BEGIN IMMEDIATE takes the write lock before the first read: no read-then-write
        race between processes."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteExecutor(self.db)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self.db.execute(sql, params).fetchall()

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            return self.db.execute(sql, params).fetchone()

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        with self._lock:
            return self.db.execute(sql, params).rowcount

    def close(self) -> None:
        self.db.close()
