"""Runtime mode (seed 003 §16.4): the client drives the REPL steps of an execution."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from ...agent.query import QueryOptions
from ...agent.recursion import MAX_DEPTH_CAP
from ...agent.repl.prompt import extract_code
from ...config import MAX_SUB_CALLS_LIMIT, MAX_TOKENS_LIMIT
from ...errors import InvalidArgs, SessionNotReady
from ...store.executions import ExecutionStore, is_finished
from ..deps import Principal, api_state, require
from ..state import ApiState

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["runtime"])


class RuntimeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    preset: str | None = Field(None, description="Preset whose tiers answer queued sub-calls")
    provider: str | None = None
    model: str | None = Field(None, description="Model that answers queued sub-calls")
    max_depth: int = Field(1, ge=0, le=MAX_DEPTH_CAP)
    max_sub_calls: int = Field(64, ge=0, le=MAX_SUB_CALLS_LIMIT)
    question: str | None = Field(None, max_length=10_000, description=(
        "The question the run answers: its final answer is checked against what the run "
        "read (meta.grounded), and the entities the question names must be there"))


class StepOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    resolve_tools: bool = True


class StepIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    code: str = Field(min_length=1, max_length=200_000,
                      description="Python for the sandbox; a ```repl fence is optional")
    state: dict[str, Any] | None = Field(None, description="Ignored: the server keeps state")
    tool_results: dict[str, str] | None = Field(
        None, description="Answers to queued sub-calls the client resolved itself")
    options: StepOptions = Field(default_factory=StepOptions)


class LlmRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    key: str = Field(min_length=1, max_length=200)
    prompt: str = Field(min_length=1, max_length=500_000)
    model_hint: str = "sub"
    max_tokens: int | None = Field(None, ge=1, le=MAX_TOKENS_LIMIT)
    temperature: float = Field(0, ge=0, le=2)


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    key: str = Field(min_length=1, max_length=200)
    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(10, ge=1, le=100)


class ToolRequests(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    llm: list[LlmRequest] = Field(default_factory=list, max_length=100)
    search: list[SearchRequest] = Field(default_factory=list, max_length=100)


class ResolveIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    tool_requests: ToolRequests


async def _runtime_execution(request: Request, who: Principal, execution_id: str) -> None:
    """The caller's own runtime-mode execution, still RUNNING (NotFound/InvalidArgs else)."""
    state = api_state(request)
    record = await state.owned_execution(who.tenant_id, execution_id)
    if record["mode"] != "runtime":
        raise InvalidArgs(f"execution {execution_id} is not a runtime-mode execution")
    if is_finished(record["status"]):
        raise InvalidArgs(f"execution {execution_id} has ended ({record['status']})")
    request.state.audit["execution_id"] = execution_id


async def _release_if_ended(state: ApiState, execution_id: str) -> None:
    """A step that gave the final answer or ended the run frees the tenant's slot."""
    record = await state.db(ExecutionStore(state.runtime.store.sql).status, execution_id)
    if record != "RUNNING":
        await state.release_runtime(execution_id)


@router.post("/sessions/{session_id}/executions/runtime", status_code=201)
async def create_runtime(session_id: str, request: Request,
                         who: Annotated[Principal, Depends(require("run"))],
                         body: RuntimeIn | None = None) -> dict[str, Any]:
    state = api_state(request)
    body = body or RuntimeIn()
    session = await state.db(state.tenants.owned_session, who.tenant_id, session_id)
    if session["readiness"] != "READY":
        raise SessionNotReady(f"session {session_id} is {session['readiness']}, not READY",
                              retry_after_s=1, session_id=session_id)
    options = QueryOptions(preset=body.preset, provider=body.provider, model=body.model,
                           max_depth=body.max_depth, max_sub_calls=body.max_sub_calls,
                           strategy="repl", client_override=True)
    # A runtime-mode execution holds one of the tenant's slots until it ends, like an
    # answerer run (`api --concurrent-executions`).
    await state.acquire_execution(who.tenant_id)
    try:
        created = await state.executions.create(session_id, options, body.question)
    except BaseException:
        await state.release_execution(who.tenant_id)
        raise
    state.runtime_slots[created["execution_id"]] = (who.tenant_id, session_id)
    request.state.audit["execution_id"] = created["execution_id"]
    return {"execution_id": created["execution_id"], "status": created["status"]}


@router.post("/executions/{execution_id}/steps")
async def run_step(execution_id: str, body: StepIn, request: Request,
                   who: Annotated[Principal, Depends(require("run"))]) -> dict[str, Any]:
    await _runtime_execution(request, who, execution_id)
    state = api_state(request)
    code = extract_code(body.code)[0] or body.code
    try:
        out = await state.executions.step(execution_id, code, body.tool_results,
                                          body.options.resolve_tools)
    finally:
        await _release_if_ended(state, execution_id)
    return {key: out[key] for key in ("execution_id", "turn_index", "success", "stdout",
                                      "state", "span_log", "tool_requests", "final", "error",
                                      "checksum", "warnings")}


@router.post("/executions/{execution_id}/tools/resolve")
async def resolve_tools(execution_id: str, body: ResolveIn, request: Request,
                        who: Annotated[Principal, Depends(require("run"))]) -> dict[str, Any]:
    """Answer sub-calls and searches for the client, with the execution's models and budget."""
    await _runtime_execution(request, who, execution_id)
    requests = body.tool_requests.model_dump()
    results, statuses = await api_state(request).executions.resolve(execution_id, requests)
    return {"tool_results": results, "statuses": statuses}
