"""OpenAI's chat wire format: the request we accept, the replies and stream chunks we send,
and errors in the shape OpenAI clients parse.

Clients send many optional fields (temperature, max_tokens, user, tools …): unknown ones
are accepted and ignored, since the runner picks its own models and budgets. An error is
`{"error": {"message", "type", "param", "code", …}}`: the official client reads `message`,
`type`, `param` and `code`, and `code` carries our stable code (`not_found`, `unauthorized`,
…), with `request_id` and `details` as in the rest of the API.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field

from ..agent.strategies import Strategy
from ..errors import ERROR_CODES, InvalidArgs, RlmError
from .errors import error_response, request_id_from

__all__ = ["ChatIn", "OpenAIRoute", "chunk", "completion", "error_body", "with_sources"]

_ERROR_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                409: "conflict_error", 429: "rate_limit_error"}

NOT_GROUNDED = ("Unverified: no loaded document was found to back this answer. Treat it as "
                "a guess, not a finding.")


def error_type(status: int) -> str:
    if status >= 500:
        return "server_error"
    return _ERROR_TYPES.get(status, "invalid_request_error")


def error_body(error: dict[str, Any], status: int) -> dict[str, Any]:
    """Our envelope's error object with OpenAI's `type` and `param` added."""
    code = error.get("code") if error.get("code") in ERROR_CODES else "internal_error"
    return {"error": {"message": error.get("message", ""), "type": error_type(status),
                      "param": None, "code": code,
                      **{k: v for k, v in error.items() if k not in ("message", "code")}}}


def _openai_error(exc: RlmError, request: Request) -> Response:
    """The API's own error response (status, Retry-After, …), its body in OpenAI's shape."""
    rid = getattr(request.state, "request_id", None) or request_id_from(None)
    ours = error_response(exc, rid)
    headers = {k: v for k, v in ours.headers.items() if k.lower() != "content-length"}
    return JSONResponse(error_body(json.loads(ours.body)["error"], ours.status_code),
                        status_code=ours.status_code, headers=headers)


class OpenAIRoute(APIRoute):
    """A route whose errors (auth, validation, ours) come in OpenAI's error shape."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except RlmError as exc:
                return _openai_error(exc, request)
            except RequestValidationError as exc:
                problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                                     for e in exc.errors())
                return _openai_error(InvalidArgs(f"invalid request: {problems}"), request)

        return guarded


class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: str
    text: str | None = None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        if self.content is None or isinstance(self.content, str):
            return self.content or ""
        if any(p.type != "text" for p in self.content):
            raise InvalidArgs("only text content is supported (no images, audio or files)")
        return "\n".join(p.text or "" for p in self.content)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = False


class RlmOptions(BaseModel):
    """How the runner answers: `{"rlm": {"strategy": "iterative"}}` in the request body."""

    model_config = ConfigDict(extra="forbid")

    strategy: Strategy = "auto"


class ChatIn(BaseModel):
    """OpenAI's chat completion request; the fields the runner does not use are ignored."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(description="rlm/<session_id> or rlm/<preset>/<session_id> "
                                   "(GET /v1/models lists them)")
    messages: list[MessageIn] = Field(min_length=1, max_length=1000)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(None, ge=1, le=1, description="One choice only")
    rlm: RlmOptions | None = Field(None, description="Our extension (the SDK's extra_body)")



def with_sources(answer: str, citations: list[dict[str, Any]], grounded: bool) -> str:
    """The assistant message: the answer, a warning when nothing backs it, and the sources
    as a numbered footnote list (file, characters, checksum)."""
    text = answer if grounded else f"{NOT_GROUNDED}\n\n{answer}"
    if not citations:
        return text
    lines = [f"[{i}] {c.get('source_name') or c['doc_id']}, characters "
             f"{c['start_char']}-{c['end_char']} ({c['checksum'][:19]}…)"
             for i, c in enumerate(citations, start=1)]
    return text + "\n\nSources:\n" + "\n".join(lines)


def _usage(usage: dict[str, Any]) -> dict[str, int]:
    prompt, completion_ = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens")
                                                                    or 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion_,
            "total_tokens": prompt + completion_}


def completion(completion_id: str, model: str, content: str, answer: dict[str, Any]
               ) -> dict[str, Any]:
    """A `chat.completion` object, plus `citations` and an `rlm` block (our extensions)."""
    return {
        "id": completion_id, "object": "chat.completion", "created": int(time.time()),
        "model": model, "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": None}}],
        "usage": _usage(answer.get("usage") or {}),
        "citations": answer["citations"],
        "rlm": extension(answer),
    }


def extension(answer: dict[str, Any]) -> dict[str, Any]:
    return {"grounded": answer["grounded"], "strategy": answer.get("strategy"),
            "model": answer.get("model"), "conversation_id": answer.get("conversation_id"),
            "closest": answer.get("closest") or []}


def chunk(completion_id: str, model: str, created: int, delta: dict[str, Any] | None,
          finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One `chat.completion.chunk`; `delta=None` makes the usage chunk (no choices)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None,
                                         "finish_reason": finish}]
    return {"id": completion_id, "object": "chat.completion.chunk", "created": created,
            "model": model, "system_fingerprint": None, "choices": choices, **extra}
