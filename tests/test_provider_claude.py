"""ClaudeSDKProvider through the real claude-agent-sdk; a fake Transport plays the CLI."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

claude_agent_sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import CLINotFoundError, Transport  # noqa: E402

from rlm_recursive.errors import (  # noqa: E402
    BudgetExceeded,
    InternalError,
    InvalidArgs,
    ProviderError,
    Timeout,
)
from rlm_recursive.providers.base import (  # noqa: E402
    ChatOptions,
    ChatRequest,
    Message,
    ToolCall,
)
from rlm_recursive.providers.claude_sdk import ClaudeSDKProvider  # noqa: E402
from rlm_recursive.types import ToolDef  # noqa: E402

LOOKUP = ToolDef(
    name="rlm_kv_lookup",
    description="Look up a key in the store.",
    parameters={
        "type": "object",
        "properties": {"key": {"type": "string", "description": "the key"}},
        "required": ["key"],
        "additionalProperties": False,
    },
)
PING = ToolDef(name="rlm_util_ping", description="Ping.", parameters={"type": "object"})

Script = Callable[["FakeCLI"], Awaitable[None]]


@pytest.fixture(autouse=True)
def _never_find_the_real_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may start the bundled claude CLI: fail CLI lookup if anything tries."""
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    def refuse(self: Any) -> str:
        raise AssertionError("a test tried to locate the real claude CLI")

    monkeypatch.setattr(SubprocessCLITransport, "_find_cli", refuse)


class FakeCLI(Transport):
    """Plays the claude CLI: runs a script against what the SDK writes, records everything."""

    def __init__(self, script: Script) -> None:
        self._script = script
        self.written: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.closed = False
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._ids = itertools.count()

    async def connect(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            await self._script(self)
        except Exception as exc:  # surfaced by check(); EOF below unblocks the SDK
            self.error = exc
        finally:
            self._outbox.put_nowait(None)

    def check(self) -> None:
        """Re-raise a failed assertion from the script."""
        if self.error is not None:
            raise self.error

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            if line.strip():
                msg = json.loads(line)
                self.written.append(msg)
                self._inbox.put_nowait(msg)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        while (msg := await self._outbox.get()) is not None:
            yield msg

    async def close(self) -> None:
        self.closed = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def is_ready(self) -> bool:
        return True

    async def end_input(self) -> None:
        pass

    # -- script helpers --

    def emit(self, msg: dict[str, Any]) -> None:
        self._outbox.put_nowait(msg)

    async def recv(self, kind: str) -> dict[str, Any]:
        while True:
            msg = await self._inbox.get()
            if msg.get("type") == kind:
                return msg

    async def handshake(self) -> dict[str, Any]:
        """Answer the SDK's initialize request; return the user message that follows."""
        req = await self.recv("control_request")
        assert req["request"]["subtype"] == "initialize"
        self.emit(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": req["request_id"],
                    "response": {},
                },
            }
        )
        return await self.recv("user")

    async def mcp(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one JSON-RPC message to the SDK's `rlm` server; return its mcp_response."""
        request_id = f"cli_req_{next(self._ids)}"
        self.emit(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {"subtype": "mcp_message", "server_name": "rlm", "message": message},
            }
        )
        while True:
            resp = (await self.recv("control_response"))["response"]
            if resp["request_id"] == request_id:
                break
        assert resp["subtype"] == "success", resp
        return resp["response"]["mcp_response"]

    async def connect_mcp(self) -> list[dict[str, Any]]:
        """The CLI's MCP handshake with the `rlm` server; returns the listed tools."""
        init = await self.mcp(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "claude-code", "version": "2.0.0"},
                },
            }
        )
        assert init["result"]["serverInfo"]["name"] == "rlm"
        await self.mcp({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listing = await self.mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        return listing["result"]["tools"]

    async def call_tool(self, name: str, arguments: dict[str, Any], call_id: int = 2) -> dict:
        self.emit(_assistant([_tool_use(f"toolu_{call_id}", f"mcp__rlm__{name}", arguments)]))
        resp = await self.mcp(
            {
                "jsonrpc": "2.0",
                "id": call_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        result = resp["result"]
        self.emit(_tool_result_user(f"toolu_{call_id}", result))
        return result


def _tool_use(tool_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": arguments}


def _assistant(
    content: list[dict[str, Any]], *, model: str = "claude-test-1", error: str | None = None
) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        "parent_tool_use_id": None,
        "session_id": "sess-1",
        "uuid": "uuid-a",
    }
    if error:
        msg["error"] = error
    return msg


def _tool_result_user(tool_id: str, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": tool_id,
                    "content": result["content"],
                    "is_error": result.get("isError", False),
                }
            ],
        },
        "parent_tool_use_id": None,
        "session_id": "sess-1",
        "uuid": "uuid-u",
    }


def _result(text: str | None, *, is_error: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "success",
        "duration_ms": 12,
        "duration_api_ms": 10,
        "is_error": is_error,
        "num_turns": 2,
        "session_id": "sess-1",
        "result": text,
        "total_cost_usd": 0.0125,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 20,
            "cache_read_input_tokens": 30,
            "output_tokens": 40,
        },
        **extra,
    }


