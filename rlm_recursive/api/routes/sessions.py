"""Sessions (seed 003 §16.2): paths under the server's roots or inline text; READY once loaded
and indexed. Also the span reader, which needs a session.

Small inline-only sessions load before the answer. Other loads run in a task of this process,
or, with the shared PostgreSQL store, on a worker (`queue/ingest.py`): the answer is 201
CREATING at once and any api process reads READY later. A queued load's paths are read on
the worker's machine (a volume every api and worker mounts at the same place), under the
worker's client path rules; they are checked here too, so a denied or missing path is still
a 403/422 before any session exists.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...config import MAX_TOOL_CALLS_LIMIT, SessionConfig
from ...corpus.loaders import Source, load_sources
from ...corpus.readiness import LoadOutcome
from ...errors import InvalidArgs
from ...store.db import utcnow
from ...store.lifecycle import expires_at
from ...store.sessions import close_session
from ...tools.search import search_session
from ...tools.spec import STORE_WRITES
from ...types import text_checksum
from ..deps import Principal, api_state, require
from ..state import MAX_TTL_MINUTES, ApiState

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["sessions"])
_MAX_SPAN_CHARS = 200_000


class DocIn(BaseModel):
    """A path under the server's allowed roots, or inline text."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    path: str | None = Field(None, min_length=1, max_length=4096,
                             description="Relative to the server's allowed root")
    type: Literal["file", "directory", "glob"] = "file"
    text: str | None = Field(None, description="Inline text, bound by the server's body limit")
    source_name: str | None = Field(None, max_length=1000, description="A label for inline text")
    include_pattern: str | None = Field(None, max_length=1000,
                                        description="Folders: load only names matching this glob")
    exclude_pattern: str | None = Field(None, max_length=1000,
                                        description="Folders: skip names matching this glob")
    ignore_rules: bool = Field(True, description="Folders and globs: skip .git, caches, "
                               "virtualenvs, node_modules and what .gitignore names")

    @model_validator(mode="after")
    def _one(self) -> DocIn:
        if (self.path is None) == (self.text is None):
            raise ValueError("give exactly one of path and text")
        return self

    def source(self) -> Source:
        if self.text is not None:
            return Source(type="inline", content=self.text, name=self.source_name)
        return Source(type=self.type, path=self.path, recursive=self.type == "directory",
                      include_pattern=self.include_pattern,
                      exclude_pattern=self.exclude_pattern, ignore_rules=self.ignore_rules)


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str | None = Field(None, max_length=200)
    docs: list[DocIn] = Field(min_length=1, max_length=1000)
    max_tool_calls: int = Field(500, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    ttl_minutes: int | None = Field(None, ge=1, le=MAX_TTL_MINUTES,
                                    description="Time to live; the server's default if absent")
    ocr: bool | None = Field(None, description="Read image-only PDF pages with tesseract: "
                             "absent = when installed, true = ask (each page warns when it "
                             "is missing), false = never")


async def _load(state: ApiState, session_id: str, sources: list[Source],
                ocr: bool | None = None) -> None:
    """Load, then build the BM25 index; the session is READY, or FAILED with the errors.

    On a thread of its own, not the store thread: a folder's load and index build take
    seconds, and every other request's store work would queue behind it.
    """
    store = state.runtime.store

    def work() -> LoadOutcome:
        with STORE_WRITES:
            report = load_sources(store, session_id, sources, state.paths,
                                  store.session_config(session_id), ocr=ocr)
        if report.loaded:
            # A search builds the session's persisted index (tantivy) as a side effect.
            search_session(store, session_id, "index", limit=1)
        return LoadOutcome.of(report)

    try:
        outcome = await asyncio.to_thread(work)
    except Exception as exc:  # coded, or a bug of ours: FAILED with it, never left CREATING
        outcome = LoadOutcome.failed(exc)
    await state.db(state.tenants.set_readiness, session_id, outcome.readiness, outcome.notes())


def _check_paths(state: ApiState, docs: list[DocIn]) -> None:
    """Refuse a denied or missing path before a session exists (403/422, not a FAILED load)."""
    for doc in docs:
        if doc.path is not None and doc.type != "glob":
            state.paths.resolve(doc.path, expect="file" if doc.type == "file" else "dir")


@router.post("/sessions", status_code=201)
async def create_session(body: SessionIn, request: Request,
                         who: Annotated[Principal, Depends(require("run"))]) -> dict[str, Any]:
    state = api_state(request)
    # Everything is checked before anything exists: the schema (bounds, no lone surrogates:
    # bodyguard.py), the session's limits and every path.
    config = SessionConfig(max_tool_calls=body.max_tool_calls)
    await state.db(_check_paths, state, body.docs)
    sources = [d.source() for d in body.docs]
    store = state.runtime.store

    ttl = body.ttl_minutes or state.settings.session_ttl_minutes

    def create() -> str:
        sid = store.create_session(body.name, config)["session_id"]
        try:
            state.tenants.claim_session(sid, who.tenant_id, "CREATING", expires_at(ttl))
        except BaseException:
            state.tenants.discard_session(sid)
            raise
        return sid

    session_id = await state.db(create)
    try:
        inline = sum(len(d.text.encode("utf-8")) for d in body.docs if d.text is not None)
        if (all(d.text is not None for d in body.docs)
                and inline <= state.settings.inline_sync_bytes):
            await _load(state, session_id, sources, body.ocr)
        elif request.app.state.loads is not None:  # the shared store: a worker loads it
            await state.db(request.app.state.loads.enqueue, session_id, sources,
                           origin="api", ocr=body.ocr)
        else:
            task = asyncio.create_task(_load(state, session_id, sources, body.ocr))
            state.loads.add(task)
            task.add_done_callback(state.loads.discard)
        return await _view(state, who, session_id)
    except BaseException:
        # A create that did not answer leaves nothing behind (the client never got the id).
        await asyncio.shield(state.db(state.tenants.discard_session, session_id))
        raise


async def _view(state: ApiState, who: Principal, session_id: str) -> dict[str, Any]:
    store = state.runtime.store

    def read() -> tuple[Any, list[Any]]:
        return state.tenants.owned_session(who.tenant_id, session_id), store.documents(session_id)

    row, docs = await state.db(read)
    status = row["readiness"]
    load_notes = (json.loads(row["load_error"]) or {}) if row["load_error"] else {}
    return {
        "session_id": row["id"], "name": row["name"], "status": status,
        "readiness": {"parsed_ready": status == "READY", "search_ready": status == "READY",
                      "ready": status == "READY"},
        "created_at": row["created_at"], "closed_at": row["closed_at"],
        "expires_at": row["expires_at"],
        "errors": load_notes.get("errors", []),
        "warnings": load_notes.get("warnings", []),
        "docs": [{"doc_id": d.id, "doc_index": i, "source_name": d.source,
                  "length_chars": d.length_chars, "content_hash": d.content_hash,
                  "ingest_status": "PARSED"} for i, d in enumerate(docs)],
    }


@router.get("/sessions")
async def list_sessions(request: Request,
                        who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    state = api_state(request)
    rows = await state.db(state.tenants.sessions, who.tenant_id)
    now = utcnow()
    return {"sessions": [{"session_id": r["id"], "name": r["name"],
                          "status": "EXPIRED" if r["expires_at"] and r["expires_at"] <= now
                          else r["readiness"],
                          "created_at": r["created_at"], "expires_at": r["expires_at"]}
                         for r in rows]}


@router.get("/sessions/{session_id}")
async def get_session(session_id: str, request: Request,
                      who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    return await _view(api_state(request), who, session_id)


@router.delete("/sessions/{session_id}")
async def delete_session(session_id: str, request: Request,
                         who: Annotated[Principal, Depends(require("run"))]) -> dict[str, Any]:
    """The session is frozen and hidden from its tenant, its running executions stop; blobs
    stay (they are shared)."""
    state = api_state(request)
    store = state.runtime.store

    def delete() -> None:
        state.tenants.owned_session(who.tenant_id, session_id)
        close_session(store, session_id)
        state.tenants.set_readiness(session_id, "DELETED")

    await state.db(delete)
    await request.app.state.runner.cancel_session(session_id)
    await state.release_runtime_session(session_id)
    return {"session_id": session_id, "status": "DELETED"}


@router.get("/sessions/{session_id}/spans")
async def get_span(
    session_id: str, request: Request, who: Annotated[Principal, Depends(require("read"))],
    doc_index: Annotated[int, Query(ge=0)], start: Annotated[int, Query(ge=0)] = 0,
    end: Annotated[int | None, Query(ge=0)] = None,
) -> dict[str, Any]:
    """The text of doc[start:end] with a verifiable SpanRef."""
    state = api_state(request)
    store = state.runtime.store

    def read() -> dict[str, Any]:
        state.tenants.owned_session(who.tenant_id, session_id)
        docs = store.documents(session_id)
        if doc_index >= len(docs):
            raise InvalidArgs(f"doc_index {doc_index} is out of range ({len(docs)} documents)")
        doc = docs[doc_index]
        stop = doc.length_chars if end is None else end
        if not start <= stop <= doc.length_chars:
            raise InvalidArgs(f"span [{start}, {stop}) is outside the document "
                              f"(length {doc.length_chars})")
        if stop - start > _MAX_SPAN_CHARS:
            raise InvalidArgs(f"a span is at most {_MAX_SPAN_CHARS} characters")
        text = store.text(doc)[start:stop]
        return {"text": text, "source_name": doc.source, "ref": {
            "tenant_id": who.tenant_id, "session_id": session_id, "doc_id": doc.id,
            "doc_index": doc_index, "start_char": start, "end_char": stop,
            "checksum": text_checksum(text)}}

    return await state.db(read)
