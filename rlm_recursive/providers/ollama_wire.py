"""Ollama's `/api/chat` wire format: messages and tools out, tool calls and windows back in.

Pure functions over the JSON Ollama's api/types.go defines; `ollama.py` does the HTTP.
"""

from __future__ import annotations

import json
from typing import Any

from ..types import ToolDef
from .base import Message, ToolCall

__all__ = [
    "INVALID_JSON_KEY",
    "context_length",
    "parse_arguments",
    "parse_tool_call",
    "render_call",
    "render_native",
    "render_tool",
    "thought_out",
    "tool_addendum",
]

INVALID_JSON_KEY = "_invalid_json"
"""Tool-call arguments that are not a JSON object arrive as `{INVALID_JSON_KEY: raw}`.

No tool declares this key, so argument validation rejects it and the loop can send an
`invalid_args` result back to the model instead of crashing the run.
"""


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Native Ollama sends an object; OpenAI-style servers a JSON string. Never raise."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {INVALID_JSON_KEY: raw}
        if isinstance(value, dict):
            return value
    return {INVALID_JSON_KEY: raw if isinstance(raw, str) else json.dumps(raw)}


def parse_tool_call(raw: dict[str, Any]) -> ToolCall:
    fn = raw.get("function") or {}
    return ToolCall(
        name=fn.get("name") or "", arguments=parse_arguments(fn.get("arguments")), id=raw.get("id")
    )


def render_tool(tool: ToolDef) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def render_native(message: Message) -> dict[str, Any]:
    """One message as `/api/chat` expects it from a model with a tool template."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [render_call(c) for c in message.tool_calls]
    if message.role == "tool":
        if message.tool_name:
            out["tool_name"] = message.tool_name
        if message.tool_call_id:
            out["tool_call_id"] = message.tool_call_id
    return out


def render_call(call: ToolCall) -> dict[str, Any]:
    """A tool call as the server sent it, `id` included, so results can name their call."""
    out: dict[str, Any] = {"function": {"name": call.name, "arguments": call.arguments}}
    if call.id:
        out["id"] = call.id
    return out


def thought_out(data: dict[str, Any]) -> bool:
    """True for a reply whose output budget ran out before any answer or tool call.

    Thinking tokens count against `num_predict`: a thinking model can spend all of it and
    return `content: ""` with `done_reason: "length"` (the server calls that a success).
    """
    message = data.get("message") or {}
    return (
        data.get("done_reason") == "length"
        and not (message.get("content") or "").strip()
        and not message.get("tool_calls")
    )




def tool_addendum(tools: list[ToolDef]) -> str:
    lines = [
        "You can call exactly one of these tools per reply. Answer ONLY with a JSON object",
        '{"tool": "<tool name>", "arguments": {...}} and nothing else.',
        "Tools:",
    ]
    for tool in tools:
        params = json.dumps(tool.parameters, separators=(",", ":"))
        lines.append(f"- {tool.name}: {tool.description} Arguments schema: {params}")
    return "\n".join(lines)


def context_length(model_info: Any) -> int | None:
    """`<arch>.context_length` from `/api/show`'s `model_info`, if the server reports one."""
    if not isinstance(model_info, dict):
        model_info = dict(model_info or {})
    arch = model_info.get("general.architecture")
    value = model_info.get(f"{arch}.context_length") if arch else None
    if value is None:  # older servers or odd GGUFs: any "<arch>.context_length" will do
        value = next((v for k, v in model_info.items() if k.endswith(".context_length")), None)
    return int(value) if isinstance(value, int | float) and value > 0 else None
