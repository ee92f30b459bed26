"""What an exported session looks like on disk (seed 000 §3.6).

    .rlm/sessions/{timestamp}_{id8}/
        manifest.json          config, document inventory with checksums, artifact list, export
        artifacts/{id}.json
        traces/trace.jsonl
        docs/{doc_id}.meta.json, docs/{doc_id}.txt   only with include_docs

Everything here is a pure function of the session's content and the export options, so an
unchanged session renders byte for byte the same files (that is what makes re-export
idempotent). Volatile fields (status, tool calls used, export time) are left out on purpose.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..errors import InvalidArgs
from ..secretscan import apply
from ..store import Store
from ..store.secretspans import SessionSecrets
from .secrets import Finding
from .traces import TraceSanitizer

__all__ = ["FORMAT_VERSION", "ExportNames", "render_session", "stamp_now"]

FORMAT_VERSION = 1
EXPORT_TOOL = "rlm_export_github"
_SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+$")


def stamp_now() -> str:
    """The branch timestamp, e.g. `20260114T083210Z`."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


@dataclass(frozen=True)
class ExportNames:
    """The branch and folder an export writes to."""

    stamp: str
    branch: str
    path: str

    @classmethod
    def for_session(cls, session_id: str, stamp: str, branch: str | None = None,
                    path: str | None = None) -> ExportNames:
        # Our ids are `ses_` + 12 hex digits: the seed's `session_id[:8]` would keep only four
        # of them, so the eight come from the random part.
        short = session_id.split("_", 1)[-1][:8]
        return cls(stamp=stamp, branch=branch or f"rlm/session/{stamp}-{short}",
                   path=_clean_path(path or f".rlm/sessions/{stamp}_{short}"))


def _clean_path(path: str) -> str:
    parts = [p for p in path.strip().rstrip("/").split("/") if p != "."]
    if not parts or any(not p or p == ".." or p.lower() == ".git" or not _SAFE_SEGMENT.match(p)
                        for p in parts):
        raise InvalidArgs(f"export path {path!r} must be a relative folder inside the "
                          "repository: letters, digits, '.', '_' and '-' segments, without "
                          "'..' or '.git'")
    return "/".join(parts)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str) + "\n"


def render_session(
    store: Store, session_id: str, names: ExportNames, *, include_docs: bool, redact: bool,
    secrets: SessionSecrets,
) -> tuple[dict[str, str], list[Finding]]:
    """Relative path inside the export folder → file content (manifest last), and the secret
    parts hidden in document excerpts (a finding each: without redact they refuse the export).

    Documents and excerpts of them are redacted by their secret spans when `redact`; traces
    hold no document text unless `include_docs`.
    """
    row = store.session(session_id)
    store.flush()  # trace writes are batched: the export must hold every one made so far
    files: dict[str, str] = {}
    hidden: list[Finding] = []
    documents = []
    for doc in store.documents(session_id):
        meta_row = store.sql.one("SELECT metadata, created_at FROM documents WHERE id = ?",
                                 (doc.id,))
        entry = {"doc_id": doc.id, "source": doc.source, "source_type": doc.source_type,
                 "content_hash": doc.content_hash, "length_chars": doc.length_chars,
                 "length_tokens_est": doc.length_tokens_est,
                 "metadata": json.loads(meta_row["metadata"]), "loaded_at": meta_row["created_at"]}
        documents.append(entry)
        if include_docs:
            files[f"docs/{doc.id}.meta.json"] = _dump(entry)
            text = store.text(doc)
            spans = secrets.doc_spans.get(doc.id, [])
            files[f"docs/{doc.id}.txt"] = apply(text, spans)[0] if redact and spans else text
    artifacts = []
    for art in store.artifacts(session_id):
        span = store.span(session_id, art["span_id"]) if art["span_id"] else None
        name = f"artifacts/{art['id']}.json"
        files[name] = _dump({
            "artifact_id": art["id"], "session_id": session_id, "span_id": art["span_id"],
            "span": {"doc_id": span.doc_id, "start": span.start, "end": span.end,
                     "content_hash": span.content_hash} if span else None,
            "type": art["type"], "content": json.loads(art["content"]),
            "provenance": json.loads(art["provenance"]), "created_at": art["created_at"]})
        artifacts.append({"artifact_id": art["id"], "span_id": art["span_id"],
                          "type": art["type"], "created_at": art["created_at"], "file": name})
    traces = store.sql.query(
        "SELECT ts, op, input, output, duration_ms FROM traces WHERE session_id = ? AND op != ? "
        "ORDER BY id", (session_id, EXPORT_TOOL))
    sanitizer = TraceSanitizer(secrets, include_docs,
                               lambda: [store.text(d) for d in store.documents(session_id)])
    lines = []
    for number, t in enumerate(traces, 1):
        before = len(sanitizer.hidden)
        input_, output = sanitizer.record(t["op"], json.loads(t["input"]),
                                          json.loads(t["output"]))
        hidden += [Finding(f"{names.path}/traces/trace.jsonl", number, kind)
                   for kind in sanitizer.hidden[before:]]
        lines.append(json.dumps({"ts": t["ts"], "op": t["op"], "input": input_,
                                 "output": output, "duration_ms": t["duration_ms"]},
                                ensure_ascii=False, sort_keys=True) + "\n")
    files["traces/trace.jsonl"] = "".join(lines)
    files["manifest.json"] = _dump({
        "format": "rlm-recursive-session", "format_version": FORMAT_VERSION,
        "session": {"session_id": session_id, "name": row["name"],
                    "created_at": row["created_at"], "closed_at": row["closed_at"],
                    "config": json.loads(row["config"])},
        "documents": documents,
        "artifacts": artifacts,
        "traces": {"file": "traces/trace.jsonl", "records": len(traces)},
        "export": {"tool": "rlm-recursive", "version": __version__, "timestamp": names.stamp,
                   "branch": names.branch, "path": names.path, "include_docs": include_docs,
                   "redact": redact},
    })
    return files, hidden
