"""Hostile-path fuzz over MCP in both profiles (issue 15, "Done when").

Generated paths mix `..`, odd encodings, absolute paths, symlinks out, symlink loops, hard
links, devices, a FIFO, the store's own files and denylisted names. Every file outside the
root, and every denylisted file, holds a sentinel; the test fails on any response, stored
document or loaded source that shows one, or a source outside the root or inside the data dir.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.store import Store

OUTSIDE = "OUTSIDE-SENTINEL-5521"
DENIED = "DENIED-SENTINEL-8830"
SENTINELS = (OUTSIDE, DENIED)
EXAMPLES_PER_PROFILE = 500  # two profiles: 1,000 generated paths over MCP in memory
STDIO_PATHS = 60  # replayed per profile through a real `serve` subprocess

_DENIED_FILES = (".env", ".env.local", "id_rsa", "server.key", "creds.p12", ".netrc", ".pgpass",
                 ".git-credentials", ".aws/credentials", ".kube/config",
                 ".config/gcloud/adc.json", ".ssh/id_ed25519", "api_token.txt")


def _build_tree(root: Path, outside: Path) -> None:
    """The root (server cwd, also $HOME) and an outside folder, with every trap planted."""
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "notes.txt").write_text("inside notes\n")
    (root / "x[1].txt").write_text("bracketed\n")
    (root / "sub" / "inner.txt").write_text("inner\n")
    (root / "sub" / "deep" / "d.md").write_text("deep\n")
    (root / "ünï cödé.txt").write_text("unicode name\n")
    for rel in _DENIED_FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{DENIED} {rel}\n")
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{OUTSIDE}\n")
    (outside / "id_rsa").write_text(f"{OUTSIDE} {DENIED}\n")
    (root / "escape.txt").symlink_to(outside / "secret.txt")
    (root / "escape_dir").symlink_to(outside, target_is_directory=True)
    (root / "rel_escape").symlink_to(Path("..") / outside.name / "secret.txt")
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    (root / "self").symlink_to(root, target_is_directory=True)
    (root / "sub" / "up").symlink_to("..", target_is_directory=True)
    (root / "zero").symlink_to("/dev/zero")
    (root / "etc_link").symlink_to("/etc", target_is_directory=True)
    (root / "data_link").symlink_to(root / "data", target_is_directory=True)
    os.mkfifo(root / "fifo")
    os.link(root / ".env", root / "hl_env.txt")  # another name of a secret
    os.link(root / ".ssh" / "id_ed25519", root / "sub" / "hl_key.txt")
    os.link(outside / "id_rsa", root / "hl_out.txt")
    os.link(root / "notes.txt", root / "hl_notes.txt")  # ordinary, refused in restricted only


_SEGMENTS = st.sampled_from([
    "notes.txt", "x[1].txt", "sub", "deep", "inner.txt", "d.md", "ünï cödé.txt", "..", ".", "",
    "escape.txt", "escape_dir", "secret.txt", "rel_escape", "loop_a", "loop_b", "self", "up",
    "zero", "fifo", "etc_link", "shadow", "passwd", "hosts", "data", "data_link", "rlm.db",
    "rlm.db-wal", "rlm.db-shm", "audit.jsonl", "blobs", "hl_env.txt", "hl_key.txt",
    "hl_out.txt", "hl_notes.txt", ".ssh", "id_ed25519", ".aws", "credentials", ".kube",
    "config", ".config", "gcloud", ".env", ".env.local", "id_rsa", "server.key", "creds.p12",
    ".netrc", ".pgpass", ".git-credentials", "api_token.txt", "*", "**", "*.txt", "?otes.txt",
    "[!a]*", "%2e%2e", "..%2f..", "%2fetc", "．．", "..\\..", "\u2024\u2024", "\x00", "\n",
    "\u202e", "con", "~", "~root", "$HOME", "\\", "a" * 300,
])


# The traps again, so each is drawn often enough among the plain names.
_TRAPS = st.sampled_from([
    "loop_a", "loop_b", "self", "hl_env.txt", "hl_out.txt", "hl_notes.txt", "sub/hl_key.txt",
    "zero", "fifo", "data", "data/rlm.db", "data_link", "escape_dir", ".env.local",
])


@st.composite
def hostile_paths(draw: st.DrawFn, outside_name: str, root: str, outside: str) -> str:
    prefix = draw(st.sampled_from([
        "", "", "", "/", "./", "../", f"../{outside_name}/", f"{root}/", f"{outside}/", "/etc/",
        "/dev/", "/proc/self/root/", "/proc/self/cwd/", "~/", "//", "/root/", "/tmp/../",
    ]))
    segments = draw(st.lists(
        st.one_of(_SEGMENTS, _SEGMENTS, _TRAPS, st.text(min_size=1, max_size=8).filter(
            lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))),
        min_size=1, max_size=5,
    ))
    return prefix + draw(st.sampled_from(["/", "//", "/./"])).join(segments)


# What each generated path exercises, by the names it uses: every kind must be covered.
_CATEGORIES = {
    "dotdot": ("..",),
    "encoding": ("%2", "\uff0e", "\u2024", "\\", "\x00", "\n", "\u202e", "\u00fc"),
    "absolute": ("/",),
    "symlink": ("escape", "rel_escape", "etc_link", "data_link", "self", "up"),
    "symlink_loop": ("loop_a", "loop_b"),
    "hard_link": ("hl_",),
    "device_or_fifo": ("zero", "fifo", "/dev/"),
    "denylisted": (".env", "id_rsa", ".key", ".p12", ".netrc", ".pgpass", "credentials",
                   ".kube", "gcloud", ".ssh", "token", "shadow"),
    "store_files": ("rlm.db", "data", "audit.jsonl", "blobs"),
}


def _categories(path: str) -> set[str]:
    found = {name for name, marks in _CATEGORIES.items() if any(m in path for m in marks)}
    if not path.startswith(("/", "~")):
        found.discard("absolute")
    return found


def _catalog():
    catalog = load_catalog()
    catalog.models["scripted"] = ModelInfo(
        name="scripted", provider="fake", tools=False, params_b=0.1, num_ctx=8192
    )
    catalog.presets["scripted"] = Preset(tiers=[TierSpec(model="scripted")])
    return catalog


class _Checker:
    """Counts outcomes and records every leak."""

    def __init__(self, root: Path, data: Path) -> None:
        self.root, self.data = root.resolve(), data.resolve()
        self.counts: Counter[str] = Counter()
        self.leaks: list[str] = []

    def response(self, label: str, text: str) -> None:
        self.counts["calls"] += 1
        if any(s in text for s in SENTINELS):
            self.leaks.append(f"{label}: sentinel in response {text[:300]!r}")

    def loaded(self, label: str, body: dict[str, Any]) -> None:
        for doc in body.get("loaded", []):
            self.counts["documents_read"] += 1
            source = Path(doc["source"])
            if not source.is_relative_to(self.root) or source.is_relative_to(self.data):
                self.leaks.append(f"{label}: read {source}")
        self.counts["refusals"] += len(body.get("errors", []))

    def store(self, data: Path) -> None:
        store = Store(data)
        try:
            for session in store.list_sessions():
                for doc in store.documents(session["id"]):
                    if any(s in store.text(doc) for s in SENTINELS):
                        self.leaks.append(f"stored document {doc.source} holds a sentinel")
        finally:
            store.close()
        conn = sqlite3.connect(data / "rlm.db")
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            conn.close()


def _args_for(kind: str, sid: str, path: str) -> tuple[str, dict[str, Any]]:
    if kind == "query":
        return "rlm_query", {"task": "what is in it?", "path": path, "preset": "scripted"}
    source: dict[str, Any] = {"type": kind, "path": path}
    if kind == "directory":
        source["recursive"] = True
    return "rlm_docs_load", {"session_id": sid, "sources": [source]}


@pytest.fixture
def tree(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("HOME", str(tmp_path))  # Claude Code started in $HOME
    Store(data_dir).close()  # the data dir lives inside the root: a load of `.` reaches it
    _build_tree(tmp_path, tmp_path.parent / f"{tmp_path.name}-outside")
    yield tmp_path


def test_hostile_paths_over_mcp_read_nothing_outside_the_roots(tree: Path, data_dir: Path):
    checker = _Checker(tree, data_dir)
    tried: dict[str, list[tuple[str, str]]] = {}
    began = time.monotonic()
    for profile in ("unrestricted", "restricted"):
        tried[profile] = _fuzz_in_memory(profile, tree, data_dir, checker)
    checker.store(data_dir)
    total = sum(len(v) for v in tried.values())
    covered = Counter(c for paths in tried.values() for _, p in paths for c in _categories(p))
    print(f"\nfuzz coverage: {dict(covered)}")
    assert all(covered[name] >= 50 for name in _CATEGORIES), covered
    print(f"\nfuzz: {total} paths over MCP in {time.monotonic() - began:.1f}s; "
          f"{dict(checker.counts)}; leaks={len(checker.leaks)}")
    assert total >= 2 * EXAMPLES_PER_PROFILE
    assert checker.leaks == []
    assert checker.counts["documents_read"] > 0  # the fuzz did reach allowed files
    # A subset again, through a real stdio server process per profile.
    for profile in ("unrestricted", "restricted"):
        subset = tried[profile][:: max(1, len(tried[profile]) // STDIO_PATHS)][:STDIO_PATHS]
        anyio.run(_replay_over_stdio, tree, data_dir, profile, subset, checker)
    checker.store(data_dir)
    print(f"fuzz: after stdio {dict(checker.counts)}; leaks={len(checker.leaks)}")
    assert checker.leaks == []


def _fuzz_in_memory(
    profile: str, root: Path, data: Path, checker: _Checker
) -> list[tuple[str, str]]:
    """Generated paths against the real server in memory; returns (kind, path) tried."""
    outside = root.parent / f"{root.name}-outside"
    runtime = Runtime(data, profile, catalog=_catalog())
    fake = FakeProvider(script=lambda request: reply("ok", model=request.model))
    server = build_server(runtime, providers=ProviderPool({"fake": fake}))
    tried: list[tuple[str, str]] = []
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        Client(server)
    ) as session:
        created = portal.call(session.call_tool, "rlm_session_create", {})
        sid = json.loads(created.content[0].text)["session_id"]

        @settings(max_examples=EXAMPLES_PER_PROFILE, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        # An allowed file is always tried too: "the fuzz reached an allowed file" then checks
        # the policy, not the luck of the draw (one draw's 162 accepted loads read none).
        @example(path=str(root / "notes.txt"), kind="file")
        @given(
            path=hostile_paths(outside.name, str(root), str(outside)),
            kind=st.sampled_from(["file", "file", "directory", "glob", "query"]),
        )
        def one(path: str, kind: str) -> None:
            tried.append((kind, path))
            name, args = _args_for(kind, sid, path)
            result = portal.call(session.call_tool, name, args)
            text = result.content[0].text
            label = f"{profile} {kind} {path!r}"
            checker.response(label, text)
            if name == "rlm_docs_load" and not result.is_error:
                checker.loaded(label, json.loads(text))

        one()
    # What a model provider would receive: the prompts of every rlm_query run.
    for request in fake.requests:
        checker.response(
            f"{profile} model prompt",
            json.dumps([m.content for m in request.messages], default=str),
        )
    runtime.close()
    return tried


async def _replay_over_stdio(
    root: Path, data: Path, profile: str, paths: list[tuple[str, str]], checker: _Checker
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rlm_recursive", "--data-dir", str(data), "--profile", profile, "serve"],
        cwd=str(root),
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    with anyio.fail_after(120):
        async with Client(params, read_timeout_seconds=60) as client:
            created = await client.call_tool("rlm_session_create", {})
            sid = json.loads(created.content[0].text)["session_id"]
            for kind, path in paths:
                if kind == "query":
                    kind = "file"  # no model in the subprocess: the same read, through a load
                name, args = _args_for(kind, sid, path)
                result = await client.call_tool(name, args)
                label = f"stdio {profile} {kind} {path!r}"
                checker.response(label, result.content[0].text)
                if not result.is_error:
                    checker.loaded(label, json.loads(result.content[0].text))
                checker.counts["stdio_paths"] += 1
