"""Every CLI command and every MCP tool, fed bad values for each option and argument.

Each call must end in a coded error (`error[CODE]` and a non-zero exit on the CLI; an `isError`
envelope `{error, meta{error_code, retryable}}` over MCP), never a traceback, and the store
must still pass `PRAGMA integrity_check` afterwards. The bad values are derived from each
parameter's declared type, so an option added later is covered without editing this file.
"""

from __future__ import annotations

import enum
import json
import re
import sqlite3
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from mcp import Client
from typer.testing import CliRunner

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import ERROR_CODES
from rlm_recursive.mcp_server import build_server

_CODE = re.compile(r"error\[([a-z_]+)\]")
LONG_NAME = "n" * 300
DEEP_PATH = "a/" * 3000 + "x.txt"


def _integrity(data_dir: Path) -> None:
    db = sqlite3.connect(data_dir / "rlm.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


# -- CLI ------------------------------------------------------------------------------------


def _commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every leaf command with its path (`("bench", "sniah")`)."""
    root = typer.main.get_command(app)

    def walk(command: Any, path: tuple[str, ...]) -> Iterator[Any]:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, command

    yield from walk(root, ())


def _annotation(param: Any) -> Any:
    """The Python type behind a Typer parameter, with `| None` and `list[...]` taken off."""
    annotation = param.type_descriptor.annotation
    while True:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        origin = typing.get_origin(annotation)
        if origin in (list, typing.Union, types.UnionType) and len(args) == 1:
            annotation = args[0]
        else:
            return annotation


def _bad_values(param: Any) -> list[str]:
    """Values the parameter's type must refuse, plus hostile strings for free text."""
    kind = _annotation(param)
    if getattr(param, "is_flag", False):
        return ["maybe"]  # a flag given a value: `--json=maybe`
    if kind is int:
        return ["abc", "-1", "1e30", "99999999999999999999999"]
    if kind is float:
        return ["abc", "-1", "nan", "inf"]
    if typing.get_origin(kind) is typing.Literal or (
        isinstance(kind, type) and issubclass(kind, enum.Enum)
    ):
        return ["bogus", ""]
    return ["", "[/]", LONG_NAME, DEEP_PATH, "nul\x00byte"]


def _base(path: tuple[str, ...], sid: str, doc: str) -> list[str]:
    """An invocation of the command that reaches its body and fails there (cheaply)."""
    return {
        ("load",): ["load", "missing.txt"],
        ("search",): ["search", "q", "-s", "ses_missing"],
        ("peek",): ["peek", "doc_missing", "-s", sid],
        ("chunk",): ["chunk", "doc_missing", "-s", sid, "--strategy", "fixed"],
        ("sessions",): ["sessions"],
        ("docs",): ["docs", "-s", "ses_missing"],
        ("query",): ["query", "q", "missing.txt"],
        ("models",): ["models"],
        ("serve",): ["serve", "--transport", "http", "--host", "0.0.0.0"],
        ("bench", "sniah"): ["bench", "sniah", "--lengths", "1k", "-n", "1"],
        ("bench", "oolong"): ["bench", "oolong", "--kinds", "bogus", "-n", "1"],
        ("bench", "multihop"): ["bench", "multihop", "--hops", "9", "-n", "1"],
        ("bench", "suite"): ["bench", "suite", "--families", "bogus", "-n", "1"],
        ("bench", "routing"): ["bench", "routing", "--part", "bogus"],
        ("bench", "written"): ["bench", "written", "--families", "bogus"],
        ("export",): ["export", "ses_missing", "--repo", "."],
        ("skill", "install"): ["skill", "install"],
        ("chat",): ["chat", "missing.txt"],
        ("doctor",): ["doctor"],
        ("gc",): ["gc"],
        ("verify",): ["verify", "missing.json"],
        ("trace",): ["trace", "run_missing"],
        ("runs",): ["runs", "-s", "ses_missing"],
        ("api",): ["api", "--host", "0.0.0.0"],
        ("worker",): ["worker"],  # no RLM_DATABASE_URL: refused in its body
        ("keys", "create"): ["keys", "create", "--tenant", "t", "--scope", "bogus"],
        ("keys", "list"): ["keys", "list"],
        ("keys", "revoke"): ["keys", "revoke", "key_missing"],
        ("store", "copy"): ["store", "copy"],  # no target URL: refused in its body
        ("lcm", "list"): ["lcm", "list", "-s", "ses_missing"],
        ("lcm", "describe"): ["lcm", "describe", "sum_missing"],
        ("lcm", "grep"): ["lcm", "grep", "q", "--conversation", "999999"],
        ("lcm", "expand"): ["lcm", "expand", "sum_missing"],
        ("lcm", "check"): ["lcm", "check", "--conversation", "999999"],
        ("lcm", "compact"): ["lcm", "compact", "--conversation", "999999"],
    }[path]


def _cases(sid: str, doc: str) -> Iterator[tuple[str, list[str]]]:
    for path, command in _commands():
        base = _base(path, sid, doc)
        for param in command.params:
            if param.name in ("help", "ctx") or param.hidden:
                continue
            for value in _bad_values(param):
                label = f"{' '.join(path)} {param.name}={value[:20]!r}"
                if param.param_type_name == "argument":
                    # Replace the positional at its place in the base invocation.
                    positions = [i for i, p in enumerate(command.params)
                                 if p.param_type_name == "argument"]
                    index = positions.index(command.params.index(param)) + len(path)
                    args = list(base)
                    if index < len(args):
                        args[index] = value
                    else:
                        args.insert(len(path) + 1, value)
                    yield label, args
                elif param.is_flag:
                    yield label, [*base, f"{param.opts[0]}={value}"]
                else:
                    yield label, [*base, param.opts[0], value]
    root = typer.main.get_command(app)
    for param in root.params:  # the global options, in front of a command that needs them
        if param.name in ("help", "version"):
            continue
        for value in ["", LONG_NAME, "bogus", "nul\x00byte", "data/rlm.db"]:
            yield f"global {param.name}={value[:20]!r}", [param.opts[0], value, "sessions"]


@pytest.fixture
def prepared(tmp_path: Path, data_dir: Path) -> tuple[str, str]:
    """A session with one document, loaded through the CLI."""
    (tmp_path / "a.txt").write_text("alpha beta gamma\n", encoding="utf-8")
    out = CliRunner().invoke(app, ["load", "a.txt", "--json"])
    assert out.exit_code == 0, out.output
    loaded = json.loads(out.stdout)
    return loaded["session_id"], loaded["loaded"][0]["doc_id"]


def test_every_cli_command_and_option_refuses_bad_values_with_a_code(
    prepared, data_dir, tmp_path
):
    sid, doc = prepared
    # The bench would run a model on any value it accepts (an empty --model means the
    # default): a broken catalog makes each of its cases fail before anything starts.
    broken = tmp_path / "broken.toml"
    broken.write_text("[[[ not toml", encoding="utf-8")
    runner = CliRunner()
    failures, seen = [], set()
    for label, args in _cases(sid, doc):
        env = {"RLM_MODELS": str(broken)} if label.startswith("bench") else None
        result = runner.invoke(app, args, env=env)
        text = result.output
        codes = _CODE.findall(text)
        problems = []
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            problems.append(f"raised {type(result.exception).__name__}: {result.exception}")
        if "Traceback" in text:
            problems.append("traceback")
        if label.startswith(("models ", "sessions ")) and result.exit_code == 0:
            problems.append("exit 0")  # these bases succeed: the bad value itself must fail
        if result.exit_code == 0 and not label.startswith(("models ", "sessions ", "global")):
            problems.append("exit 0")
        if result.exit_code != 0 and not (codes and set(codes) <= set(ERROR_CODES)):
            problems.append(f"no stable code (exit {result.exit_code})")
        if codes and "internal_error" in codes:
            problems.append("internal_error")
        if problems:
            failures.append(f"{label}: {', '.join(problems)}: {text[-300:]!r}")
        seen.add(label.split(" ")[0])
    _integrity(data_dir)
    assert {"load", "search", "peek", "chunk", "sessions", "query", "models", "serve", "bench",
            "global"} <= seen
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    "args",
    [
        ["query", "q", "a.txt", "--strategy", "bogus"],
        ["query", "q", "a.txt", "--timeout", "nan"],
        ["query", "q", "a.txt", "--preset", "no-such-preset"],
        ["bench", "sniah", "--lengths", "abc"],
        ["load", "missing.txt"],
        ["load", "dir[/]x.txt"],
    ],
)
def test_real_subprocess_bad_input_is_coded(tmp_path: Path, data_dir: Path, args: list[str]):
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "rlm_recursive", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    codes = _CODE.findall(proc.stderr)
    assert codes and set(codes) <= set(ERROR_CODES) and "internal_error" not in codes


