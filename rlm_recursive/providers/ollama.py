"""Ollama provider: `/api/chat` through the official async client, with retries and fallbacks."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pydantic
from tenacity import wait_exponential_jitter
from tenacity.wait import wait_base

from ..catalog import MAX_SERVER_NUM_CTX
from ..errors import EmptyAnswer, ModelNotFound, ProviderError, Timeout
from .base import (
    ChatRequest,
    ChatResult,
    Usage,
    parse_tool_choice,
    plain_text_turn,
    tool_choice_schema,
)
from .hosts import DEFAULT_OLLAMA_HOST as DEFAULT_HOST
from .hosts import import_ollama, normalise_host, ollama_hosts
from .ollama_wire import (
    INVALID_JSON_KEY,
    context_length,
    parse_tool_call,
    render_native,
    render_tool,
    thought_out,
    tool_addendum,
)
from .retry import with_retries

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_NUM_CTX",
    "INVALID_JSON_KEY",
    "MAX_SERVER_NUM_CTX",
    "OllamaProvider",
    "http_client_options",
    "normalise_host",
]

ollama = import_ollama()  # never plain `import ollama`: a host list in OLLAMA_HOST breaks it

DEFAULT_NUM_CTX = 8192
"""Used when `/api/show` reports no context length for the model."""
THINKING_RETRY_NUM_PREDICT = 4096
"""Output budget for the one retry after a reply that spent all of it thinking."""
_RETRY_STATUSES = frozenset({429, 500, 502, 503})
_T = TypeVar("_T")


def ollama_host(explicit: str | None = None) -> str:
    """The first Ollama endpoint: `explicit`, else `$OLLAMA_HOST`, else loopback."""
    return ollama_hosts(explicit)[0]


def http_client_options() -> dict[str, Any]:
    """httpx options for every client that carries model or probe traffic.

    `trust_env=False`: HTTP(S)_PROXY / ALL_PROXY (any case) must not route prompts, document
    text included, to a proxy. `follow_redirects=False`: a redirect from the checked endpoint
    would take the request to a host the egress policy never saw.
    """
    return {"trust_env": False, "follow_redirects": False}


def _is_transient(exc: BaseException) -> bool:
    """Only failures a retry can fix; a 400 or 404 will fail the same way again."""
    if isinstance(exc, ollama.ResponseError):
        return exc.status_code in _RETRY_STATUSES
    return isinstance(exc, ConnectionError | httpx.TimeoutException | httpx.RemoteProtocolError)


def _lacks_tool_support(exc: ollama.ResponseError) -> bool:
    """True for the server's refusal of `tools` for a model without a tool template."""
    # The server gives no code or type for this: it is a plain 400 whose only discriminator is
    # the message ("<model> does not support tools", server/routes.go). Keep the match here only.
    return exc.status_code == 400 and "does not support tools" in str(exc.error)


