"""The connector interface and the PostgreSQL backend, against a real server (no mocks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from rlm_recursive.errors import ConfigError, StoreUnavailable
from rlm_recursive.lcm import Lcm, LcmConfig, SqliteConversationStore
from rlm_recursive.lcm.postgres_store import PostgresConversationStore
from rlm_recursive.store.connector import SqliteConnector, database_url, open_connector
from rlm_recursive.store.postgres import PostgresConnector, migrations

_OPEN = textwrap.dedent("""
    import sys, time
    from rlm_recursive.store.postgres import PostgresConnector
    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.001)
    PostgresConnector(sys.argv[1]).close()
""")


def test_processes_starting_at_once_apply_each_migration_exactly_once(postgres_url: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    start = time.time() + 2.0  # all interpreters imported: they race for the fresh database
    procs = [subprocess.Popen([sys.executable, "-c", _OPEN, postgres_url, str(start)],
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    with psycopg.connect(postgres_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations "
                                               "ORDER BY version")]
        tables = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert versions == [v for v, _ in migrations()] and versions[0] == 1
    assert {"conversations", "messages", "summaries", "context_items"} <= tables


def test_the_url_selects_the_backend_and_bad_urls_are_refused(tmp_path: Path) -> None:
    assert database_url({}) is None and database_url({"RLM_DATABASE_URL": " "}) is None
    url = "postgresql://u@db.invalid:5432/rlm"
    assert database_url({"RLM_DATABASE_URL": url}) == url
    with pytest.raises(ConfigError) as info:
        database_url({"RLM_DATABASE_URL": "mysql://u:hunter2@db.invalid/rlm"})
    assert info.value.code == "invalid_args" and "hunter2" not in str(info.value)
    connector = open_connector(tmp_path / "x.db", None)
    assert isinstance(connector, SqliteConnector) and connector.dialect == "sqlite"
    connector.close()


def test_an_unreachable_server_is_a_retryable_store_unavailable() -> None:
    with socket.socket() as sock:  # a loopback port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StoreUnavailable) as info:
        PostgresConnector(f"postgresql://rlm:s3cret@127.0.0.1:{port}/rlm", timeout_s=2)
    assert info.value.retryable and info.value.code == "store_unavailable"
    assert "s3cret" not in str(info.value) and str(port) in str(info.value)


def test_lcm_on_postgresql_is_shared_between_data_dirs_and_writes_no_local_db(
    tmp_path: Path, database_url: str | None,
) -> None:
    """Two processes' worth of `Lcm` (two machines: two data dirs) on one database."""
    first, second = Lcm(tmp_path / "a", LcmConfig()), Lcm(tmp_path / "b", LcmConfig())
    cid = first.store.create_conversation("ses_team", "shared").conversation_id
    message = first.append(cid, "user", "The invoice number is INV-2041.")
    if database_url is None:
        assert isinstance(first.store, SqliteConversationStore)
        assert second.store.messages(cid) == []  # each data dir has its own file
        return
    assert isinstance(first.store, PostgresConversationStore)
    assert second.store.messages(cid) == [message]
    hits = second.retrieval.grep(cid, "invoice", scope="messages")["matches"]
    assert [h["id"] for h in hits] == [message.ref] and "[invoice]" in hits[0]["snippet"]
    assert not list(tmp_path.rglob("*.db*"))
    # timestamps read back exactly as SQLite's backend writes them (ISO, ms, UTC)
    assert message.created_at.endswith("+00:00") and len(message.created_at) == 29
    first.close()
    second.close()


def test_concurrent_appends_from_two_pools_keep_seqs_and_ordinals_unique(
    tmp_path: Path, database_url: str | None,
) -> None:
    stores = [Lcm(tmp_path, LcmConfig()).store for _ in range(2)]
    cid = stores[0].create_conversation("ses_race").conversation_id
    errors: list[BaseException] = []

    def writer(store: object, name: str) -> None:
        try:
            for i in range(40):
                store.append_message(cid, "user", f"{name} {i}", 3,  # type: ignore[attr-defined]
                                     [{"part_type": "text", "text_content": f"{name}{i}"}])
        except BaseException as exc:  # reported below, with the thread's own traceback
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(store, name))
               for store, name in zip(stores, "AB", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    messages = stores[0].messages(cid)
    assert [m.seq for m in messages] == list(range(1, 81))
    assert [i.ordinal for i in stores[1].get_context_items(cid)] == list(range(80))
    assert stores[0].conversation(cid).message_count == 80
    for store in stores:
        store.close()


def test_a_url_without_its_driver_installed_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rlm_recursive.store import blob_store_for

    for module in ("psycopg", "obstore"):  # as on an install without the extras
        monkeypatch.setitem(sys.modules, module, None)
    for module in ("rlm_recursive.store.postgres", "rlm_recursive.store.s3blobs"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ConfigError, match=r"rlm-recursive\[postgres\]"):
        open_connector(tmp_path / "x.db", "postgresql://rlm@127.0.0.1:1/rlm")
    with pytest.raises(ConfigError, match=r"rlm-recursive\[s3\]"):
        blob_store_for(tmp_path, {"RLM_BLOB_URL": "s3://bucket/prefix"})


def _drop_connections(url: str) -> int:
    """What a server restart or failover does to clients: every session of the database ends
    (and has ended, as in a restart, before anything connects again: the timeout form waits
    for each backend to exit)."""
    with psycopg.connect(url, autocommit=True) as admin:
        return len(admin.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = "
            "current_database() AND pid <> pg_backend_pid()").fetchall())


