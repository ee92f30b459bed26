"""The OpenAI chat-completions wire format, as vLLM, llama-server, LM Studio and SGLang speak it.

Pure functions over JSON: messages and tools out; replies, streamed chunks and `/v1/models`
entries back in. `openai.py` does the HTTP.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ..types import ToolDef
from .base import ChatRequest, Message, ToolCall, plain_text_turn, tool_choice_schema
from .ollama_wire import parse_arguments, render_tool, tool_addendum

__all__ = [
    "SchemaMode",
    "StreamAssembler",
    "chat_body",
    "model_window",
    "parse_reply",
    "render_message",
]

SchemaMode = Literal["json_schema", "json_object", "prompt"]
"""How a constrained tool choice is asked for: OpenAI's `json_schema` (vLLM, llama-server,
LM Studio), llama-cpp-python's `{"type": "json_object", "schema"}`, or the prompt alone."""

_WINDOW_KEYS = ("max_model_len", "context_length", "max_context_length", "context_window",
                "loaded_context_length")
"""Where servers report a model's window in `/v1/models`: vLLM `max_model_len`, LM Studio
`max_context_length` / `loaded_context_length`, others `context_length`."""


def render_message(message: Message) -> dict[str, Any]:
    """One message in OpenAI's shape: tool-call arguments as a JSON string, results by id."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": call.id or f"call_{n}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for n, call in enumerate(message.tool_calls)]
        out["content"] = message.content or None
    if message.role == "tool":
        out["tool_call_id"] = message.tool_call_id or "call_0"
    return out


def _constrained(tools: list[ToolDef], mode: SchemaMode) -> dict[str, Any] | None:
    schema = tool_choice_schema(tools)
    if mode == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": "tool_call", "schema": schema, "strict": False}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


FREQUENCY_PENALTY = 0.3
"""Sent for free-text replies (a repeat penalty was asked for): small models loop without."""


def chat_body(
    request: ChatRequest, *, constrained: SchemaMode | None, stream: bool,
) -> dict[str, Any]:
    """The `/chat/completions` JSON body; `constrained` asks for `{tool, arguments}` JSON."""
    opts = request.options
    body: dict[str, Any] = {"model": request.model, "temperature": opts.temperature,
                            "stream": stream}
    if opts.max_tokens is not None:
        body["max_tokens"] = opts.max_tokens
    if opts.seed is not None:
        body["seed"] = opts.seed
    if opts.repeat_penalty is not None:
        # The standard field every OpenAI-compatible server takes (llama.cpp's server, vLLM,
        # OpenAI); a multiplicative `repeat_penalty` is not part of the API.
        body["frequency_penalty"] = FREQUENCY_PENALTY
    if stream:
        body["stream_options"] = {"include_usage": True}
    # A tier's `think`, as OpenAI-compatible servers take it: the chat template's
    # `enable_thinking` (vLLM, SGLang, llama-server with --jinja; Qwen3 and its kin read it,
    # other templates ignore it) and, for an effort level, `reasoning_effort` (gpt-oss).
    # Off unless asked, as for Ollama: thinking tokens eat the output budget. A server that
    # refuses these fields gets the request again without them (`OpenAIProvider._send`).
    body["chat_template_kwargs"] = {"enable_thinking": bool(opts.think)}
    if isinstance(opts.think, str):
        body["reasoning_effort"] = opts.think
    if constrained is not None:
        messages: list[dict[str, Any]] = [plain_text_turn(m) for m in request.messages]
        addendum = tool_addendum(request.tools)
        if messages and messages[0]["role"] == "system":
            messages[0]["content"] = f"{messages[0]['content']}\n\n{addendum}".lstrip()
        else:
            messages.insert(0, {"role": "system", "content": addendum})
        response_format = _constrained(request.tools, constrained)
        if response_format is not None:
            body["response_format"] = response_format
    else:
        messages = [render_message(m) for m in request.messages]
        if request.tools:
            body["tools"] = [render_tool(t) for t in request.tools]
    body["messages"] = messages
    return body


THINKING_FIELDS = ("chat_template_kwargs", "reasoning_effort")
"""Request fields that carry thinking control; some servers (OpenAI's own) refuse them."""


def without_thinking_fields(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in THINKING_FIELDS}


def parse_reply(data: dict[str, Any]) -> tuple[str, list[ToolCall], str, str | None, int, int]:
    """`(text, tool calls, thinking, finish_reason, prompt tokens, completion tokens)`."""
    choices = data.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message") or {}
    calls = [ToolCall(name=(c.get("function") or {}).get("name") or "",
                      arguments=parse_arguments((c.get("function") or {}).get("arguments")),
                      id=c.get("id"))
             for c in message.get("tool_calls") or []]
    usage = data.get("usage") or {}
    # llama-server and vLLM's reasoning parsers put thinking in `reasoning_content`.
    thinking = message.get("reasoning_content") or message.get("reasoning") or ""
    return (message.get("content") or "", calls, thinking, choice.get("finish_reason"),
            usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0)


class StreamAssembler:
    """Folds `stream: true` chunks (`data: {...}` lines) back into one non-streamed reply."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.model: str | None = None

    def feed(self, chunk: dict[str, Any]) -> None:
        self.model = chunk.get("model") or self.model
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            self.text.append(delta.get("content") or "")
            self.thinking.append(delta.get("reasoning_content") or "")
            for piece in delta.get("tool_calls") or []:
                call = self.calls.setdefault(piece.get("index", len(self.calls)),
                                             {"id": None, "name": "", "arguments": ""})
                call["id"] = piece.get("id") or call["id"]
                fn = piece.get("function") or {}
                call["name"] += fn.get("name") or ""
                arguments = fn.get("arguments")
                # Arguments arrive as string fragments; a few servers send the whole object.
                call["arguments"] += (arguments if isinstance(arguments, str)
                                      else json.dumps(arguments) if arguments else "")
            self.finish_reason = choice.get("finish_reason") or self.finish_reason

    def reply(self) -> dict[str, Any]:
        """The assembled reply in the non-streamed shape `parse_reply` reads."""
        calls = [{"id": c["id"], "type": "function",
                  "function": {"name": c["name"], "arguments": c["arguments"]}}
                 for _, c in sorted(self.calls.items())]
        message = {"role": "assistant", "content": "".join(self.text),
                   "reasoning_content": "".join(self.thinking), "tool_calls": calls}
        return {"model": self.model, "usage": self.usage,
                "choices": [{"index": 0, "message": message,
                             "finish_reason": self.finish_reason}]}


def model_window(entry: dict[str, Any]) -> int | None:
    """A model's context window from its `/v1/models` entry, where the server reports one."""
    candidates = [entry.get(key) for key in _WINDOW_KEYS]
    meta = entry.get("meta")
    if isinstance(meta, dict):  # llama-server: the trained window
        candidates.append(meta.get("n_ctx_train"))
    for value in candidates:
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return int(value)
    return None
