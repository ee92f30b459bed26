"""The store on both backends: named rows, `Store.sql`, and the PostgreSQL schema that
mirrors SQLite's. Every test runs on SQLite and on a real PostgreSQL (`database_url`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rlm_recursive.store import Store
from rlm_recursive.store.connector import integrity_errors, open_connector
from rlm_recursive.store.db import connect, utcnow

# Every table of SQLite's schema the store keeps (LCM's are tested in test_lcm_core.py;
# executions, steps and the sub-call cache belong to the queue's migrations).
STORE_TABLES = ("sessions", "documents", "chunkings", "spans", "artifacts", "traces",
                "document_parses", "runs", "run_events", "api_keys", "tenant_usage",
                "secret_scans", "secret_spans", "chat_threads")


def test_named_rows_read_by_index_and_by_name(database_url: str | None, data_dir: Path) -> None:
    data_dir.mkdir(exist_ok=True)
    connector = open_connector(data_dir / "rlm.db", named_rows=True)
    try:
        now = utcnow()
        assert connector.execute("INSERT INTO sessions (id, name, created_at, config) "
                                 "VALUES (?, ?, ?, ?)", ("ses_1", "n", now, "{}")) == 1
        row = connector.one("SELECT id, name, created_at FROM sessions WHERE id = ?", ("ses_1",))
        assert row[0] == row["id"] == "ses_1"
        assert row["created_at"] == now  # the same ISO text on both engines
        assert dict(row) == {"id": "ses_1", "name": "n", "created_at": now}
        assert list(row.keys()) == ["id", "name", "created_at"]
        ident, name, _ = row  # unpacks like a tuple
        assert (ident, name) == ("ses_1", "n")
        with pytest.raises(IndexError):
            row["nope"]
        updated = connector.query("UPDATE sessions SET tool_calls_used = tool_calls_used + 1 "
                                  "WHERE id = ? RETURNING tool_calls_used", ("ses_1",))
        assert [r["tool_calls_used"] for r in updated] == [1]
        assert connector.one("SELECT id FROM sessions WHERE id = ?", ("none",)) is None
    finally:
        connector.close()


def test_plain_rows_stay_tuples(database_url: str | None, data_dir: Path) -> None:
    data_dir.mkdir(exist_ok=True)
    connector = open_connector(data_dir / "rlm.db")
    try:
        connector.execute("INSERT INTO sessions (id, created_at, config) VALUES (?, ?, ?)",
                          ("ses_1", utcnow(), "{}"))
        assert tuple(connector.one("SELECT id, status FROM sessions")) == ("ses_1", "active")
        with pytest.raises((TypeError, IndexError)):
            connector.one("SELECT id FROM sessions")["id"]
    finally:
        connector.close()


def test_a_violated_foreign_key_is_an_integrity_error_on_both(
        database_url: str | None, data_dir: Path) -> None:
    data_dir.mkdir(exist_ok=True)
    connector = open_connector(data_dir / "rlm.db")
    try:
        with pytest.raises(integrity_errors()):
            connector.execute("INSERT INTO documents (id, session_id, content_hash, source, "
                              "source_type, length_chars, length_tokens_est, created_at) "
                              "VALUES ('d', 'no_such_session', 'h', 's', 't', 1, 1, ?)",
                              (utcnow(),))
    finally:
        connector.close()


def test_store_holds_a_connector_of_the_selected_backend(
        database_url: str | None, data_dir: Path) -> None:
    store = Store(data_dir)
    try:
        assert store.dialect == ("postgresql" if database_url else "sqlite")
        assert store.sql.dialect == store.dialect
        assert store.sql.one("SELECT 1")[0] == 1
    finally:
        store.close()


def test_postgresql_schema_has_every_store_table_with_sqlite_columns(
        postgres_url: str, tmp_path: Path) -> None:
    """The PostgreSQL migrations mirror SQLite's: same tables, same columns in the same
    order (PostgreSQL adds `row_seq` where SQLite orders by rowid)."""
    sqlite = connect(tmp_path / "rlm.db")
    pg = open_connector(tmp_path / "unused.db", postgres_url)
    try:
        for table in STORE_TABLES:
            lite = [r[1] for r in sqlite.execute(f"PRAGMA table_info({table})")]
            post = [r[0] for r in pg.query(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", (table,))]
            assert [c for c in post if c != "row_seq"] == lite, table
    finally:
        sqlite.close()
        pg.close()
    assert not (tmp_path / "unused.db").exists()


def test_sqlite_store_db_is_the_connectors_connection(tmp_path: Path) -> None:
    """Code not yet on `Store.sql` shares its connection (one view of every transaction)."""
    store = Store(tmp_path / "d")
    try:
        assert isinstance(store.db, sqlite3.Connection)
        with store.sql.transaction() as tx:
            tx.execute("INSERT INTO sessions (id, created_at, config) VALUES ('s', ?, '{}')",
                       (utcnow(),))
            assert store.db.execute("SELECT id FROM sessions").fetchone()["id"] == "s"
    finally:
        store.close()
