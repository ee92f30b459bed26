"""OOLONG-style aggregation tasks (trec_coarse in spirit), generated from a seed.

Three kinds, each over many short items in one context:
- `count`: log lines with fields; "How many log lines have level ERROR from the billing
  service?" The text marks the answer (a textual pattern), so code can count it. Some
  messages mention a service by name outside its field, a trap for plain word counts.
- `judge`: ~500 short notes, one per line; "How many of the notes mention a fruit?" Each note
  needs a judgement, so the count is bounded by the model's yes/no accuracy, which is
  measured too (from the notes the runner cites as positive).
- `most`: tickets with a category field; "Which category is most frequent ...?"

Scored as OOLONG does: numeric answers by 0.75^|error| (the first integer in the answer),
others by exact match (the first of the offered labels the answer names).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..agent.query import QueryResult
from ..store import Store
from .harness import BenchTask

__all__ = ["KINDS", "first_integer", "label_score", "make_tasks", "numeric_score"]

KINDS = ("count", "judge", "most")
_LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR")
_SERVICES = ("billing", "auth", "search", "checkout", "email", "inventory")
_MESSAGES = ("request served", "cache miss for key", "retrying upstream call",
             "slow query detected", "connection reset by peer", "token refreshed",
             "queue depth above threshold", "payload validated", "user session started",
             "forwarded to {other}", "waiting on {other} reply", "config reloaded")
_CATEGORIES = ("billing", "shipping", "login", "refund", "warranty")
_TICKET_TEXT = ("customer writes again", "asked for a call back", "attached a screenshot",
                "urgent according to the caller", "second report this week", "closed by bot")
FRUITS = ("apple", "banana", "plum", "cherry", "mango", "pear", "peach", "grapes", "lemon",
          "orange", "strawberries", "kiwi", "apricot", "pineapple", "raspberries", "melon")
_OTHERS = ("carrot", "loaf of bread", "hammer", "notebook", "bicycle", "umbrella", "potato",
           "candle", "teapot", "scarf", "onion", "lamp", "cabbage", "envelope", "wrench",
           "jar of honey", "pair of boots", "radio", "broom", "cucumber")
_NOTE = ("Bought {x} at the corner shop.", "Left {x} on the kitchen table.",
         "Remember to bring {x} tomorrow.", "There was {x} cheaper than last week.",
         "Gave {x} to the neighbour.", "Found {x} in the back of the car.",
         "Need to return {x} before Friday.", "Put {x} in the blue bag.")
_INTEGER = re.compile(r"-?\d[\d,]*")


def first_integer(answer: str) -> int | None:
    match = _INTEGER.search(answer)
    return int(match.group().replace(",", "")) if match else None


def numeric_score(gold: int) -> Callable[[str], float]:
    """0.75 ** |error| of the first integer in the answer; 0 with no number."""
    def score(answer: str) -> float:
        value = first_integer(answer)
        return 0.0 if value is None else 0.75 ** abs(value - gold)
    return score


def label_score(gold: str, labels: tuple[str, ...]) -> Callable[[str], float]:
    """Exact match: the first offered label the answer names must be the gold one."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, labels)) + r")\b", re.IGNORECASE)

    def score(answer: str) -> float:
        match = pattern.search(answer)
        return float(match is not None and match.group(1).lower() == gold.lower())
    return score


def _log_line(rng: random.Random, i: int) -> tuple[str, str, str]:
    level, service = rng.choice(_LEVELS), rng.choice(_SERVICES)
    msg = rng.choice(_MESSAGES).format(other=rng.choice(_SERVICES))
    stamp = f"2026-03-{1 + i // 40000 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:" \
            f"{i % 60:02d}Z"
    return f'{stamp} level={level} service={service} msg="{msg}"', level, service


