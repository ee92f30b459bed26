"""The runner as an OpenAI-compatible model: `GET /v1/models`, `POST /v1/chat/completions`.

Each of the tenant's sessions is a model, `rlm/<session_id>`, and once per preset,
`rlm/<preset>/<session_id>`. The tenant's API key is the bearer token. The last message is
the question, asked as an API execution over that session (budgets, limits, usage and the
audit record as for `POST /v1/sessions/{id}/executions`); the earlier messages are the
conversation it continues (LCM, see `chat_threads`). The answer is the assistant message,
with its sources as a footnote list; the spans also come in a `citations` field, and an
answer that nothing backs says so at the top (`rlm.grounded` is false).

With `stream: true` the reply is OpenAI's SSE stream (`chat.completion.chunk` objects, then
`data: [DONE]`). While the run works, its progress arrives as SSE comment lines,
`: rlm-progress {"type": …, "message": "hop 2/3: searching 'office Lisbon'"}`, which every
OpenAI client skips; the execution id is in the `X-RLM-Execution-Id` header, for
`GET /v1/executions/{id}/events`. A run that fails after the stream began ends it with
`data: {"error": {…}}`, as OpenAI's own API does.

A client that goes away (a closed tab, a "stop generating" button, a timeout) cancels the
run, streamed or not: its answer would have no reader, and its model calls cost someone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sse_starlette import EventSourceResponse, ServerSentEvent

from ...errors import ERROR_CODES, InternalError, InvalidArgs, NotFound, RlmError
from ...trajectory.feed import EventFeed
from ..chat_threads import ChatThreads, Turn
from ..deps import Principal, api_state, require
from ..errors import HTTP_STATUS
from ..openai_wire import ChatIn, OpenAIRoute, chunk, completion, error_body, extension
from ..openai_wire import with_sources as message_text
from .executions import ExecutionIn, OptionsIn

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["openai"], route_class=OpenAIRoute)

_PREFIX = "rlm"
_HISTORY_ROLES = {"system": "system", "developer": "system", "user": "user",
                  "assistant": "assistant"}


def _created(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).timestamp())


def _model(model_id: str, session: Any, preset: str | None) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": _created(session["created_at"]),
            "owned_by": "rlm-recursive",
            "rlm": {"session_id": session["id"], "session_name": session["name"],
                    "preset": preset, "status": session["readiness"]}}


def _target(model: str, presets: dict[str, Any]) -> tuple[str | None, str]:
    """(preset or None, session id) of a model id; NotFound for anything else."""
    parts = model.split("/")
    if parts[0] != _PREFIX or len(parts) not in (2, 3) or not parts[-1] or (
            len(parts) == 3 and parts[1] not in presets):
        raise NotFound(f"no model {model[:200]!r}: models are rlm/<session_id> or "
                       "rlm/<preset>/<session_id>; GET /v1/models lists them", kind="model")
    return (parts[1] if len(parts) == 3 else None), parts[-1]


@router.get("/models")
async def list_models(request: Request, who: Annotated[Principal, Depends(require("read"))]
                      ) -> dict[str, Any]:
    """Every session of the tenant as `rlm/<session_id>`, and once per preset."""
    state = api_state(request)
    rows = await state.db(state.tenants.sessions, who.tenant_id, 1000)
    presets = sorted(state.runtime.catalog.presets)
    data = []
    for row in rows:
        data.append(_model(f"{_PREFIX}/{row['id']}", row, None))
        data += [_model(f"{_PREFIX}/{p}/{row['id']}", row, p) for p in presets]
    return {"object": "list", "data": data}


@router.get("/models/{model_id:path}")
async def get_model(model_id: str, request: Request,
                    who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    state = api_state(request)
    preset, session_id = _target(model_id, state.runtime.catalog.presets)
    row = await state.db(state.tenants.owned_session, who.tenant_id, session_id)
    return _model(model_id, row, preset)


def _question(body: ChatIn) -> tuple[str, list[Turn]]:
    *earlier, last = body.messages
    if last.role != "user" or not last.text().strip():
        raise InvalidArgs("the last message must be the user's question, as text")
    history = [(_HISTORY_ROLES[m.role], m.text()) for m in earlier if m.role in _HISTORY_ROLES]
    return last.text().strip(), history


def _run_error(error: dict[str, Any]) -> RlmError:
    cls = ERROR_CODES.get(error.get("code", ""), InternalError)
    return cls(error.get("message", "the run failed"), retryable=error.get("retryable"))


async def _outcome(feed: EventFeed) -> dict[str, Any]:
    """The run's answer event, waiting for it; its error as an exception."""
    found: dict[str, Any] = {}
    async for event in feed.follow():
        if event.type in ("answer", "error"):
            found = {"type": event.type, **event.data}
    if found.get("type") != "answer":
        raise _run_error(found or {"message": "the run ended without an answer"})
    return found


