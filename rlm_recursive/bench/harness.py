"""The harness every bench shares: tasks in, the runner and the direct baseline, numbers out.

A bench supplies seeded `BenchTask`s (documents, a question, a scorer). For each task the
harness runs (a) direct: the model given as much of the context as fits its window, cut by
its own tokenizer, as a user without a runner would, and (b) the runner over a fresh session,
once per strategy asked for. It reports accuracy (mean score), exact rate, mean wall time,
model calls and prompt tokens per (group, method).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..agent.model_call import CHARS_PER_TOKEN
from ..agent.pool import ProviderPool
from ..agent.query import QueryOptions, QueryResult, resolve_plan, run_egress, run_query
from ..agent.recursion import Tier
from ..agent.runtime import Runtime
from ..config import SessionConfig
from ..errors import EgressDenied, RlmError
from ..policy import EgressPolicy
from ..providers.base import ChatOptions, ChatRequest, Message, Provider
from ..store import Store

__all__ = ["BenchTask", "Outcome", "Progress", "run_bench", "summarise"]

DIRECT = "direct"
Progress = Callable[[int, int, "list[Outcome]"], None]
"""Called after each task with (tasks done, tasks total, that task's outcomes)."""


@dataclass(frozen=True)
class BenchTask:
    """One generated task: what the model is given and how its answer is scored."""

    group: str
    """The row it is reported in (e.g. "count 200,000")."""
    length: int
    question: str
    documents: tuple[tuple[str, str], ...]
    """(source name, text) pairs loaded into the session."""
    score: Callable[[str], float] = field(compare=False, repr=False)
    """1.0 for a right answer; numeric tasks give partial credit."""
    gold: str = ""
    assess: Callable[[QueryResult, Store], dict[str, Any]] | None = field(
        default=None, compare=False, repr=False)
    """Extra numbers from the runner's result (e.g. per-item judgement accuracy)."""


@dataclass
class Outcome:
    group: str
    method: str
    score: float
    wall_s: float
    model_calls: int
    prompt_tokens: int
    error: str | None = None
    answer: str = ""
    gold: str = ""
    strategy: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    error_detail: str = ""
    """The error's own message (its cause): a bare code says nothing of why a run failed."""


def _joined(task: BenchTask) -> str:
    return "\n\n".join(text for _, text in task.documents)


async def _direct(tier: Tier, provider: Provider, task: BenchTask, egress: EgressPolicy,
                  endpoints: tuple[str, list[str]]) -> Outcome:
    """The context in one prompt, cut to the window: what a user without a runner does."""
    # Straight to the provider, but never around the egress policy: a denial ends the bench.
    egress.check_all(endpoints[0], endpoints[1], model=tier.model)
    question = f"\n\nQuestion: {task.question}\nAnswer:"
    count = getattr(provider, "count_tokens", None)
    budget = tier.num_ctx - 1100  # the reply and the chat template need the rest
    text = _joined(task)
    if count is None:
        text = text[: int(budget * CHARS_PER_TOKEN) - len(question)]
    else:  # fill the window as far as the model's own tokenizer allows, as a user would
        while (used := count(text + question)) > budget:
            text = text[: int(len(text) * budget / used * 0.98)]
    messages = [Message(role="system", content="Answer the question from the text. Quote the "
                        "exact value."), Message(role="user", content=text + question)]
    started = time.monotonic()
    # Straight to the provider: the runner's conservative window estimate would refuse a
    # prompt the model's own tokenizer says fits, and this is the model used directly.
    request = ChatRequest(model=tier.model, messages=messages,
                          options=ChatOptions(num_ctx=tier.num_ctx, max_tokens=64))
    try:
        result = await provider.chat(request)
        answer, tokens, error, detail = result.text, result.usage.input_tokens, None, ""
    except RlmError as exc:
        answer, tokens, error, detail = "", 0, exc.code, str(exc)[:300]
    return Outcome(task.group, DIRECT, task.score(answer), time.monotonic() - started, 1,
                   tokens, error, answer[:200], task.gold, extra={"seen_chars": len(text)},
                   error_detail=detail)


async def _runner(runtime: Runtime, task: BenchTask, options: QueryOptions,
                  pool: ProviderPool) -> Outcome:
    sid = runtime.store.create_session("bench", SessionConfig())["session_id"]
    started = time.monotonic()
    for source, text in task.documents:
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source=source, source_type="inline")
    strategy, extra, detail = options.strategy, {}, ""
    try:
        result = await run_query(runtime, sid, task.question, options, providers=pool)
        answer, calls = result.answer, result.usage["model_calls"]
        tokens, error, strategy = result.usage["input_tokens"], None, result.strategy
        extra = {"citations": len(result.citations)}
        if getattr(result, "grounded", True) is False:
            # The user is told the answer is not grounded (non-zero exit): it is scored
            # as the "not found" it is reported as, never as a found value.
            answer = f"Not found (ungrounded): {answer}"
            extra["ungrounded"] = 1
        if task.assess is not None:
            extra.update(task.assess(result, runtime.store))
    except EgressDenied:
        raise  # the configuration forbids the run: not a task outcome
    except RlmError as exc:
        answer, calls, tokens, error = "", 0, 0, exc.code
        detail = str(exc)[:300]
    finally:
        runtime.store.close_session(sid)
    return Outcome(task.group, f"runner:{options.strategy}", task.score(answer),
                   time.monotonic() - started, calls, tokens, error, answer[:200], task.gold,
                   strategy, extra, detail)


