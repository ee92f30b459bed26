"""The Claude Code usage skill: valid front matter + Markdown, only real tools, installable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt
from mcp import Client
from typer.testing import CliRunner

from rlm_recursive.cli.app import app
from rlm_recursive.cli.skill import skill_text
from rlm_recursive.mcp_server import build_server
from rlm_recursive.mcp_server.server import INSTRUCTIONS

# A tool name as the skill writes it: rlm_<words>, not part of a longer identifier.
TOOL_NAME = re.compile(r"(?<![A-Za-z0-9])rlm_[a-z]+(?:_[a-z]+)*")


def _split(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    front, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(front), body


def test_front_matter_follows_the_claude_code_skill_format():
    meta, body = _split(skill_text())
    assert set(meta) == {"name", "description"}
    assert re.fullmatch(r"[a-z0-9-]{1,64}", meta["name"]) and meta["name"] == "rlm"
    assert 50 < len(meta["description"]) <= 1024
    for word in ("context", "count"):
        assert word in meta["description"].lower()
    assert body.strip()


def test_body_is_markdown_with_the_required_sections():
    _, body = _split(skill_text())
    tokens = MarkdownIt().parse(body)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[0].startswith("RLM")
    for needed in ("When to use it", "When not to use it", "Decomposition patterns",
                   "Budgets", "Citations and verification"):
        assert needed in headings, needed
    patterns = " ".join(headings).lower()
    for pattern in ("peek", "search", "partition", "summarise", "repl"):
        assert pattern in patterns, pattern
    # Example tool calls are valid-looking JSON objects next to the tool names.
    assert body.count('{"session_id": "ses_…"') >= 8
    assert body.count("```") % 2 == 0


async def test_every_tool_the_skill_names_exists_on_the_server(runtime):
    named = set(TOOL_NAME.findall(skill_text()))
    assert len(named) >= 12
    async with Client(build_server(runtime)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
    assert named <= listed, named - listed
    # The server's instructions say the same in short, naming only real tools too.
    in_instructions = set(TOOL_NAME.findall(INSTRUCTIONS))
    assert in_instructions <= listed, in_instructions - listed
    assert {"rlm_search_query", "rlm_docs_peek", "rlm_sub_query_batch",
            "rlm_citation_verify"} <= in_instructions


# An example call: `rlm_x` — `{json}` or `rlm_x` (`{json}`); the JSON may wrap across lines.
EXAMPLE = re.compile(r"`(rlm_[a-z_]+)`\s+(?:—\s+|\()`(\{.*?\})`", re.S)


def test_every_example_call_validates_against_the_tool_schema(runtime):
    from rlm_recursive.mcp_server.query_tool import RLM_QUERY_NAME, RlmQueryArgs

    examples = [(m.group(1), json.loads(re.sub(r"\s*\n\s*", " ", m.group(2))))
                for m in EXAMPLE.finditer(skill_text())]
    assert len(examples) >= 12
    for name, args in examples:
        model = (RlmQueryArgs if name == RLM_QUERY_NAME
                 else runtime.registry.spec(name).args_model)
        model.model_validate(args)  # raises on a wrong field name or type


def test_tool_name_pattern_is_not_fooled_by_prefixes():
    assert TOOL_NAME.findall("call `rlm_docs_peek`, not mcp__rlm__x") == ["rlm_docs_peek"]


@pytest.mark.parametrize("scope", ["--project", "--user"])
def test_install_writes_the_skill(scope, tmp_path: Path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    runner = CliRunner()
    first = runner.invoke(app, ["skill", "install", scope])
    assert first.exit_code == 0, first.output
    base = home if scope == "--user" else project
    target = base / ".claude" / "skills" / "rlm" / "SKILL.md"
    assert target.read_text("utf-8") == skill_text()
    assert "created" in first.stdout
    other = (project if scope == "--user" else home) / ".claude"
    assert not other.exists()
    assert "unchanged" in runner.invoke(app, ["skill", "install", scope]).stdout
    target.write_text("old\n", "utf-8")
    assert "updated" in runner.invoke(app, ["skill", "install", scope]).stdout
    assert target.read_text("utf-8") == skill_text()


def test_the_skill_ships_as_package_data():
    import tomllib

    pyproject = tomllib.loads(Path(__file__).parents[1].joinpath("pyproject.toml").read_text())
    assert "skills/rlm/SKILL.md" in pyproject["tool"]["setuptools"]["package-data"][
        "rlm_recursive"]
