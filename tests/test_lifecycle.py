"""Runs and sessions that end properly: a killed run is recorded as failed (its lease), `gc`
collects what no live session references, and `runs` / `sessions` never cut an id. The
store's tests run on SQLite and on PostgreSQL (`database_url`)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from helpers import store_rows
from typer.testing import CliRunner

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.config import SessionConfig
from rlm_recursive.store.gc import collect
from rlm_recursive.store.lifecycle import ABANDONED, reap_runs

_RECORDING = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from rlm_recursive.config import SessionConfig
    from rlm_recursive.store import Store
    from rlm_recursive.trajectory.run import recording

    async def main():
        store = Store(Path(sys.argv[1]))
        sid = store.create_session("killed", SessionConfig())["session_id"]
        async with recording(store, sid, "a question that never ends", "full"):
            store.flush()
            print("recording", flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main())
""")


def _runs(data_dir: Path) -> list[dict]:
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "runs", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_run_killed_by_a_signal_is_recorded_as_failed(database_url, data_dir):
    child = subprocess.Popen([sys.executable, "-c", _RECORDING, str(data_dir)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "recording"
        (row,) = store_rows(data_dir, "SELECT status, owner, heartbeat_at FROM runs")
        assert row[0] == "running" and row[1].endswith(f":{child.pid}") and row[2]
        # While its process lives, the run is left alone.
        assert _runs(data_dir)[0]["status"] == "running"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    runs = _runs(data_dir)
    assert [(r["status"], r["error_code"]) for r in runs] == [("error", ABANDONED)]


def test_a_run_whose_lease_lapsed_is_failed_on_any_host(database_url, runtime):
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    db = runtime.store.sql
    for run_id, beat in (("run_old", "2000-01-01T00:00:00.000+00:00"),
                         ("run_live", "2999-01-01T00:00:00.000+00:00")):
        db.execute("INSERT INTO runs (id, session_id, mode, question_chars, status, "
                   "started_at, heartbeat_at, owner) VALUES (?, ?, 'full', 1, 'running', ?, "
                   "?, 'other-host.invalid:1')", (run_id, sid, beat, beat))
    assert reap_runs(db) == 1
    status = dict(db.query("SELECT id, status FROM runs"))
    assert status == {"run_old": "error", "run_live": "running"}


def _age(path: Path, seconds: float = 7200) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_gc_collects_only_what_no_live_session_references(database_url, data_dir):
    runtime = Runtime(data_dir)
    try:
        store = runtime.store

        async def load(text: str) -> str:
            sid = (await runtime.call("rlm_session_create", {"name": "x"})).output["session_id"]
            await runtime.call("rlm_docs_load", {"session_id": sid, "sources": [
                {"type": "inline", "content": text, "name": "a.txt"}]})
            await runtime.call("rlm_search_query", {"session_id": sid, "query": "words"})
            return sid

        live = asyncio.run(load("live words stay"))
        dead = asyncio.run(load("deleted words go"))
        shared = asyncio.run(load("live words stay"))  # same blob as `live`
        store.sql.execute("UPDATE sessions SET readiness = 'DELETED' WHERE id IN (?, ?)",
                          (dead, shared))
        for path in (data_dir / "blobs").glob("*/*"):
            _age(path)
        for path in (data_dir / "indexes").glob("*"):
            _age(path)
        dead_hash = store.documents(dead)[0].content_hash
        live_hash = store.documents(live)[0].content_hash
        # A dry run (the default) reports and deletes nothing.
        report = collect(store.sql, data_dir)
        assert report.dry_run and report.blobs == [dead_hash]
        assert sorted(report.indexes) == sorted([dead, shared])
        assert store.blobs.path_for(dead_hash).exists()
        # A fresh file is kept whatever the tables say (a load in flight).
        fresh = store.blobs.put(b"written a moment ago, its document row not yet")
        result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "gc", "--delete",
                                          "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out["blobs"] == 1 and out["indexes"] == 2 and not out["dry_run"]
        assert not store.blobs.path_for(dead_hash).exists()
        assert store.blobs.path_for(live_hash).exists()
        assert store.blobs.path_for(fresh).exists()
        assert (data_dir / "indexes" / live).is_dir()
        assert not (data_dir / "indexes" / dead).exists()
    finally:
        runtime.close()


def test_gc_expires_sessions_past_their_ttl(database_url, data_dir):
    runtime = Runtime(data_dir)
    try:
        sid = runtime.store.create_session("ttl", SessionConfig())["session_id"]
        runtime.store.sql.execute("UPDATE sessions SET expires_at = "
                                 "'2000-01-01T00:00:00.000+00:00' WHERE id = ?", (sid,))
    finally:
        runtime.close()
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "gc", "--json"])
    assert json.loads(result.stdout)["expired_sessions"] == [sid]
    (row,) = store_rows(data_dir, "SELECT readiness, closed_at FROM sessions WHERE id = ?",
                        (sid,))
    assert row[0] == "EXPIRED" and row[1] is not None


