"""Loopback stand-ins for tests that need real sockets: an Ollama-shaped HTTP server and a
recording proxy. Bodies follow Ollama's api/types.go to the field (reference/ollama.md)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any, dict[str, str]]
Script = Callable[[str, str, dict[str, Any]], Reply]


def chat_body(
    model: str,
    content: str = "",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    thinking: str | None = None,
    done_reason: str = "stop",
    eval_count: int = 18,
) -> dict[str, Any]:
    """A `stream: false` `/api/chat` reply as the server writes it."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"model": model, "created_at": "2026-01-01T00:00:00Z", "message": message,
            "done": True, "done_reason": done_reason, "total_duration": 123456789,
            "load_duration": 1000, "prompt_eval_count": 169, "prompt_eval_duration": 1000,
            "eval_count": eval_count, "eval_duration": 1000}


def tags_body(*names: str) -> dict[str, Any]:
    """`GET /api/tags` listing pulled models."""
    return {"models": [{
        "name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": 5_200_000_000,
        "digest": "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
        "details": {"parent_model": "", "format": "gguf", "family": "qwen3",
                    "families": ["qwen3"], "parameter_size": "8.2B",
                    "quantization_level": "Q4_K_M"}} for name in names]}


def show_body(context_length: int, arch: str = "qwen3") -> dict[str, Any]:
    """`POST /api/show` for a model trained with `context_length`."""
    return {"modelfile": "FROM /models/blobs/sha256-a3de\n", "parameters": "", "template": "",
            "details": {"parent_model": "", "format": "gguf", "family": arch, "families": [arch],
                        "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
            "model_info": {"general.architecture": arch, f"{arch}.context_length": context_length,
                           "general.parameter_count": 8190735360},
            "capabilities": ["completion", "tools", "thinking"],
            "modified_at": "2026-01-01T00:00:00Z"}


def search_call(n: int) -> dict[str, Any]:
    return {"id": f"call_{n:08d}", "function": {
        "index": 0, "name": "rlm_search_query", "arguments": {"query": "keypad code"}}}


def agent_script(answer: str, searches: int = 1, **reply: Any):
    """The root searches `searches` times, then answers; anything else is a plain answer."""

    def script(method: str, path: str, body: dict[str, Any]) -> tuple[int, Any, dict]:
        if path == "/api/version":
            return 200, {"version": "0.12.3"}, {}
        if path == "/api/tags":
            return 200, tags_body("qwen3:8b", "qwen3:1.7b"), {}
        if path == "/api/show":
            return 200, show_body(40960), {}
        done = sum(m["role"] == "tool" for m in body.get("messages", []))
        if body.get("tools") and done < searches:
            return 200, chat_body(body["model"], tool_calls=[search_call(done)]), {}
        return 200, chat_body(body["model"], answer, **reply), {}

    return script


@dataclass
class Recorded:
    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class LoopbackServer:
    url: str
    requests: list[Recorded]
    stop: Callable[[], None] = lambda: None
    """Kill the server: it stops listening, so later connections are refused."""

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == path]


@contextmanager
def serve(script: Script) -> Iterator[LoopbackServer]:
    """An HTTP server on 127.0.0.1; `script(method, path, body)` -> (status, json, headers)."""
    requests: list[Recorded] = []

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            requests.append(Recorded(self.command, self.path, body, dict(self.headers)))
            status, payload, headers = script(self.command, self.path, body)
            data = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_HEAD = do_CONNECT = _handle

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stopped = threading.Event()

    def stop() -> None:
        if not stopped.is_set():
            stopped.set()
            server.shutdown()
            server.server_close()

    try:
        yield LoopbackServer(f"http://127.0.0.1:{server.server_address[1]}", requests, stop)
    finally:
        stop()


@contextmanager
def recording_proxy() -> Iterator[LoopbackServer]:
    """A "proxy" that records whatever reaches it and answers 502: it must see nothing."""
    with serve(lambda method, path, body: (502, {"error": "proxy"}, {})) as proxy:
        yield proxy
