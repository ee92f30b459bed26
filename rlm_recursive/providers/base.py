"""The provider protocol: one `chat()` call in, one `ChatResult` out."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ProviderError
from ..types import ToolDef

__all__ = [
    "ChatOptions",
    "ChatRequest",
    "ChatResult",
    "Message",
    "Provider",
    "Think",
    "ToolCall",
    "ToolRunner",
    "Usage",
    "parse_tool_choice",
    "plain_text_turn",
    "tool_choice_schema",
]

Think = bool | Literal["low", "medium", "high"]
"""Ollama's `think`: on/off, or an effort level for models that take one (gpt-oss)."""

ToolRunner = Callable[[str, dict[str, Any]], Awaitable[str]]
"""Runs one tool by name for providers that drive their own tool loop (Claude SDK)."""


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class Message(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_name: str | None = None
    tool_call_id: str | None = None
    """On a tool result: the `id` of the call it answers, echoed back to the server."""


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None


class ChatOptions(BaseModel):
    temperature: float = 0.0
    num_ctx: int | None = None
    max_tokens: int | None = None
    seed: int | None = None
    timeout_s: float = 180.0
    max_turns: int = 10
    native_tools: bool = True
    """False: the model has no native tool format; force `{tool, arguments}` JSON instead."""
    think: Think | None = None
    """None: do not think. Thinking models think by default and burn the output budget."""
    repeat_penalty: float | None = None
    """Penalise tokens the reply just used (free text only: a constrained JSON reply repeats
    its labels by design). None: the provider's default."""


class ChatRequest(BaseModel):
    """Everything a provider needs for one model call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str
    messages: list[Message]
    tools: list[ToolDef] = Field(default_factory=list)
    options: ChatOptions = Field(default_factory=ChatOptions)
    tool_runner: ToolRunner | None = Field(default=None, exclude=True)


class ChatResult(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    thinking: str = ""
    """A thinking model's reasoning, kept apart from the answer (never shown as one)."""
    done_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    model: str
    provider: str


@runtime_checkable
class Provider(Protocol):
    """A model backend. Errors leave `chat` as `RlmError`s (provider_error, timeout, ...)."""

    name: str

    async def chat(self, request: ChatRequest) -> ChatResult: ...

    async def aclose(self) -> None: ...


def tool_choice_schema(tools: list[ToolDef]) -> dict[str, Any]:
    """JSON schema forcing `{"tool", "arguments"}` replies from models without native tools."""
    options = [
        {
            "type": "object",
            "properties": {"tool": {"type": "string", "enum": [t.name]}, "arguments": t.parameters},
            "required": ["tool", "arguments"],
        }
        for t in tools
    ]
    return options[0] if len(options) == 1 else {"anyOf": options}


def parse_tool_choice(text: str, tools: list[ToolDef]) -> ToolCall:
    """Parse a constrained `{"tool", "arguments"}` reply back into a tool call."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProviderError(f"model returned invalid JSON for a tool call: {exc}") from exc
    names = {t.name for t in tools}
    if not isinstance(data, dict) or data.get("tool") not in names:
        raise ProviderError(f"model chose no known tool: {text[:200]!r}")
    args = data.get("arguments")
    if isinstance(args, str):
        args = json.loads(args) if args.strip() else {}
    return ToolCall(name=data["tool"], arguments=args if isinstance(args, dict) else {})


def plain_text_turn(message: Message) -> dict[str, str]:
    """One message as system/user/assistant text, for models without a tool format.

    Their chat templates drop `tool` turns and ignore `tool_calls`, so the model would never
    see its own calls or their results: replay calls as the `{"tool", "arguments"}` JSON the
    constrained decoding forces, and results as user turns.
    """
    if message.role == "tool":
        name = message.tool_name or "tool"
        return {"role": "user", "content": f"Result of {name}:\n{message.content}"}
    if message.role == "assistant" and message.tool_calls:
        calls = [json.dumps({"tool": c.name, "arguments": c.arguments}) for c in message.tool_calls]
        return {"role": "assistant", "content": "\n".join(filter(None, [message.content, *calls]))}
    return {"role": message.role, "content": message.content}
