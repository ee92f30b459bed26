"""Requests the MCP SDK cannot parse still get an answer over stdio.

Where they were lost: the SDK's stdio reader (mcp 2.x, `mcp/server/stdio.py`) parses each
line with pydantic's JSON parser, which refuses a lone UTF-16 surrogate escape
(`"a\\ud800b"`: "unexpected end of hex escape"). It hands the exception to the dispatcher,
which logs it at debug level and drops it, so the client never gets a reply and waits for its
own timeout. Python's `json` does parse such a line, so this guard, between the transport and
the server, recovers the request's id from the dropped line and answers it with
`invalid_args`: a tool result in our error envelope for `tools/call`, a JSON-RPC
invalid-params error for any other method. Lines that are not JSON at all stay dropped, as
JSON-RPC allows (no id to answer).
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..errors import InvalidArgs
from ..types import has_lone_surrogate

__all__ = ["SurrogateGuard", "refusal_for"]

_MESSAGE = ("the request holds a lone UTF-16 surrogate (e.g. \\ud800 without its pair), "
            "which is not text; send valid Unicode")


def _dropped_line(exc: Exception) -> Any:
    if not isinstance(exc, ValidationError):
        return None
    for error in exc.errors(include_url=False):
        raw = error.get("input")
        if isinstance(raw, str | bytes):
            try:
                return json.loads(raw)
            except (ValueError, RecursionError):
                return None
    return None


def refusal_for(exc: Exception) -> types.JSONRPCMessage | None:
    """The `invalid_args` answer to a request the SDK dropped, or None if there is none."""
    request = _dropped_line(exc)
    if not isinstance(request, dict) or not has_lone_surrogate(request):
        return None
    request_id, method = request.get("id"), request.get("method")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None  # a notification, or no usable id: nothing to answer
    if method == "tools/call":
        envelope = InvalidArgs(_MESSAGE).to_dict()
        result = types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(envelope))],
            structured_content=envelope, is_error=True)
        return types.JSONRPCResponse(jsonrpc="2.0", id=request_id,
                                     result=result.model_dump(by_alias=True, exclude_unset=True))
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=types.INVALID_PARAMS, message=_MESSAGE, data={"error_code": "invalid_args"}))


class SurrogateGuard:
    """A read stream over the transport's: answers the requests it would drop, passes the rest."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner, self._write = inner, write_stream

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from here
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if isinstance(item, Exception):
                reply = refusal_for(item)
                if reply is not None:
                    await self._write.send(SessionMessage(reply))
                    continue
            return item

    def __aiter__(self) -> SurrogateGuard:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> SurrogateGuard:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc_val: BaseException | None, exc_tb: TracebackType | None) -> None:
        await self.aclose()
