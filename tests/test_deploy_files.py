"""compose.yaml cannot run here (no container engine), so what can be checked without one
is checked: the topology, that every runner command is one our CLI accepts, that the load
balancer names the api services, and that every setting given to the runners is one the
code reads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))
RUNNERS = {name: svc for name, svc in COMPOSE["services"].items() if "build" in svc}


def test_the_topology_is_postgres_two_apis_two_workers_and_a_balancer() -> None:
    assert sorted(svc["command"][0] for svc in RUNNERS.values()) == [
        "api", "api", "worker", "worker"]
    assert {"postgres", "lb"} <= set(COMPOSE["services"])
    upstream = re.findall(r"server (\w+):(\d+);", (ROOT / "deploy" / "nginx.conf").read_text())
    apis = sorted(name for name, svc in RUNNERS.items() if svc["command"][0] == "api")
    assert sorted(name for name, _ in upstream) == apis
    for name, port in upstream:
        command = RUNNERS[name]["command"]
        assert command[command.index("--port") + 1] == port


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_each_runner_command_is_one_the_cli_accepts(name: str) -> None:
    """Option names are parsed before `--help` answers, so a misspelt one fails here."""
    proc = subprocess.run([sys.executable, "-m", "rlm_recursive", *RUNNERS[name]["command"],
                           "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_every_api_and_worker_sees_the_documents_at_the_same_place() -> None:
    """A worker reads the files of a load an api queued: the same volume, the same path,
    and that path is the allowed root (the working directory) of each."""
    mounts = {name: {v.split(":")[1]: v.split(":")[0] for v in svc["volumes"]}
              for name, svc in RUNNERS.items()}
    for name, svc in RUNNERS.items():
        root = svc["working_dir"]
        assert mounts[name].get(root) == mounts[next(iter(RUNNERS))].get(root) is not None, name


def test_the_runners_get_only_settings_the_code_reads() -> None:
    code = "\n".join(p.read_text("utf-8") for p in (ROOT / "rlm_recursive").rglob("*.py"))
    for svc in RUNNERS.values():
        for variable in svc["environment"]:
            assert f'"{variable}"' in code, f"{variable} is read nowhere"
        assert svc["environment"]["RLM_DATABASE_URL"].startswith("postgresql://")
