"""`verify --source`: read a cited document's original file again, parse it again, and say
whether the cited text still stands at the cited place."""

from __future__ import annotations

from typing import Literal

from ..agent.citations import Citation
from ..errors import RlmError
from ..parsers import OcrEngine, parse_bytes
from ..policy import PathPolicy
from ..store import Store
from ..types import text_checksum

__all__ = ["Verdict", "check_source"]

Verdict = Literal["valid", "changed", "missing"]


def check_source(store: Store, policy: PathPolicy, session_id: str,
                 citation: Citation) -> tuple[Verdict, str, str | None]:
    """(status, detail, the text now at the cited range) against the file on disk.

    valid: the re-parsed file has the cited text at the cited offsets; changed: it does not
    (the detail says where it moved, if it did); missing: the file cannot be read or parsed.
    """
    doc = store.document(session_id, citation.doc_id)
    if doc.source_type != "file":
        return "missing", f"{doc.source} was not loaded from a file", None
    info = store.parses.info(doc.id)
    try:
        data = policy.read_bytes(policy.resolve(doc.source, expect="file"))
        parsed = parse_bytes(data, doc.source, ocr=OcrEngine.find())
    except RlmError as exc:
        return "missing", f"the original cannot be read again: {exc.message}", None
    now = parsed.text[citation.start : citation.end]
    same_file = info.raw_sha256 == parsed.raw_sha256
    file_note = "the file is unchanged" if same_file else "the file has changed since loading"
    if text_checksum(now) == citation.checksum:
        return "valid", f"the cited text stands in the original ({file_note})", now
    cited = store.text(doc)[citation.start : citation.end]
    found = parsed.text.find(cited) if cited else -1
    if found >= 0 and text_checksum(cited) == citation.checksum:
        where = ""
        if parsed.pages:
            page = next(p for p, s, e in parsed.pages if s <= found <= e)
            where = f", page {page}"
        return ("changed", f"{file_note}: the cited text now stands at "
                f"[{found}:{found + len(cited)}]{where}", now)
    return "changed", f"{file_note}: the cited text is no longer in it", now
