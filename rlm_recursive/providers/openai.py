"""OpenAI-compatible provider: `{base}/chat/completions` and `{base}/models` over our own httpx
client, for vLLM, llama.cpp's llama-server, LM Studio, SGLang and llama-cpp-python's server.

`base_url` includes `/v1`, as `OPENAI_BASE_URL` does for the OpenAI SDK. Retries, timeouts and
error codes follow the Ollama provider: 401/403 end the run as `auth_error` at once, an unknown
model is `model_not_found` with the models the server does serve, 429 and 5xx are retried.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
from tenacity import wait_exponential_jitter
from tenacity.wait import wait_base

from ..catalog import MAX_SERVER_NUM_CTX
from ..errors import ConfigError, EmptyAnswer, ModelNotFound, ProviderAuthError, ProviderError
from ..errors import Timeout as TimeoutErr
from .base import ChatRequest, ChatResult, Usage, parse_tool_choice
from .ollama import DEFAULT_NUM_CTX, http_client_options
from .openai_wire import (
    THINKING_FIELDS,
    SchemaMode,
    StreamAssembler,
    chat_body,
    model_window,
    parse_reply,
    without_thinking_fields,
)
from .retry import with_retries

__all__ = ["BASE_URL_ENV", "KEY_ENV", "OpenAIProvider", "openai_base_url"]

BASE_URL_ENV = "OPENAI_BASE_URL"
KEY_ENV = "OPENAI_API_KEY"
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_SCHEMA_LADDER: tuple[SchemaMode, ...] = ("json_schema", "json_object", "prompt")
_T = TypeVar("_T")


class _HttpStatus(Exception):
    """A non-2xx answer, kept whole until `_map_errors` turns it into an `RlmError`."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}")
        self.status, self.body = status, body

    @property
    def refuses_format(self) -> bool:
        """The server does not take this `response_format`: vLLM and llama-server answer 400,
        llama-cpp-python's server 500 with its validation error (`'text' or 'json_object'`)."""
        return self.status in (400, 422) or "response_format" in self.body

    @property
    def message(self) -> str:
        try:
            data = json.loads(self.body)
        except ValueError:
            return self.body[:300]
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):  # OpenAI, llama-server: {"error": {"message", "type"}}
            return str(error.get("message") or error)[:300]
        if isinstance(data, dict) and data.get("message"):  # vLLM: {"object": "error", …}
            return str(data["message"])[:300]
        if isinstance(data, dict) and data.get("detail"):  # FastAPI's 422 (llama-cpp-python)
            return json.dumps(data["detail"])[:300]
        return self.body[:300]


def openai_base_url(explicit: str | None = None) -> str:
    """`explicit`, else `$OPENAI_BASE_URL`; it includes `/v1`, as in the OpenAI SDK."""
    base = (explicit or os.environ.get(BASE_URL_ENV) or "").strip().rstrip("/")
    if not base:
        raise ConfigError(
            "the openai provider needs a server address: export OPENAI_BASE_URL="
            "http://127.0.0.1:8000/v1 (it includes /v1), or set base_url in a "
            "[providers.NAME] table of models.toml", key=BASE_URL_ENV)
    if "://" not in base:
        base = "http://" + base
    return base


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, _HttpStatus):  # a refused response_format fails the same way again
        return exc.status in _RETRY_STATUSES and "response_format" not in exc.body
    return isinstance(exc, httpx.TransportError)


