"""End to end: `rlm-recursive query` on the real embedded SmolLM2 model over a small corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rlm_recursive.agent.citations import Citation, verify_citation
from rlm_recursive.agent.runtime import Runtime

pytest.importorskip("llama_cpp", reason="the `local` extra is not installed")
pytestmark = pytest.mark.slow

NEEDLE = "The special magic number for ledger-7 is 48213."


def test_query_answers_from_the_needle_and_the_citation_verifies(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    filler = "The harbour office opens at eight and closes at six on weekdays. " * 120
    (corpus / "a.txt").write_text(filler)
    (corpus / "b.txt").write_text(filler[:3000] + NEEDLE + " " + filler[3000:])
    (corpus / "c.md").write_text("# Notes\n\n" + filler)
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto must fall back
    proc = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data), "query",
         "What is the special magic number for ledger-7?", "corpus", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "48213" in result["answer"]
    assert result["provider"] == "embedded" and result["model"] == "smollm2-135m"
    assert result["strategy"] == "search"
    assert "embedded" in proc.stderr  # the chosen provider is announced on stderr
    runtime = Runtime(data)
    try:
        checks = [verify_citation(runtime.store, result["session_id"], Citation(**c))
                  for c in result["citations"]]
    finally:
        runtime.close()
    assert checks and all(check["valid"] for check in checks)
    assert any(NEEDLE in check["text"] for check in checks)