@router.post("/chat/completions", response_model=None)
async def chat_completions(body: ChatIn, request: Request,
                           who: Annotated[Principal, Depends(require("run"))]
                           ) -> JSONResponse | EventSourceResponse:
    state, runner = api_state(request), request.app.state.runner
    preset, session_id = _target(body.model, state.runtime.catalog.presets)
    question, history = _question(body)
    await state.db(state.tenants.owned_session, who.tenant_id, session_id)
    try:
        options = ExecutionIn(question=question, preset=preset, options=OptionsIn(
            strategy=body.rlm.strategy if body.rlm else "auto")).query_options()
    except ValidationError as exc:
        raise InvalidArgs(f"the question: {exc.errors()[0]['msg']}") from None
    threads = ChatThreads(state.runtime)
    conversation_id = await state.db(threads.conversation, who.tenant_id, session_id, history)
    options = options.model_copy(update={"conversation_id": conversation_id})
    execution_id = await runner.start(who, session_id, question, options,
                                      {"surface": "chat_completions"})
    request.state.audit["execution_id"] = execution_id
    feed: EventFeed = runner.feeds.get(execution_id)
    completion_id, headers = f"chatcmpl-{execution_id}", {"X-RLM-Execution-Id": execution_id}

    async def answered(answer: dict[str, Any]) -> str:
        """The assistant message; the thread is remembered for the client's next turn."""
        content = message_text(answer["answer"] or "", answer["citations"], answer["grounded"])
        await state.db(threads.remember, who.tenant_id, session_id,
                       [*history, ("user", question), ("assistant", content)],
                       answer.get("conversation_id"))
        request.state.audit.update(model=answer.get("model"))
        return content

    async def abandon() -> None:
        """The client left before the answer: stop the run (idempotent)."""
        record = await state.owned_execution(who.tenant_id, execution_id)
        await runner.cancel(record)

    if not body.stream:
        answer = await _unless_disconnected(request, _outcome(feed), abandon)
        reply = completion(completion_id, body.model, await answered(answer), answer)
        return JSONResponse(reply, headers=headers)
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    return EventSourceResponse(
        _cancel_if_unfinished(_stream(feed, completion_id, body.model, include_usage,
                                      answered), abandon),
        headers=headers, sep="\n", ping=15)


_DISCONNECT_POLL_S = 0.5


async def _unless_disconnected(request: Request, outcome: Any, abandon: Any) -> Any:
    """Await `outcome`, watching the client: when it disconnects, `abandon()` the run."""
    task = asyncio.ensure_future(outcome)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=_DISCONNECT_POLL_S)
            if done:
                return task.result()
            if await request.is_disconnected():
                _in_background(abandon())
                raise asyncio.CancelledError  # nobody is left to answer
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def _cancel_if_unfinished(events: AsyncIterator[ServerSentEvent],
                                abandon: Any) -> AsyncIterator[ServerSentEvent]:
    """The SSE stream; sse-starlette closes it when the client disconnects, which cancels
    the run unless its last event was already sent."""
    finished = False
    try:
        async for event in events:
            yield event
        finished = True
    finally:
        if not finished:
            _in_background(abandon())


_ABANDONING: set[asyncio.Task[None]] = set()
"""Cancellations under way, referenced until done (the request's own task is ending, and
anyio would cancel any await made inside it)."""


def _in_background(work: Any) -> None:
    task = asyncio.get_running_loop().create_task(work)
    _ABANDONING.add(task)
    task.add_done_callback(_ABANDONING.discard)


def _data(payload: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(json.dumps(payload, ensure_ascii=False, default=str))


async def _stream(feed: EventFeed, completion_id: str, model: str, include_usage: bool,
                  answered: Any) -> AsyncIterator[ServerSentEvent]:
    created = int(time.time())
    yield _data(chunk(completion_id, model, created, {"role": "assistant", "content": ""}))
    answer: dict[str, Any] | None = None
    async for event in feed.follow():
        if event.type == "answer":
            answer = event.data
            yield _data(chunk(completion_id, model, created,
                              {"content": await answered(answer)}))
        elif event.type == "error":
            status = HTTP_STATUS.get(event.data.get("code", ""), 500)
            yield _data(error_body(dict(event.data), status))
            return
        elif event.type != "status":
            yield ServerSentEvent(comment="rlm-progress " + json.dumps(
                {"type": event.type, "message": event.message}, ensure_ascii=False))
    if answer is None:
        yield _data(error_body({"code": "internal_error",
                                "message": "the run ended without an answer"}, 500))
        return
    yield _data(chunk(completion_id, model, created, {}, "stop",
                      citations=answer["citations"], rlm=extension(answer)))
    if include_usage:
        usage = completion(completion_id, model, "", answer)["usage"]
        yield _data(chunk(completion_id, model, created, None, usage=usage))
    yield ServerSentEvent("[DONE]")
