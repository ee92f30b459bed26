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


def test_store_db_is_sqlite_only(postgres_url: str, tmp_path: Path, monkeypatch) -> None:
    """With a database URL there is no local connection to fall back on (nor a file)."""
    from rlm_recursive.errors import InternalError

    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    store = Store(tmp_path / "d")
    try:
        with pytest.raises(InternalError, match=r"Store\.sql"):
            store.db  # noqa: B018
    finally:
        store.close()
    assert not list(tmp_path.rglob("*.db*"))


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


# The store's own API on both backends -------------------------------------------------

_PARSE = {"format": "pdf", "parser_version": "pypdfium2-4", "encoding": None,
          "pages": [{"start_char": 0, "end_char": 10}, {"start_char": 10, "end_char": 20}]}


@pytest.fixture
def store(database_url: str | None, data_dir: Path):
    """A store on each backend; on PostgreSQL, nothing it did may leave a database file in
    the data dir (the trace writer included)."""
    opened = Store(data_dir)
    try:
        yield opened
    finally:
        opened.close()
    if database_url is not None:
        assert not list(data_dir.rglob("*.db*"))


def _add(store: Store, session_id: str, text: str, source: str, raw: str | None = None):
    meta = {**_PARSE, "raw_sha256": raw} if raw is not None else None
    return store.add_document(session_id, text.encode(), length_chars=len(text), source=source,
                              source_type="file", parse_meta=meta)


def test_sessions_documents_and_parse_versions(store: Store) -> None:
    from rlm_recursive.config import SessionConfig

    created = store.create_session("first", SessionConfig())
    sid = created["session_id"]
    assert store.session(sid)["created_at"] == created["created_at"]
    assert [r["id"] for r in store.list_sessions()] == [sid]
    one = _add(store, sid, "page one.page two.", "a.pdf", raw="r1")
    same = _add(store, sid, "page one.page two.", "a.pdf", raw="r1")
    changed = _add(store, sid, "page ONE.page two.", "a.pdf", raw="r2")
    plain = _add(store, sid, "line\nline two", "b.txt")
    assert [d.id for d in store.documents(sid)] == [one.id, same.id, changed.id, plain.id]
    assert [d.id for d in store.documents(sid, 2, 1)] == [same.id, changed.id]
    assert store.document(sid, one.id) == one
    assert store.docs_version(sid) == 4
    versions = [(store.parses.info(d.id).version, store.parses.info(d.id).previous_doc_id)
                for d in (one, same, changed)]
    assert versions == [(1, None), (1, None), (2, same.id)]
    assert store.locate(one, 12) == {"page": 2}
    assert store.locate(plain, 7) == {"line": 2}
    assert store.parses.meta(plain.id) is None and store.parses.meta(one.id)["format"] == "pdf"
    stats = store.session_stats(sid)
    assert stats == {"documents": 4, "total_chars": 3 * 18 + 13, "total_tokens_est": 3 * 5 + 4,
                     "spans": 0, "artifacts": 0}
    assert all(type(v) is int for v in stats.values())


def test_chunkings_spans_and_artifacts(store: Store) -> None:
    from rlm_recursive.config import SessionConfig
    from rlm_recursive.errors import BudgetExceeded, NotFound
    from rlm_recursive.types import SpanRef

    sid = store.create_session(None, SessionConfig(max_tool_calls=2))["session_id"]
    doc = _add(store, sid, "abcdefghij", "a.txt")
    assert store.chunking(doc.id, "k") is None
    first = store.save_chunking(doc, "k", [(0, 5), (5, 10)])
    assert store.chunking(doc.id, "k") == first
    again = store.save_chunking(doc, "k", [(0, 10)])  # re-chunked: earlier spans detached
    assert store.chunking(doc.id, "k") == again
    assert store.span(sid, first[0].id).start == 0  # still citable
    free = store.ensure_span(sid, SpanRef(doc_id=doc.id, start=2, end=4))
    assert store.ensure_span(sid, SpanRef(doc_id=doc.id, start=2, end=4)) == free
    a1 = store.add_artifact(sid, free.id, "note", {"x": 1}, {"by": "test"})
    a2 = store.add_artifact(sid, None, "other", ["y"], {})
    assert [a["id"] for a in store.artifacts(sid)] == [a1, a2]
    assert [a["id"] for a in store.artifacts(sid, kind="other")] == [a2]
    assert store.artifact(sid, a1)["span_id"] == free.id
    with pytest.raises(NotFound):
        store.artifact(sid, "art_missing")
    assert store.session_stats(sid)["spans"] == 4
    assert [store.count_tool_call(sid) for _ in range(2)] == [1, 2]
    with pytest.raises(BudgetExceeded):
        store.count_tool_call(sid)


