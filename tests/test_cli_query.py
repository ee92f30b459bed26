"""`rlm-recursive query` as a real subprocess against an Ollama-shaped server on loopback:
budgets, uncited answers, empty answers, refused inputs and the audit record of the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import LoopbackServer, serve
from fake_ollama import agent_script as _script

from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime

NOTES = "Pump room notes.\nThe door keypad code for the chlorine room is 7316.\n"
QUESTION = "What is the keypad code for the chlorine room?"


def _rlm(tmp_path: Path, server: LoopbackServer, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(OLLAMA_HOST=server.url, NO_COLOR="1", COLUMNS="200",
               XDG_DATA_HOME=str(tmp_path / "xdg-data"),
               XDG_CONFIG_HOME=str(tmp_path / "xdg-config"))
    return subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def notes(tmp_path: Path) -> str:
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    return "notes.txt"


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "data" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_query_writes_one_content_free_audit_record_of_the_run(tmp_path, notes):
    with serve(_script("The code is 7316.")) as server:
        proc = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                    "--strategy", "agent", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["answer"] == "The code is 7316." and out["uncited"] is False
    runs = [r for r in _audit(tmp_path) if r["tool"] == "query"]
    assert len(runs) == 1
    assert runs[0]["model_used"] == "qwen3:8b" and runs[0]["error_code"] is None
    log = (tmp_path / "data" / "audit.jsonl").read_text()
    assert "7316" not in log and "keypad" not in log


def test_an_uncited_answer_is_not_found_unless_grounding_is_off(tmp_path, notes):
    with serve(_script("Probably 1234.", searches=0)) as server:
        plain = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                     "--strategy", "agent", "--no-grounding")
        as_json = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                       "--strategy", "agent", "--json", "--no-grounding")
        grounded = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                        "--strategy", "agent", "--json")
    # Grounding off: the answer is returned as given, flagged, and nothing checked it.
    assert plain.returncode == 0, plain.stderr
    assert "Probably 1234." in plain.stdout
    assert "warning: the answer cites nothing" in plain.stderr
    off = json.loads(as_json.stdout)
    assert off["uncited"] is True and off["grounded"] is None
    assert "warning: the answer cites nothing" in as_json.stderr
    # Grounding on (the default): nothing was read, so nothing backs it: "not found", exit 3.
    assert grounded.returncode == 3, grounded.stderr
    out = json.loads(grounded.stdout)
    assert out["grounded"] is False and out["answer"] == "Not found in the loaded documents."
    assert out["grounding"]["method"] == "not_found"
    assert out["grounding"]["original_answer"] == "Probably 1234."


@pytest.mark.parametrize("reply", [
    {},  # an empty reply
    {"thinking": "Let me think step by step...", "done_reason": "length", "eval_count": 1024},
])
def test_an_empty_answer_is_a_coded_failure_not_exit_0(tmp_path, notes, reply):
    with serve(_script("", searches=0, **reply)) as server:
        proc = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                    "--strategy", "agent", "--json")
    assert proc.returncode == 1, proc.stdout
    assert json.loads(proc.stdout)["meta"]["error_code"] == "empty_answer"
    assert "error[empty_answer]" in proc.stderr
    assert [r["error_code"] for r in _audit(tmp_path) if r["tool"] == "query"] == [
        "empty_answer"]


def test_a_query_whose_only_input_was_refused_does_not_answer(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n", encoding="utf-8")
    with serve(_script("Made up.", searches=0)) as server:
        proc = _rlm(tmp_path, server, "query", QUESTION, ".env", "--preset", "fully-local",
                    "--json")
    assert proc.returncode == 1, proc.stdout
    assert json.loads(proc.stdout)["meta"]["error_code"] == "path_denied"
    assert "nothing was loaded" in proc.stderr
    assert server.bodies("/api/chat") == []  # no model saw an empty session


def test_cli_budget_flags_bound_the_run(tmp_path, notes):
    with serve(_script("The code is 7316.", searches=2)) as server:
        capped = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                      "--strategy", "agent", "--max-tool-calls", "1", "--json")
        enough = _rlm(tmp_path, server, "query", QUESTION, notes, "--preset", "fully-local",
                      "--strategy", "agent", "--max-tool-calls", "2", "--max-sub-calls", "0",
                      "--max-usd", "0.5", "--json")
    assert capped.returncode == 1, capped.stderr
    assert json.loads(capped.stdout)["meta"]["error_code"] == "budget_exceeded"
    assert enough.returncode == 0, enough.stderr
    usage = json.loads(enough.stdout)["usage"]
    assert usage["tool_calls"] == 2 and usage["budget_usd"] == 0.5


async def test_queries_do_not_drain_the_session_tool_budget(tmp_path, monkeypatch):
    """Three queries on one session with a small budget all work: budgets are per run."""
    with serve(_script("The code is 7316.", searches=1)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        runtime = Runtime(tmp_path / "data")
        try:
            created = await runtime.call("rlm_session_create",
                                         {"name": "small", "max_tool_calls": 2})
            sid = created.output["session_id"]
            loaded = await runtime.call("rlm_docs_load", {
                "session_id": sid, "sources": [{"type": "inline", "content": NOTES}]})
            assert not loaded.is_error
            answers = [await run_query(runtime, sid, QUESTION,
                                       QueryOptions(preset="fully-local", strategy="agent"))
                       for _ in range(3)]
            info = (await runtime.call("rlm_session_info", {"session_id": sid})).output
        finally:
            runtime.close()
    assert [a.answer for a in answers] == ["The code is 7316."] * 3
    assert all(a.usage["tool_calls"] == 1 for a in answers)
    # Only the client's own calls (the load, and this info call) were spent from it.
    assert info["tool_calls_used"] == 2
