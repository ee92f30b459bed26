"""Secret spans of source texts: found once, stored, and read back by the export.

A document's text is scanned when it is stored, and an artifact's strings when the artifact
is. The scan runs on the trace writer's thread (a load only pays for queueing it), and
`session_secrets` scans, on the spot, whatever is not yet scanned with the current rule set
(a scan still queued, one lost with its process, or one made by an older rule set), so the
export never depends on the background scan having run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .db import utcnow
from .tracewriter import Prepare, SqlRecord

if TYPE_CHECKING:
    from .blobs import Blobs
    from .connector import Connector
    from .store import Store

__all__ = ["SessionSecrets", "artifact_subject", "doc_subject", "queue_scan", "session_secrets"]

Span = tuple[int, int, str]


def doc_subject(content_hash: str) -> str:
    return f"blob:{content_hash}"


def artifact_subject(artifact_id: str) -> str:
    return f"art:{artifact_id}"


def _scan(subject: str, text: str) -> tuple[str, list[SqlRecord]]:
    """Scan one text; the statements that record it (replacing an older scan)."""
    # Imported on use: RE2 and detect-secrets are paid for by the first scan, not the import.
    from ..secretscan import RULESET_VERSION, default_detector, joined_values

    detector = default_detector()
    hits = (joined_values(detector, text)[1] if subject.startswith("art:")
            else detector.find(text))
    statements: list[SqlRecord] = [("DELETE FROM secret_spans WHERE subject = ?", (subject,))]
    statements += [("INSERT INTO secret_spans (subject, start_offset, end_offset, kind, "
                    "confidence) VALUES (?, ?, ?, ?, ?) ON CONFLICT (subject, start_offset) "
                    "DO UPDATE SET end_offset = excluded.end_offset, kind = excluded.kind, "
                    "confidence = excluded.confidence",
                    (subject, h.start, h.end, h.kind, h.confidence)) for h in hits]
    statements.append(("INSERT INTO secret_scans (subject, ruleset, found, scanned_at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT (subject) DO UPDATE SET "
                       "ruleset = excluded.ruleset, found = excluded.found, "
                       "scanned_at = excluded.scanned_at",
                       (subject, RULESET_VERSION, len(hits), utcnow())))
    return RULESET_VERSION, statements


def _is_current(conn: Connector, subject: str) -> bool:
    from ..secretscan import RULESET_VERSION

    row = conn.one("SELECT ruleset FROM secret_scans WHERE subject = ?", (subject,))
    return row is not None and row[0] == RULESET_VERSION


def queue_scan(blobs: Blobs, subject: str, text: str | None = None) -> Prepare:
    """A trace-writer record that scans a document blob (or `text`) unless already scanned."""

    def prepare(conn: Connector) -> tuple[list[SqlRecord], list[tuple[str, str]]]:
        if _is_current(conn, subject):
            return [], []
        body = text if text is not None else blobs.text(subject.removeprefix("blob:"))
        return _scan(subject, body)[1], []

    return prepare


@dataclass
class SessionSecrets:
    """What an export knows of a session's secrets."""

    doc_spans: dict[str, list[Span]] = field(default_factory=dict)
    """doc_id → secret spans of its text (character offsets)."""
    texts: dict[str, str] = field(default_factory=dict)
    """doc_id → text, for the documents that have secrets."""
    known: list[str] = field(default_factory=list)
    """Every secret string found in a source (documents and artifacts)."""


def session_secrets(store: Store, session_id: str) -> SessionSecrets:
    """The secret spans of every document and artifact of a session, scanning what is missing."""
    from ..secretscan import join_strings

    store.flush()  # scans queued by loads land first
    subjects: dict[str, tuple[str, str | None]] = {}  # subject -> (doc_id or "", text)
    for doc in store.documents(session_id):
        subjects.setdefault(doc_subject(doc.content_hash), (doc.id, None))
    artifacts = {artifact_subject(a["id"]): a["content"] for a in store.artifacts(session_id)}
    for subject, content in artifacts.items():
        subjects[subject] = ("", content)
    for subject, (_, text) in subjects.items():
        if not _is_current(store.sql, subject):
            body = text if text is not None else store.blobs.text(
                subject.removeprefix("blob:"))
            _, statements = _scan(subject, body)
            with store.sql.transaction() as tx:
                for sql, params in statements:
                    tx.execute(sql, params)
    found = SessionSecrets()
    by_hash = {}
    for doc in store.documents(session_id):
        by_hash.setdefault(doc.content_hash, []).append(doc.id)
    listed = ("SELECT value FROM json_each(?)" if store.dialect == "sqlite"
              else "SELECT jsonb_array_elements_text(?::jsonb)")
    rows = store.sql.query(
        "SELECT subject, start_offset, end_offset, kind FROM secret_spans WHERE subject IN "
        f"({listed}) ORDER BY subject, start_offset",
        (json.dumps(list(subjects)),))
    for subject, start, end, kind in rows:
        if subject.startswith("blob:"):
            content_hash = subject.removeprefix("blob:")
            text = store.blobs.text(content_hash)
            for doc_id in by_hash.get(content_hash, []):
                found.doc_spans.setdefault(doc_id, []).append((start, end, kind))
                found.texts[doc_id] = text
            found.known.append(text[start:end])
        else:
            found.known.append(join_strings(artifacts[subject])[start:end])
    return found
