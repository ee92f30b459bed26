"""Store hardening (issue 15, items 5 and 6): private files, leftovers, several processes."""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlm_recursive import errors
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.index_cache import index_folder
from rlm_recursive.corpus.search import PassageIndex, split_passages
from rlm_recursive.store import Store
from rlm_recursive.tools.search import search_session


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _add(store: Store, session_id: str, text: str, source: str = "x.txt") -> str:
    doc = store.add_document(
        session_id, text.encode(), length_chars=len(text), source=source, source_type="file"
    )
    return doc.id


def _run_at(start: float, code: str, *args: str) -> subprocess.Popen[str]:
    """A Python process that runs `code` at wall-clock time `start` (so several collide)."""
    prelude = (
        "import sys, time\n"
        f"time.sleep(max(0.0, {start!r} - time.time()))\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", prelude + code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


# -- item 5: private files --------------------------------------------------------------------


def test_data_dir_is_0700_and_every_store_file_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask: what made rlm.db and the index 0644
    try:
        data = tmp_path / "data"
        store = Store(data)
        sid = store.create_session("s", SessionConfig())["session_id"]
        _add(store, sid, "alpha beta gamma")
        store.trace(sid, "op", {"q": "document text"}, {"a": 1}, 1.0)
        store.flush()  # trace writes are batched on a writer thread
        hits, *_ = search_session(store, sid, "beta")
        assert hits
    finally:
        os.umask(old)
    try:
        assert _mode(data) == 0o700
        files = [p for p in data.rglob("*") if p.is_file()]
        names = {p.name for p in files}
        assert {"rlm.db", "rlm.db-wal", "rlm.db-shm", "meta.json", f"{sid}.jsonl"} <= names
        assert any(p.parent.parent.name == "blobs" for p in files)
        loose = {str(p.relative_to(data)): oct(_mode(p)) for p in files if _mode(p) & 0o077}
        assert loose == {}
        folders = [p for p in data.rglob("*") if p.is_dir()]
        assert all(_mode(p) & 0o077 == 0 for p in folders), [oct(_mode(p)) for p in folders]
    finally:
        store.close()


def test_an_existing_world_readable_store_is_tightened_on_open(tmp_path: Path) -> None:
    data = tmp_path / "data"
    Store(data).close()
    os.chmod(data, 0o755)
    os.chmod(data / "rlm.db", 0o644)
    (data / "traces").mkdir()
    (data / "traces" / "_global.jsonl").write_text("{}\n")
    os.chmod(data / "traces" / "_global.jsonl", 0o644)
    Store(data).close()
    assert _mode(data) == 0o700
    assert _mode(data / "rlm.db") == 0o600
    assert _mode(data / "traces" / "_global.jsonl") == 0o600


def test_orphan_blob_temp_files_are_removed_on_open_but_not_a_live_write(tmp_path: Path) -> None:
    data = tmp_path / "data"
    Store(data).close()
    shard = data / "blobs" / "ab"
    shard.mkdir()
    orphan = shard / ".tmp-killed"
    orphan.write_text("patient notes from a killed load")
    live = shard / ".tmp-writing"
    live.write_text("a write in progress in another process")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # what a live writer holds until its rename
    try:
        store = Store(data)
        store.close()
    finally:
        os.close(fd)
    assert not orphan.exists()
    assert live.exists()


# -- item 6: several processes ----------------------------------------------------------------


_FIRST_SEARCH = """
import json
from pathlib import Path
from rlm_recursive.store import Store
from rlm_recursive.tools.search import search_session
from rlm_recursive.errors import RlmError
store = Store(Path(sys.argv[1]))
try:
    hits, total, built, _ = search_session(store, sys.argv[2], "needle")
    print(json.dumps({"hits": len(hits)}))
except RlmError as exc:
    print(json.dumps(exc.to_dict()))
finally:
    store.close()
"""


def test_first_search_from_several_processes_at_once_all_succeed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = Store(data)
    sid = store.create_session("s", SessionConfig())["session_id"]
    texts = [f"passage {i} with a needle and plenty of other words " * 50 for i in range(40)]
    for text in texts:
        _add(store, sid, text)
    store.close()
    start = time.time() + 2.0
    procs = [_run_at(start, _FIRST_SEARCH, str(data), sid) for _ in range(5)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert results == [{"hits": 10}] * 5
    # Each document is in the index once, however many processes raced to build it.
    index = PassageIndex(index_folder(data / "indexes", sid))
    assert len(index.indexed_doc_ids()) == 40
    _, total = index.search("needle", limit=1)
    assert total == sum(len(split_passages(t)) for t in texts)
    index.close()


def test_index_busy_beyond_the_wait_is_a_retryable_conflict(tmp_path: Path) -> None:
    holder = PassageIndex(tmp_path / "idx")
    waiter = PassageIndex(tmp_path / "idx", lock_wait_s=0.3)
    with holder._process_lock():  # another process in the middle of a long index build
        began = time.monotonic()
        with pytest.raises(errors.RlmError) as caught:
            waiter.add_documents([("doc_a", "some text")])
        assert 0.3 <= time.monotonic() - began < 5
    assert caught.value.to_dict()["meta"] == {"error_code": "conflict", "retryable": True}
    assert isinstance(caught.value, errors.RunError)
    assert waiter.add_documents([("doc_a", "some text")]) == 1  # free again: it goes through


def test_serve_and_cli_loading_one_session_index_each_document_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    serve = Store(data)  # the long-running server
    sid = serve.create_session("s", SessionConfig())["session_id"]
    _add(serve, sid, "first document about apples", "a.txt")
    assert search_session(serve, sid, "apples")[1] == 1  # the server builds its index

    cli = Store(data)  # a CLI `load` then `search` into the same session
    _add(cli, sid, "second document about zucchini", "b.txt")
    assert search_session(cli, sid, "zucchini")[1] == 1
    cli.close()

    _add(serve, sid, "third document about zucchini bread", "c.txt")
    hits, total, _, _docs = search_session(serve, sid, "zucchini")
    assert total == 2
    assert len({h.doc_id for h in hits}) == len(hits) == 2
    serve.close()


_START_STORE = """
from pathlib import Path
from rlm_recursive.store import Store
Store(Path(sys.argv[1])).close()
"""


def test_many_processes_starting_on_a_fresh_data_dir_migrate_once(tmp_path: Path) -> None:
    failures = []
    for round_ in range(3):
        data = tmp_path / f"data{round_}"
        start = time.time() + 1.5
        procs = [_run_at(start, _START_STORE, str(data)) for _ in range(8)]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            if proc.returncode != 0:
                failures.append(err.strip().splitlines()[-1])
        store = Store(data)
        versions = store.db.execute("SELECT version FROM schema_migrations").fetchall()
        assert len(versions) == len({v[0] for v in versions})
        store.close()
    assert failures == []
