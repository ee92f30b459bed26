"""One REPL execution: a sandbox, its host, and every step persisted (resumable)."""

from __future__ import annotations

import asyncio
import json
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ...errors import BudgetExceeded, RlmError, Timeout
from ...store import new_id
from ...store.executions import ExecutionStore, StepRecord
from ...types import SpanRef, text_checksum
from ..context import RunContext
from ..recursion import RecursionState
from .host import ReplHost
from .sandbox import Sandbox, SandboxLimits, assigned_names

__all__ = ["ROOT_EXECUTION_ID", "ReplExecution", "StepView", "status_for"]

ROOT_EXECUTION_ID: ContextVar[str | None] = ContextVar("rlm_root_repl_execution_id",
                                                       default=None)
"""Set by a queue worker: the id the run's root REPL execution takes, derived from the queued
execution's, so that a job retried after its worker died finds the steps the lost attempt
saved and resumes from the last one (strategies/repl.py)."""

_RESERVED = ("_tool_results", "_tool_status", "_budgets")
_MISSING = object()
_MAX_VARIABLE_CHARS = 500_000
"""A larger JSON variable is kept by the live sandbox only, not in the persisted state."""
_WRITE_RESERVED = "\n".join(f"state[{k!r}] = _v[{k!r}]" for k in _RESERVED)


def status_for(exc: BaseException) -> str:
    """The execution status a run error ends in."""
    if isinstance(exc, BudgetExceeded):
        return "MAX_TURNS_EXCEEDED" if exc.details.get("limit") == "max_turns" else \
            "BUDGET_EXCEEDED"
    if isinstance(exc, Timeout | TimeoutError | asyncio.CancelledError):
        return "TIMEOUT"
    return "FAILED"


@dataclass
class StepView:
    """A step as the model and the surfaces see it."""

    record: StepRecord
    changed: dict[str, str]
    """Variables the step bound or changed: name → type."""
    stdout_chars: int
    sub_calls: int
    warnings: list[str] = field(default_factory=list)
    """Values the step made that the execution cannot keep (not JSON), in words."""

    def feedback(self) -> str:
        """The next user message for the root model."""
        rec = self.record
        parts = [f"[step {rec.turn_index}] stdout:\n{rec.stdout or '(nothing printed)'}"]
        if self.changed:
            parts.append("variables: " + ", ".join(f"{n}: {t}" for n, t in self.changed.items()))
        if self.sub_calls:
            parts.append(f"sub-calls: {self.sub_calls}")
        parts.extend(f"warning: {w}" for w in self.warnings)
        if rec.error:
            parts.append(f"error: {rec.error['type']}: {rec.error['message']}\n"
                         f"{rec.error['traceback']}")
        pending = rec.tool_requests.get("llm", []) + rec.tool_requests.get("search", [])
        if pending:
            parts.append("queued: " + ", ".join(r["key"] for r in pending) +
                         ' (results will be in state["_tool_results"] at your next step)')
        return "\n".join(parts)