class OllamaProvider:
    """A `Provider` over a local or remote Ollama server."""

    name = "ollama"

    def __init__(
        self,
        host: str | None = None,
        *,
        client: ollama.AsyncClient | None = None,
        timeout_s: float = 180.0,
        retry_attempts: int = 4,
        retry_wait: wait_base | None = None,
    ) -> None:
        self.host = ollama_host(host)
        """Normalised server URL, read by the egress policy; pass it too when injecting a client."""
        # The client's own default timeout is None (wait forever), so never leave it unset.
        self._client = client or ollama.AsyncClient(
            host=self.host, timeout=timeout_s, **http_client_options()
        )
        self._owns_client = client is None
        self._timeout_s = timeout_s
        self._retry_attempts = max(1, retry_attempts)
        self._retry_wait = retry_wait or wait_exponential_jitter(max=8.0)
        self._num_ctx: dict[str, int] = {}
        self._no_native_tools: set[str] = set()

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One `/api/chat` call; tool calls come back native or through constrained JSON."""
        timeout_s = request.options.timeout_s
        with self._map_errors(request.model, timeout_s):
            num_ctx = request.options.num_ctx or await self._context_window(request.model)
            if request.tools and self._native_tools(request):
                try:
                    data = await self._send_chat(self._body(request, num_ctx, False), timeout_s)
                    return self._result(request, data, constrained=False)
                except ollama.ResponseError as exc:
                    if not _lacks_tool_support(exc):
                        raise
                    # Remember it, so the next call for this model goes straight to `format`.
                    self._no_native_tools.add(request.model)
            constrained = bool(request.tools)
            data = await self._send_chat(self._body(request, num_ctx, constrained), timeout_s)
            return self._result(request, data, constrained=constrained)

    async def context_window(self, model: str) -> int:
        """The `num_ctx` this provider sends for an uncatalogued model (asks the server once)."""
        with self._map_errors(model, self._timeout_s):
            return await self._context_window(model)

    async def aclose(self) -> None:
        """Close the HTTP client, unless the caller passed it in (then it is theirs to close)."""
        if self._owns_client:
            await self._client.close()

    def _native_tools(self, request: ChatRequest) -> bool:
        return request.options.native_tools and request.model not in self._no_native_tools

    def _body(self, request: ChatRequest, num_ctx: int, constrained: bool) -> dict[str, Any]:
        """The `/api/chat` JSON body: whole history, explicit `num_ctx`, never streamed."""
        opts = request.options
        options: dict[str, Any] = {"num_ctx": num_ctx, "temperature": opts.temperature}
        if opts.seed is not None:
            options["seed"] = opts.seed
        if opts.max_tokens is not None:
            options["num_predict"] = opts.max_tokens
        body: dict[str, Any] = {
            "model": request.model,
            "stream": False,
            "options": options,
            # Always explicit: thinking models think by default, and their thinking tokens
            # eat `num_predict`. Only a tier that asks for it (models.toml) thinks.
            "think": opts.think if opts.think is not None else False,
        }
        if constrained:
            messages = [plain_text_turn(m) for m in request.messages]
            addendum = tool_addendum(request.tools)
            if messages and messages[0]["role"] == "system":
                messages[0]["content"] = f"{messages[0]['content']}\n\n{addendum}".lstrip()
            else:
                messages.insert(0, {"role": "system", "content": addendum})
            body["format"] = tool_choice_schema(request.tools)
        else:
            messages = [render_native(m) for m in request.messages]
            if request.tools:  # an empty `tools` list is still "tools sent" to some servers
                body["tools"] = [render_tool(t) for t in request.tools]
        body["messages"] = messages
        return body

    def _result(self, request: ChatRequest, data: dict[str, Any], constrained: bool) -> ChatResult:
        message = data.get("message") or {}
        text = message.get("content") or ""
        if constrained:
            calls = [parse_tool_choice(text, request.tools)]
            text = ""
        else:
            calls = [parse_tool_call(tc) for tc in message.get("tool_calls") or []]
        usage = Usage(
            # Counts are omitted from the body when zero.
            input_tokens=data.get("prompt_eval_count") or 0,
            output_tokens=data.get("eval_count") or 0,
        )
        model = data.get("model") or request.model
        return ChatResult(
            text=text,
            tool_calls=calls,
            usage=usage,
            model=model,
            provider=self.name,
            thinking=message.get("thinking") or "",
            done_reason=data.get("done_reason"),
        )

    async def _send_chat(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """`_send`, plus one retry with a larger output budget after a thought-out reply."""
        data = await self._send(body, timeout_s)
        if not thought_out(data):
            return data
        options, retried = body["options"], ""
        first = options.get("num_predict")
        if first is not None and first > 0:
            larger = min(max(THINKING_RETRY_NUM_PREDICT, 4 * first), options["num_ctx"] // 2)
            if larger > first:
                retry = {**body, "options": {**options, "num_predict": larger}}
                data = await self._send(retry, timeout_s)
                if not thought_out(data):
                    return data
                retried = f", even after a retry with num_predict {larger}"
        thought = bool((data.get("message") or {}).get("thinking"))
        raise EmptyAnswer(
            f"{body['model']!r} used its whole output budget ({data.get('eval_count', '?')} "
            f"tokens{', thinking' if thought else ''}) without an answer or a tool "
            f"call{retried}; set `think = false` for this tier in models.toml, or use a "
            "model that does not think by default",
            model=body["model"],
            done_reason="length",
        )

    async def _send(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """POST `/api/chat` with retries; returns the decoded JSON body."""

        async def post() -> dict[str, Any]:
            # `client.chat()` validates tool-call `arguments` as a mapping and raises a pydantic
            # ValidationError on the OpenAI-style JSON string, losing the body. `_request_raw`
            # keeps the client's host, headers and error mapping (ResponseError, ConnectionError)
            # and takes a per-call timeout, which `chat()` cannot. Pinned by ollama<0.7.
            response = await self._client._request_raw(
                "POST", "/api/chat", json=body, timeout=timeout_s
            )
            data = response.json()
            if not isinstance(data, dict):
                raise ProviderError(f"Ollama returned an unexpected body: {response.text[:200]!r}")
            if "error" in data:  # stream-style failure inside a 200
                raise ProviderError(f"Ollama error: {data['error']}")
            return data

        return await self._retry(post)

    async def _context_window(self, model: str) -> int:
        """The model's trained context length from `/api/show`, cached per model."""
        if model not in self._num_ctx:

            async def show() -> ollama.ShowResponse:
                # An injected client may have no timeout of its own.
                async with asyncio.timeout(self._timeout_s):
                    return await self._client.show(model)

            try:
                model_info = (await self._retry(show)).modelinfo
            except pydantic.ValidationError:  # a server too old to send `model_info` at all
                model_info = None
            window = context_length(model_info) or DEFAULT_NUM_CTX
            self._num_ctx[model] = min(window, MAX_SERVER_NUM_CTX)
        return self._num_ctx[model]

    async def _retry(self, fn: Callable[[], Awaitable[_T]]) -> _T:
        return await with_retries(fn, transient=_is_transient, attempts=self._retry_attempts,
                                  wait=self._retry_wait)

    @contextlib.contextmanager
    def _map_errors(self, model: str, timeout_s: float) -> Iterator[None]:
        """Turn client and transport exceptions into `RlmError`s at the provider boundary."""
        try:
            yield
        except ollama.ResponseError as exc:
            status = exc.status_code
            if status is not None and 300 <= status < 400:
                raise ProviderError(
                    f"Ollama at {self.host} answered with a redirect (HTTP {status}); model "
                    "traffic never follows redirects, because the egress policy checked this "
                    "endpoint only: point OLLAMA_HOST at the server itself",
                    status=status,
                ) from exc
            if status == 404:
                raise ModelNotFound(
                    f"model {model!r} is not available on Ollama at {self.host}; "
                    f"download it with `ollama pull {model}`",
                    model=model,
                ) from exc
            raise ProviderError(
                f"Ollama at {self.host} failed (HTTP {status}): {exc.error}",
                retryable=status == 429 or status >= 500,
                status=status,
            ) from exc
        except ConnectionError as exc:
            raise ProviderError(
                f"Ollama is unreachable at {self.host}: start it with `ollama serve`, "
                "or set OLLAMA_HOST to the address it listens on",
                retryable=True,
            ) from exc
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise Timeout(
                f"Ollama at {self.host} did not answer within {timeout_s:g}s for {model!r}",
                model=model,
            ) from exc
        except httpx.TransportError as exc:
            raise ProviderError(
                f"connection to Ollama at {self.host} failed: {exc!r}", retryable=True
            ) from exc
        except json.JSONDecodeError as exc:
            raise ProviderError(f"Ollama at {self.host} returned invalid JSON: {exc}") from exc
