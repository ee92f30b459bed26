"""Executions in answerer mode (seed 003 §16.3): start, read, steps, wait, cancel."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ...agent.query import QueryOptions
from ...agent.recursion import MAX_DEPTH_CAP
from ...agent.strategies import Strategy
from ...config import MAX_SUB_CALLS_LIMIT
from ...store.executions import ExecutionStore, is_finished
from ...types import MODEL_TIERS_HELP
from ..deps import Principal, api_state, require
from ..state import ApiState

__all__ = ["execution_view", "router"]

router = APIRouter(prefix="/v1", tags=["executions"])


class ModelsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: str | None = Field(None, description="auto, ollama, openai, claude, embedded")
    root_model: str | None = None
    sub_model: str | None = None
    model_tiers: dict[str, str] | None = Field(None, description=MODEL_TIERS_HELP)


class BudgetsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    max_turns: int = Field(20, ge=1, le=200)
    max_total_seconds: float = Field(180, gt=0, le=3600)
    max_llm_subcalls: int = Field(64, ge=0, le=MAX_SUB_CALLS_LIMIT)
    max_usd: float | None = Field(None, ge=0)
    max_depth: int = Field(1, ge=0, le=MAX_DEPTH_CAP)


class OptionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    synchronous: bool = False
    synchronous_timeout_seconds: float = Field(30, gt=0, le=600)
    return_trace: bool = False
    output_mode: Literal["ANSWER", "CONTEXTS"] = "ANSWER"
    strategy: Strategy = "auto"
    grounding: bool = Field(True, description="Check the answer against the spans it cites "
                            "(re-ask, quote, else 'not found'); false: unchecked")


class ExecutionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    question: str = Field(min_length=1, max_length=20_000)
    preset: str | None = None
    models: ModelsIn | None = None
    budgets: BudgetsIn = Field(default_factory=BudgetsIn)
    options: OptionsIn = Field(default_factory=OptionsIn)

    def query_options(self) -> QueryOptions:
        models, budgets, options = self.models or ModelsIn(), self.budgets, self.options
        strategy = options.strategy
        if options.output_mode == "CONTEXTS" and strategy == "auto":
            strategy = "repl"  # only the REPL tags contexts
        return QueryOptions(
            preset=self.preset, provider=models.provider, model=models.root_model,
            recursive_model=models.sub_model, model_tiers=models.model_tiers,
            max_depth=budgets.max_depth,
            max_iterations=budgets.max_turns, strategy=strategy,
            timeout_s=budgets.max_total_seconds, budget_usd=budgets.max_usd,
            max_sub_calls=budgets.max_llm_subcalls, output_mode=options.output_mode,
            grounding=options.grounding, client_override=True)


class WaitIn(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    timeout_seconds: float = Field(30, ge=0, le=600)


async def execution_view(state: ApiState, who: Principal, execution_id: str,
                         record: dict[str, Any] | None = None) -> dict[str, Any]:
    if record is None:
        record = await state.owned_execution(who.tenant_id, execution_id)
    options, result = record["options"] or {}, record["result"] or {}
    usage = record["usage"] or {}
    view = {
        "execution_id": record["id"], "session_id": record["session_id"],
        "mode": record["mode"].upper(), "status": record["status"],
        "output_mode": options.get("output_mode", "ANSWER"),
        "answer": None if options.get("output_mode") == "CONTEXTS" else record["answer"],
        "citations": result.get("citations", []), "error": record["error"],
        "strategy": result.get("strategy"), "model": result.get("model"),
        "budgets_consumed": {"turns": usage.get("model_calls", 0),
                             "llm_subcalls": usage.get("sub_calls", 0),
                             "total_seconds": usage.get("wall_s", 0),
                             "input_tokens": usage.get("input_tokens", 0),
                             "output_tokens": usage.get("output_tokens", 0),
                             "cost_usd": usage.get("cost_usd", 0)},
        "created_at": record["created_at"], "updated_at": record["updated_at"],
        # As MCP's rlm_query: grounded true/false (null: not checked), what failed, and the
        # passages nearest the question beside a "not found" (never inside the answer).
        "meta": {"grounded": result.get("grounded"), "grounding": result.get("grounding"),
                 "closest": result.get("closest", [])},
    }
    if view["output_mode"] == "CONTEXTS":
        view["contexts"] = result.get("contexts")
    if options.get("return_trace") and is_finished(record["status"]):
        view["trace"] = {"plan": result.get("plan"), "stopped": result.get("stopped"),
                         "steps": await _steps(state, record)}
    return view


async def _steps(state: ApiState, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The REPL steps behind an execution: its own (runtime mode) or its REPL run's."""
    source = (record["result"] or {}).get("repl_execution_id") or record["id"]
    steps = await state.db(ExecutionStore(state.runtime.store.sql).steps, source)
    return [{**s.to_dict(), "success": s.error is None,
             "final": s.final or {"is_final": False, "answer": None}} for s in steps]


