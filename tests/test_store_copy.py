"""`store copy`: a data dir made by the real CLI and API (real files loaded, an execution on
the fake provider, an API key, an OpenAI-style chat kept in LCM, the audit log) copied into a
real PostgreSQL (tests/pg_server.py) and real blob stores (a shared folder, the moto S3
server), then read back through the public API, the CLI and the store."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from api_support import auth, live_api, new_key
from doc_writers import write_docx, write_pdf
from serve_support import NOTES, QUESTION, hopper, scripted_runtime

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.errors import InternalError, KeySaltMismatch, TargetNotEmpty
from rlm_recursive.lcm import lcm_for
from rlm_recursive.providers.fake import FakeProvider
from rlm_recursive.store import Store
from rlm_recursive.store.auditrows import audit_rows
from rlm_recursive.store.copyplan import SQLITE_ONLY, plan_tables, source_tables
from rlm_recursive.store.db import connect
from rlm_recursive.store.postgres import PostgresConnector
from rlm_recursive.store.storecopy import copy_store

HEPARIN = "The heparin dose for bed 4B is 5000 units, given at 08:00 each morning."
ITERATIVE = {"rlm": {"strategy": "iterative"}}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RLM_DATABASE_URL", "RLM_BLOB_URL", "RLM_API_KEY_SALT",
                        "RLM_API_KEY_SALT_FILE")}
    return {**env, **extra}


def _cli(data_dir: Path, *args: str, env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                           *args], env=env or _env(), capture_output=True, text=True,
                          timeout=180)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A SQLite data dir as one laptop leaves it, and what was made in it."""
    root = tmp_path_factory.mktemp("laptop")
    data_dir = root / "data"
    made: dict[str, Any] = {"data_dir": data_dir}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", str(root / "xdg-data"))
        mp.setenv("XDG_CONFIG_HOME", str(root / "xdg-config"))
        for name in ("RLM_PROFILE", "RLM_MODELS", "RLM_DATABASE_URL", "RLM_BLOB_URL",
                     "RLM_API_KEY_SALT", "RLM_API_KEY_SALT_FILE"):
            mp.delenv(name, raising=False)
        mp.chdir(root)
        docs = root / "docs"
        docs.mkdir()
        (docs / "ward.txt").write_text(f"Ward notes.\n{HEPARIN}\nVisitors until 20:00.\n")
        write_docx(docs / "rota.docx", [("h1", "Night rota"), ("p", "Nurse Amal covers bed 9D."),
                                        ("table", [["bed", "nurse"], ["4B", "Jonas"]])])
        write_pdf(docs / "policy.pdf", ["Infusion policy, page one.",
                                        "Page two: pumps are checked hourly."])
        loaded = json.loads(_cli(data_dir, "load", str(docs), "--json",
                                 env=_env(RLM_DATA_DIR=str(data_dir))).stdout)
        made["cli_session"] = loaded["session_id"]
        assert len(loaded["loaded"]) == 3

        rt = scripted_runtime(data_dir)
        try:
            key = made["key"] = new_key(rt, "acme")
            pool = ProviderPool({"fake": FakeProvider(script=hopper)})
            with live_api(rt, providers=pool) as base, \
                    httpx.Client(base_url=base, headers=auth(key), timeout=60) as c:
                created = c.post("/v1/sessions", json={
                    "name": "notes", "docs": [{"text": NOTES, "source_name": "notes.txt"}]})
                assert created.status_code == 201, created.text
                sid = made["api_session"] = created.json()["session_id"]
                run = c.post(f"/v1/sessions/{sid}/executions", json={
                    "question": QUESTION, "preset": "scripted",
                    "options": {"strategy": "iterative", "synchronous": True}})
                assert run.status_code == 200, run.text
                made["execution"] = run.json()
                assert made["execution"]["answer"] == "4821-K"
                assert made["execution"]["citations"]
                chat = c.post("/v1/chat/completions", json={
                    "model": f"rlm/scripted/{sid}", **ITERATIVE,
                    "messages": [{"role": "user", "content": QUESTION}]})
                assert chat.status_code == 200, chat.text
                made["conversation"] = chat.json()["rlm"]["conversation_id"]
            lcm = lcm_for(rt.store).store
            tool = lcm.append_message(made["conversation"], "tool", "patched ward.txt", 3, parts=[
                {"part_type": "patch", "patch_files": ["ward.txt", "rota.docx"],
                 "is_synthetic": True, "metadata": {"by": "test"}},
                {"part_type": "step_finish", "step_cost": 0.25, "compaction_auto": False}])
            made["parts"] = (tool.message_id, lcm.message_parts(tool.message_id))
            conversation = lcm.messages(made["conversation"])
            made["messages"] = [(m.role, m.content) for m in conversation]
            assert made["messages"]
        finally:
            rt.close()
    made["audit_lines"] = len((data_dir / "audit.jsonl").read_text().splitlines())
    assert made["audit_lines"] > 0
    yield made