def test_load_prints_names_with_markup_off_and_takes_existing_names_literally(
    tmp_path: Path, data_dir: Path
):
    (tmp_path / "we[").mkdir()
    (tmp_path / "we[" / "]ird.txt").write_text("odd name\n", encoding="utf-8")
    (tmp_path / "x[1].txt").write_text("bracket\n", encoding="utf-8")
    (tmp_path / "x1.txt").write_text("WRONG FILE\n", encoding="utf-8")
    runner = CliRunner()
    plain = runner.invoke(app, ["load", "we[/]ird.txt", "missing[/]x"])
    assert plain.exit_code == 0, plain.output
    assert "missing[/]x" in plain.output and "1 documents" in plain.output
    out = runner.invoke(app, ["load", "x[1].txt", "--json"])
    assert out.exit_code == 0, out.output
    (doc,) = json.loads(out.stdout)["loaded"]
    assert doc["source"].endswith("x[1].txt")


def test_load_and_query_fail_when_nothing_loaded(tmp_path: Path, data_dir: Path):
    (tmp_path / "empty").mkdir()
    runner = CliRunner()
    for args in (["load", "missing.txt"], ["load", "empty"], ["query", "q", "missing.txt"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (args, result.output)
        assert "error[file_not_found]: nothing was loaded" in result.output
    as_json = runner.invoke(app, ["load", "missing.txt", "--json"])
    body = json.loads(as_json.stdout)
    assert as_json.exit_code == 1 and body["meta"]["error_code"] == "file_not_found"
    assert body["meta"]["details"]["errors"][0]["source"] == "missing.txt"


# -- MCP ------------------------------------------------------------------------------------


def _bad_json_values(prop: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """(values of the wrong type, which must be refused; extremes, which may be clamped)."""
    options = prop.get("anyOf") or [prop]
    types_ = {o.get("type") for o in options}
    if "integer" in types_:
        return ["abc", 1.5, [1], {"a": 1}], [-(10**30), 10**30, 2**63, 1e30, float("nan")]
    if "number" in types_:
        return ["abc", [1], {"a": 1}], [1e308, -1e308]
    if "boolean" in types_:
        return ["maybe", 3, [True]], []
    if "array" in types_:
        return [17, [{"bogus": 1}]], [[None], ["x" * 10_000] * 50]
    if "string" in types_:
        return [123, ["x"], {"a": 1}], ["", "[/]", "x" * 100_000, "\x00"]
    if "object" in types_ or any("$ref" in o for o in options):
        return [17, [1, 2]], []
    return [], [None, "x" * 100_000]  # `Any`: every JSON value is allowed


def _required(schema: dict[str, Any], sid: str, doc: str) -> dict[str, Any]:
    """Minimal valid-looking required arguments (ids of a real session and document)."""
    fill = {"session_id": sid, "doc_id": doc, "query": "alpha", "task": "what?",
            "context": "alpha", "sources": [{"type": "inline", "content": "x"}],
            "content": "x", "artifact_id": "art_missing", "span_id": "spn_missing",
            "strategy": "fixed", "answer": "a", "pattern": "alpha", "checksum": "sha256:0"}
    return {name: fill.get(name, "x") for name in schema.get("required", [])}


@pytest.fixture
def rt(data_dir: Path) -> Iterator[Runtime]:
    runtime = Runtime(data_dir, "restricted")
    yield runtime
    runtime.close()


def _envelope(result: Any) -> dict[str, Any]:
    assert result.is_error, result.content[0].text[:300]
    body = json.loads(result.content[0].text)
    assert isinstance(body["error"], str) and body["error"]
    assert set(body["meta"]) >= {"error_code", "retryable"}
    assert "Traceback" not in body["error"]
    return body


async def test_every_mcp_tool_refuses_bad_values_with_an_envelope(rt, data_dir):
    failures = []
    async with Client(build_server(rt)) as client:
        created = await client.call_tool("rlm_session_create", {})
        sid = json.loads(created.content[0].text)["session_id"]
        loaded = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "alpha beta gamma"}]})
        doc = json.loads(loaded.content[0].text)["loaded"][0]["doc_id"]
        tools = (await client.list_tools()).tools
        assert len(tools) >= 15
        for tool in tools:
            schema = tool.input_schema
            base = _required(schema, sid, doc)
            cases = [("{} (missing required)", {})] if schema.get("required") else []
            cases.append(("unknown argument", {**base, "no_such_argument": 1}))
            extremes = []
            for name, prop in schema.get("properties", {}).items():
                wrong, extreme = _bad_json_values(prop)
                cases += [(f"{name}={value!r:.30}", {**base, name: value}) for value in wrong]
                extremes += [(f"{name}={value!r:.30}", {**base, name: value})
                             for value in extreme]
            for label, args in cases + extremes:
                result = await client.call_tool(tool.name, args)
                try:
                    if not result.is_error and (label, args) in extremes:
                        continue  # an extreme may be valid (clamped); it must not break things
                    body = _envelope(result)
                    code = body["meta"]["error_code"]
                    assert code in ERROR_CODES and code != "internal_error", code
                except (AssertionError, KeyError, json.JSONDecodeError) as exc:
                    failures.append(f"{tool.name} {label}: {exc!r:.300}")
        # The session is still usable after all of that.
        info = await client.call_tool("rlm_session_info", {"session_id": sid})
        assert not info.is_error, info.content[0].text
    _integrity(data_dir)
    assert not failures, "\n".join(failures)


