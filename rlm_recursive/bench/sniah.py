"""S-NIAH (RULER-style single needle in a haystack): the runner against the model used directly.

Tasks come from a seed: filler text, one needle "The special magic {kind} for {key} is
{value}." at a random depth, and the question "What is the special magic {kind} for {key}?".
Each task runs through the shared harness (bench/harness.py): direct, and the runner per
strategy. Scored by exact match of the value.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent.query import QueryOptions
from .harness import BenchTask, Progress, run_bench

__all__ = ["Task", "bench_tasks", "filler_sentence", "make_tasks", "run_sniah"]

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


def filler_sentence(rng: random.Random) -> str:
    """One sentence of neutral filler (the haystack of every generated bench)."""
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
        sentence = filler_sentence(rng) + (" " if rng.random() > 0.15 else "\n\n")
        parts.append(sentence)
        size += len(sentence)
    parts.insert(rng.randint(0, len(parts)), needle + " ")
    return Task(length, kind, key, value, "".join(parts)[: max(length, len(needle) + 1)])


def make_tasks(seed: int, lengths: list[int], per_length: int) -> list[Task]:
    rng = random.Random(seed)
    return [make_task(rng, length) for length in lengths for _ in range(per_length)]


def _score(value: str) -> Callable[[str], float]:
    return lambda answer: float(value.lower() in answer.lower())


def bench_tasks(seed: int, lengths: list[int], per_length: int) -> list[BenchTask]:
    """The S-NIAH tasks in the shared harness's form, one row per length."""
    return [BenchTask(group=f"{t.length:,}", length=t.length, question=t.question,
                      documents=(("haystack.txt", t.haystack),), score=_score(t.value),
                      gold=t.value)
            for t in make_tasks(seed, lengths, per_length)]


async def run_sniah(
    *, lengths: list[int], per_length: int = 10, seed: int = 0,
    methods: tuple[str, ...] = ("direct", "auto"), options: QueryOptions | None = None,
    data_dir: Path | None = None, progress: Progress | None = None, profile: str | None = None,
) -> dict[str, Any]:
    """Run every task with every method; returns the summary rows and the raw outcomes."""
    return await run_bench("sniah", bench_tasks(seed, lengths, per_length), seed=seed,
                           methods=methods, options=options, data_dir=data_dir,
                           progress=progress, profile=profile)
