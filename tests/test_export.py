"""rlm_export_github on real git repositories in a temp dir: layout, safety, idempotence."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import error_code, ok

from rlm_recursive.agent.runtime import Runtime

BRANCH = re.compile(r"^rlm/session/(\d{8}T\d{6}Z)-([0-9a-f]{8})$")
DOC = "Pump room log.\nValve 7 opened at 06:10.\nValve 7 closed at 06:40.\n"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.invalid")
    (path / "README.md").write_text("project\n")
    (path / "src.py").write_text("print(1)\n")
    git(path, "add", "README.md", "src.py")
    git(path, "commit", "-q", "-m", "initial")
    return path


def snapshot(repo: Path) -> dict[str, Any]:
    """Everything the user could notice: status, HEAD, index bytes, work tree files, refs."""
    files = {str(p.relative_to(repo)): p.read_bytes() for p in sorted(repo.rglob("*"))
             if p.is_file() and ".git" not in p.relative_to(repo).parts}
    return {"status": git(repo, "status", "--porcelain=v1", "--untracked-files=all"),
            "head": git(repo, "rev-parse", "HEAD"),
            "head_ref": git(repo, "symbolic-ref", "HEAD"),
            "main": git(repo, "rev-parse", "refs/heads/main"),
            "index": hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest(),
            "files": files}


def tree_files(repo: Path, ref: str) -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", ref).splitlines()


def show(repo: Path, ref: str, path: str) -> str:
    return git(repo, "show", f"{ref}:{path}")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
async def filled(runtime: Runtime, session: str, write) -> dict[str, Any]:
    """A session with one document, a span-anchored artifact and a session-level one."""
    write("docs/pump.log", DOC)
    loaded = ok(await runtime.call("rlm_docs_load", {
        "session_id": session, "sources": [{"type": "file", "path": "docs/pump.log"}]}))
    doc_id = loaded["loaded"][0]["doc_id"]
    span_art = ok(await runtime.call("rlm_artifact_store", {
        "session_id": session, "type": "extraction", "content": {"valve": 7},
        "doc_id": doc_id, "start": 15, "end": 40}))
    free_art = ok(await runtime.call("rlm_artifact_store", {
        "session_id": session, "type": "summary", "content": "Valve 7 was open 30 minutes."}))
    return {"session_id": session, "doc_id": doc_id,
            "artifacts": [span_art["artifact_id"], free_art["artifact_id"]]}


async def export(runtime: Runtime, session_id: str, repo: Path, **args: Any):
    return await runtime.call("rlm_export_github",
                              {"session_id": session_id, "repo": str(repo), **args})


async def test_branch_name_and_layout(runtime, repo, filled):
    main_before = git(repo, "rev-parse", "main")
    out = ok(await export(runtime, filled["session_id"], repo))
    match = BRANCH.match(out["branch"])
    assert match, out["branch"]
    stamp, short = match.groups()
    assert short == filled["session_id"].split("_", 1)[1][:8]
    assert out["export_path"] == f".rlm/sessions/{stamp}_{short}"
    prefix = out["export_path"]
    art_a, art_b = filled["artifacts"]
    assert sorted(tree_files(repo, out["branch"])) == sorted([
        "README.md", "src.py", f"{prefix}/manifest.json", f"{prefix}/artifacts/{art_a}.json",
        f"{prefix}/artifacts/{art_b}.json", f"{prefix}/traces/trace.jsonl"])
    assert out["files_exported"] == 4 and out["secrets_found"] == 0
    assert git(repo, "rev-parse", out["branch"]) == out["commit_sha"]
    # Created from the default branch: main's tip is the parent, and main did not move.
    assert git(repo, "rev-parse", f"{out['commit_sha']}^") == main_before
    assert git(repo, "rev-parse", "main") == main_before

    manifest = json.loads(show(repo, out["branch"], f"{prefix}/manifest.json"))
    assert manifest["session"]["session_id"] == filled["session_id"]
    assert manifest["session"]["config"]["max_tool_calls"] == 500
    [doc] = manifest["documents"]
    assert doc["doc_id"] == filled["doc_id"]
    assert doc["content_hash"] == hashlib.sha256(DOC.encode()).hexdigest()
    assert [a["artifact_id"] for a in manifest["artifacts"]] == filled["artifacts"]
    assert manifest["export"]["branch"] == out["branch"]
    assert manifest["export"]["include_docs"] is False
    span_art = json.loads(show(repo, out["branch"], f"{prefix}/artifacts/{art_a}.json"))
    assert span_art["content"] == {"valve": 7}
    assert span_art["span"]["doc_id"] == filled["doc_id"]
    assert span_art["span"]["content_hash"] == hashlib.sha256(DOC[15:40].encode()).hexdigest()
    ops = [json.loads(line)["op"]
           for line in show(repo, out["branch"], f"{prefix}/traces/trace.jsonl").splitlines()]
    assert ops[:3] == ["rlm_session_create", "rlm_docs_load", "rlm_artifact_store"]
    assert "rlm_export_github" not in ops
    info = ok(await runtime.call("rlm_session_info", {"session_id": filled["session_id"]}))
    assert info["status"] == "exported"


async def test_main_working_tree_and_index_are_untouched(runtime, repo, filled):
    # A dirty checkout: a staged change, an unstaged change and an untracked file.
    (repo / "README.md").write_text("project\nstaged\n")
    git(repo, "add", "README.md")
    (repo / "src.py").write_text("print(2)\n")
    (repo / "notes.txt").write_text("untracked\n")
    before = snapshot(repo)
    assert before["status"]  # really dirty
    out = ok(await export(runtime, filled["session_id"], repo, include_docs=True))
    assert snapshot(repo) == before
    assert not (repo / ".rlm").exists()
    # The export commit has main's committed files, not the user's uncommitted edits.
    assert show(repo, out["branch"], "README.md") == "project"
    assert show(repo, out["branch"], "src.py") == "print(1)"


async def test_reexport_is_idempotent_and_updates_the_same_branch(runtime, repo, filled):
    sid = filled["session_id"]
    first = ok(await export(runtime, sid, repo))
    again = ok(await export(runtime, sid, repo))
    assert again["commit_sha"] == first["commit_sha"] and again["unchanged"] is True
    assert (again["branch"], again["export_path"]) == (first["branch"], first["export_path"])
    assert git(repo, "rev-list", "--count", first["branch"]) == "2"
    # A change to the session: one new commit on the same branch, same folder.
    new = ok(await runtime.call("rlm_artifact_store", {
        "session_id": sid, "type": "summary", "content": "second thoughts"}))
    third = ok(await export(runtime, sid, repo))
    assert third["branch"] == first["branch"] and third["export_path"] == first["export_path"]
    assert third["commit_sha"] != first["commit_sha"] and third["unchanged"] is False
    assert git(repo, "rev-parse", f"{third['commit_sha']}^") == first["commit_sha"]
    assert f"{first['export_path']}/artifacts/{new['artifact_id']}.json" in tree_files(
        repo, third["branch"])
    assert len(git(repo, "branch", "--list", "rlm/*").splitlines()) == 1


async def test_documents_are_exported_only_with_include_docs(runtime, repo, filled):
    out = ok(await export(runtime, filled["session_id"], repo))
    assert not [f for f in tree_files(repo, out["branch"]) if "/docs/" in f]
    assert DOC.splitlines()[1] not in "".join(
        show(repo, out["branch"], f) for f in tree_files(repo, out["branch"]))
    with_docs = ok(await export(runtime, filled["session_id"], repo, include_docs=True))
    prefix, doc_id = with_docs["export_path"], filled["doc_id"]
    assert with_docs["branch"] == out["branch"] and with_docs["files_exported"] == 6
    raw = git(repo, "cat-file", "blob", f"{with_docs['branch']}:{prefix}/docs/{doc_id}.txt")
    assert raw + "\n" == DOC
    meta = json.loads(show(repo, with_docs["branch"], f"{prefix}/docs/{doc_id}.meta.json"))
    assert meta["content_hash"] == hashlib.sha256(DOC.encode()).hexdigest()
    assert any("include_docs" in w for w in with_docs["warnings"])
    # Turning include_docs off again removes the documents from the branch.
    without = ok(await export(runtime, filled["session_id"], repo))
    assert without["commit_sha"] != with_docs["commit_sha"]
    assert not [f for f in tree_files(repo, without["branch"]) if "/docs/" in f]
    assert git(repo, "rev-parse", f"{without['branch']}^{{tree}}") == git(
        repo, "rev-parse", f"{out['commit_sha']}^{{tree}}")


async def test_explicit_branch_and_path(runtime, repo, filled):
    out = ok(await export(runtime, filled["session_id"], repo, branch="review/pumps",
                          path="exports/pumps"))
    assert out["branch"] == "review/pumps" and out["export_path"] == "exports/pumps"
    assert "exports/pumps/manifest.json" in tree_files(repo, "review/pumps")


@pytest.mark.parametrize("branch", ["main", "master-copy..bad", "-x"])
async def test_refuses_main_and_invalid_branches(runtime, repo, filled, branch):
    before = snapshot(repo)
    result = await export(runtime, filled["session_id"], repo, branch=branch)
    assert error_code(result) == "git_error"
    assert snapshot(repo) == before


async def test_refuses_the_checked_out_branch(runtime, repo, filled):
    git(repo, "checkout", "-q", "-b", "rlm/mine")
    result = await export(runtime, filled["session_id"], repo, branch="rlm/mine")
    assert error_code(result) == "git_error" and "checked out" in result.output["error"]


@pytest.mark.parametrize("path", ["../outside", ".git/hooks", "/abs/x", "a/../../b"])
async def test_refuses_unsafe_export_paths(runtime, repo, filled, path):
    result = await export(runtime, filled["session_id"], repo, path=path)
    assert error_code(result) == "invalid_args"


async def test_missing_git_is_a_clear_coded_error(runtime, repo, filled, tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = await export(runtime, filled["session_id"], repo)
    assert error_code(result) == "git_error"
    assert "git is not installed" in result.output["error"]
    assert result.output["meta"]["details"]["reason"] == "git_not_found"


async def test_not_a_repository(runtime, filled, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    result = await export(runtime, filled["session_id"], plain)
    assert error_code(result) == "git_error"
    assert result.output["meta"]["details"]["reason"] == "not_a_repository"


async def test_repository_without_commits_gets_a_root_commit(runtime, tmp_path, filled):
    empty = tmp_path / "fresh"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    out = ok(await export(runtime, filled["session_id"], empty))
    assert git(empty, "rev-list", "--count", out["branch"]) == "1"
    assert subprocess.run(["git", "-C", str(empty), "rev-parse", "--verify", "-q", "main"],
                          capture_output=True).returncode != 0  # main still unborn


# -- push ------------------------------------------------------------------------------------


def _bare(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "--bare")
    return path


async def test_restricted_profile_never_pushes(data_dir, tmp_path, monkeypatch):
    make_repo(tmp_path / "work")
    remote = _bare(tmp_path / "remotes" / "acme" / "widgets.git")
    git(tmp_path / "work", "remote", "add", "origin", str(remote))
    rt = Runtime(data_dir, "restricted")
    try:
        sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
        result = await rt.call("rlm_export_github",
                               {"session_id": sid, "repo": "work", "push": True})
        assert error_code(result) == "egress_denied"
        assert git(remote, "for-each-ref") == ""
        # Without push the restricted profile exports locally (relative paths only).
        assert ok(await rt.call("rlm_export_github", {"session_id": sid, "repo": "work"}))
    finally:
        rt.close()


async def test_push_to_configured_remote_by_path_and_by_owner_repo(data_dir, tmp_path,
                                                                   monkeypatch):
    work = make_repo(tmp_path / "work")
    remote = _bare(tmp_path / "remotes" / "acme" / "widgets.git")
    git(work, "remote", "add", "upstream", str(remote))
    monkeypatch.chdir(work)  # a remote spec names a remote of the repository we are in
    rt = Runtime(data_dir, "unrestricted")
    try:
        sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
        no_push = await rt.call("rlm_export_github", {"session_id": sid, "repo": "acme/widgets"})
        assert error_code(no_push) == "git_error"
        unknown = await rt.call("rlm_export_github",
                                {"session_id": sid, "repo": "acme/other", "push": True})
        assert error_code(unknown) == "git_error"
        out = ok(await rt.call("rlm_export_github",
                               {"session_id": sid, "repo": "acme/widgets", "push": True}))
        assert out["pushed_to"] == "upstream"
        assert git(remote, "rev-parse", out["branch"]) == out["commit_sha"]
        assert git(remote, "for-each-ref", "--format=%(refname)") == f"refs/heads/{out['branch']}"
        # A local path with push needs a remote named origin.
        local = await rt.call("rlm_export_github",
                              {"session_id": sid, "repo": str(work), "push": True})
        assert error_code(local) == "git_error"
    finally:
        rt.close()


# -- CLI -------------------------------------------------------------------------------------


def test_cli_export(repo, data_dir):
    import asyncio

    from typer.testing import CliRunner

    from rlm_recursive.cli.app import app

    async def setup() -> str:
        rt = Runtime(data_dir, "unrestricted")
        try:
            sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
            ok(await rt.call("rlm_artifact_store", {"session_id": sid, "content": "a note"}))
            return sid
        finally:
            rt.close()

    sid = asyncio.run(setup())
    runner = CliRunner()
    result = runner.invoke(app, ["--data-dir", str(data_dir), "export", sid, "--repo",
                                 str(repo), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert BRANCH.match(out["branch"]) and out["files_exported"] == 3
    plain = runner.invoke(app, ["--data-dir", str(data_dir), "export", sid, "--repo", str(repo)])
    assert plain.exit_code == 0 and "unchanged" in plain.stdout
    refused = runner.invoke(app, ["--data-dir", str(data_dir), "export", sid, "--repo",
                                  str(repo), "--branch", "main"])
    assert refused.exit_code == 1 and "error[git_error]" in refused.stderr


# -- MCP -------------------------------------------------------------------------------------


async def test_export_over_mcp(runtime, repo, filled):
    from mcp import Client

    from rlm_recursive.mcp_server import build_server

    args = {"session_id": filled["session_id"], "repo": str(repo)}
    async with Client(build_server(runtime)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        schema = listed["rlm_export_github"].input_schema
        assert schema["required"] == ["session_id", "repo"]
        assert schema["properties"]["include_docs"]["default"] is False
        first = await client.call_tool("rlm_export_github", args)
        bad = await client.call_tool("rlm_export_github", {**args, "branch": "main"})
    assert not first.is_error
    out = first.structured_content
    assert set(out) >= {"branch", "commit_sha", "export_path", "files_exported", "warnings",
                        "secrets_found"}
    assert git(repo, "rev-parse", out["branch"]) == out["commit_sha"]
    assert bad.is_error and bad.structured_content["meta"]["error_code"] == "git_error"
