"""Claude through claude-agent-sdk: the SDK runs the tool loop over an in-process MCP server."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..errors import (
    InternalError,
    ModelError,
    ProviderError,
    RlmError,
    RunError,
    Timeout,
    UserError,
)
from ..types import ToolDef
from .base import ChatRequest, ChatResult, Message, ToolRunner, Usage

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, Transport

__all__ = ["ClaudeSDKProvider"]

_SERVER = "rlm"
_INSTALL = "pip install 'rlm-recursive[claude]'"
_AUTH_HINT = (
    "Claude authentication failed: set ANTHROPIC_API_KEY, "
    "or log in to Claude Code (run `claude`, then /login)"
)
# AssistantMessage.error values where the same call may succeed later.
_RETRYABLE_ASSISTANT_ERRORS = frozenset({"rate_limit", "server_error"})
# 4xx statuses the CLI's own retries can fix (timeout, conflict, rate limit); every other
# 4xx in an `api_retry` message will fail the same way for minutes, so it is final here.
_RETRYABLE_CLIENT_STATUSES = frozenset({408, 409, 429})
_CHILD_ENV = {
    # Stops the CLI's extra per-session "title" request, which repeats the prompt (document
    # spans included) to the API: a privacy leak and a cost. Also no telemetry or updates.
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}


def _import_sdk() -> ModuleType:
    """Import claude_agent_sdk on first use: it is an optional extra with a large wheel."""
    try:
        import claude_agent_sdk
    except ImportError as exc:
        raise ProviderError(f"the claude provider needs claude-agent-sdk: {_INSTALL}") from exc
    return claude_agent_sdk


def _mcp_name(tool_name: str) -> str:
    """The name the model sees for an RLM tool served by the in-process `rlm` server."""
    return f"mcp__{_SERVER}__{tool_name}"


@dataclass
class _CallState:
    """What one `chat()` call shares with its tool handlers and error mapping."""

    run_error: RunError | None = None
    abort: Callable[[], object] | None = None
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=20))

    def fail(self, err: RunError) -> None:
        """Remember the first run-ending error and stop the query."""
        if self.run_error is None:
            self.run_error = err
        if self.abort is not None:
            self.abort()


def _text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["is_error"] = True
    return result


def _tool_handler(
    name: str, runner: ToolRunner, state: _CallState
) -> Callable[[dict[str, Any]], Any]:
    """An SDK tool handler that runs one RLM tool through the request's tool_runner."""

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        try:
            return _text_result(await runner(name, args))
        except (ModelError, UserError) as err:
            # The model caused it or can route around it: it reads the envelope and retries.
            return _text_result(json.dumps(err.to_dict()), is_error=True)
        except RunError as err:
            # The SDK turns a raised exception into a tool result the model reads and
            # carries on; a RunError must end the run instead, so stop the query here.
            state.fail(err)
            return _text_result(json.dumps(err.to_dict()), is_error=True)
        except Exception as exc:
            internal = InternalError(f"tool {name} failed: {type(exc).__name__}: {exc}")
            internal.__cause__ = exc
            state.fail(internal)
            return _text_result(json.dumps(internal.to_dict()), is_error=True)

    return handler


def _input_schema(tool_def: ToolDef) -> dict[str, Any]:
    # The SDK only takes a dict as a full JSON schema when it has "type" and
    # "properties"; anything else it reads as the {"name": type} shorthand.
    return {"type": "object", "properties": {}, **tool_def.parameters}


