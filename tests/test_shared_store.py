"""API keys, tenants and chat threads on both backends, and one PostgreSQL shared by two
data dirs (the issue's "two api processes on two machines"): each sees the other's sessions,
documents and keys, and neither leaves a database file behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import KeySaltMissing, NotFound, SessionExpired, Unauthorized
from rlm_recursive.store import Store
from rlm_recursive.store.tenancy import KEY_SALT_ENV, KEY_SALT_FILE_ENV, KeyStore, TenantStore

SALT = "a shared secret of the deployment, 32+ bytes"


@pytest.fixture
def store(database_url: str | None, data_dir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_SALT_ENV, SALT)
    opened = Store(data_dir)
    try:
        yield opened
    finally:
        opened.close()


def test_keys_create_authenticate_list_and_revoke(store: Store, data_dir: Path) -> None:
    keys = KeyStore(store.sql, data_dir)
    key, record = keys.create("acme", "ci", ("run", "read"))
    assert record.scopes == ("read", "run")
    assert keys.authenticate(key) == record
    keys.touch(record.id)
    other, _ = keys.create("globex")
    assert [k.id for k in keys.list("acme")] == [record.id]
    assert keys.list("acme")[0].last_used_at is not None
    assert len(keys.list()) == 2
    revoked = keys.revoke(record.id)
    assert revoked.revoked_at is not None and keys.revoke(record.id) == revoked
    with pytest.raises(Unauthorized):
        keys.authenticate(key)
    assert keys.authenticate(other).tenant_id == "globex"
    with pytest.raises(NotFound):
        keys.revoke("key_missing")
    # The stored hash is not the key, on either engine.
    assert key not in json.dumps([list(r) for r in store.sql.query("SELECT * FROM api_keys")])


def test_sqlite_keeps_the_data_dirs_salt_file(tmp_path: Path, monkeypatch) -> None:
    """Unchanged for a single user: the salt is the data dir's file, whatever is set."""
    monkeypatch.setenv(KEY_SALT_ENV, SALT)
    store = Store(tmp_path / "d")
    try:
        key, _ = KeyStore(store.sql, store.data_dir).create("acme")
        salt = (tmp_path / "d" / "api_key_salt").read_bytes()
        assert len(salt) == 32 and salt != SALT.encode()
        monkeypatch.delenv(KEY_SALT_ENV)
        assert KeyStore(store.sql, store.data_dir).authenticate(key).tenant_id == "acme"
    finally:
        store.close()


