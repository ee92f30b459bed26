"""The recorder: one event stream per run, consumed by the store and by any live view.

Every model call, tool call, REPL step and sub-call of a run becomes a `Node` of one tree.
Where a node hangs is tracked with context variables, so the hook lines in the core stay
one `with` each and concurrent sub-calls (separate asyncio tasks) keep their own branch:
- a model call hangs under the current scope (the run, a sub-call, a tool call);
- a tool call or REPL step hangs under the model call that asked for it;
- a sub-call hangs under the tool call or REPL step that started it.

Consumers are plain callables `listener(event, payload)`, event in run_start / start / end /
progress / run_end (the payload is the Node for start / end, `{task, done, total}` for
progress, None for the run events). Listeners run where the event happens (the event loop, or
the worker thread of a blocking tool) and must be quick; the store listener only queues
(encoding happens on the writer thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import RlmError
from ..store.db import utcnow

__all__ = ["Listener", "Mode", "Node", "Recorder", "active", "listening", "model_call",
           "progress", "repl_step", "sub_call", "tool_call", "trajectory_mode"]

Mode = Literal["full", "metadata", "off"]
Kind = Literal["model", "tool", "repl", "sub"]
Listener = Callable[[str, Any], None]
"""`listener(event, payload)`: a Node for start / end, a dict for progress, else None."""

_ACTIVE: ContextVar[Recorder | None] = ContextVar("rlm_recorder", default=None)
_SCOPE: ContextVar[str | None] = ContextVar("rlm_scope", default=None)
_TURN: ContextVar[str | None] = ContextVar("rlm_turn", default=None)
_DEPTH: ContextVar[int] = ContextVar("rlm_depth", default=0)
_LISTENERS: ContextVar[tuple[Listener, ...]] = ContextVar("rlm_listeners", default=())


def trajectory_mode(profile: Any, overrides: Mapping[str, Any] | None = None) -> Mode:
    """`traces = false` in the profile's table turns it off; restricted keeps metadata only."""
    if (overrides or {}).get("traces") is False:
        return "off"
    if profile.name == "restricted" or not profile.traces:
        return "metadata"
    return "full"


@dataclass
class Node:
    """One call in the tree. `input` / `output` are raw objects, encoded by the consumer."""

    id: str
    parent: str | None
    kind: Kind
    depth: int
    name: str
    seq: int
    started_at: str
    started: float = field(default_factory=time.perf_counter)
    status: str = "running"
    error_code: str | None = None
    duration_ms: float = 0.0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cache_hit: bool | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    input: Any = None
    output: Any = None

    def reply(self, result: Any, *, cache_hit: bool = False) -> None:
        """A model call's reply: text, tool calls and usage (a `ChatResult`)."""
        usage = result.usage
        # A cached reply spent nothing: its tokens were counted by the call that made it.
        self.input_tokens = 0 if cache_hit else usage.input_tokens
        self.output_tokens = 0 if cache_hit else usage.output_tokens
        self.cost_usd = None if cache_hit else usage.cost_usd
        self.cache_hit = cache_hit
        self.meta["tool_calls"] = [c.name for c in result.tool_calls]
        self.output = {"text": result.text,
                       "tool_calls": [{"name": c.name, "arguments": c.arguments}
                                      for c in result.tool_calls]}

    def result(self, output: Any, *, is_error: bool = False) -> None:
        """A tool call's, REPL step's or sub-call's result."""
        self.output = output
        if is_error:
            self.status = "error"
            meta = output.get("meta") if isinstance(output, dict) else None
            self.error_code = meta.get("error_code") if isinstance(meta, dict) else None


class _Null:
    """What a hook gets when no run is being recorded: every call is a no-op."""

    def reply(self, result: Any, *, cache_hit: bool = False) -> None:
        pass

    def result(self, output: Any, *, is_error: bool = False) -> None:
        pass


_NULL = _Null()
_OFF = nullcontext(_NULL)
"""Reusable: outside a recorded run a hook costs one context-variable read."""