def _fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file's sha256 and mtime, but SQLite's shared-memory index (-shm), which a
    WAL reader maps and marks by design."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                         p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith("-shm")}


def _assert_untouched(folder: Path, before: dict[str, tuple[str, int]]) -> None:
    """Every file is as it was; the only new one a WAL reader may leave is an empty -wal
    (SQLite opens one beside a WAL database that had none, even read-only)."""
    after = _fingerprint(folder)
    assert {k: after[k] for k in before} == before
    new = set(after) - set(before)
    assert new <= {"rlm.db-wal"}
    assert all(after[k][0] == hashlib.sha256(b"").hexdigest() for k in new)


def _counts(url: str, tables: list[str]) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def test_copy_then_everything_reads_back_on_postgresql(source, postgres_url, tmp_path,
                                                       monkeypatch) -> None:
    data_dir = source["data_dir"]
    before = _fingerprint(data_dir)
    shared = tmp_path / "shared-blobs"
    salt = str(data_dir / "api_key_salt")
    copy_env = _env(RLM_BLOB_URL=shared.as_uri(), RLM_API_KEY_SALT_FILE=salt)
    out = _cli(data_dir, "store", "copy", "--to", postgres_url, "--json", "--batch-rows", "2",
               env=copy_env)
    report = json.loads(out.stdout)
    _assert_untouched(data_dir, before)  # the source is only read
    with sqlite3.connect(data_dir / "rlm.db") as lite:
        for table, rows in report["tables"].items():
            assert rows == lite.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    assert report["tables"]["sessions"] == 2 and report["tables"]["documents"] == 4
    assert report["tables"]["messages"] >= len(source["messages"]) > 0
    assert report["tables"]["api_keys"] == 1 and report["tables"]["executions"] >= 1
    assert report["audit_records"] == source["audit_lines"]
    blobs = sorted(p.name for p in (data_dir / "blobs").glob("??/*"))
    assert report["blobs"] == len(blobs) and not report["blobs_in_place"]
    assert sorted(p.name for p in shared.glob("??/*")) == blobs

    # Another machine: its own data dir, the shared database, blobs and salt.
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.setenv("RLM_BLOB_URL", shared.as_uri())
    monkeypatch.setenv("RLM_API_KEY_SALT_FILE", salt)
    other = tmp_path / "other"
    rt = scripted_runtime(other)
    try:
        pool = ProviderPool({"fake": FakeProvider(script=hopper)})
        with live_api(rt, providers=pool) as base, \
                httpx.Client(base_url=base, headers=auth(source["key"]), timeout=60) as c:
            view = c.get(f"/v1/executions/{source['execution']['execution_id']}")
            assert view.status_code == 200, view.text  # the old key authenticates
            assert view.json()["answer"] == "4821-K"
            assert view.json()["citations"] == source["execution"]["citations"]
            for citation in view.json()["citations"]:
                checked = c.post("/v1/citations/verify", json={"ref": citation}).json()
                assert checked["valid"] is True and checked["text"] in NOTES
        # (A chat on PostgreSQL is queued for a worker; none runs here. The conversation,
        # its thread row and the id sequences are what a worker's chat would use.)
        lcm = lcm_for(rt.store).store
        said = [(m.role, m.content) for m in lcm.messages(source["conversation"])]
        assert said == source["messages"]
        assert rt.store.sql.one("SELECT conversation_id FROM chat_threads WHERE session_id = ?",
                                (source["api_session"],))[0] == source["conversation"]
        message_id, parts = source["parts"]  # booleans, a TEXT[] and JSONB came across
        assert lcm.message_parts(message_id) == parts
        newest = rt.store.sql.one("SELECT (SELECT max(conversation_id) FROM conversations), "
                                  "(SELECT max(message_id) FROM messages)")
        fresh = lcm.create_conversation(source["api_session"], "after the move")
        assert fresh.conversation_id > newest[0]  # identities continue past the copied ids
        added = lcm.append_message(fresh.conversation_id, "user", "Who runs Falcon?", 5)
        assert added.message_id > newest[1]
        audit = audit_rows(rt.store.sql, limit=10_000)
        assert len(audit) >= source["audit_lines"]
    finally:
        rt.close()
    copied_traces = _counts(postgres_url, ["traces"])["traces"]
    env = _env(RLM_DATABASE_URL=postgres_url, RLM_BLOB_URL=shared.as_uri())
    found = json.loads(_cli(other, "search", "heparin", "-s", source["cli_session"], "--json",
                            env=env).stdout)
    assert any(HEPARIN in m["context"] for m in found["matches"])
    found = json.loads(_cli(other, "search", "Jonas", "-s", source["cli_session"], "--json",
                            env=env).stdout)
    assert found["matches"] and found["matches"][0]["source"].endswith("rota.docx")
    # The searches were traced: new trace ids follow the copied ones (no key collision).
    assert _counts(postgres_url, ["traces"])["traces"] > copied_traces == report["tables"]["traces"]
    assert not list(other.rglob("*.db*"))


