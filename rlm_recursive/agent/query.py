"""One question over one session: resolve the tiers, pick a strategy, run, cite.

Also the entry point for sub-queries a surface calls directly (`ClientSubQueries`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import trajectory
from ..config import MAX_SUB_CALLS_LIMIT, MAX_TOOL_CALLS_LIMIT
from ..corpus.acronyms import as_written
from ..errors import EmptyAnswer, InvalidArgs, Timeout
from ..lcm import LcmConfig
from ..policy import AuditEntry, audited
from ..providers.base import Message
from ..store.executions import ExecutionStore
from ..tools.spec import ToolContext
from ..tools.subquery import SubQueryArgs, SubQueryBatchArgs
from ..types import ToolResult
from .budget import Budget, BudgetLimits
from .citations import Citation
from .context import RunContext, RunSettings
from .conversation import open_conversation
from .grounding import ground_answer
from .host import RunHost
from .model_call import check_egress
from .plan import preflight_egress, resolve_plan, run_egress
from .pool import ProviderPool
from .recursion import MAX_DEPTH_CAP, RecursionState, Tier, TierPlan
from .strategies import Strategy, pick_strategy, run_strategy
from .subcalls import SubQueryCaller

__all__ = ["ClientSubQueries", "QueryOptions", "QueryResult", "build_run", "preflight_egress",
           "resolve_plan", "run_egress", "run_query"]

class QueryOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str | None = None
    provider: str | None = Field(None, description="auto, ollama, claude, embedded")
    model: str | None = None
    recursive_provider: str | None = None
    recursive_model: str | None = None
    model_tiers: dict[str, Any] | None = None
    max_depth: int = Field(1, ge=0, le=MAX_DEPTH_CAP)
    max_iterations: int = Field(20, ge=1, le=200)
    strategy: Strategy = "auto"
    timeout_s: float | None = Field(None, gt=0)
    budget_usd: float | None = Field(None, ge=0)
    max_sub_calls: int = Field(64, ge=0, le=MAX_SUB_CALLS_LIMIT)
    max_tool_calls: int = Field(200, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    concurrency: int = Field(4, ge=1, le=64)
    """Sub-calls in flight at once (map-reduce, llm_query_batched)."""
    output_mode: Literal["ANSWER", "CONTEXTS"] = "ANSWER"
    """repl strategy: CONTEXTS returns the passages the model tagged, not an answer."""
    classify_budget_s: float = Field(300.0, gt=0, le=86_400)
    """classify strategy: seconds of judging before it returns a partial count, so marked."""
    conversation_id: int | None = Field(None, ge=1, le=2**63 - 1)
    """Continue this conversation (LCM); None starts a new one when LCM is enabled."""
    grounding: bool = True
    """Check the answer against the spans it cites (re-ask, quote, else "not found");
    False returns the strategy's answer unchecked (`grounded` is then None)."""
    client_override: bool = False
    """True when a client (an MCP caller), not the operator, chose the model: the profile's
    `allow_model_override` decides. CLI flags are the operator's own configuration."""
    operator_opt_in: bool = False
    """True when the operator typed the model, provider or preset on the CLI: under the
    default `local` profile that choice may be a cloud model (seed 001's explicit opt-in).
    Only the CLI sets it; MCP and HTTP clients never opt in for the operator."""


