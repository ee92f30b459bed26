"""SQLite connection (WAL) and numbered migrations (`migrations/0001_*.sql`, …)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

__all__ = ["PRIVATE_DIR", "PRIVATE_FILE", "connect", "private_dir", "sqlite_migration_versions",
           "utcnow"]

PRIVATE_FILE = 0o600
"""Mode of every file in the data dir: documents, their vocabulary and traces are private."""
PRIVATE_DIR = 0o700


def private_dir(path: Path) -> None:
    """Create a data-dir folder 0700, or take group and other access away from an existing one."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    if os.stat(path).st_mode & 0o077:
        os.chmod(path, PRIVATE_DIR)


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def connect(path: Path) -> sqlite3.Connection:
    """Open the database in WAL mode and bring its schema up to date."""
    _private_file(path)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    # First, so the journal-mode switch and the migrations of a second process starting at
    # the same moment wait for the lock instead of failing with "database is locked". 30 s:
    # on a loaded 2-core box, eight processes migrating six steps each outlasted 5 s.
    conn.execute("PRAGMA busy_timeout=30000")
    # NORMAL is durable across application crashes in WAL mode and avoids an fsync per call.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    with _setup_lock(path):
        conn.execute("PRAGMA journal_mode=WAL")
        _migrate(conn)
    # SQLite gives -wal and -shm the database's mode; older stores made them 0644.
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(f"{path}{suffix}", PRIVATE_FILE)
    return conn


@contextlib.contextmanager
def _setup_lock(path: Path):  # type: ignore[no-untyped-def]
    """Hold `rlm.db.lock` while switching to WAL and migrating.

    SQLite answers "database is locked" at once, without calling the busy handler, to a
    process whose journal-mode switch or WAL recovery races another's (seen with eight
    processes opening a fresh data dir together). A file lock makes them take turns; each
    one after the first finds WAL on and every migration applied.
    """
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _private_file(path: Path) -> None:
    """Create the database file 0600 (SQLite would use 0644), or tighten an existing one."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        # Created empty; SQLite writes the header on first use. The descriptor is closed at
        # once, before SQLite opens the file: closing it later would drop SQLite's locks.
        os.close(os.open(path, flags, PRIVATE_FILE))
        return
    if st.st_mode & 0o077:
        os.chmod(path, PRIVATE_FILE)


def _migrations() -> list[tuple[int, str]]:
    folder = resources.files(__package__) / "migrations"
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text("utf-8")))
    return sorted(found)


def sqlite_migration_versions() -> set[int]:
    """The numbers of every SQLite migration this version ships."""
    return {version for version, _ in _migrations()}


def _migrate(conn: sqlite3.Connection) -> None:
    """Apply missing migrations, each atomic across processes.

    BEGIN IMMEDIATE takes the write lock before the version check, so two processes starting
    on a fresh data dir cannot both see "not applied" and both run `CREATE TABLE`.
    """
    for version, script in _migrations():
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, applied_at TEXT)"
            )
            applied = conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone()
            if applied is None:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?)", (version, utcnow())
                )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending)
            pending = ""
    if pending.strip() and not pending.strip().startswith("--"):
        statements.append(pending)
    return statements
