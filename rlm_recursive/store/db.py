"""SQLite connection (WAL) and numbered migrations (`migrations/0001_*.sql`, …)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

__all__ = ["connect", "utcnow"]


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def connect(path: Path) -> sqlite3.Connection:
    """Open the database in WAL mode and bring its schema up to date."""
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL is durable across application crashes in WAL mode and avoids an fsync per call.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    _migrate(conn)
    return conn


def _migrations() -> list[tuple[int, str]]:
    folder = resources.files(__package__) / "migrations"
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text("utf-8")))
    return sorted(found)


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, applied_at TEXT)"
    )
    applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    for version, script in _migrations():
        if version in applied:
            continue
        # executescript commits first; wrap the script so a failure leaves nothing half-applied.
        conn.executescript(
            f"BEGIN;\n{script}\nINSERT INTO schema_migrations VALUES ({version}, '{utcnow()}');\n"
            "COMMIT;"
        )
