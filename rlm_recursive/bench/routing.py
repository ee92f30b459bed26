"""The adversarial phrasing suite: questions in varied wordings with the route each should
take, asked against corpora of every format. `dev` is for tuning; `heldout` is measured,
never tuned on."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from ..agent.routing import route
from ..corpus.records import Layout, read_layout
from .routing_corpora import corpus

__all__ = ["PARTS", "Case", "evaluate", "load_cases"]

Part = Literal["dev", "heldout"]
PARTS: tuple[Part, ...] = ("dev", "heldout")


@dataclass(frozen=True)
class Case:
    question: str
    corpus: str
    route: str


def load_cases(part: Part) -> list[Case]:
    text = resources.files("rlm_recursive.bench").joinpath(f"data/routing_{part}.jsonl")
    return [Case(**json.loads(line)) for line in text.read_text().splitlines() if line.strip()]


_LAYOUTS: dict[str, Layout] = {}


def _layout(name: str) -> Layout:
    if name not in _LAYOUTS:
        _LAYOUTS[name] = read_layout([(name, corpus(name))])
    return _LAYOUTS[name]


def evaluate(part: Part) -> dict[str, Any]:
    """Accuracy overall and per expected route, plus every miss with the reason given."""
    cases = load_cases(part)
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses = []
    for case in cases:
        got, why = route(case.question, _layout(case.corpus))
        total[case.route] += 1
        if got == case.route:
            right[case.route] += 1
        else:
            misses.append({"question": case.question, "corpus": case.corpus,
                           "expected": case.route, "got": got, "why": why})
    return {"part": part, "questions": len(cases),
            "accuracy": round(sum(right.values()) / len(cases), 3),
            "by_route": {r: f"{right[r]}/{n}" for r, n in sorted(total.items())},
            "misses": misses}
