"""`GET /v1/executions/{id}/events`: an execution's progress as Server-Sent Events.

Each event has an `id` (1, 2, 3, … in order), an `event` name and one JSON object as data,
always with a one-line `message`:

- `status`   {status}: RUNNING (QUEUED when a worker runs it) first, the final status
             (COMPLETED, FAILED, …) last;
- `step`     {phase, id, kind, name, depth, status}: a model call, tool call or REPL step began
             (or failed);
- `sub_call` {phase, id, depth, …}: a sub-model call began, or ended with its duration;
- `progress` {task, done, total}: a long step (the first index build, a multi-hop look-up);
- `answer`   {answer, citations, grounded, …} or `error` {code, message, retryable}.

The stream ends after the final status. A client that reconnects with `Last-Event-ID` gets
the events after that one (numbered by this server: another one numbers them its own way).
An unfinished execution that a worker runs (the shared store) is followed from the store,
whichever `api` process queued it: its steps as the worker writes them, then its ending.
An execution this server no longer follows (it ended long ago, or ran in another process)
gets its final answer or error and status at once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from ...store.executions import is_finished
from ...trajectory.feed import FeedEvent
from ..deps import Principal, api_state, require
from .executions import execution_view

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["executions"])

_PING_S = 15
"""A comment line this often keeps proxies from closing a quiet stream."""


def _sse(event: FeedEvent) -> ServerSentEvent:
    return ServerSentEvent(json.dumps(event.data, ensure_ascii=False, default=str),
                           event=event.type, id=str(event.seq))


def _settled(view: dict[str, Any]) -> list[FeedEvent]:
    """The end of an execution no feed remembers, from its stored record."""
    if not is_finished(view["status"]):  # in another process: no live events here
        return [FeedEvent(1, "status", {"status": view["status"], "message": "running "
                                        "elsewhere; poll GET /v1/executions/{id}"})]
    events = []
    if view["error"]:
        events.append(FeedEvent(1, "error", dict(view["error"])))
    else:
        events.append(FeedEvent(1, "answer", {"message": "answered", "answer": view["answer"],
                                              "citations": view["citations"],
                                              "strategy": view["strategy"],
                                              "model": view["model"]}))
    events.append(FeedEvent(2, "status", {"status": view["status"],
                                          "message": view["status"].lower()}))
    return events


@router.get("/executions/{execution_id}/events", response_class=EventSourceResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "The execution's events, in order."}})
async def execution_events(
    execution_id: str, request: Request, who: Annotated[Principal, Depends(require("read"))],
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    state = api_state(request)
    record = await state.owned_execution(who.tenant_id, execution_id)
    request.state.audit["execution_id"] = execution_id
    runner = request.app.state.runner
    feed = runner.feeds.get(execution_id)
    if feed is None and runner.queued is not None and record["mode"] == "answerer" \
            and not is_finished(record["status"]):
        feed = runner.queued.follow(execution_id, record["status"])
    after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
    settled = None if feed is not None else _settled(
        await execution_view(state, who, execution_id, record))

    async def events() -> AsyncIterator[ServerSentEvent]:
        if feed is None:
            for event in settled or []:
                if event.seq > after:
                    yield _sse(event)
            return
        async for event in feed.follow(after):
            yield _sse(event)

    return EventSourceResponse(events(), ping=_PING_S, sep="\n")