class QueryResult(BaseModel):
    answer: str
    session_id: str
    strategy: str
    provider: str
    model: str
    provider_reason: str
    citations: list[Citation]
    recursion: dict[str, Any]
    usage: dict[str, Any]
    plan: list[dict[str, Any]]
    stopped: str
    execution_id: str | None = None
    """repl strategy: the persisted execution (its steps: `rlm_execution_get`)."""
    contexts: list[dict[str, Any]] | None = None
    uncited: bool = False
    """True when the answer rests on nothing the run read: no citation can back it."""
    conversation_id: int | None = None
    run_id: str | None = None
    """The recorded trajectory (`rlm-recursive trace RUN_ID`); None when traces are off."""
    grounded: bool | None = None
    """True: the answer is backed by the spans it cites (or, computed, by a count plan that
    the question's words gave and that matched). False: "not found" or ungrounded. None:
    grounding was turned off."""
    grounding: dict[str, Any] | None = None
    """How it was grounded (`method`), and what the first check found missing (`failed`)."""
    closest: list[dict[str, Any]] = Field(default_factory=list)
    """With "not found": the passages nearest the question (never part of `answer`)."""
    exact: bool | None = None
    """A computed answer: True when code counted (or summed) exactly what the question
    names; False when the model judged each item (classify), so the total is an estimate.
    None: not a computed answer."""


def _hints(runtime: RunHost, session_id: str) -> dict[str, Any] | None:
    """The session's advisory `model_hints` (root, sub-call and bulk models), if any."""
    return runtime.store.session_config(session_id).model_hints if session_id else None


def build_run(
    runtime: RunHost, session_id: str, plan: TierPlan, options: QueryOptions,
    providers: ProviderPool,
) -> RunContext:
    """The shared context of one recursion tree; a preset may tighten the egress profile."""
    egress = run_egress(runtime, options)
    providers.catalog = providers.catalog or runtime.catalog  # its [providers.NAME] groups
    # A session's `max_tool_calls` caps each run on it; runs do not spend it (tools/spec.py).
    session_cap = runtime.store.session_config(session_id).max_tool_calls if session_id else None
    limits = BudgetLimits(max_sub_calls=options.max_sub_calls,
                          max_tool_calls=min(options.max_tool_calls,
                                             session_cap or options.max_tool_calls),
                          max_wall_s=options.timeout_s or BudgetLimits.max_wall_s,
                          max_usd=options.budget_usd)
    settings = RunSettings(timeout_s=min(options.timeout_s or 180.0, 180.0),
                           max_iterations=options.max_iterations,
                           concurrency=options.concurrency, output_mode=options.output_mode,
                           classify_budget_s=options.classify_budget_s)
    return RunContext(
        registry=runtime.registry, tool_ctx=runtime.context(session_id), plan=plan,
        providers=providers, catalog=runtime.catalog, budget=Budget(limits), egress=egress,
        # A client's hints are its choice of model, as much as a `model` argument is.
        audit=runtime.audit, model_overridden=options.client_override and bool(
            options.model or options.model_tiers or options.recursive_model
            or plan.source == "model_hints"),
        settings=settings, sub_queries=SubQueryCaller,
        cache_store=ExecutionStore(runtime.store.sql),
    )


async def run_query(
    runtime: RunHost, session_id: str, question: str, options: QueryOptions,
    providers: ProviderPool | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None, *, audit: AuditEntry | None = None,
) -> QueryResult:
    """Answer `question` over the session; the answer carries verifiable citations.

    Every run leaves one content-free audit record (model, cost, error code): the caller's
    `audit` entry when a surface already opened one (MCP `rlm_query`), else a `query` record.
    """
    if audit is None:
        async with audited(runtime.audit, "query") as entry:
            return await run_query(runtime, session_id, question, options, providers,
                                   progress, audit=entry)
    result = await _run(runtime, session_id, question, options, providers, progress, audit)
    audit.model_used = result.model
    audit.cost = result.usage.get("cost_usd")
    return result


async def _run(
    runtime: RunHost, session_id: str, question: str, options: QueryOptions,
    providers: ProviderPool | None, progress: Callable[[dict[str, Any]], None] | None,
    audit: AuditEntry,
) -> QueryResult:
    await asyncio.to_thread(runtime.store.session, session_id)  # NotFound first
    mode = trajectory.trajectory_mode(runtime.profile,
                                      runtime.catalog.profiles.get(runtime.profile.name))
    async with trajectory.recording(runtime.store, session_id, question, mode) as recorder:
        result = await _answer(runtime, session_id, question, options, providers, progress,
                               audit)
        if recorder is not None:
            result.run_id = recorder.run["id"]
            trajectory.describe(
                recorder, answer=result.answer, answer_chars=len(result.answer),
                citations=[c.model_dump() for c in result.citations], usage=result.usage,
                cost_usd=result.usage.get("cost_usd"), limits=options.model_dump(include={
                    "max_depth", "max_iterations", "max_sub_calls", "max_tool_calls",
                    "timeout_s", "budget_usd"}))
        return result


