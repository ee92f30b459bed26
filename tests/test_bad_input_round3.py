"""Bad input found by the round-3 attack: each gets its own code and message, never
internal_error. A real `rlm-recursive` process for the command lines (argv is bytes), and a
real `serve` subprocess for MCP over stdio."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rlm_recursive.cli.app import app

CLI = [sys.executable, "-m", "rlm_recursive"]


def _cli(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))


def test_a_name_that_is_not_utf8_is_invalid_args(tmp_path):
    (tmp_path / "ok.txt").write_text("hello")
    done = _cli("load", "ok.txt", "--name", b"\xff", cwd=tmp_path)
    assert done.returncode == 1
    assert "error[invalid_args]" in done.stderr and "surrogate" in done.stderr
    assert "internal_error" not in done.stderr and "Traceback" not in done.stderr
    # Nothing half-made: no session was created.
    listed = json.loads(_cli("sessions", "--json", cwd=tmp_path).stdout)
    assert listed["sessions"] == []


def test_verify_of_json_nested_100000_deep_is_invalid_args(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(app, ["verify", str(deep)])
    assert result.exit_code == 1
    assert "error[invalid_args]" in result.stderr and "nested too deeply" in result.stderr
    assert "internal_error" not in result.stderr


def test_a_data_dir_that_cannot_be_written_is_path_denied(tmp_path):
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc")
    done = _cli("--data-dir", "/proc/self", "sessions", cwd=tmp_path)
    assert done.returncode == 1
    assert "error[path_denied]" in done.stderr and "cannot use data dir '/proc/self'" \
        in done.stderr
    assert "Traceback" not in done.stderr
    (tmp_path / "a-file").write_text("x")
    in_the_way = _cli("--data-dir", str(tmp_path / "a-file"), "sessions", cwd=tmp_path)
    assert in_the_way.returncode == 1 and "error[invalid_args]" in in_the_way.stderr


class _Stdio:
    """`rlm-recursive serve` as a client starts it: JSON-RPC lines over its stdin/stdout."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen([*CLI, "serve"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("ascii") + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout_s: float = 30) -> dict | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        return json.loads(self.proc.stdout.readline()) if ready else None

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def test_mcp_stdio_answers_a_lone_surrogate_with_invalid_args(tmp_path):
    server = _Stdio(tmp_path)
    try:
        server.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}))
        assert server.reply()["id"] == 1
        server.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        # Written by hand: a JSON library would not encode a lone surrogate itself.
        server.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
                    '"rlm_session_create", "arguments": {"name": "a\\ud800b"}}}')
        answer = server.reply()
        assert answer is not None, "no reply: the request was dropped"
        assert answer["id"] == 2 and answer["result"]["isError"] is True
        envelope = json.loads(answer["result"]["content"][0]["text"])
        assert envelope["meta"]["error_code"] == "invalid_args"
        assert "surrogate" in envelope["error"]
        # Any other method: a JSON-RPC invalid-params error carrying the same code.
        server.send('{"jsonrpc": "2.0", "id": "r3", "method": "resources/read", "params": '
                    '{"uri": "x\\udfff"}}')
        other = server.reply()
        assert other["id"] == "r3" and other["error"]["code"] == -32602
        assert other["error"]["data"]["error_code"] == "invalid_args"
        # The server is still serving.
        server.send('{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": '
                    '"rlm_session_create", "arguments": {"name": "fine \\ud83d\\ude00"}}}')
        ok = server.reply()
        assert ok["id"] == 4 and not ok["result"].get("isError")
        assert json.loads(ok["result"]["content"][0]["text"])["session_id"]
    finally:
        server.close()
