"""A load never opens the store's own files (issue 15, item 1).

Opening and closing `rlm.db`, `-wal` or `-shm` drops the POSIX locks SQLite holds on them in
that process, and a second process using the store then corrupts it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source, load_sources
from rlm_recursive.errors import PathDenied
from rlm_recursive.policy import PathPolicy
from rlm_recursive.store import Store

# Uses the store for `seconds` as a run of short CLI commands does: open, write, close.
_USER = """
import sys, time
from pathlib import Path
from rlm_recursive.config import SessionConfig
from rlm_recursive.store import Store
end = time.time() + float(sys.argv[2])
i = 0
while time.time() < end:
    store = Store(Path(sys.argv[1]))
    sid = store.create_session(None, SessionConfig())["session_id"]
    text = f"user document {i} " * 200
    store.add_document(sid, text.encode(), length_chars=len(text), source="u", source_type="inline")
    store.trace(sid, "op", {"i": i}, {"ok": True}, 1.0)
    store.close()
    i += 1
print(i)
"""

# Loads the folder that holds the data dir, again and again, into the same store.
_LOADER = """
import json, sys, time
from pathlib import Path
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source, load_sources
rt = Runtime(Path(sys.argv[1]), "unrestricted")
end = time.time() + float(sys.argv[2])
sources = set()
while time.time() < end:
    sid = rt.store.create_session(None, SessionConfig())["session_id"]
    report = load_sources(rt.store, sid, [Source(type="directory", path=".", recursive=True)],
                          rt.policy, SessionConfig())
    sources.update(d.source for d in report.loaded)
    sources.update(e["source"] for e in report.errors)
rt.close()
print(json.dumps(sorted(sources)))
"""


def _spawn(code: str, *args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


def test_loading_a_tree_holding_the_data_dir_while_another_process_writes(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    data = project / ".rlm"  # RLM_DATA_DIR=./.rlm inside a project
    project.mkdir()
    for i in range(5):
        (project / f"notes{i}.txt").write_text(f"project note {i}\n" * 50)
    Store(data).close()
    seconds = "6"
    user = _spawn(_USER, str(data), seconds, cwd=project)
    time.sleep(0.3)
    loader = _spawn(_LOADER, str(data), seconds, cwd=project)
    user_out, user_err = user.communicate(timeout=120)
    load_out, load_err = loader.communicate(timeout=120)
    assert user.returncode == 0, user_err[-2000:]
    assert loader.returncode == 0, load_err[-2000:]
    assert int(user_out) > 0
    conn = sqlite3.connect(data / "rlm.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    # Nothing under the data dir was read, or even reported: it is skipped silently.
    seen = json.loads(load_out)
    assert seen and all(Path(s).name.startswith("notes") for s in seen), seen


def test_data_dir_files_are_refused_under_any_name(tmp_path: Path, data_dir: Path) -> None:
    rt = Runtime(data_dir, "unrestricted")
    try:
        rt.store.create_session(None, SessionConfig())
        policy = rt.policy
        db = data_dir / "rlm.db"
        for name in ("rlm.db", "rlm.db-wal", "rlm.db-shm", "audit.jsonl"):
            if (data_dir / name).exists():
                with pytest.raises(PathDenied, match="data dir"):
                    policy.resolve(str(data_dir / name))
        with pytest.raises(PathDenied, match="data dir"):
            policy.resolve("data/rlm.db")  # relative, through the cwd
        with pytest.raises(PathDenied, match="data dir"):
            policy.resolve(str(data_dir), expect="dir")
        # A symlink to the data dir and a hard link to the database: same inode, other name.
        (tmp_path / "alias").symlink_to(data_dir, target_is_directory=True)
        with pytest.raises(PathDenied, match="data dir"):
            policy.resolve("alias/rlm.db")
        os.link(db, tmp_path / "innocent.txt")
        with pytest.raises(PathDenied, match="data dir"):
            policy.resolve("innocent.txt")
        # A glob that would reach it lists nothing from the store.
        sid = rt.store.create_session(None, SessionConfig())["session_id"]
        (tmp_path / "keep.txt").write_text("kept")
        report = load_sources(
            rt.store, sid, [Source(type="glob", path="**/*")], rt.policy, SessionConfig()
        )
        names = {Path(d.source).name for d in report.loaded}
        assert names == {"keep.txt"}
        assert all("data" not in Path(e["source"]).parts for e in report.errors), report.errors
    finally:
        rt.close()


def test_a_policy_built_without_the_data_dir_still_skips_it_when_loading(
    tmp_path: Path, data_dir: Path
) -> None:
    store = Store(data_dir)
    try:
        sid = store.create_session(None, SessionConfig())["session_id"]
        (tmp_path / "a.txt").write_text("a")
        policy = PathPolicy(allowed_roots=[tmp_path])  # knows nothing of the store
        report = load_sources(
            store, sid, [Source(type="directory", path=".", recursive=True)], policy,
            SessionConfig(),
        )
        assert [Path(d.source).name for d in report.loaded] == ["a.txt"]
        assert report.errors == []
    finally:
        store.close()
