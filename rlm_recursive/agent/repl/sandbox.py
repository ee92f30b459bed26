"""The sandbox: one pydantic-monty REPL session per execution, driven step by step.

Each step is fed with `feed_start` and driven by hand: a call to a host function (an undefined
name such as `llm_query`) pauses the sandbox, the host answers it, and the sandbox resumes with
the value. So `llm_query(p)` reads as a plain call in the model's code, while the provider call
happens in the host under the run's egress, budget, tier plan and cache.
"""

from __future__ import annotations

import ast
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_monty import (
    AsyncFunctionSnapshot,
    AsyncFutureSnapshot,
    AsyncMonty,
    AsyncNameLookupSnapshot,
    MontyComplete,
    MontyCrashedError,
    MontyError,
    MontyRuntimeError,
    MontySyntaxError,
    ResourceLimits,
)

from ...errors import InternalError, ModelError, RlmError, UserError
from .prelude import PRELUDE, SNAPSHOT_FN, TAKE_SPANS

__all__ = ["FeedResult", "HostCall", "Sandbox", "SandboxLimits", "StopStep", "assigned_names"]

HostCall = Callable[[str, tuple[Any, ...], dict[str, Any]], Awaitable[Any]]
"""Answers one host-function call from the sandbox: (name, args, kwargs) -> value."""

_TRACEBACK_CHARS = 1500