class ReplExecution:
    """Create or resume with the classmethods; `step(code)` runs and persists one step."""

    def __init__(
        self, rc: RunContext, state: RecursionState, execution_id: str, store: ExecutionStore,
        docs: list[tuple[str, str, str]],
    ) -> None:
        self.rc, self.state, self.id, self.store = rc, state, execution_id, store
        self.doc_ids = [doc_id for doc_id, _, _ in docs]
        self._docs = docs
        settings = rc.settings
        self.sandbox = Sandbox(self._docs, SandboxLimits(
            step_timeout_s=settings.step_timeout_s, max_memory_bytes=settings.max_memory_bytes,
            max_recursion_depth=settings.max_recursion_depth,
            max_stdout_chars=settings.max_stdout_chars))
        self.host = ReplHost(rc, state, self.doc_ids)
        self.turn = 0
        self.variables: dict[str, Any] = {"state": {}}
        """The JSON variables as of the last step: what a restarted sandbox gets back."""
        self.types: dict[str, str] = {}
        self.pending: dict[str, list[dict[str, Any]]] = {"llm": [], "search": []}

    @classmethod
    async def create(
        cls, rc: RunContext, state: RecursionState, *, mode: str, question: str | None,
        options: dict[str, Any] | None = None, execution_id: str | None = None,
    ) -> ReplExecution:
        store = ExecutionStore(rc.store.sql)
        execution_id = execution_id or new_id("exe")
        await asyncio.to_thread(store.create, execution_id, rc.session_id, mode, question,
                                options or {})
        return cls(rc, state, execution_id, store, await asyncio.to_thread(_documents, rc))

    @classmethod
    async def resume(cls, rc: RunContext, state: RecursionState, execution_id: str
                     ) -> ReplExecution:
        """Pick a run up at its last step: the JSON variables come back, the turn goes on."""
        store = ExecutionStore(rc.store.sql)
        await asyncio.to_thread(store.reopen, execution_id)
        execution = cls(rc, state, execution_id, store,
                        await asyncio.to_thread(_documents, rc))
        steps = await asyncio.to_thread(store.steps, execution_id)
        for step in steps:  # what the run read before it stopped is still cited
            execution._cite(step.span_log)
        if steps:
            last = steps[-1]
            execution.turn = last.turn_index
            execution.variables = dict(last.state.get("variables", {"state": {}}))
            execution.pending = last.tool_requests
        return execution

    def _cite(self, span_log: list[dict[str, Any]]) -> None:
        for entry in span_log:
            self.rc.citations.add(SpanRef(doc_id=self.doc_ids[entry["doc_index"]],
                                          start=entry["start_char"], end=entry["end_char"]))

    def _valid_spans(self, spans: list[Any]) -> list[dict[str, Any]]:
        """The span log as records; entries the model's code forged out of range are dropped."""
        out = []
        for span in spans:
            if not (isinstance(span, list | tuple) and len(span) == 4):
                continue
            i, a, b, tag = span
            if not all(type(v) is int for v in (i, a, b)) or not 0 <= i < len(self._docs):
                continue
            if 0 <= a < b <= len(self._docs[i][2]) and (tag is None or isinstance(tag, str)):
                out.append({"doc_index": i, "start_char": a, "end_char": b, "tag": tag})
        return out

    async def close(self) -> None:
        await self.sandbox.close()

    async def step(
        self, code: str, *, tool_results: dict[str, str] | None = None,
        resolve_tools: bool = True,
    ) -> StepView:
        """Run one step of model code; its own errors are part of the result."""
        started = time.perf_counter()
        self.rc.budget.check_time()
        self.host.reset()
        results, status = await self.host.resolve_queued(self.pending, tool_results,
                                                         resolve=resolve_tools)
        await self.sandbox.prepare(self.variables, {
            "_tool_results": results, "_tool_status": status, "_budgets": _remaining(self.rc)},
            _WRITE_RESERVED)
        fed = await self.sandbox.run(code, self.host)
        spans = list(self.host.spans)
        changed: dict[str, str] = {}
        warnings: list[str] = []
        if self.sandbox.running:
            spans = await self.sandbox.take_spans() + spans
            rebound = "context" in assigned_names(code)
            if rebound:
                await self.sandbox.restore_context()
            changed = await self._collect(code, warnings, ["user_context"] if rebound else [])
            if rebound:
                changed["context"] = "the documents again (your value is now user_context)"
        final, error = self.host.final, fed.error
        if final is not None and final.get("variable"):
            described = await self.sandbox.value(final["variable"]) \
                if self.sandbox.running else None
            if described is None:
                error = {"type": "NameError", "message": f"FINAL_VAR: no variable "
                         f"{final['variable']!r}", "traceback": ""}
                final = None
            else:
                kind, type_name, value = described
                final["answer"] = value if isinstance(value, str) else json.dumps(value) \
                    if kind == "json" else f"<{type_name}>"
        span_log = self._valid_spans(spans)
        self._cite(span_log)
        self.turn += 1
        self.pending = self.host.queued
        record = StepRecord(
            turn_index=self.turn, code=code, stdout=fed.stdout,
            state={"variables": self.variables, "types": self.types},
            span_log=span_log, tool_requests=self.host.queued, final=final, error=error,
            timings={"sandbox_ms": round(fed.sandbox_ms, 2), "host_ms": round(fed.host_ms, 2),
                     "total_ms": round((time.perf_counter() - started) * 1000, 2)})
        await asyncio.to_thread(self.store.add_step, self.id, record)
        return StepView(record, changed, fed.stdout_chars, len(self.host.calls), warnings)

    async def _collect(self, code: str, warnings: list[str],
                       also: list[str] | None = None) -> dict[str, str]:
        """Refresh the JSON variables from the sandbox; return what changed (name → type).

        A value that is not JSON is never dropped in silence: `warnings` says so, and
        `state` keeps its last JSON value instead of vanishing. `also`: names bound by the
        host rather than the code (`user_context`)."""
        described = await self.sandbox.describe([*assigned_names(code), *(also or []),
                                                 "state"])
        changed = {}
        for name, (kind, type_name, value) in described.items():
            if kind == "json" and name != "state" and \
                    len(json.dumps(value, ensure_ascii=False)) > _MAX_VARIABLE_CHARS:
                kind, type_name = "opaque", f"{type_name} (too large to persist)"
            if kind == "json":
                old = self.variables.get(name, _MISSING)
                if _without_reserved(old) != _without_reserved(value):
                    changed[name] = type_name
                self.variables[name] = value
            elif name == "state":
                warnings.append(f"state holds a value that is not JSON ({type_name}): it was "
                                "not saved, and the last JSON state is kept; store lists, "
                                "dicts, strings and numbers only (e.g. list(a_set))")
                continue
            else:
                changed[name] = type_name
                self.variables.pop(name, None)  # opaque values do not survive a restart
                warnings.append(f"{name} is a {type_name}, not JSON: it lives only in this "
                                "sandbox and is lost if the execution resumes elsewhere; "
                                "convert it (e.g. list(...)) to keep it")
            self.types[name] = type_name
        return changed

    async def finish(self, status: str, *, answer: str | None = None,
                     error: RlmError | None = None,
                     result: dict[str, Any] | None = None) -> None:
        await asyncio.to_thread(self.store.finish, self.id, status, answer=answer,
                                error=error.to_dict() if error else None,
                                usage=self.rc.budget.summary(), result=result)

    def contexts(self) -> list[dict[str, Any]]:
        """output_mode CONTEXTS: the spans tagged `context` or `context:*`, with their text."""
        out, seen = [], set()
        for step in self.store.steps(self.id):
            for span_index, span in enumerate(step.span_log):
                tag = span.get("tag") or ""
                key = (span["doc_index"], span["start_char"], span["end_char"], tag)
                if (tag == "context" or tag.startswith("context:")) and key not in seen:
                    seen.add(key)
                    _, source_name, doc_text = self._docs[span["doc_index"]]
                    text = doc_text[span["start_char"]:span["end_char"]]
                    # Where it came from: the step that read it, its place in that step's
                    # span log, and the document's name (seed 003 §16.3.1).
                    out.append({**span, "doc_id": self.doc_ids[span["doc_index"]],
                                "session_id": self.rc.session_id, "text": text,
                                "checksum": text_checksum(text),
                                "turn_index": step.turn_index, "span_index": span_index,
                                "source_name": source_name})
        return out


def _documents(rc: RunContext) -> list[tuple[str, str, str]]:
    """(doc_id, name, text) per document, in doc_index order."""
    return [(d.id, d.source, rc.store.text(d)) for d in rc.store.documents(rc.session_id)]


def _without_reserved(state: Any) -> Any:
    if not isinstance(state, dict):
        return state
    return {k: v for k, v in state.items() if k not in _RESERVED}


def _remaining(rc: RunContext) -> dict[str, Any]:
    spent, limits = rc.budget.spent, rc.budget.limits
    return {"sub_calls_left": limits.max_sub_calls - spent.sub_calls,
            "prompt_chars_left": limits.max_prompt_chars - spent.prompt_chars,
            "seconds_left": round(limits.max_wall_s - (time.monotonic() - rc.budget.started), 1)}
