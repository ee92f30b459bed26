"""`verify`: re-check the citations of an answer against the store.

Each citation's checksum is recomputed by the one verification routine the
`rlm_citation_verify` tool uses (`agent.citations.verify_citation`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from ..agent.citations import Citation, verify_citation
from ..errors import InternalError, InvalidArgs, NotFound
from ..policy import PathPolicy
from ..store import Store
from .reparse import Verdict, check_source

__all__ = ["CitationCheck", "load_citations", "verify_citations"]



class CitationCheck(BaseModel):
    citation: Citation
    status: Verdict
    detail: str
    text: str | None = None
    """The cited text as stored now (None when the document or its blob is gone)."""


def load_citations(raw: str) -> tuple[list[Citation], str | None]:
    """Citations and the session id from a whole `--json` answer, or a bare citations array."""
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidArgs(f"citations input is not JSON: {exc}") from None
    except RecursionError:  # `[[[[…` 100,000 deep: no answer is shaped like that
        raise InvalidArgs("citations input is nested too deeply to be an answer or a list of "
                          "citations (arrays or objects inside each other thousands of "
                          "levels deep)", reason="too_deep") from None
    session_id = None
    if isinstance(data, dict):
        session_id = data.get("session_id") if isinstance(data.get("session_id"), str) else None
        data = data.get("citations")
    if not isinstance(data, list):
        raise InvalidArgs("expected a JSON array of citations, or an answer with 'citations'")
    try:
        return [Citation.model_validate(c) for c in data], session_id
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InvalidArgs(f"citation {where}: {err['msg']}") from None


def _session_of(store: Store, doc_id: str) -> str | None:
    # doc ids are unique store-wide, so a bare citations array still finds its session.
    row = store.sql.one("SELECT session_id FROM documents WHERE id = ?", (doc_id,))
    return row[0] if row else None


def verify_citations(
    store: Store, citations: list[Citation], session_id: str | None = None,
    source_policy: PathPolicy | None = None,
) -> list[CitationCheck]:
    """One verdict per citation: valid, changed (text differs) or missing (doc or blob gone).

    With `source_policy`, each cited document's original file is read (through that policy)
    and parsed again, and the verdict is about the file, not the stored copy.
    """
    checks = []
    for citation in citations:
        session = session_id or _session_of(store, citation.doc_id)
        try:
            if session is None:
                raise NotFound(f"unknown doc_id {citation.doc_id!r}", kind="document")
            if source_policy is not None:
                status, detail, text = check_source(store, source_policy, session, citation)
                checks.append(CitationCheck(citation=citation, status=status, detail=detail,
                                            text=text))
                continue
            result = verify_citation(store, session, citation)
        except NotFound as exc:
            checks.append(CitationCheck(citation=citation, status="missing", detail=exc.message))
        except InternalError as exc:  # the blob file itself is gone
            checks.append(CitationCheck(citation=citation, status="missing", detail=exc.message))
        except InvalidArgs as exc:  # the range no longer fits the document
            checks.append(CitationCheck(citation=citation, status="changed", detail=exc.message))
        else:
            valid = bool(result["valid"])
            checks.append(CitationCheck(
                citation=citation, status="valid" if valid else "changed",
                text=str(result["text"]),
                detail="checksum matches" if valid else "the cited text has changed"))
    return checks
