"""Replies of OpenAI-compatible servers, copied in shape from their documentation: vLLM's
OpenAI server (protocol.py: `max_model_len`, `{"object": "error", …}` errors) and llama.cpp's
llama-server (tools/server/README.md: `meta.n_ctx_train`, `timings`)."""

from __future__ import annotations

import json
from typing import Any


def vllm_models(model: str = "Qwen/Qwen3-8B", max_model_len: int = 32768) -> dict[str, Any]:
    return {"object": "list", "data": [{
        "id": model, "object": "model", "created": 1735000000, "owned_by": "vllm",
        "root": model, "parent": None, "max_model_len": max_model_len,
        "permission": [{"id": "modelperm-8f2c", "object": "model_permission",
                        "created": 1735000000, "allow_create_engine": False,
                        "allow_sampling": True, "allow_logprobs": True,
                        "allow_search_indices": False, "allow_view": True,
                        "allow_fine_tuning": False, "organization": "*", "group": None,
                        "is_blocking": False}]}]}


def llama_server_models(model: str = "qwen2.5-7b-instruct-q4_k_m.gguf",
                        n_ctx_train: int = 131072) -> dict[str, Any]:
    return {"object": "list", "data": [{
        "id": model, "object": "model", "created": 1735142223, "owned_by": "llamacpp",
        "meta": {"vocab_type": 2, "n_vocab": 152064, "n_ctx_train": n_ctx_train,
                 "n_embd": 3584, "n_params": 7615616512, "size": 4677120000}}]}


def vllm_chat(model: str, content: str | None = None, *,
              tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-b6a3e5f0c7a84b39", "object": "chat.completion",
            "created": 1735000000, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "reasoning_content": None,
                                                 "content": content,
                                                 "tool_calls": tool_calls or []},
                         "logprobs": None,
                         "finish_reason": "tool_calls" if tool_calls else "stop",
                         "stop_reason": None}],
            "usage": {"prompt_tokens": 212, "total_tokens": 240, "completion_tokens": 28,
                      "prompt_tokens_details": None},
            "prompt_logprobs": None}


def vllm_tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-tool-5f1b0e8a3c", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def vllm_error(message: str, status: int, kind: str) -> dict[str, Any]:
    return {"object": "error", "message": message, "type": kind, "param": None, "code": status}


def llama_server_chat(content: str, model: str = "gpt-3.5-turbo") -> dict[str, Any]:
    return {"choices": [{"finish_reason": "stop", "index": 0,
                         "message": {"role": "assistant", "content": content}}],
            "created": 1735142223, "model": model, "system_fingerprint": "b4380-6b4e2e7",
            "object": "chat.completion",
            "usage": {"completion_tokens": 12, "prompt_tokens": 181, "total_tokens": 193},
            "id": "chatcmpl-Wm2RkO0NRQd6ktjLx3DvNc1TWEDuVbNz",
            "timings": {"prompt_n": 181, "prompt_ms": 120.4, "prompt_per_token_ms": 0.66,
                        "prompt_per_second": 1503.3, "predicted_n": 12, "predicted_ms": 240.1,
                        "predicted_per_token_ms": 20.0, "predicted_per_second": 49.9}}


def llama_server_error(message: str, status: int, kind: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "type": kind}}


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """A `stream: true` body: one `data:` event per chunk, then `data: [DONE]`."""
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def vllm_stream(model: str, pieces: list[str], tool: dict[str, Any] | None = None) -> bytes:
    """vLLM's chunks: role first, content deltas, tool-call fragments, a usage-only chunk."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1735000000,
            "model": model}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "logprobs": None, "finish_reason": None}]}]
    chunks += [{**base, "choices": [{"index": 0, "delta": {"content": p}, "logprobs": None,
                                     "finish_reason": None}]} for p in pieces]
    if tool is not None:
        args = json.dumps(tool["arguments"])
        half = len(args) // 2
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
            "index": 0, "id": "chatcmpl-tool-9", "type": "function",
            "function": {"name": tool["name"], "arguments": args[:half]}}]},
            "logprobs": None, "finish_reason": None}]})
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
            "index": 0, "function": {"arguments": args[half:]}}]}, "logprobs": None,
            "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {"content": ""}, "logprobs": None,
                                        "finish_reason": "tool_calls" if tool else "stop"}]})
    chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 50, "total_tokens": 60,
                                                    "completion_tokens": 10}})
    return sse(chunks)


def llama_server_props(n_ctx: int, slots: int = 1) -> dict[str, Any]:
    """`GET /props`: the per-slot window the server allocated (`-c` divided by `-np`)."""
    return {"default_generation_settings": {"id": 0, "id_task": -1, "n_ctx": n_ctx,
                                            "speculative": False, "is_processing": False,
                                            "params": {"n_predict": -1, "temperature": 0.8}},
            "total_slots": slots, "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
            "chat_template": "{% for message in messages %}…{% endfor %}",
            "build_info": "b4380-6b4e2e7"}