def _render_prompt(messages: list[Message]) -> str:
    """The conversation after the system prompt, as the single prompt the SDK accepts."""
    convo = [m for m in messages if m.role != "system"]
    if not convo:
        raise InternalError("claude request has no user message")
    if len(convo) == 1 and convo[0].role == "user":
        return convo[0].content
    # More than one turn: the SDK takes one prompt string, so lay out the transcript.
    parts = []
    for m in convo:
        if m.role == "tool":
            parts.append(f"[tool result: {m.tool_name or 'unknown'}]\n{m.content}")
            continue
        lines = [m.content] if m.content else []
        lines += [f"[tool call: {c.name} {json.dumps(c.arguments)}]" for c in m.tool_calls]
        parts.append(f"[{m.role}]\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _usage(result: ResultMessage) -> Usage:
    raw = result.usage or {}
    # Cached prompt tokens are still prompt tokens: count them as input.
    input_tokens = sum(
        int(raw.get(key) or 0)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return Usage(
        input_tokens=input_tokens,
        output_tokens=int(raw.get("output_tokens") or 0),
        cost_usd=result.total_cost_usd,
    )


def _result_error(result: ResultMessage, assistant_error: str | None) -> ProviderError:
    """A ProviderError for a `result` with is_error set."""
    details = {
        "subtype": result.subtype,
        "terminal_reason": result.terminal_reason,
        "api_error_status": result.api_error_status,
        "assistant_error": assistant_error,
    }
    details = {k: v for k, v in details.items() if v is not None}
    if assistant_error == "authentication_failed" or result.api_error_status in (401, 403):
        return ProviderError(_AUTH_HINT, **details)
    reason = "; ".join(result.errors or []) or result.result or result.subtype
    retryable = assistant_error in _RETRYABLE_ASSISTANT_ERRORS
    return ProviderError(f"Claude run failed: {reason}", retryable=retryable, **details)


def _api_retry_error(data: dict[str, Any]) -> ProviderError | None:
    """The error an `api_retry` system message means, if retrying cannot fix it.

    On 401/403 the CLI reports the failure within ~1.5 s, then retries for ~190 s: read its
    status and stop at once. No status (connection trouble), 5xx and 408/409/429 stay the
    CLI's to retry.
    """
    status = data.get("error_status")
    if not isinstance(status, int) or isinstance(status, bool):
        return None
    if status >= 500 or status < 400 or status in _RETRYABLE_CLIENT_STATUSES:
        return None
    details = {"api_error_status": status, "assistant_error": data.get("error")}
    if status in (401, 403):
        return ProviderError(f"{_AUTH_HINT} (HTTP {status})", retryable=False, **details)
    return ProviderError(
        f"the Claude API refused the request (HTTP {status}, {data.get('error') or 'error'})",
        retryable=False, **details,
    )


@contextlib.contextmanager
def _map_errors(sdk: ModuleType, timeout_s: float, state: _CallState) -> Iterator[None]:
    """Turn SDK and asyncio exceptions into RlmErrors, by type."""
    try:
        yield
    except RlmError:
        raise
    except TimeoutError as exc:
        raise Timeout(f"Claude call timed out after {timeout_s}s") from exc
    except sdk.CLINotFoundError as exc:
        raise ProviderError(
            f"Claude Code CLI not found ({exc}). Install the claude extra, whose wheel bundles "
            f"the CLI: {_INSTALL}; or install Claude Code and put `claude` on PATH",
        ) from exc
    except sdk.ProcessError as exc:  # includes ResultError
        stderr = "\n".join(state.stderr)
        raise ProviderError(
            f"Claude CLI failed: {exc}", exit_code=exc.exit_code, stderr=stderr or None
        ) from exc
    except (sdk.CLIConnectionError, sdk.CLIJSONDecodeError, sdk.ClaudeSDKError) as exc:
        raise ProviderError(f"Claude SDK error: {exc}") from exc
    except Exception as exc:
        if type(exc) is Exception:
            # The SDK raises bare Exception for control-protocol failures (e.g. an
            # initialize that never gets an answer): those are the provider's.
            raise ProviderError(f"Claude SDK error: {exc}") from exc
        raise InternalError(f"claude provider failed: {type(exc).__name__}: {exc}") from exc


class ClaudeSDKProvider:
    """Claude via `claude_agent_sdk.query`; RLM tools run in-process through `tool_runner`."""

    name = "claude"

    def __init__(
        self,
        *,
        transport_factory: Callable[[], Transport] | None = None,
        cli_path: str | None = None,
    ) -> None:
        """`transport_factory` replaces the CLI subprocess (tests); `cli_path` picks the CLI."""
        self._transport_factory = transport_factory
        self._cli_path = cli_path

    def build_options(self, request: ChatRequest) -> ClaudeAgentOptions:
        """The ClaudeAgentOptions a `chat(request)` call would use."""
        return self._options(request, _CallState(), _import_sdk())

    def _options(
        self, request: ChatRequest, state: _CallState, sdk: ModuleType
    ) -> ClaudeAgentOptions:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        servers: dict[str, Any] = {}
        if request.tools:
            if request.tool_runner is None:
                raise InternalError("claude provider needs request.tool_runner to run tools")
            tools = [
                sdk.tool(t.name, t.description, _input_schema(t))(
                    _tool_handler(t.name, request.tool_runner, state)
                )
                for t in request.tools
            ]
            servers[_SERVER] = sdk.create_sdk_mcp_server(name=_SERVER, tools=tools)
        return sdk.ClaudeAgentOptions(
            # No built-in tools (Bash, Read, ...): the model sees only the RLM tools.
            tools=[],
            mcp_servers=servers,
            # Ignore MCP servers from the user's or project's Claude Code config.
            strict_mcp_config=True,
            allowed_tools=[_mcp_name(t.name) for t in request.tools],
            # Headless: never prompt; anything not pre-approved above is denied.
            permission_mode="dontAsk",
            # User settings may hold the login setup; project settings (from whatever
            # directory we run in, maybe the corpus) can run hooks, so skip them.
            setting_sources=["user"],
            max_turns=request.options.max_turns,
            model=request.model or None,
            # None would also send an empty system prompt, never Claude Code's own.
            system_prompt=system or None,
            cli_path=self._cli_path,
            # Piping stderr keeps the CLI's chatter off our stdio and gives errors a tail.
            stderr=state.stderr.append,
            env=dict(_CHILD_ENV),
        )

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One Claude query; the SDK calls the RLM tools itself, so `tool_calls` stays empty."""
        sdk = _import_sdk()
        state = _CallState()
        timeout_s = request.options.timeout_s
        with _map_errors(sdk, timeout_s, state):
            options = self._options(request, state, sdk)
            prompt = _render_prompt(request.messages)
            async with asyncio.timeout(timeout_s):
                # A task of its own, so a tool handler hitting a RunError can cancel it.
                task = asyncio.create_task(self._collect(sdk, prompt, options, request.model))
                state.abort = task.cancel
                try:
                    result = await task
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if state.run_error is None or (current and current.cancelling()):
                        raise
                if state.run_error is not None:
                    raise state.run_error
                return result

    async def _collect(
        self, sdk: ModuleType, prompt: str, options: ClaudeAgentOptions, model: str
    ) -> ChatResult:
        transport = self._transport_factory() if self._transport_factory else None
        last_text, seen_model, assistant_error = "", None, None
        result: ResultMessage | None = None
        stream = sdk.query(prompt=prompt, options=options, transport=transport)
        # aclosing: leaving the loop early must still close the query and stop the CLI.
        async with contextlib.aclosing(stream) as messages:
            async for message in messages:
                if isinstance(message, sdk.AssistantMessage):
                    # The CLI labels messages it made up itself (errors) "<synthetic>".
                    if message.model and not message.model.startswith("<"):
                        seen_model = message.model
                    assistant_error = message.error or assistant_error
                    text = "".join(b.text for b in message.content if isinstance(b, sdk.TextBlock))
                    last_text = text or last_text
                elif isinstance(message, sdk.SystemMessage) and message.subtype == "api_retry":
                    final = _api_retry_error(message.data)
                    if final is not None:
                        raise final  # leaving the loop closes the query and stops the CLI
                elif isinstance(message, sdk.ResultMessage):
                    if message.is_error:
                        raise _result_error(message, assistant_error)
                    result = message
        if result is None:
            raise ProviderError("Claude CLI ended without a result")
        return ChatResult(
            text=result.result if result.result is not None else last_text,
            usage=_usage(result),
            model=seen_model or model,
            provider=self.name,
        )

    async def aclose(self) -> None:
        """Nothing to release: every `chat()` runs and closes its own CLI process."""
