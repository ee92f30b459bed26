"""Imports flow one way: surfaces → the runtime (the composition root) → the agent's runs →
tools → corpus, store, policy → config, errors, types. Read statically from every module,
function-level and TYPE_CHECKING imports included: a cycle hidden there is still a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rlm_recursive"
SURFACES = {"cli", "api", "mcp_server", "queue", "bench", "ops", "__main__"}
LOWER = {"catalog", "config", "corpus", "errors", "export", "lcm", "parsers", "policy",
         "providers", "secretscan", "store", "tools", "trajectory", "types"}


def _imports() -> list[tuple[str, str]]:
    """(importing module, imported module) for every relative import in the package."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                package = parts[:-1]  # a module's package (an __init__ is its own)
                base = package[:len(package) - (node.level - 1)]
                target = [*base, *(node.module.split(".") if node.module else [])]
                names = [a.name for a in node.names]
                for name in names:  # `from . import runtime` names a module too
                    found.append((".".join(parts), ".".join([*target, name])))
                found.append((".".join(parts), ".".join(target)))
    return found


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_lower_layers_import_neither_the_agent_nor_a_surface() -> None:
    wrong = [(a, b) for a, b in _imports()
             if _top(a) in LOWER and _top(b) in SURFACES | {"agent"}]
    assert wrong == []


def test_only_surfaces_import_the_composition_root() -> None:
    root = "rlm_recursive.agent.runtime"
    wrong = [(a, b) for a, b in _imports()
             if (b == root or b.startswith(root + ".")) and a != root
             and _top(a) not in SURFACES]
    assert wrong == []


def test_the_agent_imports_no_surface() -> None:
    wrong = [(a, b) for a, b in _imports() if _top(a) == "agent" and _top(b) in SURFACES]
    assert wrong == []


def _agent_part(module: str) -> str:
    """The agent's sub-package a module is in ('answers', 'counting' …), or 'core'."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] != "agent":
        return ""
    return parts[2] if (PACKAGE / "agent" / parts[2]).is_dir() else "core"


# The runtime's look-ups build on the answer checks, which build on counting plans; none of
# them reaches up into a run (the core, the strategies, the REPL), which calls them.
READERS = ["lookups", "answers", "counting"]


def test_the_agents_readers_import_downwards() -> None:
    rank = {name: i for i, name in enumerate(READERS)}
    wrong = [(a, b) for a, b in _imports()
             if _agent_part(a) in rank and _agent_part(b)
             and rank.get(_agent_part(b), -1) < rank[_agent_part(a)]]
    assert wrong == []
