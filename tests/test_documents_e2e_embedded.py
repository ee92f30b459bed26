"""End to end on the real embedded SmolLM2 model: a fact from page 4 of a PDF is answered, and
its citation says page 4 (and verifies, against the store and against the original file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from doc_writers import write_pdf

pytest.importorskip("llama_cpp", reason="the `local` extra is not installed")
pytestmark = pytest.mark.slow

FILLER = "The harbour office opens at eight and closes at six on weekdays. "
NEEDLE = "The special magic number for ledger-7 is 48213."


def _rlm(tmp_path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto falls back to embedded
    return subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir",
                           str(tmp_path / "data"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, input=stdin)


def test_a_fact_on_page_4_is_answered_and_cited_as_page_4(tmp_path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    pages = [FILLER * 12 for _ in range(6)]
    pages[3] = FILLER * 4 + NEEDLE + " " + FILLER * 4
    write_pdf(corpus / "ledger.pdf", pages)
    proc = _rlm(tmp_path, "query", "What is the special magic number for ledger-7?", "corpus",
                "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "48213" in result["answer"]
    assert result["provider"] == "embedded"
    needle = [c for c in result["citations"] if c["page"] == 4]
    assert needle, result["citations"]
    assert all(c["source"].endswith("ledger.pdf") and "line" not in c
               for c in result["citations"])
    checked = _rlm(tmp_path, "verify", "-", "--source", "--json", stdin=proc.stdout)
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)["ok"] is True