def test_runs_and_sessions_never_cut_an_id_when_piped(database_url, data_dir):
    runtime = Runtime(data_dir)
    question = "why " * 60 + "the end"
    name = "a session name far longer than eighty columns " * 3
    try:
        sid = runtime.store.create_session(name, SessionConfig())["session_id"]
        runtime.store.sql.execute(
            "INSERT INTO runs (id, session_id, mode, question, question_chars, status, "
            "started_at) VALUES ('run_0123456789abcdef0123', ?, 'full', ?, ?, 'ok', "
            "'2026-01-01T00:00:00.000+00:00')", (sid, question, len(question)))
    finally:
        runtime.close()
    runs = CliRunner().invoke(app, ["--data-dir", str(data_dir), "runs"])
    assert "run_0123456789abcdef0123" in runs.stdout and question in runs.stdout
    sessions = CliRunner().invoke(app, ["--data-dir", str(data_dir), "sessions"])
    assert sid in sessions.stdout and name.strip() in sessions.stdout


def test_the_cli_reads_absolute_paths_except_in_restricted(tmp_path, data_dir):
    """The README's claim, both ways: `local` (the default) reads an absolute path; the
    restricted CLI refuses it, even inside its root."""
    doc = tmp_path / "notes.txt"
    doc.write_text("absolute paths")
    default = CliRunner().invoke(app, ["load", str(doc), "--json"])
    assert default.exit_code == 0, default.output
    restricted = CliRunner().invoke(app, ["--profile", "restricted", "load", str(doc)])
    assert restricted.exit_code == 1 and "error[path_denied]" in restricted.stderr
    relative = CliRunner().invoke(app, ["--profile", "restricted", "load", "notes.txt"])
    assert relative.exit_code == 0, relative.output


def test_gc_never_collects_a_shared_blob_store(database_url, tmp_path, data_dir, monkeypatch):
    """Other stores may reference blobs of a shared store (RLM_BLOB_URL): this database
    cannot tell, so gc leaves them alone and says so."""
    monkeypatch.setenv("RLM_BLOB_URL", (tmp_path / "shared").as_uri())
    runtime = Runtime(data_dir)
    try:
        sid = asyncio.run(runtime.call("rlm_session_create", {"name": "x"})).output[
            "session_id"]
        asyncio.run(runtime.call("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "shared words", "name": "a.txt"}]}))
        runtime.store.sql.execute("UPDATE sessions SET readiness = 'DELETED' WHERE id = ?",
                                  (sid,))
        blob = next((tmp_path / "shared").glob("*/*"))
        _age(blob)
        report = collect(runtime.store.sql, data_dir, dry_run=False, blobs=runtime.store.blobs)
        assert report.blobs_shared and report.blobs == [] and blob.exists()
    finally:
        runtime.close()