class StopStep(Exception):
    """Raised by a host function to end the step at once (YIELD, FINAL)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SandboxLimits:
    step_timeout_s: float = 10.0
    max_memory_bytes: int = 256 * 1024 * 1024
    max_recursion_depth: int = 200
    max_stdout_chars: int = 4000
    max_host_calls: int = 10_000


@dataclass
class FeedResult:
    """What one step did inside the sandbox."""

    stdout: str = ""
    stdout_chars: int = 0
    error: dict[str, Any] | None = None
    stopped: str | None = None
    """"yield" or "final" when a host function ended the step."""
    broken: bool = False
    """The session is gone or unsafe (crash, time limit): restart it from the JSON state."""
    host_ms: float = 0.0
    sandbox_ms: float = 0.0


@dataclass
class _Stdout:
    cap: int
    parts: list[str] = field(default_factory=list)
    kept: int = 0
    total: int = 0

    def __call__(self, stream: str, text: str) -> None:
        self.total += len(text)
        if self.kept < self.cap:
            piece = text[: self.cap - self.kept]
            self.parts.append(piece)
            self.kept += len(piece)

    def text(self) -> str:
        out = "".join(self.parts)
        if self.total > self.kept:
            out += f"\n[… stdout truncated: {self.total - self.kept:,} more characters]"
        return out


class Sandbox:
    """A monty worker session holding the corpus views and the model's variables."""

    def __init__(self, docs: list[tuple[str, str, str]], limits: SandboxLimits) -> None:
        self.docs = docs
        """(doc_id, name, text) per document, in doc_index order."""
        self.limits = limits
        self._stack: contextlib.AsyncExitStack | None = None
        self._session: Any = None

    @property
    def running(self) -> bool:
        return self._session is not None

    def _resource_limits(self) -> ResourceLimits:
        corpus_bytes = sum(len(text.encode("utf-8")) for _, _, text in self.docs)
        return ResourceLimits(max_feed_duration_secs=self.limits.step_timeout_s,
                              max_memory=self.limits.max_memory_bytes + 2 * corpus_bytes,
                              max_recursion_depth=self.limits.max_recursion_depth,
                              max_suspensions=self.limits.max_host_calls)

    async def start(self, restored: dict[str, Any]) -> None:
        """A fresh session: the prelude, the documents, then the JSON variables restored."""
        await self.close()
        stack = contextlib.AsyncExitStack()
        try:
            # The watchdog kills a worker that stops answering (a hang in the interpreter).
            pool = await stack.enter_async_context(
                AsyncMonty(request_timeout=self.limits.step_timeout_s + 30))
            self._session = await stack.enter_async_context(
                pool.checkout(limits=self._resource_limits()))
            self._stack = stack
            docs = [list(d) for d in self.docs]
            await self._session.feed_run(PRELUDE + SNAPSHOT_FN,
                                         inputs={"_docs": docs, "_restored": restored})
            names = [n for n in restored if n.isidentifier()]
            if names:
                code = "\n".join(f"{n} = _restored[{n!r}]" for n in names)
                await self._session.feed_run(code, inputs={"_restored": restored})
        except MontyError as exc:
            await stack.aclose()
            self._session = self._stack = None
            raise InternalError(f"the sandbox did not start: {exc}") from exc

    async def close(self) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            with contextlib.suppress(Exception):
                await stack.aclose()

    def worker_pid(self) -> int | None:
        return self._session.worker_pid if self._session is not None else None

    async def prepare(self, restored: dict[str, Any], values: dict[str, Any], code: str) -> None:
        """Before a step: a live session (restarted from `restored` if the worker is gone),
        then host-written `code` run with `_v` bound to `values` (the reserved state keys)."""
        if self._session is not None:
            try:
                await self._session.feed_run(code, inputs={"_v": values})
                return
            except (MontyCrashedError, RuntimeError):
                pass  # the worker died between steps: start over from the JSON state
        await self.start(restored)
        await self._session.feed_run(code, inputs={"_v": values})

    async def run(self, code: str, host: HostCall) -> FeedResult:
        """Run one model step; its errors become the step's error, never an exception."""
        out = _Stdout(self.limits.max_stdout_chars)
        result = FeedResult()
        started = time.perf_counter()
        try:
            snap = await self._session.feed_start(code, print_callback=out)
            while not isinstance(snap, MontyComplete):
                snap = await self._answer(snap, host, result)
        except MontyRuntimeError as exc:
            inner = exc.exception()
            if isinstance(inner, SystemExit) and result.stopped:
                pass  # YIELD / FINAL ended the step
            else:
                result.error = _error(type(inner).__name__, str(inner), exc.display())
                result.broken = isinstance(inner, TimeoutError)
        except MontySyntaxError as exc:
            result.error = _error("SyntaxError", str(exc), exc.display())
        except MontyCrashedError as exc:
            result.error = _error("SandboxCrashed", "the sandbox worker died during this step; "
                                  "variables are restored from the last step", str(exc))
            result.broken = True
        except MontyError as exc:
            result.error = _error(type(exc).__name__, str(exc), str(exc))
            result.broken = True
        except BaseException:
            result.broken = True  # a run error from a host function: the feed is abandoned
            await self.close()
            raise
        result.stdout, result.stdout_chars = out.text(), out.total
        result.sandbox_ms = (time.perf_counter() - started) * 1000 - result.host_ms
        if result.broken:
            await self.close()
        return result

    async def _answer(self, snap: Any, host: HostCall, result: FeedResult) -> Any:
        if isinstance(snap, AsyncNameLookupSnapshot):
            return await snap.resume()  # an undefined name: NameError in the sandbox
        if isinstance(snap, AsyncFutureSnapshot):
            failed = {"exc_type": "RuntimeError", "message": "host functions are not awaitable"}
            return await snap.resume({i: failed for i in snap.pending_call_ids})
        if not isinstance(snap, AsyncFunctionSnapshot):
            raise InternalError(f"unexpected sandbox snapshot {type(snap).__name__}")
        if snap.is_os_function:
            return await snap.resume_not_handled()  # files, env, clock: refused by monty
        started = time.perf_counter()
        try:
            value = await host(snap.function_name, tuple(snap.args), dict(snap.kwargs))
        except StopStep as stop:
            result.stopped = stop.reason
            answer: dict[str, Any] = {"exc_type": "SystemExit", "message": stop.reason}
        except (ModelError, UserError) as exc:
            answer = {"exc_type": _exc_type(exc), "message": exc.message}
        except RlmError:
            raise
        else:
            answer = {"return_value": value}
        finally:
            result.host_ms += (time.perf_counter() - started) * 1000
        return await snap.resume(answer)

    async def take_spans(self) -> list[list[Any]]:
        """The spans the step's code read, in order; the log is emptied."""
        return list(await self._internal(TAKE_SPANS) or [])

    async def describe(self, names: list[str]) -> dict[str, list[Any]]:
        """`{name: ["json"|"opaque", type, value|None]}` for the names that exist."""
        names = [n for n in names if n.isidentifier() and not n.startswith("_")]
        if not names:
            return {}
        lines = ["_described = {}"]
        for name in names:
            lines += ["try:", f"    _described[{name!r}] = _describe({name})",
                      "except NameError:", "    pass"]
        lines.append("_described")
        return dict(await self._internal("\n".join(lines)) or {})

    async def restore_context(self) -> None:
        """Small models rebind `context` (to one document, or to text they pasted): their value
        moves to `user_context` and `context` is the documents again for the next step."""
        await self._internal("user_context = context\ncontext = _context")

    async def value(self, name: str) -> list[Any] | None:
        """`["json"|"opaque", type, value|None]` of a variable, or None if it is not bound."""
        if not name.isidentifier():
            return None
        return await self._internal(f"_describe({name})")

    async def _internal(self, code: str) -> Any:
        """Host-written code after a step. If the model's code clobbered what it relies on
        (`_spans`, `_describe`, `isinstance`…), the session restarts from the JSON state."""
        if self._session is None:
            return None
        try:
            return await self._session.feed_run(code, print_callback=_Stdout(0))
        except MontyRuntimeError as exc:
            if isinstance(exc.exception(), NameError) and code.startswith("_describe("):
                return None
            await self.close()
            return None
        except MontyError:
            await self.close()
            return None


def assigned_names(code: str) -> list[str]:
    """Names the code may bind at top level (to look up after the step; never for spans)."""
    try:
        tree = compile(code, "<step>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
    return list(dict.fromkeys(names))


def _exc_type(exc: RlmError) -> str:
    """The Python exception the model's code sees for a refused host call."""
    if exc.code == "unknown_tool":
        return "NameError"
    return "ValueError" if exc.code in ("invalid_args", "context_overflow") else "RuntimeError"


def _error(kind: str, message: str, traceback: str) -> dict[str, Any]:
    if len(traceback) > _TRACEBACK_CHARS:
        traceback = "…" + traceback[-_TRACEBACK_CHARS:]
    return {"type": kind, "message": message[:500], "traceback": traceback}

