"""Audit log: exactly the allowed keys, no content, error codes on failure."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rlm_recursive.errors import FileNotFound, InternalError, RlmError
from rlm_recursive.policy import AUDIT_FIELDS, AuditLog, PathPolicy, audited

MARKER = "PHI-MARKER-7f3a9c"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_record_has_exactly_the_allowed_keys(tmp_path):
    log = AuditLog(tmp_path / "audit" / "audit.jsonl", profile="restricted")
    log.record(
        correlation_id="c1",
        tool="rlm_query",
        duration_ms=12.4,
        bytes_read=10,
        model_used="ollama/qwen3:8b",
        cost=0.0012,
        error_code=None,
    )
    (rec,) = _records(log.path)
    assert set(rec) == set(AUDIT_FIELDS)
    assert rec["profile"] == "restricted"
    assert rec["duration_ms"] == 12 and rec["bytes_read"] == 10
    assert rec["model_used"] == "ollama/qwen3:8b" and rec["cost"] == 0.0012
    assert (log.path.stat().st_mode & 0o777) == 0o600


def test_record_only_takes_the_named_fields(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl")
    with pytest.raises(TypeError):
        log.record(correlation_id="c", tool="t", duration_ms=1, payload=MARKER)  # type: ignore[call-arg]


async def test_audited_block_handling_a_document_does_not_log_its_content(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "patient.txt").write_text(f"Name: Jane Doe\n{MARKER}\n")
    policy = PathPolicy(allowed_roots=[root])
    log = AuditLog(tmp_path / "audit.jsonl", profile="restricted")
    async with audited(log, "rlm_query", "corr-1") as entry:
        data = policy.read_bytes(policy.resolve("patient.txt"))
        entry.bytes_read = len(data)
        entry.model_used = "fake"
        entry.cost = 0.0
        with pytest.raises(AttributeError):
            entry.content = data.decode()  # type: ignore[attr-defined]
    text = log.path.read_text()
    assert MARKER not in text and "Jane" not in text
    (rec,) = _records(log.path)
    assert set(rec) == set(AUDIT_FIELDS)
    assert rec["bytes_read"] == len(data) and rec["error_code"] is None
    assert rec["correlation_id"] == "corr-1" and rec["tool"] == "rlm_query"


async def test_error_code_recorded_on_failure_without_the_message(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    with pytest.raises(FileNotFound):
        async with audited(log, "rlm_query", "corr-2"):
            raise FileNotFound(f"missing {MARKER}")
    with pytest.raises(ValueError):
        async with audited(log, "rlm_query", "corr-3"):
            raise ValueError(MARKER)
    with pytest.raises(asyncio.CancelledError):
        async with audited(log, "rlm_query", "corr-4"):
            raise asyncio.CancelledError()
    assert MARKER not in log.path.read_text()
    codes = [r["error_code"] for r in _records(log.path)]
    assert codes == ["file_not_found", "internal_error", "cancelled"]


def test_strings_that_look_like_content_are_redacted(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record(
        correlation_id="c 1 with spaces",
        tool="rlm_query",
        duration_ms=float("nan"),
        model_used=f"Patient said: {MARKER}",
        error_code="Not A Code",
        cost=float("inf"),
    )
    (rec,) = _records(log.path)
    assert MARKER not in json.dumps(rec)
    assert rec["correlation_id"] == rec["model_used"] == rec["error_code"] == "<redacted>"
    assert rec["duration_ms"] == 0 and rec["cost"] is None


async def test_disabled_or_missing_log_writes_nothing(tmp_path):
    path = tmp_path / "audit.jsonl"
    async with audited(AuditLog(path, enabled=False), "rlm_query", "c"):
        pass
    async with audited(None, "rlm_query") as entry:
        assert entry.correlation_id  # generated when the surface gave none
    assert not path.exists()


async def test_unwritable_log_fails_closed_but_keeps_the_original_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = AuditLog(blocker / "audit.jsonl")  # parent is a file: cannot be created
    with pytest.raises(InternalError, match="audit log"):
        async with audited(log, "rlm_query", "c"):
            pass
    with pytest.raises(FileNotFound) as info:
        async with audited(log, "rlm_query", "c"):
            raise FileNotFound("x")
    assert isinstance(info.value, RlmError)
    assert any("audit log" in note for note in info.value.__notes__)
