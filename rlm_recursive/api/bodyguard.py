"""Every request body before a route sees it: a size limit (413) and no lone surrogates (422).

A lone UTF-16 surrogate (`"a\\ud800b"`) is valid JSON but not text: Python decodes it into a
str that no encoder accepts, so it used to fail deep inside a load or a write (a 500, and a
session stuck CREATING). It is refused here, once for every route and /mcp, before anything
is created. Bodies are read whole anyway (FastAPI parses JSON from the full body), so the
limit costs nothing more than counting.
"""

from __future__ import annotations

import json
import re

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import DEFAULT_MAX_BODY_BYTES
from ..errors import InvalidArgs, PayloadTooLarge, RlmError
from ..types import has_lone_surrogate
from .errors import error_response, request_id_from

__all__ = ["DEFAULT_MAX_BODY_BYTES", "BodyGuard"]

# A JSON escape of a surrogate half; only bodies that carry one are parsed here.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(body: bytes) -> bool:
    if not _SURROGATE_ESCAPE.search(body):
        return False
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError):
        return False  # not JSON (or too deep): the route's own parsing refuses it
    return has_lone_surrogate(decoded)


class BodyGuard:
    """ASGI middleware: buffer the body up to `max_bytes`, check it, then replay it."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read(scope, receive)
            if body is None:  # the client went away
                return
            if _has_lone_surrogate(body):
                raise InvalidArgs("the request body holds a lone UTF-16 surrogate (e.g. "
                                  "\\ud800 without its pair), which is not text; send valid "
                                  "Unicode")
        except RlmError as exc:
            request_id = (scope.get("state") or {}).get("request_id") or request_id_from(None)
            await error_response(exc, request_id)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # disconnects reach streaming apps (MCP) as before
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, scope: Scope, receive: Receive) -> bytes | None:
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            raise self._too_large()
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _too_large(self) -> PayloadTooLarge:
        return PayloadTooLarge(
            f"the request body is over this server's limit of {self.max_bytes} bytes "
            f"(api --max-body-bytes); load large documents by path instead of inline text",
            limit_bytes=self.max_bytes)
