"""The host side of the sandbox: `llm_query`, `llm_query_batched`, `search`, FINAL and the
seed's queue protocol, answered under the run's egress, budget, tier plan and cache."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidArgs, RlmError, RunError, UnknownTool
from ...providers.base import Message
from ...tools.search import search_session
from ..context import RunContext
from ..loop import run_agent
from ..model_call import call_model
from ..recursion import RecursionState
from .sandbox import StopStep

__all__ = ["HOST_FUNCTIONS", "ReplHost", "ResolvedCall"]

SUB_SYSTEM = ("Answer using only the text given. Be brief and exact: quote names, numbers and "
              "identifiers as they appear. If the text does not contain the answer, say "
              "NOT FOUND.")
SUB_AGENT_SYSTEM = ("You answer one question from a larger task over a document collection, "
                    "using the tools. Finish with rlm_final_answer.")
HOST_FUNCTIONS = ("llm_query", "llm_query_batched", "search", "FINAL", "FINAL_VAR",
                  "_queue_llm", "_queue_search", "_yield", "_tool_schema")
_METHODS = ("bm25", "literal", "regex")
_SNIPPET_CHARS = 300
TOOL_SCHEMA = {
    "queue_llm": {"args": ["key", "prompt"], "optional": {"model_hint": "sub", "max_tokens": None,
                                                         "temperature": 0, "metadata": None}},
    "queue_search": {"args": ["key", "query"], "optional": {"k": 10, "filters": None}},
    "YIELD": {"args": [], "optional": {"reason": None}},
    "FINAL": {"args": ["answer"]},
}


@dataclass
class ResolvedCall:
    """One sub-call, for the step record and the live display."""

    prompt_chars: int
    answer_chars: int
    depth: int
    model: str
    ms: float


@dataclass
class ReplHost:
    """Bound to one execution; collects what the current step asked for."""

    rc: RunContext
    state: RecursionState
    doc_ids: list[str]
    spans: list[list[Any]] = field(default_factory=list)
    """Spans shown by host functions (search hits) during the current step."""
    queued: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"llm": [], "search": []})
    final: dict[str, Any] | None = None
    calls: list[ResolvedCall] = field(default_factory=list)

    def reset(self) -> None:
        self.spans, self.final, self.calls = [], None, []
        self.queued = {"llm": [], "search": []}

    async def __call__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        handler = {"llm_query": self.llm_query, "llm_query_batched": self.llm_query_batched,
                   "search": self.search, "FINAL": self._final, "FINAL_VAR": self._final_var,
                   "_queue_llm": self._queue_llm, "_queue_search": self._queue_search,
                   "_yield": self._yield, "_tool_schema": self._schema}.get(name)
        if handler is None:
            raise UnknownTool(f"name {name!r} is not defined")
        try:
            return await handler(*args, **kwargs)
        except TypeError as exc:  # wrong arguments from the model's code
            raise InvalidArgs(f"{name}: {exc}") from None

    # sub-calls
    async def llm_query(self, prompt: Any, model_hint: str = "sub", max_tokens: Any = None,
                        temperature: Any = 0, metadata: Any = None) -> str:
        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidArgs("llm_query needs a non-empty prompt string")
        return await self._sub_call(prompt)

    async def llm_query_batched(self, prompts: Any, model_hint: str = "sub") -> list[str]:
        if not isinstance(prompts, list | tuple) or not all(isinstance(p, str) for p in prompts):
            raise InvalidArgs("llm_query_batched needs a list of prompt strings")
        gate = asyncio.Semaphore(self.rc.settings.concurrency)

        async def one(prompt: str) -> str:
            async with gate:
                try:
                    return await self._sub_call(prompt)
                except RunError:
                    raise
                except RlmError as exc:  # one bad prompt (too long) does not sink the batch
                    return f"ERROR: {exc.message}"

        return list(await _gather(one(p) for p in prompts))

    async def _sub_call(self, prompt: str) -> str:
        trace = self.state.call_trace
        call_id = f"q{len(trace) + 1}"
        child = self.state.descend(call_id)
        tier = self.rc.tier(child.depth)
        self.rc.budget.charge_sub_call()
        entry: dict[str, Any] = {
            "call_id": call_id, "parent": self.state.path[-1] if self.state.path else None,
            "depth": child.depth, "provider": tier.provider, "model": tier.model,
            "query": prompt[:200], "source": "repl"}
        trace.append(entry)
        started = time.monotonic()
        if child.can_recurse():
            text = (await run_agent(self.rc, child, SUB_AGENT_SYSTEM, prompt)).text
        else:
            messages = [Message(role="system", content=SUB_SYSTEM),
                        Message(role="user", content=prompt)]
            text = (await call_model(self.rc, tier, messages, [], cacheable=True)).text.strip()
        ms = (time.monotonic() - started) * 1000
        entry["duration_ms"] = round(ms, 1)
        self.calls.append(ResolvedCall(len(prompt), len(text), child.depth, tier.model, ms))
        return text

    # search
    async def search(self, query: Any, k: Any = 10, method: Any = "bm25") -> list[dict[str, Any]]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgs("search needs a non-empty query string")
        if method not in _METHODS or not isinstance(k, int) or not 1 <= k <= 200:
            raise InvalidArgs(f"search: method is one of {_METHODS}, k between 1 and 200")
        store, session_id = self.rc.store, self.rc.session_id
        hits, _, _, docs = await asyncio.to_thread(search_session, store, session_id, query,
                                                   method, None, k)
        index = {doc_id: i for i, doc_id in enumerate(self.doc_ids)}
        out = []
        for hit in hits:
            text = store.text(docs[hit.doc_id])
            start = hit.highlight_start
            end = min(max(hit.highlight_end, start + 1), start + _SNIPPET_CHARS, len(text))
            self.spans.append([index[hit.doc_id], start, end, "search"])
            out.append({"doc_index": index[hit.doc_id], "doc_id": hit.doc_id, "start": start,
                        "end": end, "snippet": text[start:end], "score": round(hit.score, 4)})
        return out

    # ending the step
    async def _final(self, answer: Any = None) -> None:
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            raise InvalidArgs("FINAL needs a non-empty answer")
        self.final = {"is_final": True, "answer": answer if isinstance(answer, str) else
                      str(answer)}
        raise StopStep("final")

    async def _final_var(self, name: Any = None) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise InvalidArgs("FINAL_VAR needs the name of a variable, as a string")
        self.final = {"is_final": True, "answer": None, "variable": name}
        raise StopStep("final")

    async def _yield(self, reason: Any = None) -> None:
        raise StopStep("yield")

    # the seed's queue protocol
    async def _queue_llm(self, key: Any, prompt: Any, model_hint: Any = "sub",
                         max_tokens: Any = None, temperature: Any = 0,
                         metadata: Any = None) -> None:
        if not isinstance(key, str) or not key or not isinstance(prompt, str):
            raise InvalidArgs("tool.queue_llm(key, prompt): key and prompt must be strings")
        self.queued["llm"].append({"type": "llm", "key": key, "prompt": prompt,
                                   "model_hint": model_hint, "max_tokens": max_tokens,
                                   "temperature": temperature, "metadata": metadata})

    async def _queue_search(self, key: Any, query: Any, k: Any = 10, filters: Any = None) -> None:
        if not isinstance(key, str) or not key or not isinstance(query, str):
            raise InvalidArgs("tool.queue_search(key, query): key and query must be strings")
        self.queued["search"].append({"type": "search", "key": key, "query": query, "k": k})

    async def _schema(self) -> dict[str, Any]:
        return TOOL_SCHEMA

    async def resolve_queued(
        self, requests: dict[str, list[dict[str, Any]]], given: dict[str, str] | None = None,
        *, resolve: bool = True,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """Results for queued requests: given by the client, or resolved here (seed §11.3)."""
        given = given or {}
        results: dict[str, Any] = {"llm": {}, "search": {}}
        status: dict[str, str] = {}

        async def llm(req: dict[str, Any]) -> None:
            key = req["key"]
            if key in given:
                results["llm"][key] = {"text": given[key], "meta": {"source": "client"}}
                status[key] = "resolved"
                return
            if not resolve:
                status[key] = "pending"
                return
            try:
                text = await self._sub_call(req["prompt"])
            except RunError:
                raise
            except RlmError as exc:
                results["llm"][key] = {"text": "", "meta": {"error": exc.message[:300]}}
                status[key] = "error"
                return
            results["llm"][key] = {"text": text, "meta": {"model": self.calls[-1].model}}
            status[key] = "resolved"

        async def search(req: dict[str, Any]) -> None:
            try:
                hits = await self.search(req["query"], req.get("k") or 10)
            except RlmError as exc:
                results["search"][req["key"]] = {"hits": [], "meta": {"error": exc.message}}
                status[req["key"]] = "error"
                return
            results["search"][req["key"]] = {"hits": hits, "meta": {}}
            status[req["key"]] = "resolved"

        gate = asyncio.Semaphore(self.rc.settings.concurrency)

        async def bounded(job: Any, req: dict[str, Any]) -> None:
            # The coroutine is made inside the gate: one made before it and cancelled while
            # waiting there would never be awaited.
            async with gate:
                await job(req)

        await _gather([*(bounded(llm, r) for r in requests.get("llm", [])),
                       *(bounded(search, r) for r in requests.get("search", []))])
        return results, status


async def _gather(coros: Any) -> list[Any]:
    """All results in order; the first failure cancels the rest (no orphaned model calls)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