def test_a_shared_database_refuses_keys_without_a_shared_salt(
        postgres_url: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.delenv(KEY_SALT_ENV, raising=False)
    monkeypatch.delenv(KEY_SALT_FILE_ENV, raising=False)
    store = Store(tmp_path / "d")
    try:
        with pytest.raises(KeySaltMissing) as missing:
            KeyStore(store.sql, store.data_dir)
        assert missing.value.code == "key_salt_missing" and KEY_SALT_ENV in str(missing.value)
        monkeypatch.setenv(KEY_SALT_ENV, "short")
        with pytest.raises(KeySaltMissing, match="5 bytes"):
            KeyStore(store.sql, store.data_dir)
        monkeypatch.delenv(KEY_SALT_ENV)
        monkeypatch.setenv(KEY_SALT_FILE_ENV, str(tmp_path / "nowhere"))
        with pytest.raises(KeySaltMissing, match=KEY_SALT_FILE_ENV):
            KeyStore(store.sql, store.data_dir)
        # A file the operator distributes works like the variable with the same bytes.
        (tmp_path / "salt").write_text(SALT)
        monkeypatch.setenv(KEY_SALT_FILE_ENV, str(tmp_path / "salt"))
        key, _ = KeyStore(store.sql, store.data_dir).create("acme")
        monkeypatch.delenv(KEY_SALT_FILE_ENV)
        monkeypatch.setenv(KEY_SALT_ENV, SALT)
        assert KeyStore(store.sql, store.data_dir).authenticate(key).tenant_id == "acme"
        monkeypatch.setenv(KEY_SALT_ENV, SALT + " but another one")
        with pytest.raises(Unauthorized):
            KeyStore(store.sql, store.data_dir).authenticate(key)
        assert not (tmp_path / "d" / "api_key_salt").exists()  # never a per-machine salt
    finally:
        store.close()


def test_tenants_sessions_usage_and_orphans(store: Store) -> None:
    tenants = TenantStore(store)
    mine = store.create_session("m", SessionConfig())["session_id"]
    theirs = store.create_session("t", SessionConfig())["session_id"]
    tenants.claim_session(mine, "acme", "READY", "2999-01-01T00:00:00.000+00:00")
    tenants.claim_session(theirs, "globex", "CREATING")
    assert tenants.owned_session("acme", mine)["readiness"] == "READY"
    with pytest.raises(NotFound):
        tenants.owned_session("acme", theirs)
    assert [r["id"] for r in tenants.sessions("acme")] == [mine]
    tenants.add_usage("acme", executions=1, tokens=10, usd=0.5)
    tenants.add_usage("acme", executions=1, sub_calls=3, tokens=5, usd=0.25)
    assert tenants.usage_today("acme") == {"executions": 2, "sub_calls": 3, "tokens": 15,
                                           "usd": 0.75}
    assert tenants.usage_today("nobody")["executions"] == 0
    assert tenants.sweep_orphans("2999-01-01T00:00:00.000+00:00") == 1
    assert json.loads(store.session(theirs)["load_error"])["errors"][0]["code"]
    tenants.set_readiness(mine, "READY")
    # A session rows point at is hidden, not deleted; an empty one goes.
    store.add_document(mine, b"x", length_chars=1, source="a", source_type="inline")
    tenants.discard_session(mine)
    tenants.discard_session(theirs)
    assert store.session(mine)["readiness"] == "DELETED"
    with pytest.raises(NotFound):
        store.session(theirs)
    with pytest.raises(NotFound):
        tenants.owned_session("acme", mine)
    late = store.create_session("late", SessionConfig())["session_id"]
    tenants.claim_session(late, "acme", "READY", "2000-01-01T00:00:00.000+00:00")
    with pytest.raises(SessionExpired):
        tenants.owned_session("acme", late)


def test_chat_threads_lead_back_to_their_conversation(store: Store, data_dir: Path) -> None:
    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.api.chat_threads import ChatThreads

    store.close()
    runtime = Runtime(data_dir, "unrestricted")
    try:
        sid = runtime.store.create_session(None, SessionConfig())["session_id"]
        threads = ChatThreads(runtime)
        history = [("system", "be brief"), ("user", "hello"), ("assistant", "hi")]
        cid = threads.conversation("acme", sid, history)
        assert cid is not None
        threads.remember("acme", sid, [*history, ("user", "next"), ("assistant", "ok")], cid)
        threads.remember("acme", sid, [*history, ("user", "next"), ("assistant", "ok")], cid)
        follow_up = [*history, ("user", "next"), ("assistant", "ok"), ("user", "more")]
        assert threads.conversation("acme", sid, follow_up[:-1]) == cid
        assert threads.conversation("globex", sid, follow_up[:-1]) != cid  # per tenant
    finally:
        runtime.close()


# One PostgreSQL, two data dirs -----------------------------------------------------------

@pytest.fixture
def shared(postgres_url: str, tmp_path: Path, monkeypatch) -> dict[str, str]:
    """The environment two machines share: the database, a blob volume and the key salt."""
    env = {"RLM_DATABASE_URL": postgres_url, "RLM_BLOB_URL": (tmp_path / "blobs").as_uri(),
           KEY_SALT_ENV: SALT}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def test_two_data_dirs_share_sessions_documents_and_keys(shared, tmp_path: Path) -> None:
    one, two = Store(tmp_path / "one"), Store(tmp_path / "two")
    try:
        sid = one.create_session("shared", SessionConfig())["session_id"]
        doc = one.add_document(sid, b"the shared text", length_chars=15, source="a.txt",
                               source_type="inline")
        key, record = KeyStore(one.sql, one.data_dir).create("acme", "from one")
        TenantStore(one).claim_session(sid, "acme", "READY")
        assert [r["id"] for r in two.list_sessions()] == [sid]
        assert two.documents(sid) == [doc] and two.text(doc) == "the shared text"
        assert KeyStore(two.sql, two.data_dir).authenticate(key) == record
        assert TenantStore(two).owned_session("acme", sid)["name"] == "shared"
        two.count_tool_call(sid)
        assert one.session(sid)["tool_calls_used"] == 1
    finally:
        one.close()
        two.close()
    assert not list(tmp_path.rglob("*.db*"))


def _cli(env: dict[str, str], data_dir: Path, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), *args, "--json"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_two_processes_on_two_data_dirs_share_one_postgresql(shared, tmp_path: Path) -> None:
    """Machine one loads a file and makes a key; machine two, another process with its own
    data dir, lists the session, reads the document and accepts the key."""
    (tmp_path / "notes.txt").write_text("alpha beta gamma, written on machine one\n")
    loaded = _cli(shared, tmp_path / "one", "load", str(tmp_path / "notes.txt"))
    made = _cli(shared, tmp_path / "one", "keys", "create", "--tenant", "acme")
    listed = _cli(shared, tmp_path / "two", "sessions")
    assert [s["session_id"] for s in listed["sessions"]] == [loaded["session_id"]]
    assert listed["sessions"][0]["documents"] == 1
    found = _cli(shared, tmp_path / "two", "search", "-s", loaded["session_id"], "gamma")
    assert "gamma" in json.dumps(found)
    keys = _cli(shared, tmp_path / "two", "keys", "list")
    assert [k["id"] for k in keys] == [made["id"]]
    two = Store(tmp_path / "two")
    try:
        assert KeyStore(two.sql, two.data_dir).authenticate(made["key"]).tenant_id == "acme"
    finally:
        two.close()
    assert not list(tmp_path.rglob("*.db*"))


def test_the_audit_of_every_process_lands_in_one_table(shared, tmp_path: Path) -> None:
    """Restricted profile on a shared database: each call's content-free record is a row
    of `audit_log` (written off the event loop), and no audit file is left per machine."""
    import asyncio

    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.policy.audit import AUDIT_FIELDS
    from rlm_recursive.store.auditrows import AUDIT_COLUMNS, audit_rows

    assert AUDIT_COLUMNS == AUDIT_FIELDS
    one = Runtime(tmp_path / "one", "restricted")
    two = Runtime(tmp_path / "two", "restricted")
    try:
        made = asyncio.run(one.call("rlm_session_create", {"name": "audited"}))
        asyncio.run(two.call("rlm_session_info", {"session_id": "ses_000000000000"}))
        rows = audit_rows(one.store.sql)
        assert [(r["tool"], r["error_code"], r["profile"]) for r in rows] == [
            ("rlm_session_create", None, "restricted"),
            ("rlm_session_info", "not_found", "restricted")]
        assert made.output["session_id"] not in json.dumps(rows)  # ids of calls, no outputs
    finally:
        one.close()
        two.close()
    assert not list(tmp_path.rglob("audit.jsonl")) and not list(tmp_path.rglob("*.db*"))


def test_two_api_processes_on_two_data_dirs_serve_one_store(shared, tmp_path: Path) -> None:
    """The issue's case: two `api` processes, each with its own data dir (two machines), one
    PostgreSQL and one blob volume. A key made on one machine works on the other; a session
    created through one is read, cited and deleted through the other."""
    import httpx
    from api_support import api_process, auth

    env = {**os.environ, **shared}
    key = auth(_cli(shared, tmp_path / "one", "keys", "create", "--tenant", "acme")["key"])
    stranger = auth(_cli(shared, tmp_path / "two", "keys", "create", "--tenant", "globex")[
        "key"])
    with api_process(env, tmp_path / "one", tmp_path) as (one, _), \
            api_process(env, tmp_path / "two", tmp_path) as (two, _):
        made = httpx.post(one + "/v1/sessions", headers=key, timeout=30, json={
            "name": "shared", "docs": [{"text": "Alice owns the budget; Bob the roadmap."}]})
        assert made.status_code == 201, made.text
        sid = made.json()["session_id"]
        view = httpx.get(f"{two}/v1/sessions/{sid}", headers=key, timeout=30).json()
        for _ in range(100):  # the load finishes in process one's background
            if view["status"] != "CREATING":
                break
            view = httpx.get(f"{two}/v1/sessions/{sid}", headers=key, timeout=30).json()
        assert view["status"] == "READY" and len(view["docs"]) == 1, view
        span = httpx.get(f"{two}/v1/sessions/{sid}/spans", headers=key, timeout=30,
                         params={"doc_index": 0, "start": 0, "end": 16}).json()
        assert span["text"] == "Alice owns the b", span
        listed = httpx.get(two + "/v1/sessions", headers=key, timeout=30).json()["sessions"]
        assert [s["session_id"] for s in listed] == [sid]
        # Tenants stay apart across machines too: ids never leak.
        assert httpx.get(f"{one}/v1/sessions/{sid}", headers=stranger,
                         timeout=30).status_code == 404
        assert httpx.delete(f"{two}/v1/sessions/{sid}", headers=key,
                            timeout=30).status_code == 200
        assert httpx.get(f"{one}/v1/sessions/{sid}", headers=key, timeout=30).status_code == 404
    assert not list(tmp_path.rglob("*.db*"))  # executions included (the queue's tables)


def test_writers_on_two_machines_take_turns_on_one_session(shared, tmp_path: Path) -> None:
    """Loads into one session and re-chunkings of one document, racing from two stores:
    each new raw file gets the next version (none repeated), and a chunking is one set of
    spans, never two side by side."""
    from concurrent.futures import ThreadPoolExecutor

    one, two = Store(tmp_path / "one"), Store(tmp_path / "two")
    try:
        sid = one.create_session(None, SessionConfig())["session_id"]
        meta = {"format": "text", "parser_version": "t1", "encoding": "utf-8", "pages": []}

        def load(i: int):
            store = (one, two)[i % 2]
            text = f"revision {i}"
            return store.add_document(sid, text.encode(), length_chars=len(text),
                                      source="notes.txt", source_type="file",
                                      parse_meta={**meta, "raw_sha256": f"raw{i}"})

        with ThreadPoolExecutor(8) as pool:
            docs = list(pool.map(load, range(16)))
        versions = sorted(one.parses.info(d.id).version for d in docs)
        assert versions == list(range(1, 17))
        assert one.docs_version(sid) == 16
        doc = docs[0]

        def chunk(i: int) -> None:
            (one, two)[i % 2].save_chunking(doc, "fixed:4", [(0, 4), (4, 8)])

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(chunk, range(16)))
        assert len(two.chunking(doc.id, "fixed:4")) == 2
    finally:
        one.close()
        two.close()


