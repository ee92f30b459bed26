"""Garbage collection: blobs and search-index folders that no live session references.

A session is live unless it is DELETED or EXPIRED (`lifecycle.py`). A blob is kept while any
live session's document, or any LCM large file, names it; an index folder while its session
is live. Anything younger than `grace_s` is kept whatever the tables say: a load writes its
blob before the document row that names it, and a search builds its folder on first use.
`collect(dry_run=True)` (the CLI's default) only reports.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .connector import Connector

__all__ = ["GRACE_S", "GcReport", "collect"]

GRACE_S = 3600.0

_DEAD = ("DELETED", "EXPIRED")
_BLOB_REFERENCES = (
    # (query, prefix to strip): every place a blob hash is written. A new one goes here.
    ("SELECT DISTINCT d.content_hash FROM documents d JOIN sessions s ON s.id = d.session_id "
     "WHERE COALESCE(s.readiness, '') NOT IN (?, ?)", ""),
    ("SELECT DISTINCT storage_uri FROM large_files WHERE storage_uri LIKE 'blob:%'", "blob:"),
)


@dataclass
class GcReport:
    dry_run: bool
    blobs: list[str] = field(default_factory=list)
    indexes: list[str] = field(default_factory=list)
    bytes: int = 0
    blobs_shared: bool = False
    """True when blobs live in a shared store (RLM_BLOB_URL): they were not collected."""

    def to_dict(self) -> dict[str, Any]:
        return {"dry_run": self.dry_run, "blobs_shared": self.blobs_shared,
                "blobs": len(self.blobs),
                "indexes": len(self.indexes), "bytes": self.bytes,
                "blob_hashes": self.blobs, "index_sessions": self.indexes}


def _referenced_blobs(db: Connector) -> set[str]:
    found: set[str] = set()
    for query, prefix in _BLOB_REFERENCES:
        params = _DEAD if "?" in query else ()
        found.update(row[0].removeprefix(prefix) for row in db.query(query, params))
    return found


def _live_sessions(db: Connector) -> set[str]:
    rows = db.query("SELECT id FROM sessions WHERE COALESCE(readiness, '') NOT IN (?, ?)",
                    _DEAD)
    return {row[0] for row in rows}


def _old(path: Path, grace_s: float, now: float) -> bool:
    try:
        return now - path.stat().st_mtime > grace_s
    except FileNotFoundError:
        return False


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def collect(db: Connector, data_dir: Path, *, dry_run: bool = True,
            grace_s: float = GRACE_S, blobs: Any = None) -> GcReport:
    """Find (and unless `dry_run`, delete) unreferenced blobs and index folders.

    Blobs are collected only from the data dir's own `blobs/` folder: a shared blob store
    (`RLM_BLOB_URL`) may hold blobs other stores reference, which this database cannot see.
    `blobs` is the store's blob store (None: the data dir's own).
    """
    report, now = GcReport(dry_run=dry_run), time.time()
    own = data_dir / "blobs"
    root = getattr(blobs, "root", own) if blobs is not None else own
    report.blobs_shared = Path(root) != own if isinstance(root, str | Path) else True
    referenced = set() if report.blobs_shared else _referenced_blobs(db)
    for blob in [] if report.blobs_shared else sorted(own.glob("*/*")):
        if blob.name.startswith(".") or blob.name in referenced or not _old(blob, grace_s, now):
            continue
        report.blobs.append(blob.name)
        report.bytes += _size(blob)
        if not dry_run:
            blob.unlink(missing_ok=True)
    live = _live_sessions(db)
    indexes = data_dir / "indexes"
    for folder in sorted(p for p in indexes.glob("*") if p.is_dir()) if indexes.is_dir() else []:
        if folder.name in live or not _old(folder, grace_s, now):
            continue
        report.indexes.append(folder.name)
        report.bytes += _size(folder)
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
    return report
