"""A scripted provider for tests and demos: queued replies or a function; records requests."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ..errors import ProviderError
from .base import ChatRequest, ChatResult, ToolCall, Usage

__all__ = ["FakeProvider", "reply", "tool_reply"]

Script = Callable[[ChatRequest], ChatResult | Awaitable[ChatResult]]


def reply(text: str, *, model: str = "fake", tokens: tuple[int, int] = (10, 5)) -> ChatResult:
    """A plain text answer."""
    return ChatResult(text=text, model=model, provider="fake",
                      usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]))


def tool_reply(name: str, arguments: dict[str, Any] | None = None, *,
               model: str = "fake") -> ChatResult:
    """An answer that calls one tool."""
    return ChatResult(tool_calls=[ToolCall(name=name, arguments=arguments or {})], model=model,
                      provider="fake", usage=Usage(input_tokens=10, output_tokens=5))


class FakeProvider:
    """Replies from a queue (`replies`) or a function (`script`); every request is kept."""

    name = "fake"

    def __init__(
        self, replies: Iterable[ChatResult] | None = None, *, script: Script | None = None,
    ) -> None:
        self._queue = deque(replies or [])
        self._script = script
        self.requests: list[ChatRequest] = []

    async def chat(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        if self._script is not None:
            result = self._script(request)
            if asyncio.iscoroutine(result):
                result = await result
            return result  # type: ignore[return-value]
        if not self._queue:
            raise ProviderError("fake provider: no scripted reply left")
        return self._queue.popleft().model_copy(update={"model": request.model})

    async def aclose(self) -> None:
        return None