def _count_task(rng: random.Random, length: int) -> BenchTask:
    lines, rows = [], []
    while sum(map(len, lines)) + len(lines) < length:
        line, level, service = _log_line(rng, len(lines))
        lines.append(line)
        rows.append((level, service))
    level, service = rng.choice(("ERROR", "WARN", "DEBUG")), rng.choice(_SERVICES)
    gold = sum(row == (level, service) for row in rows)
    question = f"How many log lines have level {level} from the {service} service?"
    return BenchTask(group=f"count {length:,}", length=length, question=question,
                     documents=(("app.log", "\n".join(lines) + "\n"),),
                     score=numeric_score(gold), gold=str(gold))


def _judge_task(rng: random.Random, items: int) -> BenchTask:
    notes, truth = [], []
    for i in range(items):
        fruit = rng.random() < 0.2
        thing = rng.choice(FRUITS if fruit else _OTHERS)
        notes.append(f"Note {i + 1}: " + rng.choice(_NOTE).format(x=_article(thing)))
        truth.append(fruit)
    text = "\n".join(notes) + "\n"
    gold = sum(truth)
    starts = [m.start() for m in re.finditer(r"^Note ", text, re.MULTILINE)]
    return BenchTask(group=f"judge {items} items", length=len(text),
                     question="How many of the notes mention a fruit?",
                     documents=(("notes.txt", text),), score=numeric_score(gold),
                     gold=str(gold), assess=_judgements(starts, truth))


def _article(thing: str) -> str:
    if thing.endswith("s") or thing.startswith(("pair", "jar", "loaf")):
        return f"some {thing}" if not thing.startswith(("pair", "jar", "loaf")) else f"a {thing}"
    return f"an {thing}" if thing[0] in "aeiou" else f"a {thing}"


def _judgements(starts: list[int], truth: list[bool]
                ) -> Callable[[QueryResult, Store], dict[str, Any]]:
    """Per-note yes/no accuracy: a note is judged yes when a citation covers its start."""
    def assess(result: QueryResult, store: Store) -> dict[str, Any]:
        cited = [(c.start, c.end) for c in result.citations]
        said = [any(s <= start < e for s, e in cited) for start in starts]
        right = sum(a == b for a, b in zip(said, truth, strict=True))
        return {"yes_no_accuracy": round(right / len(truth), 4),
                "said_yes": sum(said), "true_yes": sum(truth)}
    return assess


def _most_task(rng: random.Random, length: int) -> BenchTask:
    offered = tuple(rng.sample(_CATEGORIES, 3))
    weights = [rng.uniform(1, 3) for _ in offered]
    lines: list[str] = []
    counts: Counter[str] = Counter()
    while sum(map(len, lines)) + len(lines) < length or len(set(_top(counts))) != 1:
        category = rng.choices(offered, weights)[0]
        counts[category] += 1
        lines.append(f"ticket=T-{10000 + len(lines)} category={category} "
                     f'priority={rng.choice(("low", "normal", "high"))} '
                     f'note="{rng.choice(_TICKET_TEXT)}"')
    gold = _top(counts)[0]
    names = ", ".join(offered[:-1]) + f" or {offered[-1]}"
    return BenchTask(group=f"most {length:,}", length=length,
                     question=f"Which category is most frequent among the tickets: {names}?",
                     documents=(("tickets.txt", "\n".join(lines) + "\n"),),
                     score=label_score(gold, offered), gold=gold)


def _top(counts: Counter[str]) -> list[str]:
    best = max(counts.values(), default=0)
    return [k for k, v in counts.items() if v == best]


def make_tasks(seed: int, kinds: list[str], lengths: list[int], per_row: int,
               judge_items: int = 500) -> list[BenchTask]:
    """`per_row` tasks per (kind, length); `judge` has one size (`judge_items` notes)."""
    rng = random.Random(seed)
    tasks = []
    for kind in kinds:
        for length in lengths if kind != "judge" else [judge_items]:
            for _ in range(per_row):
                make = {"count": _count_task, "judge": _judge_task, "most": _most_task}[kind]
                tasks.append(make(rng, length))
    return tasks