async def _answer(
    runtime: RunHost, session_id: str, question: str, options: QueryOptions,
    providers: ProviderPool | None, progress: Callable[[dict[str, Any]], None] | None,
    audit: AuditEntry,
) -> QueryResult:
    if (await asyncio.to_thread(runtime.store.session_stats, session_id))["documents"] == 0:
        # Nothing to read (e.g. the only input was refused): any answer would be made up.
        raise InvalidArgs(f"session {session_id} holds no documents, so there is nothing to "
                          "answer from; load files into it first")
    own_pool = providers is None
    providers = providers or ProviderPool()
    rc: RunContext | None = None
    try:
        plan, reason = await resolve_plan(runtime.catalog, runtime.profile, options,
                                          _hints(runtime, session_id))
        rc = build_run(runtime, session_id, plan, options, providers).derive(progress=progress)
        for tier in plan.tiers:  # every host of every tier, before anything is sent
            check_egress(rc, tier)
        plan = await _fit_windows(rc, plan)
        rc = rc.derive(plan=plan)
        root = plan.at(0)
        audit.model_used = root.model
        state = RecursionState(depth=0, max_depth=options.max_depth)
        lcm_config = LcmConfig.load(runtime.catalog.lcm)
        if lcm_config.enabled:
            summary_tier = (runtime.catalog.preset(options.preset).summary_tier
                            if options.preset else None)
            rc.memory = open_conversation(rc, lcm_config, options.conversation_id, question,
                                          summary_tier)
        # Asked in the documents' own abbreviations ("original gravity" over "OG 1.048"),
        # every step matches the words the records use; memory keeps the question as asked.
        read = await asyncio.to_thread(_as_written, runtime, session_id, question)
        if read != question:  # the trace shows the question as it was read (content)
            with trajectory.tool_call("read_question", {"question": question}) as step:
                step.result({"question_as_read": read})
        question = read
        try:
            async with asyncio.timeout(options.timeout_s):
                # auto may ask the model to pick: that call is part of the run's time.
                strategy = await pick_strategy(rc, options.strategy, root, question)
                trajectory.describe(trajectory.active(), strategy=strategy,
                                    provider=root.provider, model=root.model,
                                    plan=plan.describe())
                print(f"rlm-recursive: {root.provider}/{root.model} ({reason}), "
                      f"strategy {strategy}", file=sys.stderr)
                answer = await run_strategy(rc, state, strategy, question)
                if not answer.text.strip():
                    raise EmptyAnswer(f"{root.provider}/{root.model} returned an empty answer "
                                      f"(stopped: {answer.stopped}); an empty reply is not an "
                                      "answer", model=root.model)
                text, grounding = answer.text, None
                if options.grounding:  # its one re-ask is part of the run's time too
                    text, grounding = await ground_answer(rc, question, answer, strategy)
        except TimeoutError:
            raise Timeout(f"the query did not finish within {options.timeout_s} s") from None
        citations = rc.citations.citations(runtime.store, session_id)
        if rc.memory is not None:
            rc.memory.record(Message(role="assistant", content=text))
        return QueryResult(
            answer=text, session_id=session_id, strategy=strategy,
            provider=root.provider, model=root.model, provider_reason=reason,
            citations=citations,
            recursion={"max_depth": state.max_depth, "final_depth": state.final_depth,
                       "call_trace": state.call_trace},
            usage=rc.budget.summary(), plan=plan.describe(), stopped=answer.stopped,
            execution_id=answer.extra.get("execution_id"), contexts=answer.extra.get("contexts"),
            uncited=not citations,
            conversation_id=rc.memory.conversation_id if rc.memory is not None else None,
            grounded=grounding.grounded if grounding else None,
            grounding=grounding.describe() if grounding else None,
            closest=grounding.closest if grounding else [],
            exact=_exact(answer.extra.get("computed")),
        )
    finally:
        if rc is not None and rc.memory is not None:
            rc.memory.lcm.close()
        if own_pool:
            await providers.aclose()


