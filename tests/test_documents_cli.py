"""The document features as a person meets them: `load`, `docs`, `peek --page`, `search`,
`query PATH…` and `verify [--source]` as real subprocesses (an Ollama-shaped server on
loopback answers for the model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from doc_writers import write_pdf
from fake_ollama import LoopbackServer, serve
from fake_ollama import agent_script as _script

PAGES = ["Pump room overview. " * 10, "Valves and pipes. " * 10, "Chemicals store. " * 10,
         "Chlorine room. The door keypad code for the chlorine room is 7316.",
         "Contacts. " * 10]


def _rlm(tmp_path: Path, *args: str, server: LoopbackServer | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env.update(NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(tmp_path / "xdg-data"),
               XDG_CONFIG_HOME=str(tmp_path / "xdg-config"))
    if server is not None:
        env["OLLAMA_HOST"] = server.url
    return subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, input=stdin)


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "plant"
    root.mkdir()
    write_pdf(root / "manual.pdf", PAGES)
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a pdf")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "m.pyc").write_bytes(b"\x00\x00")
    return root


def test_load_lists_every_file_not_loaded_and_counts_ignored_ones(tmp_path: Path) -> None:
    _corpus(tmp_path)
    text = _rlm(tmp_path, "load", "plant")
    assert text.returncode == 0, text.stderr
    assert "1 documents, 5 pages" in text.stdout
    assert "not loaded: " in text.stdout and "broken.pdf: unsupported_file" in text.stdout
    assert "ignored: 1 cache" in text.stdout
    out = json.loads(_rlm(tmp_path, "load", "plant", "--json").stdout)
    assert [(Path(e["source"]).name, e["error_code"]) for e in out["errors"]] == [
        ("broken.pdf", "unsupported_file")]
    assert out["skipped"] == {"cache": 1}
    [doc] = out["loaded"]
    assert doc["pages"] == 5 and doc["parser_version"] and len(doc["raw_sha256"]) == 64


def test_a_load_that_loads_nothing_leaves_no_session(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "broken.pdf").write_bytes(b"%PDF-1.7\ngarbage")
    proc = _rlm(tmp_path, "load", "bad", "--json")
    assert proc.returncode != 0
    assert json.loads(proc.stdout)["meta"]["error_code"] == "unsupported_file"
    sessions = json.loads(_rlm(tmp_path, "sessions", "--json").stdout)["sessions"]
    assert sessions == []


def test_docs_peek_page_and_search_show_pages(tmp_path: Path) -> None:
    _corpus(tmp_path)
    sid = json.loads(_rlm(tmp_path, "load", "plant", "--json").stdout)["session_id"]
    docs = json.loads(_rlm(tmp_path, "docs", "-s", sid, "--json").stdout)["documents"]
    assert [(Path(d["source"]).name, d["format"], d["pages"]) for d in docs] == [
        ("manual.pdf", "pdf", 5)]
    table = _rlm(tmp_path, "docs", "-s", sid)
    assert "manual.pdf" in table.stdout and "rlm-parsers-1" in table.stdout
    page = _rlm(tmp_path, "peek", docs[0]["doc_id"], "-s", sid, "--page", "4")
    assert page.stdout == "Chlorine room. The door keypad code for the chlorine room is 7316."
    hits = _rlm(tmp_path, "search", "keypad code", "-s", sid)
    assert "manual.pdf, page 4" in hits.stdout
    matches = json.loads(_rlm(tmp_path, "search", "keypad", "-s", sid, "--json").stdout)
    assert matches["matches"][0]["page"] == 4


def test_query_cites_the_page_says_what_was_lost_and_verifies(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    with serve(_script("The code is 7316.")) as server:
        proc = _rlm(tmp_path, "query", "What is the keypad code for the chlorine room?",
                    "plant", "--preset", "fully-local", "--strategy", "agent", "--json",
                    server=server)
        text = _rlm(tmp_path, "query", "What is the keypad code for the chlorine room?",
                    "plant", "--preset", "fully-local", "--strategy", "agent",
                    server=server)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    [citation] = out["citations"]
    assert citation["page"] == 4 and citation["source"].endswith("manual.pdf")
    assert [Path(e["source"]).name for e in out["load"]["errors"]] == ["broken.pdf"]
    assert text.returncode == 0, text.stderr
    assert "manual.pdf, page 4" in text.stdout
    assert "note: 1 file could not be loaded" in text.stdout and "broken.pdf" in text.stdout
    # verify takes exactly what query --json printed; --source re-parses the original
    checked = _rlm(tmp_path, "verify", "-", "--json", stdin=proc.stdout)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    source = _rlm(tmp_path, "verify", "-", "--source", stdin=proc.stdout)
    assert source.returncode == 0 and "the file is unchanged" in source.stdout
    write_pdf(root / "manual.pdf", ["A new first page. " * 5, *PAGES])
    moved = _rlm(tmp_path, "verify", "-", "--source", stdin=proc.stdout)
    assert moved.returncode == 1
    assert "the file has changed" in moved.stdout and "page 5" in moved.stdout
    stored = _rlm(tmp_path, "verify", "-", stdin=proc.stdout)
    assert stored.returncode == 0  # the stored copy is as it was