@router.post("/sessions/{session_id}/executions", status_code=202)
async def start_execution(session_id: str, body: ExecutionIn, request: Request,
                          who: Annotated[Principal, Depends(require("run"))]) -> Any:
    """Asynchronous unless options.synchronous: then it waits up to the timeout."""
    state = api_state(request)
    extra = {"return_trace": body.options.return_trace}
    execution_id = await request.app.state.runner.start(
        who, session_id, body.question, body.query_options(), extra)
    request.state.audit["execution_id"] = execution_id
    if not body.options.synchronous:
        queued = request.app.state.runner.queued is not None
        return {"execution_id": execution_id, "status": "QUEUED" if queued else "RUNNING"}
    await request.app.state.runner.wait(execution_id, body.options.synchronous_timeout_seconds)
    view = await execution_view(state, who, execution_id)
    _audit_usage(request, view)
    return JSONResponse(view, status_code=200 if is_finished(view["status"]) else 202)


def _audit_usage(request: Request, view: dict[str, Any]) -> None:
    used = view["budgets_consumed"]
    request.state.audit.update(model=view.get("model"), cost=used.get("cost_usd"),
                               tokens=used.get("input_tokens", 0) + used.get("output_tokens", 0))


@router.get("/executions/{execution_id}")
async def get_execution(execution_id: str, request: Request,
                        who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    request.state.audit["execution_id"] = execution_id
    return await execution_view(api_state(request), who, execution_id)


@router.get("/executions/{execution_id}/steps")
async def get_steps(execution_id: str, request: Request,
                    who: Annotated[Principal, Depends(require("read"))]) -> dict[str, Any]:
    state = api_state(request)
    record = await state.owned_execution(who.tenant_id, execution_id)
    return {"execution_id": execution_id, "steps": await _steps(state, record)}


@router.post("/executions/{execution_id}/wait")
async def wait_execution(execution_id: str, request: Request,
                         who: Annotated[Principal, Depends(require("read"))],
                         body: WaitIn | None = None) -> dict[str, Any]:
    """Returns when the execution ends or the timeout passes, whichever is first."""
    state = api_state(request)
    await state.owned_execution(who.tenant_id, execution_id)
    await request.app.state.runner.wait(execution_id, (body or WaitIn()).timeout_seconds)
    view = await execution_view(state, who, execution_id)
    request.state.audit["execution_id"] = execution_id
    _audit_usage(request, view)
    return view


@router.post("/executions/{execution_id}/cancel")
async def cancel_execution(execution_id: str, request: Request,
                           who: Annotated[Principal, Depends(require("run"))]) -> dict[str, Any]:
    """Idempotent: a finished execution (not QUEUED or RUNNING) keeps its status."""
    state = api_state(request)
    record = await state.owned_execution(who.tenant_id, execution_id)
    await request.app.state.runner.cancel(record)
    record = await state.owned_execution(who.tenant_id, execution_id)
    request.state.audit["execution_id"] = execution_id
    return {"execution_id": execution_id, "status": record["status"],
            "completed_at": record["updated_at"] if is_finished(record["status"]) else None}