def _request(runner: Any = None, **options: Any) -> ChatRequest:
    return ChatRequest(
        model="claude-test-1",
        messages=[
            Message(role="system", content="You answer from the store."),
            Message(role="user", content="What is the value of alpha?"),
        ],
        tools=[LOOKUP, PING],
        options=ChatOptions(**{"max_turns": 7, "timeout_s": 10, **options}),
        tool_runner=runner,
    )


class Store:
    """A real tool backend: a key/value dict that records every call it serves."""

    def __init__(self) -> None:
        self.data = {"alpha": "42 (from the store)"}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def run(self, name: str, args: dict[str, Any]) -> str:
        self.calls.append((name, args))
        if args["key"] not in self.data:
            raise InvalidArgs(f"no key {args['key']!r}", key=args["key"])
        return json.dumps({"key": args["key"], "value": self.data[args["key"]]})


def _provider(cli: FakeCLI) -> ClaudeSDKProvider:
    return ClaudeSDKProvider(transport_factory=lambda: cli)


async def test_tool_runs_for_real_and_result_message_fills_the_chat_result() -> None:
    store = Store()
    seen: dict[str, Any] = {}

    async def script(cli: FakeCLI) -> None:
        user = await cli.handshake()
        seen["prompt"] = user["message"]["content"]
        seen["tools"] = await cli.connect_mcp()
        seen["tool_result"] = await cli.call_tool("rlm_kv_lookup", {"key": "alpha"})
        cli.emit(_assistant([{"type": "text", "text": "draft"}]))
        cli.emit(_result("alpha is 42"))

    cli = FakeCLI(script)
    result = await _provider(cli).chat(_request(store.run))
    cli.check()

    assert store.calls == [("rlm_kv_lookup", {"key": "alpha"})]
    assert seen["prompt"] == "What is the value of alpha?"
    tool_result = seen["tool_result"]
    assert tool_result["isError"] is False
    assert json.loads(tool_result["content"][0]["text"]) == {
        "key": "alpha",
        "value": "42 (from the store)",
    }
    # The full JSON schema reaches the model unchanged; a property-less schema stays an object.
    schemas = {t["name"]: t["inputSchema"] for t in seen["tools"]}
    assert schemas["rlm_kv_lookup"] == LOOKUP.parameters
    assert schemas["rlm_util_ping"] == {"type": "object", "properties": {}}

    assert result.text == "alpha is 42"
    assert result.tool_calls == []
    assert result.provider == "claude"
    assert result.model == "claude-test-1"
    assert result.usage.input_tokens == 150
    assert result.usage.output_tokens == 40
    assert result.usage.cost_usd == pytest.approx(0.0125)
    assert cli.closed


async def test_last_assistant_text_when_result_has_none() -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(_assistant([{"type": "text", "text": "first"}]))
        cli.emit(_assistant([{"type": "text", "text": "the "}, {"type": "text", "text": "end"}]))
        cli.emit(_result(None))

    cli = FakeCLI(script)
    result = await _provider(cli).chat(_request(Store().run))
    cli.check()
    assert result.text == "the end"


