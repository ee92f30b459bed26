"""The command line as a real subprocess: load, search, peek, chunk, sessions, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rlm_recursive import __version__

MANUAL = (
    "Chlorine room procedures.\n\n"
    "During an emergency the keypad code for the chlorine room is 7316.\n"
    "Tabs\tstay\ttabs, and a long line stays one line: " + "pump " * 30 + "\n"
)
NOTES = "Generator tests run every Monday. Ünïcödé 😀 notes.\r\nSecond line.\r\n"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RLM_")}
    env.update(
        XDG_DATA_HOME=str(home / "xdg-data"),
        XDG_CONFIG_HOME=str(home / "xdg-config"),
        COLUMNS="200",
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
    )
    return env


def rlm(
    *args: str, cwd: Path, data_dir: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m rlm_recursive [--data-dir D] ARGS` and capture its output."""
    command = [sys.executable, "-m", "rlm_recursive"]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=env or _env(cwd),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def _json(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One `load --json` of a small folder, shared by the read-only tests below."""
    root = tmp_path_factory.mktemp("cli")
    corpus = root / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "manual.txt").write_bytes(MANUAL.encode("utf-8"))
    (corpus / "sub" / "notes.txt").write_bytes(NOTES.encode("utf-8"))
    (corpus / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    data_dir = root / "data"
    out = _json(rlm("load", "corpus", "--name", "cli-test", "--json", cwd=root, data_dir=data_dir))
    docs = {Path(d["source"]).name: d for d in out["loaded"]}
    return {"root": root, "data_dir": data_dir, "out": out, "docs": docs}


def test_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == __version__


def test_load_json(loaded) -> None:
    out = loaded["out"]
    assert set(out) == {"session_id", "loaded", "errors", "skipped", "total_chars",
                        "total_tokens_est", "total_pages"}
    assert out["session_id"].startswith("ses_")
    assert out["skipped"] == {} and out["total_pages"] == 0
    for doc in out["loaded"]:  # issue 19's names, on every loaded entry
        assert doc["parser_version"] and doc["encoding"] == "utf-8" and doc["warnings"] == []
        assert doc["pages"] is None and len(doc["raw_sha256"]) == 64
    assert sorted(loaded["docs"]) == ["manual.txt", "notes.txt"]  # folders load recursively
    assert loaded["docs"]["manual.txt"]["length_chars"] == len(MANUAL)
    assert loaded["docs"]["notes.txt"]["length_chars"] == len(NOTES)
    assert out["total_chars"] == len(MANUAL) + len(NOTES)
    assert out["total_tokens_est"] == sum(d["length_tokens_est"] for d in out["loaded"])
    assert [(Path(e["source"]).name, e["error_code"]) for e in out["errors"]] == [
        ("blob.bin", "unsupported_file")
    ]


def test_search_json(loaded) -> None:
    sid, manual = loaded["out"]["session_id"], loaded["docs"]["manual.txt"]
    out = _json(
        rlm(
            "search",
            "keypad code",
            "-s",
            sid,
            "--json",
            cwd=loaded["root"],
            data_dir=loaded["data_dir"],
        )
    )
    assert out["matches"][0]["doc_id"] == manual["doc_id"]
    assert "7316" in out["matches"][0]["context"]
    assert out["total_matches"] >= 1
    literal = _json(
        rlm(
            "search",
            "monday",
            "-s",
            sid,
            "--method",
            "literal",
            "--context-chars",
            "4",
            "--json",
            cwd=loaded["root"],
            data_dir=loaded["data_dir"],
        )
    )
    (match,) = literal["matches"]
    start, end = match["span"]["start"], match["span"]["end"]
    assert NOTES[start:end] == "Monday"
    assert match["context"] == NOTES[start - 4 : end + 4]


def test_peek_json_and_plain(loaded) -> None:
    sid, doc = loaded["out"]["session_id"], loaded["docs"]["manual.txt"]["doc_id"]
    common = {"cwd": loaded["root"], "data_dir": loaded["data_dir"]}
    out = _json(rlm("peek", doc, "-s", sid, "--start", "27", "--end", "60", "--json", **common))
    assert out["content"] == MANUAL[27:60]
    assert out["span"] == {"doc_id": doc, "start": 27, "end": 60}
    plain = rlm("peek", doc, "-s", sid, **common)
    assert plain.returncode == 0, plain.stderr
    # Plain output is the text itself: no wrapping of the long line, tabs kept.
    assert plain.stdout == MANUAL


def test_chunk_json(loaded) -> None:
    sid, doc = loaded["out"]["session_id"], loaded["docs"]["notes.txt"]["doc_id"]
    common = {"cwd": loaded["root"], "data_dir": loaded["data_dir"]}
    args = ("chunk", doc, "-s", sid, "--strategy", "lines", "--line-count", "1", "--json")
    first = _json(rlm(*args, **common))
    assert [s["preview"] for s in first["spans"]] == NOTES.splitlines(keepends=True)
    assert first["total_spans"] == 2
    # The cache lives in the store, so it survives between processes.
    second = _json(rlm(*args, **common))
    assert second["cached"] is True
    assert [s["span_id"] for s in second["spans"]] == [s["span_id"] for s in first["spans"]]


def test_sessions_json(loaded) -> None:
    out = _json(rlm("sessions", "--json", cwd=loaded["root"], data_dir=loaded["data_dir"]))
    (row,) = [s for s in out["sessions"] if s["session_id"] == loaded["out"]["session_id"]]
    assert row["name"] == "cli-test"
    assert row["status"] == "active"
    assert row["documents"] == 2
    assert row["total_chars"] == len(MANUAL) + len(NOTES)


def test_unknown_doc_is_a_coded_error(loaded) -> None:
    sid = loaded["out"]["session_id"]
    common = {"cwd": loaded["root"], "data_dir": loaded["data_dir"]}
    plain = rlm("peek", "doc_000000000000", "-s", sid, **common)
    assert plain.returncode != 0
    assert plain.stderr.startswith("error[not_found]: ")
    assert "doc_000000000000" in plain.stderr
    assert plain.stdout == ""
    as_json = rlm("peek", "doc_000000000000", "-s", sid, "--json", **common)
    assert as_json.returncode != 0
    envelope = json.loads(as_json.stdout)
    assert set(envelope) == {"error", "meta"}
    assert envelope["meta"] == {"error_code": "not_found", "retryable": False}
    assert "doc_000000000000" in envelope["error"]
    assert as_json.stderr.startswith("error[not_found]: ")


def test_data_dir_from_environment_and_plain_load(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha beta\n", encoding="utf-8")
    env = {**_env(tmp_path), "RLM_DATA_DIR": str(tmp_path / "env-data")}
    proc = rlm("load", "a.txt", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("session ses_")
    assert "1 documents, 11 chars" in proc.stdout
    assert (tmp_path / "env-data" / "rlm.db").is_file()
    assert not (tmp_path / "xdg-data").exists()
