"""`load --queue [--wait]`: a worker loads the documents into a new session.

Only with the shared store (`RLM_DATABASE_URL`); without it `--queue` is refused
(`invalid_args`) and `load` parses in this process as always. The paths are made absolute
and checked here under this process's path policy (a clear error before any session exists);
the worker reads them on its own machine (a shared volume, mounted at the same place) under
its profile's policy.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from typing import Any

from ..agent.runtime import Runtime
from ..corpus.loaders import Source
from ..errors import ConfigError, InvalidArgs
from ..store.connector import DATABASE_URL_ENV, database_url
from ..store.sessions import discard_if_empty
from ..store.tenancy import TenantStore
from .common import ResultError, tool_output

__all__ = ["queue_load"]


async def queue_load(runtime: Runtime, sources: list[dict[str, Any]], name: str | None, *,
                     session: str | None, ocr: bool | None, wait: bool) -> dict[str, Any]:
    """Queue the load of `sources` (from `corpus.sources_for`) into a new session; with
    `wait`, return once a worker published it (READY; FAILED raises with the first code)."""
    url = database_url()
    if url is None or runtime.store.dialect != "postgresql":
        raise ConfigError(f"load --queue needs the shared store, where workers run: set "
                          f"{DATABASE_URL_ENV}=postgresql://… (or load without --queue)",
                          key=DATABASE_URL_ENV)
    if session is not None:
        raise InvalidArgs("load --queue makes a new session; --session loads in this process")
    from ..queue.loads import LoadQueue  # procrastinate: only with a database URL

    queued = [Source.model_validate({**s, "path": os.path.abspath(s["path"])})
              for s in sources]
    await asyncio.to_thread(_check, runtime, queued)
    queue = LoadQueue(url, runtime.store)
    try:
        sid = (await tool_output(runtime, "rlm_session_create", {"name": name}))["session_id"]
        try:
            await asyncio.to_thread(_enqueue, runtime, queue, sid, queued, ocr)
        except BaseException:
            await asyncio.to_thread(discard_if_empty, runtime.store, sid)
            raise
        if not wait:
            return {"session_id": sid, "status": "CREATING"}
        status = await queue.wait(sid, math.inf)
    finally:
        await queue.aclose()
    return await asyncio.to_thread(_published, runtime, sid, status)


def _check(runtime: Runtime, sources: list[Source]) -> None:
    for source in sources:
        if source.type != "glob":
            runtime.policy.resolve(source.path or "",
                                   expect="dir" if source.type == "directory" else "file")


def _enqueue(runtime: Runtime, queue: Any, sid: str, sources: list[Source],
             ocr: bool | None) -> None:
    TenantStore(runtime.store).set_readiness(sid, "CREATING")
    queue.enqueue(sid, sources, origin="cli", ocr=ocr)


def _published(runtime: Runtime, sid: str, status: str) -> dict[str, Any]:
    store = runtime.store
    row = store.session(sid)
    notes = json.loads(row["load_error"]) if row["load_error"] else {}
    docs = store.documents(sid)
    out = {"session_id": sid, "status": status, "documents": len(docs),
           "total_chars": sum(d.length_chars for d in docs),
           "errors": notes.get("errors", []), "warnings": notes.get("warnings", [])}
    if status != "READY":
        first = out["errors"][0] if out["errors"] else {}
        code = first.get("error_code") or first.get("code") or "internal_error"
        raise ResultError(f"nothing was loaded: {first.get('source', sid)}: "
                          f"{first.get('message', status)}", code, False, session_id=sid,
                          errors=out["errors"])
    return out
