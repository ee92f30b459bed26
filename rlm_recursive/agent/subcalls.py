"""Sub-queries: a span handed to a sub-model, with tools while depth allows, plain below."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .. import trajectory
from ..errors import InvalidArgs, RlmError, RunError
from ..providers.base import Message
from ..tools.spec import ToolContext
from ..tools.subquery import SubQueryArgs, SubQueryBatchArgs
from ..types import SpanRef, ToolResult
from .citations import CitationLog
from .context import RunContext
from .loop import run_agent
from .model_call import call_model, check_egress
from .recursion import RecursionState, TierPlan

__all__ = ["SubQueryCaller"]

PLAIN_SYSTEM = ("Answer the question using only the context given. Be brief and exact: quote "
                "names, numbers and identifiers as they appear. If the context does not "
                "contain the answer, say NOT FOUND.")
AGENT_SYSTEM = ("You answer one question about part of a document collection, using the "
                "tools. Read the span you were given, search or peek if you need more, and "
                "finish with rlm_final_answer.")


class _ForwardingLog(CitationLog):
    """A subtree's own citations, also counted in the whole run's log."""

    def __init__(self, parent: CitationLog) -> None:
        super().__init__()
        self._parent = parent

    def add(self, ref: SpanRef) -> None:
        super().add(ref)
        self._parent.add(ref)


class SubQueryCaller:
    """Bound to the run and the calling model's depth; serves rlm_sub_query(_batch)."""

    def __init__(self, rc: RunContext, state: RecursionState) -> None:
        self.rc = rc
        self.state = state

    def _check_egress(self, args: SubQueryArgs | SubQueryBatchArgs) -> None:
        """Refuse a disallowed provider or model before looking at anything else."""
        depth = self.state.depth + 1
        rc = self._routed(args, depth)
        check_egress(rc, rc.tier(depth))

    async def run(self, ctx: ToolContext, args: SubQueryArgs) -> ToolResult:
        self._check_egress(args)
        ref = _input_span(ctx, args.span_id, args.doc_id, args.start, args.end)
        output = await self._one(ctx, args.query, ref, args)
        return ToolResult(output=output, read_spans=[ref])

    async def run_batch(self, ctx: ToolContext, args: SubQueryBatchArgs) -> ToolResult:
        self._check_egress(args)
        inputs = [("span_id", s) for s in args.span_ids] + [("doc_id", d) for d in args.doc_ids]
        gate = asyncio.Semaphore(args.concurrency)

        async def one(kind: str, ident: str) -> dict[str, Any]:
            async with gate:
                try:
                    ref = _input_span(ctx, ident if kind == "span_id" else None,
                                      ident if kind == "doc_id" else None, None, None)
                    return {kind: ident, **await self._one(ctx, args.query, ref, args)}
                except RunError:
                    raise
                except RlmError as exc:
                    return {kind: ident, **exc.to_dict()}

        results = await asyncio.gather(*(one(k, i) for k, i in inputs))
        read = [SpanRef(**c) for r in results for c in r.get("input_spans", [])]
        return ToolResult(output={"results": results, "count": len(results)}, read_spans=read)

    def _routed(self, args: SubQueryArgs | SubQueryBatchArgs, child_depth: int) -> RunContext:
        """A tier override from the call applies to its subtree, re-based at its depth."""
        catalog = self.rc.catalog
        current = self.rc.tier(child_depth)
        if args.model_tiers:
            plan = TierPlan.from_map(catalog, args.model_tiers)
        elif args.tier_strategy:
            plan = TierPlan.from_preset(catalog, args.tier_strategy)
        elif args.provider or args.model or args.recursive_provider or args.recursive_model:
            plan = TierPlan.from_models(
                catalog, provider=args.provider or (None if args.model else current.provider),
                model=args.model or current.model, recursive_provider=args.recursive_provider,
                recursive_model=args.recursive_model)
        else:
            return self.rc
        # Naming a model is an override; naming a preset is not (its models are configured).
        overridden = bool(args.model or args.recursive_model or args.model_tiers)
        return self.rc.derive(plan=plan, plan_offset=child_depth,
                              model_overridden=self.rc.model_overridden or overridden)

    async def _one(
        self, ctx: ToolContext, query: str, ref: SpanRef,
        args: SubQueryArgs | SubQueryBatchArgs,
    ) -> dict[str, Any]:
        trace = self.state.call_trace
        call_id = f"q{len(trace) + 1}"
        child = self.state.descend(call_id, max_depth=self.state.depth + 1 + args.max_depth)
        rc = self._routed(args, child.depth)
        rc = rc.derive(budget=rc.budget.child(), citations=_ForwardingLog(rc.citations))
        rc.budget.charge_sub_call()
        rc.citations.add(ref)
        tier = rc.tier(child.depth)
        entry: dict[str, Any] = {
            "call_id": call_id, "parent": self.state.path[-1] if self.state.path else None,
            "depth": child.depth, "provider": tier.provider, "model": tier.model,
            "query": query[:200], "span": ref.model_dump()}
        trace.append(entry)
        started = time.monotonic()
        with trajectory.sub_call(call_id, child.depth, tier, query, ref.model_dump()) as record:
            doc = ctx.store.document(ctx.require_session(), ref.doc_id)
            text = ctx.store.text(doc)[ref.start : ref.end]
            if child.can_recurse():
                question = (f"{query}\n\nYour span: doc_id {ref.doc_id}, characters "
                            f"{ref.start}-{ref.end} ({len(text)} chars). Its start:\n"
                            f"{text[: tier.num_ctx]}")
                response = (await run_agent(rc, child, AGENT_SYSTEM, question)).text
            else:
                messages = [Message(role="system", content=PLAIN_SYSTEM),
                            Message(role="user", content=f"Context:\n{text}\n\nQuestion: {query}")]
                response = (await call_model(rc, tier, messages, [], cacheable=True)).text.strip()
            record.result({"response": response})
        entry["duration_ms"] = round((time.monotonic() - started) * 1000, 1)
        usage = rc.budget.summary()
        return {
            "provider": tier.provider, "model": tier.model, "response": response,
            "recursion": {"max_depth": child.max_depth, "final_depth": child.final_depth,
                          "call_trace": [c for c in trace if call_id in _lineage(c, trace)]},
            "usage": {k: usage[k] for k in ("model_calls", "input_tokens", "output_tokens",
                                            "cost_usd")},
            "citations": [c.model_dump() for c in
                          rc.citations.citations(ctx.store, ctx.require_session())],
            "input_spans": [ref.model_dump()],
        }


def _lineage(entry: dict[str, Any], trace: list[dict[str, Any]]) -> set[str]:
    """The call ids from an entry up to the root."""
    by_id = {c["call_id"]: c for c in trace}
    seen, node = set(), entry
    while node is not None and node["call_id"] not in seen:
        seen.add(node["call_id"])
        node = by_id.get(node["parent"]) if node["parent"] else None
    return seen


def _input_span(
    ctx: ToolContext, span_id: str | None, doc_id: str | None, start: int | None,
    end: int | None,
) -> SpanRef:
    session_id = ctx.require_session()
    if span_id:
        return ctx.store.span(session_id, span_id).ref
    doc = ctx.store.document(session_id, doc_id or "")
    lo, hi = start or 0, doc.length_chars if end is None else min(end, doc.length_chars)
    if lo > hi:
        raise InvalidArgs(f"start {lo} is after end {hi}")
    return SpanRef(doc_id=doc.id, start=lo, end=hi)
