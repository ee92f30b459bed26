"""`rlm-recursive skill install`: the Claude Code usage skill, shipped as package data."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from .common import console, print_json

__all__ = ["SKILL_NAME", "install_skill", "skill_app", "skill_text"]

SKILL_NAME = "rlm"
skill_app = typer.Typer(help="The Claude Code skill that teaches when and how to use RLM.",
                        no_args_is_help=True)


def skill_text() -> str:
    return (resources.files("rlm_recursive") / "skills" / SKILL_NAME / "SKILL.md").read_text(
        "utf-8")


def install_skill(base: Path) -> tuple[Path, str]:
    """Write `<base>/.claude/skills/rlm/SKILL.md`; the path and created/updated/unchanged."""
    target = base / ".claude" / "skills" / SKILL_NAME / "SKILL.md"
    text = skill_text()
    if target.is_file():
        if target.read_text("utf-8") == text:
            return target, "unchanged"
        state = "updated"
    else:
        state = "created"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    return target, state


@skill_app.command()
def install(
    user: Annotated[bool, typer.Option(
        "--user/--project",
        help="--project (default): .claude/skills/rlm/SKILL.md under the current folder; "
        "--user: ~/.claude/skills/rlm/SKILL.md for every project.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Install the RLM usage skill for Claude Code."""
    base = Path.home() if user else Path.cwd()
    path, state = install_skill(base)
    if json_out:
        print_json({"path": str(path), "state": state, "scope": "user" if user else "project"})
    else:
        console.print(f"{state}: {path}", markup=False, highlight=False)
