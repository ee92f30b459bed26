"""The store: migrations, WAL, content-addressed blobs, cross-session dedup, data dir choice."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from helpers import ok

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig, resolve_data_dir
from rlm_recursive.errors import InternalError, NotFound
from rlm_recursive.store import BlobStore, Store
from rlm_recursive.store.db import _migrations, connect


def _migration_versions() -> list[int]:
    return [version for version, _ in _migrations()]


def test_migrations_are_numbered_from_one_without_gaps() -> None:
    versions = _migration_versions()
    assert versions == list(range(1, len(versions) + 1))


def test_migrations_recorded_and_idempotent_on_reopen(tmp_path: Path) -> None:
    db_path = tmp_path / "rlm.db"
    conn = connect(db_path)
    rows = conn.execute("SELECT version, applied_at FROM schema_migrations").fetchall()
    assert [r["version"] for r in rows] == _migration_versions()
    assert all(r["applied_at"] for r in rows)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "documents", "chunkings", "spans", "artifacts", "traces"} <= tables
    conn.execute("INSERT INTO sessions (id, created_at, config) VALUES ('ses_keep', 'now', '{}')")
    conn.close()

    again = connect(db_path)  # would fail on CREATE TABLE if a migration ran twice
    rows_again = again.execute("SELECT version, applied_at FROM schema_migrations").fetchall()
    assert [tuple(r) for r in rows_again] == [tuple(r) for r in rows]
    assert again.execute("SELECT id FROM sessions").fetchall()[0][0] == "ses_keep"
    again.close()


def test_wal_mode_and_foreign_keys(tmp_path: Path) -> None:
    store = Store(tmp_path / "d")
    try:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        # The mode is persistent: a plain connection sees it too.
        plain = sqlite3.connect(tmp_path / "d" / "rlm.db")
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        plain.close()
    finally:
        store.close()


def test_blob_path_is_sharded_by_hash_and_write_is_atomic(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    data = "Grüße, 世界\r\nline two\n".encode()
    digest = blobs.put(data)
    assert digest == hashlib.sha256(data).hexdigest()
    path = blobs.path_for(digest)
    assert path == tmp_path / "blobs" / digest[:2] / digest
    assert path.read_bytes() == data
    assert blobs.text(digest) == data.decode("utf-8")
    # No temp file is left behind, and a second put rewrites nothing.
    assert [p.name for p in path.parent.iterdir()] == [digest]
    mtime = path.stat().st_mtime_ns
    assert blobs.put(data) == digest
    assert path.stat().st_mtime_ns == mtime
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "blobs").rglob("*")) == [
        Path("blobs") / digest[:2],
        Path("blobs") / digest[:2] / digest,
    ]


def test_failed_blob_write_leaves_no_temp_file(tmp_path: Path, monkeypatch) -> None:
    blobs = BlobStore(tmp_path / "blobs")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("rlm_recursive.store.blobs.os.replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        blobs.put(b"never stored")
    digest = hashlib.sha256(b"never stored").hexdigest()
    assert not blobs.path_for(digest).exists()
    assert list(blobs.path_for(digest).parent.iterdir()) == []


def test_missing_blob_is_an_internal_error(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    with pytest.raises(InternalError, match="missing"):
        blobs.text("ab" + "0" * 62)


async def test_same_file_in_two_sessions_dedups_the_blob(runtime: Runtime, write) -> None:
    text = "shared text — ünïcödé\n" * 10
    write("shared.txt", text)
    loaded = []
    for _ in range(2):
        sid = ok(await runtime.call("rlm_session_create", {}))["session_id"]
        out = ok(
            await runtime.call(
                "rlm_docs_load",
                {"session_id": sid, "sources": [{"type": "file", "path": "shared.txt"}]},
            )
        )
        loaded.append((sid, out["loaded"][0]))
    (sid_a, doc_a), (sid_b, doc_b) = loaded
    assert sid_a != sid_b
    assert doc_a["doc_id"] != doc_b["doc_id"]
    assert doc_a["content_hash"] == doc_b["content_hash"]
    assert doc_a["content_hash"] == hashlib.sha256(text.encode()).hexdigest()
    blob_files = [p for p in (runtime.store.data_dir / "blobs").rglob("*") if p.is_file()]
    assert [p.name for p in blob_files] == [doc_a["content_hash"]]
    rows = runtime.store.db.execute(
        "SELECT session_id, content_hash FROM documents ORDER BY rowid"
    ).fetchall()
    assert [tuple(r) for r in rows] == [
        (sid_a, doc_a["content_hash"]),
        (sid_b, doc_b["content_hash"]),
    ]
    # doc_id is session-scoped: the other session cannot see it.
    with pytest.raises(NotFound):
        runtime.store.document(sid_b, doc_a["doc_id"])


def test_store_survives_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path / "d")
    sid = store.create_session("kept", SessionConfig(max_tool_calls=7))["session_id"]
    doc = store.add_document(sid, b"abc", length_chars=3, source="s", source_type="inline")
    store.close()
    reopened = Store(tmp_path / "d")
    try:
        assert reopened.session_config(sid).max_tool_calls == 7
        assert reopened.text(reopened.document(sid, doc.id)) == "abc"
        assert reopened.docs_version(sid) == 1
    finally:
        reopened.close()


def test_data_dir_explicit_beats_env_and_xdg(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RLM_DATA_DIR", str(tmp_path / "from-env"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    chosen = resolve_data_dir(tmp_path / "explicit")
    assert chosen == tmp_path / "explicit"
    assert chosen.is_dir()
    assert not (tmp_path / "from-env").exists()


def test_data_dir_env_beats_xdg(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RLM_DATA_DIR", str(tmp_path / "from-env"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir(None) == tmp_path / "from-env"
    assert (tmp_path / "from-env").is_dir()
    assert not (tmp_path / "xdg").exists()


def test_data_dir_falls_back_to_xdg_data_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("RLM_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir() == tmp_path / "xdg" / "rlm-recursive"
    assert (tmp_path / "xdg" / "rlm-recursive").is_dir()


def test_data_dir_expands_user(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_data_dir("~/rlm") == tmp_path / "home" / "rlm"


def test_runtime_uses_env_data_dir(data_dir: Path) -> None:
    rt = Runtime()
    try:
        assert rt.store.data_dir == data_dir
        assert (data_dir / "rlm.db").is_file()
    finally:
        rt.close()