def summarise(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """One row per (group, method): mean score, exact rate, time, calls, tokens, errors."""
    rows = []
    keys = list(dict.fromkeys((o.group, o.method) for o in outcomes))
    for key in keys:
        group = [o for o in outcomes if (o.group, o.method) == key]
        rows.append({
            "group": key[0], "method": key[1], "tasks": len(group),
            "accuracy": round(statistics.mean(o.score for o in group), 3),
            "exact": round(sum(o.score >= 1.0 for o in group) / len(group), 3),
            "mean_wall_s": round(statistics.mean(o.wall_s for o in group), 2),
            "mean_model_calls": round(statistics.mean(o.model_calls for o in group), 2),
            "mean_prompt_tokens": round(statistics.mean(o.prompt_tokens for o in group)),
            "means": _extra_means(group),
            "strategies": sorted({o.strategy for o in group if o.strategy}),
            "errors": sorted({o.error for o in group if o.error}),
        })
    return rows


def _extra_means(group: list[Outcome]) -> dict[str, float]:
    """Means of the numbers a task's `assess` added (e.g. yes/no accuracy)."""
    keys = dict.fromkeys(k for o in group for k, v in o.extra.items()
                         if isinstance(v, int | float) and k != "citations")
    return {k: round(statistics.mean(o.extra[k] for o in group if k in o.extra), 4)
            for k in keys}


async def run_bench(
    name: str, tasks: Sequence[BenchTask], *, seed: int,
    methods: Sequence[str] = (DIRECT, "auto"), options: QueryOptions | None = None,
    data_dir: Path | None = None, progress: Progress | None = None,
    providers: ProviderPool | None = None, profile: str | None = None,
) -> dict[str, Any]:
    """Run every task with every method ("direct" or a runner strategy name).

    `profile` is the policy profile (else a preset's own, else RLM_PROFILE / the default):
    every method runs under its egress policy, like every other model call.
    """
    options = options or QueryOptions()
    with tempfile.TemporaryDirectory(prefix=f"rlm-{name}-") as tmp:
        runtime = Runtime(data_dir or Path(tmp), profile)
        pool = providers or ProviderPool(catalog=runtime.catalog)
        try:
            plan, reason = await resolve_plan(runtime.catalog, runtime.profile, options)
            # The same egress policy the runner's calls get (a preset may tighten it).
            egress = run_egress(runtime, options)
            outcomes: list[Outcome] = []
            for i, task in enumerate(tasks):
                latest = []
                for method in methods:
                    if method == DIRECT:
                        tier = plan.at(0)
                        latest.append(await _direct(tier, pool.get(tier), task, egress,
                                                    pool.endpoints(tier.provider)))
                    else:
                        runner = options.model_copy(update={"strategy": method})
                        latest.append(await _runner(runtime, task, runner, pool))
                outcomes.extend(latest)
                if progress is not None:
                    progress(i + 1, len(tasks), latest)
        finally:
            await pool.aclose()
            runtime.close()
    root = plan.at(0)
    return {"bench": name, "model": f"{root.provider}/{root.model}", "num_ctx": root.num_ctx,
            "provider_reason": reason, "seed": seed, "tasks": len(tasks),
            "rows": summarise(outcomes), "outcomes": [asdict(o) for o in outcomes]}
