"""Confinement in every profile over MCP, secrets denylist, hard links, globs (issue 15, item 3)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from mcp import Client

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source, load_sources
from rlm_recursive.errors import PathDenied
from rlm_recursive.mcp_server import build_server
from rlm_recursive.policy import PathPolicy, load_profile

SECRET = "OUTSIDE-SECRET-4471"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home folder with the usual user secrets."""
    folder = tmp_path / "home"
    for rel in (".ssh/id_ed25519", ".ssh/config", ".netrc", ".pgpass", ".git-credentials",
                ".aws/credentials", ".config/gcloud/credentials.db", ".kube/config"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(f"{SECRET} {rel}\n")
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The cwd (tmp_path) holds the project; `outside` is next to it."""
    (tmp_path / "notes.txt").write_text("inside note\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    (tmp_path / "escape.txt").symlink_to(outside / "secret.txt")
    (tmp_path / "escape_dir").symlink_to(outside, target_is_directory=True)
    return tmp_path


def _text(result: Any) -> str:
    return result.content[0].text


async def _load(client: Client, sid: str, **source: Any) -> dict[str, Any]:
    result = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [source]})
    return json.loads(_text(result))


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
async def test_mcp_confines_paths_to_the_roots_in_every_profile(
    profile: str, project: Path, data_dir: Path
) -> None:
    outside = project.parent / f"{project.name}-outside"
    rt = Runtime(data_dir, profile)
    try:
        async with Client(build_server(rt)) as client:
            sid = json.loads(_text(await client.call_tool("rlm_session_create", {})))["session_id"]
            good = await _load(client, sid, type="file", path="notes.txt")
            assert len(good["loaded"]) == 1
            for path in (f"../{outside.name}/secret.txt", "escape.txt", "escape_dir/secret.txt",
                         str(outside / "secret.txt"), "/etc/passwd"):
                out = await _load(client, sid, type="file", path=path)
                assert out["loaded"] == [], (path, out)
                assert out["errors"][0]["error_code"] == "path_denied", (path, out)
            result = await client.call_tool(
                "rlm_query", {"task": "t", "path": str(outside / "secret.txt")}
            )
            assert result.is_error and "path_denied" in _text(result)
            assert SECRET not in _text(result)
        # An absolute path inside the roots: allowed where the profile allows absolutes.
        inside = str(project / "notes.txt")
        if profile == "unrestricted":
            assert rt.policy.resolve(inside) == project / "notes.txt"
        else:
            with pytest.raises(PathDenied, match="absolute"):
                rt.policy.resolve(inside)
    finally:
        rt.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
async def test_http_transport_confines_paths_in_every_profile(
    profile: str, project: Path, data_dir: Path
) -> None:
    """The same server over real streamable HTTP (uvicorn on 127.0.0.1)."""
    outside = project.parent / f"{project.name}-outside"
    os.link(outside / "secret.txt", project / "linked.txt")
    rt = Runtime(data_dir, profile)
    port = _free_port()
    app = build_server(rt).streamable_http_app(streamable_http_path="/mcp")
    http = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    try:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(http.serve)
                while not http.started:
                    await anyio.sleep(0.05)
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    created = await client.call_tool("rlm_session_create", {})
                    sid = json.loads(_text(created))["session_id"]
                    assert len((await _load(client, sid, type="file", path="notes.txt"))[
                        "loaded"]) == 1
                    for path in (f"../{outside.name}/secret.txt", "escape.txt", "linked.txt",
                                 str(outside / "secret.txt"), "/etc/passwd", "data/rlm.db"):
                        out = await _load(client, sid, type="file", path=path)
                        assert out["loaded"] == [], (path, out)
                        assert out["errors"][0]["error_code"] == "path_denied", (path, out)
                        assert SECRET not in json.dumps(out)
                http.should_exit = True
    finally:
        rt.close()


def test_the_cli_operator_may_read_anywhere_in_unrestricted(project: Path, data_dir: Path):
    outside = project.parent / f"{project.name}-outside"
    rt = Runtime(data_dir, "unrestricted")  # the CLI never calls confine()
    try:
        assert rt.policy.read_bytes(rt.policy.resolve(str(outside / "secret.txt"))).startswith(
            SECRET.encode()
        )
    finally:
        rt.close()


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
@pytest.mark.parametrize("confined", [False, True])
def test_system_and_user_secrets_are_denied_in_every_profile(
    profile: str, confined: bool, home: Path, tmp_path: Path
) -> None:
    base = load_profile(profile, None, cwd=home, env={})
    policy = (
        PathPolicy.from_profile(base, confined=True) if confined else PathPolicy.from_profile(base)
    )
    rels = [".ssh/id_ed25519", ".ssh/config", ".netrc", ".pgpass", ".git-credentials",
            ".aws/credentials", ".config/gcloud/credentials.db", ".kube/config"]
    for rel in rels:
        with pytest.raises(PathDenied, match="denylist"):
            policy.resolve(rel)  # relative to the cwd: Claude Code started in $HOME
    for name in ("server.key", "cert.p12", ".env.production", ".env.local"):
        (home / name).write_text(SECRET)
        with pytest.raises(PathDenied, match="denylist"):
            policy.resolve(name)
    if profile == "unrestricted" and not confined:
        for system in ("/etc/shadow", "/etc/gshadow", "/etc/sudoers"):
            if os.path.lexists(system):
                with pytest.raises(PathDenied, match="denylist"):
                    policy.resolve(system)
    # The operator cannot empty these away.
    emptied = load_profile(profile, {"denylist": []}, cwd=home, env={})
    with pytest.raises(PathDenied, match="denylist"):
        PathPolicy.from_profile(emptied).resolve(".netrc")


def test_restricted_refuses_hard_links_on_the_opened_file(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("plain")
    (tmp_path / "linked.txt").write_text("linked")
    os.link(tmp_path / "linked.txt", tmp_path.parent / f"{tmp_path.name}-other-name")
    restricted = PathPolicy.from_profile(load_profile("restricted", None, cwd=tmp_path, env={}))
    assert restricted.read_bytes(restricted.resolve("plain.txt")) == b"plain"
    with pytest.raises(PathDenied, match="hard link"):
        restricted.resolve("linked.txt")
    # Linked after the check, before the read: fstat on the opened descriptor still sees it.
    canon = restricted.resolve("plain.txt")
    os.link(canon, tmp_path / "second-name.txt")
    with pytest.raises(PathDenied, match="hard link"):
        restricted.read_bytes(canon)
    # allow_hardlinks = true opts out.
    opted = load_profile("restricted", {"allow_hardlinks": True}, cwd=tmp_path, env={})
    assert PathPolicy.from_profile(opted).read_bytes("linked.txt") == b"linked"


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
def test_a_hard_link_to_a_secret_is_refused_in_every_profile(
    profile: str, home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".env").write_text(f"API_KEY={SECRET}")
    os.link(root / ".env", root / "innocent.txt")
    os.link(home / ".ssh" / "id_ed25519", root / "readme.md")
    (root / "ordinary.txt").write_text("ordinary")
    os.link(root / "ordinary.txt", root / "ordinary-copy.txt")
    policy = PathPolicy.from_profile(load_profile(profile, None, cwd=root, env={}))
    for name in ("innocent.txt", "readme.md"):
        with pytest.raises(PathDenied):
            policy.read_bytes(policy.resolve(name))
    if profile == "unrestricted":  # hard links are allowed there, just not to secrets
        assert policy.read_bytes(policy.resolve("ordinary-copy.txt")) == b"ordinary"


def _load_in_thread(rt: Runtime, sid: str, source: Source, timeout: float = 20.0):
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["report"] = load_sources(rt.store, sid, [source], rt.policy, SessionConfig())
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    began = time.monotonic()
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the glob did not finish"
    box["seconds"] = time.monotonic() - began
    return box


def test_glob_over_symlink_loops_is_bounded(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("x")
    for i in range(4):  # each folder links back to the top and to every other: exponential
        (tmp_path / "a" / f"loop{i}").symlink_to(tmp_path, target_is_directory=True)
    rt = Runtime(data_dir, "unrestricted")
    try:
        sid = rt.store.create_session(None, SessionConfig())["session_id"]
        box = _load_in_thread(rt, sid, Source(type="glob", path="**/*.txt"))
        report = box["report"]
        assert box["seconds"] < 10
        assert [Path(d.source).name for d in report.loaded] == ["x.txt"]  # once, no duplicates
    finally:
        rt.close()


def test_glob_duplicates_through_an_alias_folder_are_loaded_once(tmp_path, data_dir):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "alias").symlink_to(tmp_path / "docs", target_is_directory=True)
    rt = Runtime(data_dir, "restricted")
    try:
        sid = rt.store.create_session(None, SessionConfig())["session_id"]
        report = load_sources(
            rt.store, sid, [Source(type="glob", path="*/*.md")], rt.policy, SessionConfig()
        )
        assert [Path(d.source).name for d in report.loaded] == ["a.md"]
    finally:
        rt.close()


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
async def test_a_glob_outside_the_roots_lists_no_names(profile, project, data_dir):
    outside = project.parent / f"{project.name}-outside"
    (outside / "hidden-name-7781.txt").write_text("x")
    rt = Runtime(data_dir, profile)
    try:
        async with Client(build_server(rt)) as client:
            sid = json.loads(_text(await client.call_tool("rlm_session_create", {})))["session_id"]
            for pattern in (f"{outside}/*", f"../{outside.name}/*", "escape_dir/*", "/etc/*"):
                out = await _load(client, sid, type="glob", path=pattern)
                assert out["loaded"] == [], (pattern, out)
                text = json.dumps(out)
                assert "hidden-name-7781" not in text and "secret.txt" not in text, text
                assert "passwd" not in text, text
    finally:
        rt.close()


def test_a_name_with_glob_characters_loads_that_file(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "x[1].txt").write_text("the bracketed one")
    (tmp_path / "x1.txt").write_text("the wrong one")
    rt = Runtime(data_dir, "unrestricted")
    try:
        sid = rt.store.create_session(None, SessionConfig())["session_id"]
        report = load_sources(
            rt.store, sid, [Source(type="glob", path="x[1].txt")], rt.policy, SessionConfig()
        )
        assert [Path(d.source).name for d in report.loaded] == ["x[1].txt"]
        assert rt.store.text(report.loaded[0]) == "the bracketed one"
        # Still a pattern when no such file exists.
        report = load_sources(
            rt.store, sid, [Source(type="glob", path="x[0-9].txt")], rt.policy, SessionConfig()
        )
        assert [Path(d.source).name for d in report.loaded] == ["x1.txt"]
    finally:
        rt.close()


def test_a_walk_past_its_bound_stops_with_an_error(tmp_path: Path, data_dir: Path) -> None:
    for i in range(30):
        (tmp_path / "many" / f"d{i}").mkdir(parents=True)
        (tmp_path / "many" / f"d{i}" / "f.txt").write_text("x")
    rt = Runtime(data_dir, "restricted")
    rt.policy.max_walk_entries = 20
    try:
        sid = rt.store.create_session(None, SessionConfig())["session_id"]
        for source in (Source(type="glob", path="many/**/*.md"),
                       Source(type="directory", path="many", recursive=True)):
            report = load_sources(rt.store, sid, [source], rt.policy, SessionConfig())
            assert [e["error_code"] for e in report.errors][-1:] == ["path_denied"], report.errors
            assert "stopped after 20 entries" in report.errors[-1]["message"]
    finally:
        rt.close()