def test_a_runtime_mode_execution_goes_on_through_another_api_process(
        shared, tmp_path: Path) -> None:
    """A load balancer may send each step of a client-driven REPL to a different `api`
    process: the second takes the execution up from its saved state in the shared store."""
    import httpx
    from api_support import api_process, auth

    env = {**os.environ, **shared}
    key = auth(_cli(shared, tmp_path / "one", "keys", "create", "--tenant", "acme")["key"])
    with api_process(env, tmp_path / "one", tmp_path) as (one, _), \
            api_process(env, tmp_path / "two", tmp_path) as (two, _):
        made = httpx.post(one + "/v1/sessions", headers=key, timeout=30, json={
            "docs": [{"text": "first"}, {"text": "second"}]})
        assert made.status_code == 201, made.text
        sid = made.json()["session_id"]
        eid = httpx.post(f"{one}/v1/sessions/{sid}/executions/runtime", headers=key,
                         json={"preset": "fully-local"}, timeout=30).json()["execution_id"]
        first = httpx.post(f"{one}/v1/executions/{eid}/steps", headers=key, timeout=30,
                           json={"code": "n = len(context)\nprint(n)"}).json()
        second = httpx.post(f"{two}/v1/executions/{eid}/steps", headers=key, timeout=30,
                            json={"code": "FINAL(str(n * 21))"})
        view = httpx.get(f"{one}/v1/executions/{eid}", headers=key, timeout=30).json()
    assert first["stdout"] == "2\n"
    assert second.status_code == 200, second.text
    assert second.json()["turn_index"] == 2 and second.json()["final"]["answer"] == "42"
    assert view["status"] == "COMPLETED" and view["answer"] == "42"
