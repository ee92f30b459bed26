"""The README's commands for Claude Code and for queries are ones that actually parse."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from rlm_recursive.cli.app import app

README = Path(__file__).resolve().parent.parent / "README.md"
# `claude mcp add` options that take exactly one value and may precede the name.
_ONE_VALUE = {"--transport", "-t", "--scope", "-s"}


def _lines(prefix: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    found = re.findall(rf"^(?:[A-Z_]+=\S+ )?({re.escape(prefix)} .*)$", text, re.MULTILINE)
    found += re.findall(rf"`({re.escape(prefix)} [^`]*)`", text)
    return found


def test_claude_mcp_add_names_the_server_before_variadic_options() -> None:
    commands = _lines("claude mcp add")
    assert any(" -e " in c for c in commands), "the README shows how to pass -e"
    for command in commands:
        args = shlex.split(command.split(" -- ")[0])[3:]
        while args and args[0] in _ONE_VALUE:
            args = args[2:]
        # `-e KEY=V NAME` fails: -e takes several values and swallows the name.
        assert args and not args[0].startswith("-"), command


def test_readme_says_project_servers_need_approval() -> None:
    text = README.read_text(encoding="utf-8")
    assert "Pending approval" in text and ".mcp.json" in text


def test_every_query_option_in_the_readme_exists() -> None:
    shown = {flag for line in _lines("rlm-recursive query")
             for flag in re.findall(r"(--[a-z][a-z-]+)", line)}
    assert {"--max-tool-calls", "--max-sub-calls", "--max-usd"} <= shown
    result = CliRunner().invoke(app, ["query", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for flag in shown:
        assert flag in result.stdout, flag