class Recorder:
    """The trajectory of one run: its summary row and its tree of nodes."""

    def __init__(self, run_id: str, session_id: str, question: str, mode: Mode,
                 listeners: tuple[Listener, ...] = ()) -> None:
        self.mode = mode
        self.listeners = listeners
        self.run: dict[str, Any] = {
            "id": run_id, "session_id": session_id, "mode": mode, "question": question,
            "question_chars": len(question), "status": "running", "started_at": utcnow()}
        self.started = time.perf_counter()
        self.nodes: dict[str, Node] = {}
        self._counts: dict[str, int] = {}

    def emit(self, event: str, payload: Any = None) -> None:
        for listener in self.listeners:
            listener(event, payload)

    def _new(self, kind: Kind, name: str, parent: str | None, depth: int) -> Node:
        prefix = kind[0]
        self._counts[prefix] = self._counts.get(prefix, 0) + 1
        node = Node(id=f"{prefix}{self._counts[prefix]}", parent=parent, kind=kind,
                    depth=depth, name=name, seq=len(self.nodes) + 1, started_at=utcnow())
        self.nodes[node.id] = node
        return node

    @contextmanager
    def node(self, kind: Kind, name: str, *, input_: Any = None, depth: int | None = None,
             meta: dict[str, Any] | None = None) -> Iterator[Node]:
        """Record one call around the `with` body; an exception marks it failed and re-raises."""
        parent = _SCOPE.get() if kind in ("model", "sub") else _TURN.get() or _SCOPE.get()
        node = self._new(kind, name, parent, _DEPTH.get() if depth is None else depth)
        node.input, node.meta = input_, dict(meta or {})
        tokens = []
        if kind == "model":
            _TURN.set(node.id)  # kept after the call: the tools it asks for hang under it
        else:
            tokens = [(_SCOPE, _SCOPE.set(node.id)), (_TURN, _TURN.set(None))]
            if depth is not None:
                tokens.append((_DEPTH, _DEPTH.set(depth)))
        self.emit("start", node)
        try:
            yield node
        except BaseException as exc:
            node.status = "error"
            node.error_code = exc.code if isinstance(exc, RlmError) else type(exc).__name__
            raise
        finally:
            for var, token in reversed(tokens):
                var.reset(token)
            if node.status == "running":
                node.status = "ok"
            node.duration_ms = (time.perf_counter() - node.started) * 1000
            self.emit("end", node)


def active() -> Recorder | None:
    """The recorder of the run this task belongs to, if it is recorded."""
    return _ACTIVE.get()


@contextmanager
def activate(recorder: Recorder | None) -> Iterator[Recorder | None]:
    """Make `recorder` the one the hooks below write to, for this task and its children."""
    tokens = [_ACTIVE.set(recorder), _SCOPE.set(None), _TURN.set(None), _DEPTH.set(0)]
    try:
        yield recorder
    finally:
        for var, token in zip((_DEPTH, _TURN, _SCOPE, _ACTIVE), reversed(tokens), strict=True):
            var.reset(token)


@contextmanager
def listening(*listeners: Listener) -> Iterator[None]:
    """Runs started inside this block also send their events to `listeners` (a live view)."""
    token = _LISTENERS.set(_LISTENERS.get() + listeners)
    try:
        yield
    finally:
        _LISTENERS.reset(token)


def progress(task: str, done: int, total: int, message: str | None = None) -> None:
    """Report progress of a long step (e.g. the first index build, a multi-hop look-up).

    Outside a recorded run (a bare MCP tool call) the block's listeners still hear it.
    """
    payload: dict[str, Any] = {"task": task, "done": done, "total": total}
    if message is not None:
        payload["message"] = message
    recorder = _ACTIVE.get()
    if recorder is not None:
        if recorder.listeners:
            recorder.emit("progress", payload)
        return
    for listener in _LISTENERS.get():
        listener("progress", payload)


def current_listeners() -> tuple[Listener, ...]:
    return _LISTENERS.get()


def model_call(tier: Any, messages: list[Any], tools: list[Any]) -> Any:
    """`with model_call(tier, messages, tools) as rec: …; rec.reply(result, cache_hit=…)`."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return _OFF
    # A snapshot: the loop trims and appends to the same list on later turns.
    return recorder.node("model", f"{tier.provider}/{tier.model}", input_=list(messages),
                         meta={"tools": [t.name for t in tools], "messages": len(messages),
                               "num_ctx": tier.num_ctx})


def tool_call(name: str, args: Any) -> Any:
    """`with tool_call(name, args) as rec: …; rec.result(output, is_error=…)`."""
    recorder = _ACTIVE.get()
    return _OFF if recorder is None else recorder.node("tool", name, input_=args)


def repl_step(index: int, code: str) -> Any:
    """`with repl_step(i, code) as rec: …; rec.result({"stdout": …, …})`."""
    recorder = _ACTIVE.get()
    return _OFF if recorder is None else recorder.node("repl", f"step {index}",
                                                       input_={"code": code})


def sub_call(call_id: str, depth: int, tier: Any, query: str, span: dict[str, Any]) -> Any:
    """`with sub_call(...) as rec: …; rec.result({"response": …})`: a sub-model over a span."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return _OFF
    return recorder.node("sub", call_id, depth=depth, input_={"query": query},
                         meta={"span": span, "tier": f"{tier.provider}/{tier.model}"})