def test_blobs_go_to_s3_and_read_back_through_the_store(source, postgres_url, s3_bucket,
                                                         tmp_path, monkeypatch) -> None:
    data_dir = source["data_dir"]
    monkeypatch.setenv("RLM_BLOB_URL", f"s3://{s3_bucket}/blobs")
    report = copy_store(data_dir, postgres_url, skip_keys=True)
    assert report.blobs > 0 and report.blob_bytes > 0 and report.keys_skipped == 1
    assert "api_keys" not in report.tables
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    store = Store(tmp_path / "worker")
    try:
        docs = store.sql.query("SELECT content_hash FROM documents")
        assert len(docs) == 4
        for (content_hash,) in docs:
            local = (data_dir / "blobs" / content_hash[:2] / content_hash).read_bytes()
            assert store.blobs.data(content_hash) == local
        assert store.sql.one("SELECT count(*) FROM api_keys")[0] == 0
    finally:
        store.close()


def test_a_target_with_rows_is_refused_and_left_as_it_was(source, postgres_url) -> None:
    data_dir = source["data_dir"]
    copy_store(data_dir, postgres_url, skip_keys=True)
    tables = ["sessions", "documents", "messages", "audit_log"]
    before = _counts(postgres_url, tables)
    with pytest.raises(TargetNotEmpty, match="sessions"):
        copy_store(data_dir, postgres_url, skip_keys=True)
    done = _cli(data_dir, "store", "copy", "--skip-keys", env=_env(RLM_DATABASE_URL=postgres_url),
                check=False)
    assert done.returncode == 1 and "error[target_not_empty]" in done.stderr
    assert _counts(postgres_url, tables) == before