def _as_written(runtime: RunHost, session_id: str, question: str) -> str:
    docs = runtime.store.documents(session_id)
    # The same documents are read once for every question asked of them.
    key = tuple((d.id, d.content_hash) for d in docs)
    return as_written(question, (runtime.store.text(d) for d in docs), (d.source for d in docs),
                      key=key)


def _exact(computed: Any) -> bool | None:
    """Whether a computed answer was counted exactly by code (None: not computed)."""
    return bool(computed.get("exact", True)) if isinstance(computed, dict) else None


class ClientSubQueries:
    """Sub-queries called straight from a surface (MCP client, CLI): each call is its own tree."""

    def __init__(self, runtime: RunHost, providers: ProviderPool | None = None) -> None:
        self.runtime = runtime
        self.providers = providers
        """A pool shared across calls (its cache too); None opens one per call."""

    async def _caller(
        self, ctx: ToolContext, args: SubQueryArgs | SubQueryBatchArgs,
    ) -> tuple[SubQueryCaller, Any, ProviderPool]:
        options = QueryOptions(provider=args.provider, model=args.model,
                               recursive_provider=args.recursive_provider,
                               recursive_model=args.recursive_model, preset=args.tier_strategy,
                               model_tiers=args.model_tiers, client_override=True)
        plan, _ = await resolve_plan(self.runtime.catalog, self.runtime.profile, options,
                                     _hints(self.runtime, ctx.require_session()))
        if plan.source == "model_hints" and len(plan.tiers) > 1:
            plan = plan.model_copy(update={"tiers": plan.tiers[1:]})  # from subcall_model on
        pool = self.providers or ProviderPool()
        rc = build_run(self.runtime, ctx.require_session(), plan, options, pool)
        # The client sits at depth 0; its sub-call is depth 1 and may recurse max_depth more.
        state = RecursionState(depth=0, max_depth=min(1 + args.max_depth, 5))
        plain = args.model_copy(update={"provider": None, "model": None, "tier_strategy": None,
                                        "recursive_provider": None, "recursive_model": None,
                                        "model_tiers": None})
        return SubQueryCaller(rc.derive(plan_offset=1), state), plain, pool

    async def run(self, ctx: ToolContext, args: SubQueryArgs) -> ToolResult:
        caller, plain, pool = await self._caller(ctx, args)
        try:
            return await caller.run(ctx, plain)
        finally:
            if pool is not self.providers:
                await pool.aclose()

    async def run_batch(self, ctx: ToolContext, args: SubQueryBatchArgs) -> ToolResult:
        caller, plain, pool = await self._caller(ctx, args)
        try:
            return await caller.run_batch(ctx, plain)
        finally:
            if pool is not self.providers:
                await pool.aclose()
async def _fit_windows(rc: RunContext, plan: TierPlan) -> TierPlan:
    """Uncatalogued models get the window their provider will send, so the plan shows it.

    Asking the server is traffic: the egress check runs first, as for every model call.
    """
    tiers: list[Tier] = []
    for tier in plan.tiers:
        if not tier.info.catalogued:
            window = getattr(rc.providers.get(tier), "context_window", None)
            if window is not None:
                check_egress(rc, tier)
                info = tier.info.model_copy(update={"num_ctx": await window(tier.model)})
                tier = tier.model_copy(update={"info": info})
        tiers.append(tier)
    return plan.model_copy(update={"tiers": tiers})
