"""S-NIAH (RULER-style single needle in a haystack): the runner against the model used directly.

Tasks come from a seed: filler text, one needle "The special magic {kind} for {key} is
{value}." at a random depth, and the question "What is the special magic {kind} for {key}?".
Each task runs (a) direct: the haystack in one prompt, cut to the model's window as a user
would have to, and (b) the runner over a fresh session. Scored by exact match of the value.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..agent.model_call import CHARS_PER_TOKEN
from ..agent.pool import ProviderPool
from ..agent.query import QueryOptions, resolve_plan, run_egress, run_query
from ..agent.recursion import Tier
from ..agent.runtime import Runtime
from ..config import SessionConfig
from ..errors import EgressDenied, RlmError
from ..policy import EgressPolicy
from ..providers.base import ChatOptions, ChatRequest, Message, Provider

__all__ = ["Task", "make_tasks", "run_sniah"]

_WORDS = ("river harbor lantern quiet meadow copper signal orchard ledger winter canyon "
          "velvet engine marble garden falcon thunder pepper saddle anchor violet summit "
          "compass timber crystal bramble cobalt harvest beacon willow granite ember "
          "maple cinder glacier prairie tundra coral lagoon nimbus quartz saffron").split()
_SUBJECTS = ("The committee", "Our neighbour", "The old map", "A quiet engineer",
             "The morning train", "Every visitor", "The village council", "A young botanist")
_VERBS = ("described", "remembered", "measured", "questioned", "painted", "carried",
          "repaired", "observed", "catalogued", "ignored")
_TAILS = ("before the storm arrived.", "near the northern bridge.", "during the long winter.",
          "with unusual care.", "while the market was closing.", "after the harvest festival.",
          "under a grey and patient sky.", "for reasons nobody recalled.")
KINDS = ("number", "word", "uuid")


@dataclass(frozen=True)
class Task:
    length: int
    kind: str
    key: str
    value: str
    haystack: str

    @property
    def question(self) -> str:
        return f"What is the special magic {self.kind} for {self.key}?"


def _sentence(rng: random.Random) -> str:
    words = " ".join(rng.sample(_WORDS, 3))
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} the {words} {rng.choice(_TAILS)}"


def make_task(rng: random.Random, length: int) -> Task:
    kind = rng.choice(KINDS)
    key = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{rng.randint(10, 99)}"
    value = {"number": str(rng.randint(1_000_000, 9_999_999)),
             "word": rng.choice(_WORDS) + rng.choice(_WORDS),
             "uuid": str(uuid.UUID(int=rng.getrandbits(128)))}[kind]
    needle = f"The special magic {kind} for {key} is {value}."
    parts, size = [], 0
    while size < length - len(needle):
        sentence = _sentence(rng) + (" " if rng.random() > 0.15 else "\n\n")
        parts.append(sentence)
        size += len(sentence)
    parts.insert(rng.randint(0, len(parts)), needle + " ")
    return Task(length, kind, key, value, "".join(parts)[: max(length, len(needle) + 1)])


def make_tasks(seed: int, lengths: list[int], per_length: int) -> list[Task]:
    rng = random.Random(seed)
    return [make_task(rng, length) for length in lengths for _ in range(per_length)]


def _correct(answer: str, value: str) -> bool:
    return value.lower() in answer.lower()


@dataclass
class Outcome:
    length: int
    method: str
    correct: bool
    wall_s: float
    model_calls: int
    prompt_tokens: int
    error: str | None = None
    answer: str = ""


async def _direct(tier: Tier, provider: Provider, task: Task, egress: EgressPolicy,
                  endpoint: str | None) -> Outcome:
    """The whole haystack in one prompt, cut to the window: what a user without a runner does."""
    # Straight to the provider, but never around the egress policy: a denial ends the bench.
    egress.check(tier.provider, endpoint=endpoint, model=tier.model)
    question = f"\n\nQuestion: {task.question}\nAnswer:"
    count = getattr(provider, "count_tokens", None)
    budget = tier.num_ctx - 1100  # the reply and the chat template need the rest
    if count is None:
        text = task.haystack[: int(budget * CHARS_PER_TOKEN) - len(question)]
    else:  # fill the window as far as the model's own tokenizer allows, as a user would
        text = task.haystack
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
        answer, tokens, error = result.text, result.usage.input_tokens, None
    except RlmError as exc:
        answer, tokens, error = "", 0, exc.code
    return Outcome(task.length, "direct", _correct(answer, task.value),
                   time.monotonic() - started, 1, tokens, error, answer[:200])


async def _runner(runtime: Runtime, task: Task, options: QueryOptions,
                  pool: ProviderPool) -> Outcome:
    sid = runtime.store.create_session("sniah", SessionConfig())["session_id"]
    started = time.monotonic()
    runtime.store.add_document(sid, task.haystack.encode(), length_chars=len(task.haystack),
                               source="haystack.txt", source_type="inline")
    try:
        result = await run_query(runtime, sid, task.question, options, providers=pool)
        answer, calls = result.answer, result.usage["model_calls"]
        tokens, error = result.usage["input_tokens"], None
    except EgressDenied:
        raise  # the configuration forbids the run: not a task outcome
    except RlmError as exc:
        answer, calls, tokens, error = "", 0, 0, exc.code
    return Outcome(task.length, "runner", _correct(answer, task.value),
                   time.monotonic() - started, calls, tokens, error, answer[:200])


def summarise(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    rows = []
    for key in sorted({(o.length, o.method) for o in outcomes}):
        group = [o for o in outcomes if (o.length, o.method) == key]
        rows.append({
            "length": key[0], "method": key[1], "tasks": len(group),
            "accuracy": round(sum(o.correct for o in group) / len(group), 3),
            "mean_wall_s": round(statistics.mean(o.wall_s for o in group), 2),
            "mean_model_calls": round(statistics.mean(o.model_calls for o in group), 2),
            "mean_prompt_tokens": round(statistics.mean(o.prompt_tokens for o in group)),
            "errors": sorted({o.error for o in group if o.error}),
        })
    return rows


async def run_sniah(
    *, lengths: list[int], per_length: int = 10, seed: int = 0, methods: tuple[str, ...] = (
        "direct", "runner"), options: QueryOptions | None = None,
    data_dir: Path | None = None, progress: Any = None, profile: str | None = None,
) -> dict[str, Any]:
    """Run every task with every method; returns the summary rows and the raw outcomes.

    `profile` is the policy profile (else a preset's own, else RLM_PROFILE / the default):
    both methods run under its egress policy, like every other model call.
    """
    options = options or QueryOptions()
    tasks = make_tasks(seed, lengths, per_length)
    with tempfile.TemporaryDirectory(prefix="rlm-sniah-") as tmp:
        runtime = Runtime(data_dir or Path(tmp), profile)
        pool = ProviderPool()
        try:
            plan, reason = await resolve_plan(runtime.catalog, runtime.profile, options)
            # The same egress policy the runner's calls get (a preset may tighten it).
            egress = run_egress(runtime, options)
            outcomes: list[Outcome] = []
            for i, task in enumerate(tasks):
                if "direct" in methods:
                    tier = plan.at(0)
                    outcomes.append(await _direct(tier, pool.get(tier), task, egress,
                                                  pool.endpoint(tier.provider)))
                if "runner" in methods:
                    outcomes.append(await _runner(runtime, task, options, pool))
                if progress is not None:
                    progress(i + 1, len(tasks), outcomes[-len(methods):])
        finally:
            await pool.aclose()
            runtime.close()
    root = plan.at(0)
    return {"model": f"{root.provider}/{root.model}", "num_ctx": root.num_ctx,
            "provider_reason": reason, "seed": seed, "rows": summarise(outcomes),
            "outcomes": [asdict(o) for o in outcomes]}
