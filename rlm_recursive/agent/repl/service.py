"""Runtime mode (seed 003 §16.4): the client drives the steps; the service keeps executions,
their sandboxes and their budgets. Also the three registry tools that expose it over MCP."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...config import MAX_SUB_CALLS_LIMIT
from ...errors import InvalidArgs, RlmError, RunError
from ...store.executions import ExecutionStore, is_finished
from ...tools.spec import ToolContext, ToolSpec
from ...types import ToolResult
from ..grounding import check_client_answer
from ..host import RunHost
from ..pool import ProviderPool
from ..query import QueryOptions, build_run, resolve_plan
from ..recursion import MAX_DEPTH_CAP, RecursionState
from .execution import ReplExecution, status_for

__all__ = ["ExecutionService", "execution_tools"]

_MAX_LIVE = 8
"""Sandboxes kept open; an older execution is closed and resumes from its JSON state."""


class ExecutionService:
    """Live runtime-mode executions of one runtime, by id."""

    def __init__(self, runtime: RunHost, providers: ProviderPool | None = None) -> None:
        self.runtime = runtime
        self.providers = providers or ProviderPool()
        self._live: OrderedDict[str, ReplExecution] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    async def create(self, session_id: str, options: QueryOptions,
                     question: str | None = None) -> dict[str, Any]:
        """A runtime-mode execution; `question`, when given, is what its final answer is
        checked against (the entities it names must be in what the run read)."""
        self.runtime.store.session(session_id)
        execution = await self._build(session_id, options, None, question)
        await self._keep(execution)
        return {"execution_id": execution.id, "status": "RUNNING", "session_id": session_id,
                "documents": len(execution.doc_ids)}

    async def _build(self, session_id: str, options: QueryOptions,
                     execution_id: str | None, question: str | None = None) -> ReplExecution:
        plan, _ = await resolve_plan(self.runtime.catalog, self.runtime.profile, options)
        rc = build_run(self.runtime, session_id, plan, options, self.providers)
        state = RecursionState(depth=0, max_depth=options.max_depth)
        if execution_id is None:
            return await ReplExecution.create(rc, state, mode="runtime", question=question,
                                              options=options.model_dump(exclude_none=True))
        return await ReplExecution.resume(rc, state, execution_id)

    async def _keep(self, execution: ReplExecution) -> None:
        self._live[execution.id] = execution
        self._live.move_to_end(execution.id)
        while len(self._live) > _MAX_LIVE:
            _, old = self._live.popitem(last=False)
            await old.close()

    async def _execution(self, execution_id: str) -> ReplExecution:
        live = self._live.get(execution_id)
        if live is not None:
            return live
        # Not in this process (restarted, or evicted): resume from the last step.
        record = await asyncio.to_thread(ExecutionStore(self.runtime.store.sql).get,
                                         execution_id)
        if record["mode"] != "runtime":
            raise InvalidArgs(f"execution {execution_id} is not a runtime-mode execution")
        if is_finished(record["status"]):
            raise InvalidArgs(f"execution {execution_id} has ended ({record['status']})")
        options = QueryOptions.model_validate(record["options"] or {})
        execution = await self._build(record["session_id"], options, execution_id)
        await self._keep(execution)
        return execution

    async def step(self, execution_id: str, code: str, tool_results: dict[str, str] | None,
                   resolve_tools: bool) -> dict[str, Any]:
        lock = self._locks.setdefault(execution_id, asyncio.Lock())
        async with lock:  # one step at a time per execution
            execution = await self._execution(execution_id)
            try:
                view = await execution.step(code, tool_results=tool_results,
                                            resolve_tools=resolve_tools)
            except RunError as exc:
                await execution.finish(status_for(exc), error=exc)
                await self._drop(execution_id)
                raise
            record = view.record
            final = record.final
            if final is not None and final.get("answer") is not None:
                final = {**final, **await self._grounded(execution, str(final["answer"]))}
                await execution.finish("COMPLETED", answer=str(final["answer"]), result={
                    k: final[k] for k in ("grounded", "grounding", "closest")})
                await self._drop(execution_id)
            variables = record.state["variables"]
            return {"execution_id": execution_id, "turn_index": record.turn_index,
                    "success": record.error is None, "stdout": record.stdout,
                    "state_summary": {n: record.state["types"].get(n, type(v).__name__)
                                      for n, v in variables.items()},
                    "changed": view.changed, "state": variables.get("state", {}),
                    "span_log": record.span_log, "tool_requests": record.tool_requests,
                    "final": final or {"is_final": False, "answer": None},
                    "error": record.error, "checksum": record.checksum,
                    "warnings": view.warnings}

    async def _grounded(self, execution: ReplExecution, answer: str) -> dict[str, Any]:
        """Whether the client's final answer is backed by what the run read (grounding.py):
        `grounded`, what failed, and the closest passages when it is not."""
        store = ExecutionStore(self.runtime.store.sql)
        question = (await asyncio.to_thread(store.get, execution.id))["question"]
        check = await asyncio.to_thread(check_client_answer, execution.rc, question, answer)
        return {"grounded": check.grounded, "grounding": check.describe(),
                "closest": check.closest}

    async def resolve(self, execution_id: str, requests: dict[str, list[dict[str, Any]]]
                      ) -> tuple[dict[str, Any], dict[str, str]]:
        """Seed 003 §16.4 tools/resolve: answer tool requests without running a step."""
        lock = self._locks.setdefault(execution_id, asyncio.Lock())
        async with lock:
            execution = await self._execution(execution_id)
            return await execution.host.resolve_queued(requests)

    async def _drop(self, execution_id: str) -> None:
        execution = self._live.pop(execution_id, None)
        if execution is not None:
            await execution.close()

    async def get(self, execution_id: str, include_steps: bool) -> dict[str, Any]:
        store = ExecutionStore(self.runtime.store.sql)
        record = await asyncio.to_thread(store.get, execution_id)
        if include_steps:
            steps = await asyncio.to_thread(store.steps, execution_id)
            record["steps"] = [s.to_dict() for s in steps]
        return record

    async def aclose(self) -> None:
        for execution_id in list(self._live):
            await self._drop(execution_id)
        await self.providers.aclose()


class CreateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    preset: str | None = Field(None, description="Preset whose tiers answer queued sub-calls")
    provider: str | None = Field(None, description="auto, ollama, claude, embedded")
    model: str | None = Field(None, description="Model that answers queued sub-calls")
    max_depth: int = Field(1, ge=0, le=MAX_DEPTH_CAP)
    max_sub_calls: int = Field(64, ge=0, le=MAX_SUB_CALLS_LIMIT)
    question: str | None = Field(None, max_length=10_000, description=(
        "The question the run answers: its final answer is checked against what the run "
        "read, and the entities the question names must be there"))


class StepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    execution_id: str
    code: str = Field(description="Python for the sandbox; a ```repl fence is optional")
    tool_results_json: str | None = Field(
        None, description='Answers you resolved yourself: a JSON object {"key": "text"}')
    resolve_tools: bool = Field(True, description="Let the server answer queued sub-calls")


class GetArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    execution_id: str
    include_steps: bool = True


def _strip_fence(code: str) -> str:
    text = code.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text


def _results(raw: str | None) -> dict[str, str] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidArgs(f"tool_results_json is not JSON: {exc}") from None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidArgs('tool_results_json must be an object of strings {"key": "text"}')
    return value


def execution_tools(service: ExecutionService) -> list[ToolSpec]:
    """rlm_execution_create, rlm_step_run and rlm_execution_get, bound to `service`."""

    async def create(ctx: ToolContext, args: CreateArgs) -> ToolResult:
        options = QueryOptions(preset=args.preset, provider=args.provider, model=args.model,
                               max_depth=args.max_depth, max_sub_calls=args.max_sub_calls,
                               strategy="repl", client_override=True)
        return ToolResult(output=await service.create(args.session_id, options, args.question))

    async def step(ctx: ToolContext, args: StepArgs) -> ToolResult:
        try:
            output = await service.step(args.execution_id, _strip_fence(args.code),
                                        _results(args.tool_results_json), args.resolve_tools)
        except RunError:
            raise
        except RlmError as exc:
            return ToolResult(output=exc.to_dict(), is_error=True)
        return ToolResult(output=output)

    async def get(ctx: ToolContext, args: GetArgs) -> ToolResult:
        return ToolResult(output=await service.get(args.execution_id, args.include_steps))

    return [
        ToolSpec("rlm_execution_create",
                 "Start a REPL execution over a session, driven by you: run Python steps with "
                 "rlm_step_run against `context` (the documents), `search`, `llm_query` and "
                 "`state`; finish with FINAL(answer).", CreateArgs, create),
        ToolSpec("rlm_step_run",
                 "Run one Python step of an execution in the sandbox. Returns stdout, the "
                 "variables, the spans read, queued tool requests (tool.queue_llm + "
                 "tool.YIELD; their results are in state['_tool_results'] next step) and the "
                 "final answer once FINAL is called.", StepArgs, step),
        ToolSpec("rlm_execution_get",
                 "An execution's status, answer, usage and (optionally) every step.",
                 GetArgs, get),
    ]