def test_dropped_connections_are_replaced_and_a_lock_dies_with_its_holder(
    tmp_path: Path, postgres_url: str,
) -> None:
    from rlm_recursive.errors import Conflict

    first = Lcm(tmp_path, LcmConfig(), database_url=postgres_url)
    second = Lcm(tmp_path, LcmConfig(), database_url=postgres_url)
    cid = first.store.create_conversation("ses_restart").conversation_id
    first.store.acquire_lock(cid, "holder", ttl_s=60)
    with pytest.raises(Conflict):
        second.store.acquire_lock(cid, "other", ttl_s=60)
    assert _drop_connections(postgres_url) >= 2
    # The pools hand out fresh connections; the dead holder's lock is gone with its session.
    first.append(cid, "user", "still here after the restart")
    second.store.acquire_lock(cid, "other", ttl_s=60)
    first.store.release_lock(cid, "holder")  # its connection died: nothing to undo, no error
    with pytest.raises(Conflict):
        first.store.acquire_lock(cid, "holder", ttl_s=60)
    second.store.release_lock(cid, "other")
    first.store.acquire_lock(cid, "holder", ttl_s=60)
    assert [m.content for m in second.store.messages(cid)] == ["still here after the restart"]
    first.close()
    second.close()


def test_connectors_of_one_url_share_a_pool_that_the_last_close_ends(
    tmp_path: Path, postgres_url: str,
) -> None:
    from rlm_recursive.errors import Conflict

    long_lived = PostgresConnector(postgres_url)
    per_run = Lcm(tmp_path, LcmConfig(), database_url=postgres_url)
    assert per_run.store.connector.pool is long_lived.pool  # type: ignore[attr-defined]
    cid = per_run.store.create_conversation("ses_pool").conversation_id
    per_run.store.acquire_lock(cid, "run-1", ttl_s=60)
    per_run.close()  # gives back its lock's connection: no lock may stay in the pool
    assert not long_lived.pool.closed
    other = Lcm(tmp_path, LcmConfig(), database_url=postgres_url)
    other.store.acquire_lock(cid, "run-2", ttl_s=60)
    third = Lcm(tmp_path / "b", LcmConfig(), database_url=postgres_url)
    with pytest.raises(Conflict):
        third.store.acquire_lock(cid, "run-3", ttl_s=60)
    other.store.release_lock(cid, "run-2")
    for lcm in (other, third):
        lcm.close()
    assert long_lived.query("SELECT COUNT(*) FROM conversations") == [(1,)]
    long_lived.close()
    assert long_lived.pool.closed


def test_the_cli_of_another_data_dir_reads_the_shared_conversation(
    tmp_path: Path, postgres_url: str,
) -> None:
    """Machine A writes a conversation; `rlm-recursive lcm` on machine B (its own data dir,
    another process) finds it, because both name the same RLM_DATABASE_URL."""
    import json

    writer = Lcm(tmp_path / "machine-a", LcmConfig(), database_url=postgres_url)
    cid = writer.store.create_conversation("ses_team").conversation_id
    writer.append(cid, "user", "The chiller on level 2 was serviced on 3 March.")
    writer.close()
    env = {**os.environ, "RLM_DATABASE_URL": postgres_url}
    done = subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir",
                           str(tmp_path / "machine-b"), "lcm", "grep", "chiller serviced",
                           "-c", str(cid), "--json"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    matches = json.loads(done.stdout)["matches"]
    assert [m["id"] for m in matches] == ["msg_1"] and "[chiller]" in matches[0]["snippet"]
