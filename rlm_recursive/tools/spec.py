"""The one tool registry: each tool defined once, invoked through `Registry.invoke`."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from .. import trajectory
from ..config import SessionConfig
from ..errors import InternalError, InvalidArgs, RlmError, RunError, UnknownTool
from ..policy import PathPolicy, Profile
from ..store import Store
from ..store.sessions import require_open
from ..types import SpanRef, ToolDef, ToolResult, has_lone_surrogate
from .names import SESSION_WRITE_TOOLS

__all__ = ["STORE_WRITES", "ReadLog", "Registry", "SubQueryRunner", "ToolContext", "ToolSpec",
           "tool_def"]

Handler = Callable[["ToolContext", Any], Awaitable[ToolResult] | ToolResult]
"""An `async def` handler runs on the event loop (it awaits models, sandboxes); a plain `def`
one does blocking store, parse or index work and runs in a worker thread."""

# The only call a session's tool budget does not count (exact name match, seed 000 v0.1.3).
BUDGET_EXEMPT = "rlm_session_create"

_WRITERS = SESSION_WRITE_TOOLS | {"rlm_session_create", "rlm_session_close", "rlm_chunk_create"}
"""Blocking tools that write: one at a time (under STORE_WRITES), as when every handler ran on
the event loop. Reads run concurrently, so a long index build no longer stalls a
session_info."""
STORE_WRITES = threading.Lock()
"""Held by whoever loads documents or writes spans outside the event loop (these tools, the
API's background loads): the store's one SQLite connection cannot hold two threads'
transactions at once."""


class ReadLog(Protocol):
    """Collects every span a caller was shown, for citations."""

    def add(self, ref: SpanRef) -> None: ...


class SubQueryRunner(Protocol):
    """Runs sub-models over spans; provided by the agent layer (tools never import it)."""

    async def run(self, ctx: ToolContext, args: Any) -> ToolResult: ...

    async def run_batch(self, ctx: ToolContext, args: Any) -> ToolResult: ...


@dataclass
class ToolContext:
    """Binds a call to a store, a session, a path policy and, inside a run, the agent's hooks."""

    store: Store
    policy: PathPolicy
    session_id: str | None = None
    read_log: ReadLog | None = None
    traces: bool = True
    sub_query: SubQueryRunner | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    profile: Profile | None = None
    """The policy profile in force (None for a bare registry: tools then act as restricted)."""
    in_run: bool = False
    """True for a model's call inside a query: the run's own budget counts it, not the
    session's, so queries never drain a session (budgets belong to a query or a run)."""

    @property
    def config(self) -> SessionConfig:
        return self.store.session_config(self.require_session())

    def require_session(self) -> str:
        if not self.session_id:
            raise InvalidArgs("session_id is required")
        return self.session_id


@dataclass(frozen=True)
class ToolSpec:
    """Name, model-facing description, flat pydantic arguments and an async handler."""

    name: str
    description: str
    args_model: type[BaseModel]
    handler: Handler
    model_facing: bool = False


_BOUND = ("session_id", "conversation_id")
"""Arguments a run binds for its model (MCP clients give them)."""


def tool_def(spec: ToolSpec, *, for_model: bool) -> ToolDef:
    """The neutral definition; a model bound to a session is never asked for `session_id`."""
    schema = spec.args_model.model_json_schema()
    schema.pop("title", None)
    if for_model:
        for bound in _BOUND:
            schema["properties"].pop(bound, None)
        schema["required"] = [r for r in schema.get("required", []) if r not in _BOUND]
        schema["properties"] = {k: _flat(v) for k, v in schema["properties"].items()}
        schema.pop("additionalProperties", None)
    if not schema.get("required"):
        schema.pop("required", None)
    return ToolDef(name=spec.name, description=spec.description, parameters=schema)


def _flat(prop: dict[str, Any]) -> dict[str, Any]:
    """A model-facing property: `X | None` becomes X; titles and null defaults go.

    Ollama's client and server drop anyOf/title/default anyway, and small models call
    short flat schemas far more reliably.
    """
    options = [p for p in prop.get("anyOf", []) if p.get("type") != "null"]
    flat = dict(options[0]) if len(options) == 1 else {k: v for k, v in prop.items()
                                                        if k != "anyOf"}
    for key in ("description", "enum", "items"):
        if key in prop:
            flat[key] = prop[key]
    flat.pop("title", None)
    if prop.get("default") is not None:
        flat["default"] = prop["default"]
    return flat


class Registry:
    """Validates, budgets, runs, traces and maps errors for every tool call."""

    def __init__(self, specs: list[ToolSpec] | None = None) -> None:
        self._specs: dict[str, ToolSpec] = {}
        # Rendered once: pydantic builds a JSON schema in ~1 ms, and the agent loop asks for
        # the tool list on every call. ToolDefs are frozen and read-only to every consumer.
        self._defs: dict[tuple[str, bool], ToolDef] = {}
        for spec in specs or []:
            self.register(spec)

    def register(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name} registered twice")
        self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return list(self._specs)

    def spec(self, name: str) -> ToolSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise UnknownTool(
                f"unknown tool {name!r}; available: {', '.join(self._specs)}"
            ) from None

    def tool_defs(self, *, for_model: bool, names: list[str] | None = None) -> list[ToolDef]:
        chosen = [self.spec(n) for n in names] if names is not None else self._specs.values()
        defs = []
        for spec in chosen:
            rendered = self._defs.get((spec.name, for_model))
            if rendered is None:
                rendered = self._defs[spec.name, for_model] = tool_def(spec, for_model=for_model)
            defs.append(rendered)
        return defs

    async def invoke(self, name: str, raw_args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run one call. Model and user errors come back as error results; run errors raise."""
        with trajectory.tool_call(name, raw_args) as record:
            result = await self._invoke(name, raw_args, ctx)
            record.result(result.output, is_error=result.is_error)
            return result

    async def _invoke(self, name: str, raw_args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        started = time.perf_counter()
        args_for_trace = raw_args
        try:
            spec = self.spec(name)
            args = _validate(spec, raw_args, ctx)
            session_id = getattr(args, "session_id", None)
            if session_id and name in SESSION_WRITE_TOOLS:
                require_open(ctx.store, session_id)  # a closed session is frozen
            if session_id and name != BUDGET_EXEMPT and not ctx.in_run:
                ctx.store.count_tool_call(session_id)
            call_ctx = ctx if session_id in (None, ctx.session_id) else _rebind(ctx, session_id)
            result = await _run_handler(spec, call_ctx, args)
        except RunError as exc:
            self._trace(ctx, name, args_for_trace, exc.to_dict(), started)
            raise
        except RlmError as exc:
            result = ToolResult(output=exc.to_dict(), is_error=True)
        except Exception as exc:  # a bug of ours: end the run with a code, keep the cause
            internal = InternalError(f"{name} failed: {type(exc).__name__}: {exc}")
            self._trace(ctx, name, args_for_trace, internal.to_dict(), started)
            raise internal from exc
        if ctx.read_log is not None:
            for ref in result.read_spans:
                ctx.read_log.add(ref)
        self._trace(ctx, name, args_for_trace, result.output, started)
        return result

    def _trace(
        self, ctx: ToolContext, name: str, args: dict[str, Any], output: dict[str, Any],
        started: float,
    ) -> None:
        if not ctx.traces:
            return
        # Arguments may not even be a dict (the call then failed validation); a created
        # session's first trace line goes to its own file.
        given = args.get("session_id") if isinstance(args, dict) else None
        session_id = given or ctx.session_id or output.get("session_id")
        with contextlib.suppress(Exception):
            if not session_id and isinstance(args, dict) and args.get("execution_id"):
                # REPL steps name their execution: they belong in its session's trace.
                session_id = ctx.store.execution_session(str(args["execution_id"]))
            ctx.store.trace(session_id if isinstance(session_id, str) else None, name,
                            args, output,
                            (time.perf_counter() - started) * 1000)


async def _run_handler(spec: ToolSpec, ctx: ToolContext, args: BaseModel) -> ToolResult:
    if inspect.iscoroutinefunction(spec.handler):
        return await spec.handler(ctx, args)
    if spec.name in _WRITERS:
        return await asyncio.to_thread(_locked, spec.handler, ctx, args)
    return await asyncio.to_thread(spec.handler, ctx, args)  # type: ignore[return-value]


def _locked(handler: Handler, ctx: ToolContext, args: BaseModel) -> ToolResult:
    with STORE_WRITES:
        return handler(ctx, args)  # type: ignore[return-value]


def _validate(spec: ToolSpec, raw_args: dict[str, Any], ctx: ToolContext) -> BaseModel:
    if not isinstance(raw_args, dict):
        raise InvalidArgs(f"{spec.name}: arguments must be a JSON object")
    if _lone_surrogate(raw_args):  # no encoder takes it: it would fail deep in a write
        raise InvalidArgs(f"{spec.name}: invalid arguments: a text holds a lone UTF-16 "
                          "surrogate, which is not valid Unicode (on a command line: a byte "
                          "that is not UTF-8, such as $'\\xff')")
    fields = spec.args_model.model_fields
    if "session_id" in fields and not raw_args.get("session_id") and ctx.session_id:
        raw_args = {**raw_args, "session_id": ctx.session_id}
    try:
        return spec.args_model.model_validate(raw_args)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
            for err in exc.errors(include_url=False)
        )
        raise InvalidArgs(f"{spec.name}: invalid arguments: {problems}") from None


def _lone_surrogate(raw_args: dict[str, Any]) -> bool:
    """A lone surrogate in any argument, except the inline `content` of load sources: the
    loader reports each such text as its own `unsupported_file`, and loads the others."""
    sources = raw_args.get("sources")
    if not isinstance(sources, list):
        return has_lone_surrogate(raw_args)
    rest = {k: v for k, v in raw_args.items() if k != "sources"}
    rest["sources"] = [{k: v for k, v in s.items() if k != "content"}
                       if isinstance(s, dict) else s for s in sources]
    return has_lone_surrogate(rest)


def _rebind(ctx: ToolContext, session_id: str) -> ToolContext:
    return ToolContext(store=ctx.store, policy=ctx.policy, session_id=session_id,
                       read_log=ctx.read_log, traces=ctx.traces, sub_query=ctx.sub_query,
                       extras=ctx.extras, profile=ctx.profile, in_run=ctx.in_run)
