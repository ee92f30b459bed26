"""Grounding end to end on the real embedded SmolLM2-135M, through the CLI as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlm_recursive.agent.citations import Citation, verify_citation
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.agent.runtime import Runtime

pytest.importorskip("llama_cpp", reason="the `local` extra is not installed")
pytestmark = pytest.mark.slow

# Written the way a facilities team writes notes, not by the project's generators.
NOTES = """Plant room handover, east wing

The chillers were serviced on Tuesday by the contractor; filter packs on both units were
replaced and the condensate trays cleaned. Next service is due in the autumn.

Drum screen 2 had its spray bar nozzles cleared after the pressure alarm at 06:40.
The backup generator ran for its monthly load test without faults.

Access: the plant room door uses the code pelican-3308. Keys for the roof hatch are with
the duty engineer, not in the key safe.

Water treatment: dosing pump B was primed; chemical stock is low and has been reordered.
""" * 3


def _query(tmp_path: Path, question: str) -> subprocess.CompletedProcess[str]:
    notes = tmp_path / "notes"
    notes.mkdir(exist_ok=True)
    (notes / "handover.txt").write_text(NOTES)
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto falls back to embedded
    return subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), "query",
         question, "notes", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def test_a_single_fact_comes_back_grounded_in_its_citations(tmp_path):
    proc = _query(tmp_path, "What is the door code of the plant room?")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["model"] == "smollm2-135m" and result["grounded"] is True
    assert "pelican-3308" in result["answer"], result
    runtime = Runtime(tmp_path / "data")
    try:
        texts = [verify_citation(runtime.store, result["session_id"], Citation(**c))
                 for c in result["citations"]]
    finally:
        runtime.close()
    assert all(t["valid"] for t in texts)
    assert any("pelican-3308" in t["text"] for t in texts)


def test_an_unanswerable_question_is_not_found_with_a_non_zero_exit(tmp_path):
    proc = _query(tmp_path, "What heparin infusion rate was set for the patient in ward 9?")
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    result = json.loads(proc.stdout)  # the answer object is printed all the same
    assert result["grounded"] is False and result["answer"] == NOT_FOUND
    assert result["grounding"]["method"] == "not_found"
    assert all(p["text"] not in result["answer"] for p in result["closest"])
