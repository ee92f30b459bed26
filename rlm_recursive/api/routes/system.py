"""Health and Prometheus metrics; neither needs a key (no tenant data in either)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ... import __version__
from ..deps import api_state
from ..metrics import CONTENT_TYPE

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["system"])


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    state = api_state(request)
    await state.db(state.runtime.store.sql.one, "SELECT 1")  # the store answers
    return {"status": "ok", "version": __version__,
            "running_executions": len(state.tasks),
            # Each pooled provider's hosts: up or down, models, requests in flight.
            "model_hosts": state.providers.host_states()}


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    state = api_state(request)
    queued = request.app.state.runner.queued
    if queued is not None:  # workers run the executions: the queue's depth, from the store
        await state.metrics.count_queue(lambda: state.db(queued.queue.unfinished_counts))
    return Response(state.metrics.render(), media_type=CONTENT_TYPE)