def test_close_export_and_discard(store: Store) -> None:
    from rlm_recursive.config import SessionConfig
    from rlm_recursive.errors import SessionClosed
    from rlm_recursive.store import sessions

    sid = store.create_session(None, SessionConfig())["session_id"]
    _add(store, sid, "kept", "a.txt")
    closed = sessions.close_session(store, sid)
    assert sessions.close_session(store, sid) == closed
    with pytest.raises(SessionClosed):
        sessions.require_open(store, sid)
    sessions.mark_exported(store, sid, stamp="s1", branch="b", commit="c1")
    sessions.mark_exported(store, sid, stamp="s2", branch="b", commit="c2")
    record = sessions.export_record(store, sid)
    assert (record["stamp"], record["commit"]) == ("s1", "c2")
    assert store.session(sid)["status"] == "exported"
    assert not sessions.discard_if_empty(store, sid)  # it holds a document
    empty = store.create_session(None, SessionConfig())["session_id"]
    store.trace(empty, "rlm_session_create", {}, {}, 1.0)
    assert sessions.discard_if_empty(store, empty)
    assert [r["id"] for r in store.list_sessions()] == [sid]


def test_traces_and_run_trajectories(store: Store, data_dir: Path) -> None:
    import asyncio
    import json

    from rlm_recursive.config import SessionConfig
    from rlm_recursive.store.trajectory import list_runs, load_events, load_run
    from rlm_recursive.trajectory.recorder import tool_call
    from rlm_recursive.trajectory.run import recording

    sid = store.create_session(None, SessionConfig())["session_id"]
    store.trace(sid, "rlm_peek", {"doc_id": "d"}, {"text": "x" * 500}, 2.5)
    store.trace("../../escape", "rlm_peek", {}, {}, 1.0)

    async def run() -> str:
        async with recording(store, sid, "what?", "full") as recorder:
            with tool_call("rlm_search_query", {"q": "a"}) as node:
                node.result({"hits": 1})
            return recorder.run["id"]

    run_id = asyncio.run(run())
    store.flush()
    rows = store.sql.query("SELECT session_id, op, duration_ms FROM traces ORDER BY id")
    assert [tuple(r) for r in rows] == [(sid, "rlm_peek", 2.5), ("../../escape", "rlm_peek", 1.0)]
    lines = (data_dir / "traces" / f"{sid}.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["output"]["text"].endswith("(500 chars)")
    assert (data_dir / "traces" / "_global.jsonl").exists()
    run_row = load_run(store.sql, run_id)
    assert run_row["question"] == "what?" and run_row["status"] == "ok"
    assert [r["id"] for r in list_runs(store.sql, sid)] == [run_id]
    events = load_events(store.sql, run_id)
    assert [(e["kind"], e["name"], e["output"]) for e in events] == [
        ("tool", "rlm_search_query", {"hits": 1})]
    assert store.writer.errors == 0


def test_secret_spans_of_documents_and_artifacts(store: Store) -> None:
    from rlm_recursive.config import SessionConfig
    from rlm_recursive.store.secretspans import session_secrets

    aws = "AKIA" + "QWERTYUIOPASDFGH"
    pat = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    sid = store.create_session(None, SessionConfig())["session_id"]
    doc = _add(store, sid, f"config: key={aws} end", "a.txt")
    store.add_artifact(sid, None, "note", {"token": pat}, {})
    found = session_secrets(store, sid)
    assert aws in found.known and pat in found.known
    (start, end, _kind), = found.doc_spans[doc.id]
    assert found.texts[doc.id][start:end] == aws
    again = session_secrets(store, sid)  # scanned once: read back, not rescanned
    assert sorted(again.known) == sorted(found.known)
    assert store.sql.one("SELECT COUNT(*) FROM secret_scans")[0] == 2