class OpenAIProvider:
    """A `Provider` over one OpenAI-compatible server."""

    name = "openai"

    def __init__(
        self, base_url: str | None = None, *, api_key_env: str = KEY_ENV,
        client: httpx.AsyncClient | None = None, timeout_s: float = 180.0,
        retry_attempts: int = 4, retry_wait: wait_base | None = None, stream: bool = False,
        label: str = "openai",
    ) -> None:
        self.host = openai_base_url(base_url)
        """The base URL (with `/v1`), read by the egress policy."""
        self.label = label
        """The provider name it serves under (a `[providers.NAME]` group), for messages."""
        self._api_key_env = api_key_env
        key = os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = client or httpx.AsyncClient(timeout=timeout_s, headers=headers,
                                                   **http_client_options())
        self._owns_client = client is None
        self._timeout_s = timeout_s
        self._retry_attempts = max(1, retry_attempts)
        self._retry_wait = retry_wait or wait_exponential_jitter(max=8.0)
        self.stream = stream
        self._schema_mode: dict[str, SchemaMode] = {}
        self._no_native_tools: set[str] = set()
        self._no_thinking_fields: set[str] = set()
        """Models whose server refused `chat_template_kwargs` / `reasoning_effort`."""
        self._models: dict[str, dict[str, Any]] | None = None

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One chat completion; tool calls come back native or as constrained JSON."""
        timeout_s = request.options.timeout_s
        with self._map_errors(request.model, timeout_s):
            try:
                return await self._chat(request, timeout_s)
            except _HttpStatus as exc:
                if exc.status == 404:  # name the models it does serve in the fix
                    with contextlib.suppress(Exception):
                        await self.models(refresh=True)
                raise

    async def _chat(self, request: ChatRequest, timeout_s: float) -> ChatResult:
        if request.tools and request.options.native_tools \
                and request.model not in self._no_native_tools:
            try:
                body = chat_body(request, constrained=None, stream=self.stream)
                return self._result(request, await self._send(body, timeout_s), False)
            except _HttpStatus as exc:
                if exc.status not in (400, 422) or "tool" not in exc.message.lower():
                    raise
                # vLLM without --enable-auto-tool-choice, llama-server without --jinja.
                self._no_native_tools.add(request.model)
        if not request.tools:
            body = chat_body(request, constrained=None, stream=self.stream)
            return self._result(request, await self._send(body, timeout_s), False)
        return await self._constrained(request, timeout_s)

    async def _constrained(self, request: ChatRequest, timeout_s: float) -> ChatResult:
        """`{tool, arguments}` JSON: json_schema, else json_object + schema, else the prompt."""
        start = _SCHEMA_LADDER.index(self._schema_mode.get(request.model, "json_schema"))
        for mode in _SCHEMA_LADDER[start:]:
            body = chat_body(request, constrained=mode, stream=self.stream)
            try:
                data = await self._send(body, timeout_s)
            except _HttpStatus as exc:
                # 400/422 to a response_format the server does not know; the prompt is the
                # same, so the next rung asks for the same JSON another way.
                if not exc.refuses_format or mode == "prompt":
                    raise
                continue
            self._schema_mode[request.model] = mode
            return self._result(request, data, constrained=True)
        raise AssertionError("unreachable: the prompt rung raises or returns")

    async def context_window(self, model: str) -> int:
        """The window `/v1/models` reports for `model`, else the default (8192)."""
        with self._map_errors(model, self._timeout_s):
            entry = (await self.models()).get(model) or {}
        window = model_window(entry)
        if window is None:
            return DEFAULT_NUM_CTX
        if "meta" not in entry:
            return window
        # llama-server reports the trained window; what it allocated per slot is in /props.
        return await self._allocated_window() or min(window, MAX_SERVER_NUM_CTX)

    async def _allocated_window(self) -> int | None:
        """llama-server's `GET /props` `default_generation_settings.n_ctx` (per slot)."""
        root = self.host.removesuffix("/v1")
        try:
            response = await self._client.get(f"{root}/props", timeout=self._timeout_s)
            props = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            return None
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        n_ctx = (settings or {}).get("n_ctx") if isinstance(settings, dict) else None
        return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None

    async def models(self, refresh: bool = False) -> dict[str, dict[str, Any]]:
        """`GET {base}/models` as `{id: entry}` (cached; `refresh` asks again)."""
        if self._models is None or refresh:

            async def get() -> dict[str, dict[str, Any]]:
                response = await self._client.get(f"{self.host}/models", timeout=self._timeout_s)
                if response.status_code != 200:
                    raise _HttpStatus(response.status_code, response.text)
                data = response.json().get("data") or []
                return {e["id"]: e for e in data if isinstance(e, dict) and "id" in e}

            self._models = await self._retry(get)
        return self._models

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    def _result(self, request: ChatRequest, data: dict[str, Any], constrained: bool) -> ChatResult:
        text, calls, thinking, finish, n_in, n_out = parse_reply(data)
        if constrained:
            calls, text = [parse_tool_choice(text, request.tools)], ""
        elif finish == "length" and not text.strip() and not calls:
            raise EmptyAnswer(
                f"{request.model!r} on {self.host} used its whole output budget without an "
                "answer or a tool call; lower the server's reasoning budget or use a model "
                "that does not think by default", model=request.model, done_reason="length")
        return ChatResult(text=text, tool_calls=calls, thinking=thinking, done_reason=finish,
                          usage=Usage(input_tokens=n_in, output_tokens=n_out),
                          model=data.get("model") or request.model, provider=self.name)

    async def _send(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """POST the body; a server that refuses the thinking fields (400/422 naming one)
        gets it again without them, and never again for that model."""
        model = body["model"]
        if model in self._no_thinking_fields:
            return await self._post(without_thinking_fields(body), timeout_s)
        try:
            return await self._post(body, timeout_s)
        except _HttpStatus as exc:
            if exc.status not in (400, 422) or not any(f in exc.body for f in THINKING_FIELDS):
                raise
        self._no_thinking_fields.add(model)
        return await self._post(without_thinking_fields(body), timeout_s)

    async def _post(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        url = f"{self.host}/chat/completions"

        async def post() -> dict[str, Any]:
            if not body["stream"]:
                response = await self._client.post(url, json=body, timeout=timeout_s)
                if response.status_code != 200:
                    raise _HttpStatus(response.status_code, response.text)
                data = response.json()
                if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
                    raise ProviderError(f"{self.host} returned no chat completion: "
                                        f"{response.text[:200]!r}")
                return data
            async with self._client.stream("POST", url, json=body, timeout=timeout_s) as response:
                if response.status_code != 200:
                    raise _HttpStatus(response.status_code, (await response.aread()).decode())
                assembler = StreamAssembler()
                async for line in response.aiter_lines():
                    payload = line[5:].strip() if line.startswith("data:") else ""
                    if payload and payload != "[DONE]":
                        chunk = json.loads(payload)
                        if isinstance(chunk, dict) and "error" in chunk:
                            raise _HttpStatus(500, payload)
                        assembler.feed(chunk)
                return assembler.reply()

        return await self._retry(post)

    async def _retry(self, fn: Callable[[], Awaitable[_T]]) -> _T:
        return await with_retries(fn, transient=_is_transient, attempts=self._retry_attempts,
                                  wait=self._retry_wait)

    @contextlib.contextmanager
    def _map_errors(self, model: str, timeout_s: float) -> Iterator[None]:
        """Turn HTTP statuses and transport failures into `RlmError`s at the boundary."""
        named = f" {self.label!r}" if self.label != "openai" else ""  # a [providers.NAME]
        where = f"the OpenAI-compatible server{named} at {self.host}"
        try:
            yield
        except _HttpStatus as exc:
            status = exc.status
            if status in (401, 403):
                raise ProviderAuthError(
                    f"{where} refused the request (HTTP {status}: {exc.message}); set "
                    f"{self._api_key_env} to a key it accepts", status=status) from None
            if status == 404 and "model" in exc.message.lower():
                served = ", ".join(sorted(self._models or {})) or "see GET /v1/models"
                raise ModelNotFound(
                    f"model {model!r} is not served by {where} ({exc.message}); serve it there, "
                    f"or pass --model with one it serves: {served}", model=model) from None
            if status == 404:
                raise ProviderError(
                    f"no chat-completions API at {self.host} (HTTP 404); the base URL must "
                    "include /v1, e.g. http://127.0.0.1:8000/v1", status=status) from None
            if 300 <= status < 400:
                raise ProviderError(
                    f"{where} answered with a redirect (HTTP {status}); model traffic never "
                    "follows redirects: point the base URL at the server itself",
                    status=status) from None
            raise ProviderError(f"{where} failed (HTTP {status}): {exc.message}",
                                retryable=status in _RETRY_STATUSES, status=status) from None
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise TimeoutErr(f"{where} did not answer within {timeout_s:g}s for {model!r}",
                             model=model) from exc
        except httpx.TransportError as exc:
            raise ProviderError(f"{where} is unreachable ({type(exc).__name__}): start the "
                                "server, or fix the base URL", retryable=True,
                                unreachable=True) from exc
        except (json.JSONDecodeError, AttributeError) as exc:
            raise ProviderError(f"{where} returned a body that is not OpenAI's: {exc}") from exc