async def test_an_unknown_tool_gets_the_envelope(rt):
    async with Client(build_server(rt)) as client:
        result = await client.call_tool("rlm_no_such_tool", {"x": 1})
    body = _envelope(result)
    assert body["meta"]["error_code"] == "unknown_tool"
    assert "rlm_session_create" in body["error"]


@pytest.mark.parametrize("value", [1e30, 10**30, 2**63, 1e19])
async def test_huge_session_limits_are_refused_and_leave_the_store_usable(rt, data_dir, value):
    async with Client(build_server(rt)) as client:
        for key in ("max_tool_calls", "max_chars_per_response", "max_chars_per_peek"):
            result = await client.call_tool("rlm_session_create", {key: value})
            assert _envelope(result)["meta"]["error_code"] == "invalid_args"
        created = await client.call_tool("rlm_session_create", {"max_tool_calls": 1_000_000})
        assert not created.is_error
        sid = json.loads(created.content[0].text)["session_id"]
        info = await client.call_tool("rlm_session_info", {"session_id": sid})
        assert not info.is_error
        assert json.loads(info.content[0].text)["config"]["max_tool_calls"] == 1_000_000
    _integrity(data_dir)


async def test_inline_content_is_capped_by_the_profiles_max_bytes(rt, data_dir):
    cap = rt.profile.max_bytes_file
    assert cap is not None
    async with Client(build_server(rt)) as client:
        sid = json.loads((await client.call_tool("rlm_session_create", {})).content[0].text)[
            "session_id"]
        big = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "x" * (cap + 1)}]})
        assert _envelope(big)["meta"]["error_code"] == "file_too_large"
        # Multi-byte text counts in bytes, not characters.
        wide = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "é" * (cap // 2 + 1)}]})
        assert _envelope(wide)["meta"]["error_code"] == "file_too_large"
        info = json.loads((await client.call_tool("rlm_session_info", {"session_id": sid}
                                                  )).content[0].text)
        assert info["document_count"] == 0
        ok = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": "x" * 1000}]})
        assert not ok.is_error


async def test_inline_content_obeys_a_sessions_lower_file_cap(data_dir):
    runtime = Runtime(data_dir, "unrestricted")
    try:
        sid = runtime.store.create_session("small", SessionConfig(max_file_bytes=100))[
            "session_id"]
        async with Client(build_server(runtime)) as client:
            big = await client.call_tool("rlm_docs_load", {"session_id": sid, "sources": [
                {"type": "inline", "content": "x" * 101}]})
            assert _envelope(big)["meta"]["error_code"] == "file_too_large"
    finally:
        runtime.close()