def test_keys_need_the_data_dirs_salt_or_are_left_behind(source, postgres_url, tmp_path,
                                                         monkeypatch) -> None:
    data_dir = source["data_dir"]
    with pytest.raises(KeySaltMismatch, match="RLM_API_KEY_SALT_FILE="):
        copy_store(data_dir, postgres_url)  # no shared salt at all
    monkeypatch.setenv("RLM_API_KEY_SALT", "another-salt-of-32-characters-xx")
    with pytest.raises(KeySaltMismatch, match="never authenticate"):
        copy_store(data_dir, postgres_url)
    done = _cli(data_dir, "store", "copy", "--to", postgres_url,
                env=_env(RLM_API_KEY_SALT="another-salt-of-32-characters-xx"), check=False)
    assert done.returncode == 1 and "error[key_salt_mismatch]" in done.stderr
    with psycopg.connect(postgres_url) as conn:  # refused before the target was touched
        assert conn.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_schema = 'public'").fetchone()[0] == 0


def test_the_restricted_profile_keeps_the_copy_on_local_hosts(source) -> None:
    done = _cli(source["data_dir"], "--profile", "restricted", "store", "copy", "--skip-keys",
                "--to", "postgresql://rlm@db.example.invalid/rlm", check=False)
    assert done.returncode == 1 and "error[egress_denied]" in done.stderr
    assert "db.example.invalid" in done.stderr


def test_dry_run_writes_nothing_anywhere(source, postgres_url, tmp_path) -> None:
    data_dir = source["data_dir"]
    shared = tmp_path / "shared"
    done = _cli(data_dir, "store", "copy", "--dry-run", "--skip-keys", "--to", postgres_url,
                env=_env(RLM_BLOB_URL=shared.as_uri()))
    assert "would copy" in done.stdout and "documents" in done.stdout
    assert not shared.exists()
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_schema = 'public'").fetchone()[0] == 0


def test_a_failed_copy_leaves_the_target_empty_and_the_source_as_it_was(
        source, postgres_url, tmp_path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(source["data_dir"], broken)
    with sqlite3.connect(broken / "rlm.db") as lite:  # a row whose session is gone
        lite.execute("PRAGMA foreign_keys=OFF")
        lite.execute("INSERT INTO artifacts (id, session_id, type, content, provenance, "
                     "created_at) VALUES ('art_orphan', 'ses_gone', 'note', '{}', '{}', "
                     "'2026-01-01T00:00:00.000+00:00')")
    before = _fingerprint(broken)
    with pytest.raises(InternalError, match=r"artifacts.*rolled back"):
        copy_store(broken, postgres_url, skip_keys=True)
    _assert_untouched(broken, before)
    tables = ["sessions", "documents", "spans", "messages", "artifacts", "audit_log"]
    assert set(_counts(postgres_url, tables).values()) == {0}
    with sqlite3.connect(broken / "rlm.db") as lite:
        lite.execute("DELETE FROM artifacts WHERE id = 'art_orphan'")
    assert copy_store(broken, postgres_url, skip_keys=True).tables["sessions"] == 2


def test_the_plan_covers_every_table_parents_first(postgres_url, tmp_path) -> None:
    lite = connect(tmp_path / "rlm.db")
    target = PostgresConnector(postgres_url)
    try:
        with target.connection() as pg:
            plans = plan_tables(lite, pg.conn)
            order = [p.name for p in plans]
            edges = {(r[0], r[1]) for r in pg.conn.execute(
                "SELECT conrelid::regclass::text, confrelid::regclass::text "
                "FROM pg_constraint WHERE contype = 'f'").fetchall()}
        edges |= {(t, r[2]) for t in order
                  for r in lite.execute(f'PRAGMA foreign_key_list("{t}")')}
        for child, parent in edges:
            if child in order and parent in order and child != parent:
                assert order.index(parent) < order.index(child), (parent, child)
        every = {r[0] for r in lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        skipped = every - set(order)
        assert set(source_tables(lite)) == set(order)
        assert skipped - set(SQLITE_ONLY) and all("_fts" in t for t in skipped - set(SQLITE_ONLY))
        assert {"sessions", "documents", "conversations", "messages", "executions",
                "api_keys", "chat_threads", "runs"} <= set(order)
    finally:
        lite.close()
        target.close()