def test_build_options_and_the_cli_flags_the_sdk_writes() -> None:
    # SubprocessCLITransport is private, but it is what turns options into the CLI's argv;
    # building the command does not start anything.
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    provider = ClaudeSDKProvider(cli_path="/nonexistent/claude")
    options = provider.build_options(_request(Store().run))
    assert options.tools == []
    assert options.allowed_tools == ["mcp__rlm__rlm_kv_lookup", "mcp__rlm__rlm_util_ping"]
    assert options.max_turns == 7
    assert options.model == "claude-test-1"
    assert options.system_prompt == "You answer from the store."
    assert options.mcp_servers["rlm"]["type"] == "sdk"
    assert options.permission_mode == "dontAsk"

    cmd = SubprocessCLITransport(prompt="", options=options)._build_command()
    assert cmd[0] == "/nonexistent/claude"

    def flag(name: str) -> str:
        return cmd[cmd.index(name) + 1]

    assert flag("--tools") == ""
    assert flag("--allowedTools") == "mcp__rlm__rlm_kv_lookup,mcp__rlm__rlm_util_ping"
    assert flag("--max-turns") == "7"
    assert flag("--model") == "claude-test-1"
    assert flag("--system-prompt") == "You answer from the store."
    assert json.loads(flag("--mcp-config")) == {
        "mcpServers": {"rlm": {"type": "sdk", "name": "rlm"}}
    }
    assert "--strict-mcp-config" in cmd


def test_no_tools_means_no_server_and_transcript_prompt() -> None:
    request = ChatRequest(
        model="",
        messages=[
            Message(role="user", content="q"),
            Message(role="assistant", tool_calls=[ToolCall(name="rlm_x", arguments={"a": 1})]),
            Message(role="tool", tool_name="rlm_x", content="r"),
        ],
    )
    options = ClaudeSDKProvider().build_options(request)
    assert options.mcp_servers == {}
    assert options.allowed_tools == []
    assert options.tools == []
    assert options.model is None
    assert options.system_prompt is None


async def test_multi_turn_conversation_is_rendered_into_one_prompt() -> None:
    seen: dict[str, Any] = {}

    async def script(cli: FakeCLI) -> None:
        seen["prompt"] = (await cli.handshake())["message"]["content"]
        cli.emit(_result("ok"))

    request = ChatRequest(
        model="m",
        messages=[
            Message(role="system", content="sys"),
            Message(role="user", content="q"),
            Message(role="assistant", tool_calls=[ToolCall(name="rlm_x", arguments={"a": 1})]),
            Message(role="tool", tool_name="rlm_x", content="r"),
        ],
    )
    cli = FakeCLI(script)
    await _provider(cli).chat(request)
    cli.check()
    assert seen["prompt"] == (
        '[user]\nq\n\n[assistant]\n[tool call: rlm_x {"a": 1}]\n\n[tool result: rlm_x]\nr'
    )


async def test_model_error_becomes_error_tool_result_and_run_continues() -> None:
    store = Store()
    seen: dict[str, Any] = {}

    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        await cli.connect_mcp()
        seen["bad"] = await cli.call_tool("rlm_kv_lookup", {"key": "beta"}, call_id=2)
        seen["good"] = await cli.call_tool("rlm_kv_lookup", {"key": "alpha"}, call_id=3)
        cli.emit(_result("recovered"))

    cli = FakeCLI(script)
    result = await _provider(cli).chat(_request(store.run))
    cli.check()

    bad = seen["bad"]
    assert bad["isError"] is True
    envelope = json.loads(bad["content"][0]["text"])
    assert envelope["meta"]["error_code"] == "invalid_args"
    assert "invalid_args" in bad["content"][0]["text"]
    assert seen["good"]["isError"] is False
    assert [args["key"] for _, args in store.calls] == ["beta", "alpha"]
    assert result.text == "recovered"


