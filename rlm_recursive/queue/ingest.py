"""What a worker runs for a queued load (`rlm.ingest`): read and parse a session's sources,
publish its documents, and mark it READY or FAILED with the errors and warnings an
in-process load records (`corpus.readiness.LoadOutcome`).

Safe to retry (`store/loads.py`): each run claims the next attempt and loads into a staging
session of its own; only the attempt that still owns the load publishes, in one transaction.
A worker SIGKILLed mid-load has its job retried elsewhere after the lease (the stalled-job
check in `jobs.retry_stalled`), and its half load is never shown nor doubled.

Paths are read on this worker's machine (a volume the `api` and the workers share, mounted
at the same place), under this worker's path policy: the client rules of its profile for
loads an `api` queued, its profile's own for the CLI's `load --queue`. Inline texts come
from the (shared) blob store by content hash.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from procrastinate import JobContext

from ..corpus.loaders import Source, load_sources
from ..corpus.readiness import LoadOutcome
from ..store import Store
from ..store.loads import LoadClaim
from ..tools.search import search_session
from .jobs import WorkerContext

__all__ = ["ingest", "stored_sources"]


def stored_sources(store: Store, sources: list[Source]) -> list[dict[str, Any]]:
    """Sources as a queued load keeps them: an inline text goes to the blob store (shared by
    every machine) and only its content hash is queued, never the text itself."""
    stored = []
    for source in sources:
        data = source.model_dump(exclude_none=True)
        if source.type == "inline":
            try:
                encoded = data["content"].encode("utf-8")
            except UnicodeEncodeError:  # kept as it is: the load reports it as bad text
                pass
            else:
                data["blob"] = store.blobs.put(encoded)
                del data["content"]
        stored.append(data)
    return stored


def _sources(store: Store, stored: list[dict[str, Any]]) -> list[Source]:
    return [Source.model_validate({k: v for k, v in data.items() if k != "blob"}
                                  | {"content": store.blobs.text(data["blob"])})
            if "blob" in data else Source.model_validate(data) for data in stored]


def _log(message: str) -> None:
    print(f"rlm-recursive worker: {message}", file=sys.stderr, flush=True)


async def ingest(context: JobContext, session_id: str) -> str:
    rlm: WorkerContext = context.additional_context["rlm"]
    store, loads = rlm.runtime.store, rlm.loads
    claim = await asyncio.to_thread(loads.claim, session_id)
    if claim is None:
        return "nothing to load (published already, or the session was deleted)"
    started = time.monotonic()
    _log(f"load {session_id} started (attempt {claim.attempt}): "
         f"{len(claim.sources)} source(s)")
    try:
        # A thread goes on if the job is cancelled (shutdown): its staging session is then
        # left unpublished, and the retried job loads afresh.
        outcome = await asyncio.to_thread(_load, rlm, store, claim)
    except Exception as exc:  # coded (a missing blob, a denied root) or a bug: FAILED
        outcome = LoadOutcome.failed(exc)
    published = await asyncio.to_thread(loads.publish, claim, outcome.readiness,
                                        outcome.notes())
    took = time.monotonic() - started
    if not published:  # a newer attempt owns the load: its documents are the ones kept
        _log(f"load {session_id} attempt {claim.attempt} superseded after {took:.1f} s")
        return f"attempt {claim.attempt} superseded"
    codes = sorted({e.get("error_code") or e.get("code") for e in outcome.errors})
    _log(f"load {session_id} {outcome.readiness} in {took:.1f} s (attempt {claim.attempt}): "
         f"{len(claim.sources)} source(s), {outcome.loaded} document(s), "
         f"{len(outcome.errors)} error(s){' ' + ', '.join(codes) if codes else ''}")
    if outcome.loaded:  # this worker's own index cache, for the executions it will run
        try:
            await asyncio.to_thread(search_session, store, session_id, "index", limit=1)
        except Exception as exc:  # only a cache: any process builds it on first use
            _log(f"index of {session_id} not built: {type(exc).__name__}: {exc}")
    return f"{outcome.readiness}: {outcome.loaded} document(s) in {took:.1f} s"


def _load(rlm: WorkerContext, store: Store, claim: LoadClaim) -> LoadOutcome:
    policy = rlm.client_paths if claim.origin == "api" else rlm.runtime.policy
    report = load_sources(store, claim.staging_id, _sources(store, claim.sources), policy,
                          store.session_config(claim.staging_id), ocr=claim.ocr)
    return LoadOutcome.of(report)
