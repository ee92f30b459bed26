"""`verify`: good, tampered and missing citations, from a whole answer, an array or stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rlm_recursive.agent.citations import CitationLog
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.config import SessionConfig
from rlm_recursive.types import SpanRef

TEXT = "Pump room log.\nThe keypad code for the chlorine room is 7316.\nEnd of log.\n"


@pytest.fixture
def answer(data_dir: Path, tmp_path: Path) -> tuple[Path, dict, Path]:
    """A `--json`-shaped answer citing one span, the answer file, and the cited blob's path."""
    rt = Runtime(data_dir, "unrestricted")
    try:
        sid = rt.store.create_session("v", SessionConfig())["session_id"]
        doc = rt.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT),
                                    source="log.txt", source_type="inline")
        log = CitationLog()
        start = TEXT.index("The keypad")
        log.add(SpanRef(doc_id=doc.id, start=start, end=TEXT.index("\nEnd")))
        cited = [c.model_dump() for c in log.citations(rt.store, sid)]
        blob = rt.store.blobs.path_for(doc.content_hash)
    finally:
        rt.close()
    body = {"answer": "7316", "session_id": sid, "citations": cited}
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(body))
    return path, body, blob


def _verify(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["verify", *args], input=stdin)


def test_good_citations_are_valid_and_v_shows_the_text(answer):
    path, _, _ = answer
    result = _verify(str(path), "-v")
    assert result.exit_code == 0, result.output
    assert "✓ valid" in result.output and "log.txt" in result.output
    assert "│ The keypad code for the chlorine room is 7316." in result.output
    assert "1 of 1 citations valid" in result.output


def test_a_bare_array_on_stdin_finds_its_session(answer):
    _, body, _ = answer
    result = _verify("-", "--json", stdin=json.dumps(body["citations"]))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["ok"] and out["citations"][0]["status"] == "valid"


def test_tampered_text_is_changed_and_exits_non_zero(answer):
    path, _, blob = answer
    blob.chmod(0o644)
    blob.write_bytes(TEXT.replace("7316", "9999").encode())
    result = _verify(str(path), "--json", "-v")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["citations"][0]
    assert check["status"] == "changed" and "9999" in check["text"]


def test_tampered_checksum_is_changed(answer, tmp_path):
    _, body, _ = answer
    body["citations"][0]["checksum"] = "sha256:" + "0" * 64
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(body))
    result = _verify(str(forged))
    assert result.exit_code == 1 and "✗ changed" in result.output


def test_missing_document_and_missing_blob(answer, tmp_path):
    path, body, blob = answer
    ghost = dict(body["citations"][0], doc_id="doc_000000000000")
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([body["citations"][0], ghost]))
    result = _verify(str(mixed), "--json")
    assert result.exit_code == 1
    statuses = [c["status"] for c in json.loads(result.stdout)["citations"]]
    assert statuses == ["valid", "missing"]

    blob.unlink()
    result = _verify(str(path), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["citations"][0]["status"] == "missing"


def test_input_that_is_not_citations_is_a_coded_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"answer": "x"}')
    result = _verify(str(bad))
    assert result.exit_code == 1 and "error[invalid_args]" in result.output