async def test_run_error_from_a_tool_ends_the_run() -> None:
    calls: list[str] = []

    async def runner(name: str, args: dict[str, Any]) -> str:
        calls.append(name)
        raise BudgetExceeded("tool-call budget spent")

    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        await cli.connect_mcp()
        await cli.call_tool("rlm_kv_lookup", {"key": "alpha"})
        await asyncio.Event().wait()  # a real CLI would carry on; the provider must not wait

    cli = FakeCLI(script)
    with pytest.raises(BudgetExceeded, match="budget spent"):
        await asyncio.wait_for(_provider(cli).chat(_request(runner)), 5)
    cli.check()
    assert calls == ["rlm_kv_lookup"]
    assert cli.closed


async def test_unexpected_tool_failure_ends_the_run_as_internal_error() -> None:
    async def runner(name: str, args: dict[str, Any]) -> str:
        raise KeyError("boom")

    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        await cli.connect_mcp()
        await cli.call_tool("rlm_kv_lookup", {"key": "alpha"})
        await asyncio.Event().wait()

    cli = FakeCLI(script)
    with pytest.raises(InternalError, match="KeyError"):
        await asyncio.wait_for(_provider(cli).chat(_request(runner)), 5)
    cli.check()


def test_tools_without_a_tool_runner_is_a_bug() -> None:
    with pytest.raises(InternalError, match="tool_runner"):
        ClaudeSDKProvider().build_options(_request(None))


async def test_missing_cli_from_transport_factory() -> None:
    def factory() -> Transport:
        raise CLINotFoundError("Claude Code not found")

    provider = ClaudeSDKProvider(transport_factory=factory)
    with pytest.raises(ProviderError, match=r"rlm-recursive\[claude\]") as info:
        await provider.chat(_request(Store().run))
    assert "Claude Code" in str(info.value)


async def test_missing_cli_at_cli_path(tmp_path: Any) -> None:
    provider = ClaudeSDKProvider(cli_path=str(tmp_path / "no-such-claude"))
    with pytest.raises(ProviderError, match=r"rlm-recursive\[claude\]"):
        await provider.chat(_request(Store().run))


async def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "claude_agent_sdk", None)
    with pytest.raises(ProviderError, match=r"pip install 'rlm-recursive\[claude\]'"):
        await ClaudeSDKProvider().chat(_request(Store().run))


async def test_auth_failure_says_how_to_log_in() -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        message = "Invalid API key · Please run /login"
        cli.emit(
            _assistant(
                [{"type": "text", "text": message}],
                model="<synthetic>",
                error="authentication_failed",
            )
        )
        cli.emit(_result(message, is_error=True))

    cli = FakeCLI(script)
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY") as info:
        await _provider(cli).chat(_request(Store().run))
    cli.check()
    assert info.value.details["assistant_error"] == "authentication_failed"


async def test_other_error_result_is_provider_error() -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(
            _result(
                None,
                is_error=True,
                subtype="error_max_turns",
                errors=["Reached maximum number of turns (7)"],
            )
        )

    cli = FakeCLI(script)
    with pytest.raises(ProviderError, match="maximum number of turns") as info:
        await _provider(cli).chat(_request(Store().run))
    assert info.value.details["subtype"] == "error_max_turns"


async def test_silent_cli_times_out() -> None:
    async def script(cli: FakeCLI) -> None:
        await asyncio.Event().wait()  # never answers initialize

    cli = FakeCLI(script)
    with pytest.raises(Timeout):
        await _provider(cli).chat(_request(Store().run, timeout_s=0.3))
    assert cli.closed


async def test_stream_without_result_is_provider_error() -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(_assistant([{"type": "text", "text": "partial"}]))

    cli = FakeCLI(script)
    with pytest.raises(ProviderError, match="without a result"):
        await _provider(cli).chat(_request(Store().run))


# -- api_retry: a bad key fails within seconds, not after the CLI's ~190 s of retries ------


def _api_retry(status: int | None, error: str, attempt: int = 1) -> dict[str, Any]:
    """The system message Claude Code 2.1.x writes before each of its own retries."""
    return {"type": "system", "subtype": "api_retry", "attempt": attempt, "max_retries": 10,
            "retry_delay_ms": 1200, "error_status": status, "error": error,
            "session_id": "sess-1", "uuid": f"uuid-r{attempt}"}


@pytest.mark.parametrize(
    ("status", "error", "hint"),
    [(401, "authentication_failed", "ANTHROPIC_API_KEY"),
     (403, "authentication_failed", "ANTHROPIC_API_KEY"),
     (400, "invalid_request", "HTTP 400"),
     (404, "invalid_request", "HTTP 404")],
)
async def test_a_final_api_retry_status_fails_fast_and_not_retryable(status, error, hint) -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(_api_retry(status, error))
        await asyncio.Event().wait()  # the real CLI now retries for minutes

    cli = FakeCLI(script)
    started = asyncio.get_running_loop().time()
    with pytest.raises(ProviderError) as info:
        # The default per-call timeout is 180 s: the failure must come long before it.
        await asyncio.wait_for(_provider(cli).chat(_request(Store().run, timeout_s=180)), 10)
    assert asyncio.get_running_loop().time() - started < 10
    err = info.value
    assert err.code == "provider_error" and err.retryable is False
    assert hint in err.message and err.details["api_error_status"] == status
    # The SDK's `query()` leaves its inner generator to the loop's finalizer: the transport
    # (the CLI process, for real) closes just after, not inside, the raise.
    for _ in range(50):
        if cli.closed:
            break
        await asyncio.sleep(0.1)
    assert cli.closed


@pytest.mark.parametrize("status", [None, 429, 500, 529])
async def test_transient_api_retry_statuses_stay_the_clis_to_retry(status) -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(_api_retry(status, "server_error"))
        cli.emit(_api_retry(status, "server_error", attempt=2))
        cli.emit(_assistant([{"type": "text", "text": "alpha is 42"}]))
        cli.emit(_result("alpha is 42"))

    cli = FakeCLI(script)
    result = await _provider(cli).chat(_request(Store().run))
    cli.check()
    assert result.text == "alpha is 42"


_FAKE_CLAUDE = '''#!{python}
"""Plays the claude CLI over stream-json: records its environment, fails auth like 2.1.x."""
import json, os, sys, time
with open({env_file!r}, "w") as f:
    json.dump(dict(os.environ), f)
def say(msg):
    sys.stdout.write(json.dumps(msg) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "control_request" and msg["request"]["subtype"] == "initialize":
        say({{"type": "control_response", "response": {{"subtype": "success",
             "request_id": msg["request_id"], "response": {{}}}}}})
    elif msg.get("type") == "user":
        say({{"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 10,
             "retry_delay_ms": 1200, "error_status": 401, "error": "authentication_failed",
             "session_id": "s", "uuid": "u"}})
        time.sleep(300)  # the real CLI keeps retrying for ~190 s
'''


async def test_the_cli_child_runs_without_nonessential_traffic_and_fails_fast(tmp_path) -> None:
    """Through the SDK's real subprocess transport: the env the CLI gets, and a 401."""
    env_file = tmp_path / "env.json"
    cli = tmp_path / "claude"
    cli.write_text(_FAKE_CLAUDE.format(python=sys.executable, env_file=str(env_file)))
    cli.chmod(0o755)
    started = asyncio.get_running_loop().time()
    with pytest.raises(ProviderError) as info:
        await asyncio.wait_for(
            ClaudeSDKProvider(cli_path=str(cli)).chat(_request(Store().run, timeout_s=180)), 10)
    assert asyncio.get_running_loop().time() - started < 10
    assert info.value.retryable is False and "ANTHROPIC_API_KEY" in info.value.message
    env = json.loads(env_file.read_text())
    # No extra "title" request repeating the prompt (and document spans) to the API.
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"


async def test_a_403_result_also_says_how_to_authenticate() -> None:
    async def script(cli: FakeCLI) -> None:
        await cli.handshake()
        cli.emit(_result("Forbidden", is_error=True, api_error_status=403))

    cli = FakeCLI(script)
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY") as info:
        await _provider(cli).chat(_request(Store().run))
    assert info.value.retryable is False and info.value.details["api_error_status"] == 403
