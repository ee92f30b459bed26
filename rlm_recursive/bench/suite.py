"""`bench suite`: every task family over varied generators, split into dev and held-out.

Families: a single fact in varied phrasing (hidden among facts of the same kind about other
entities, in prose, a table, PDF-extracted text or a log), multi-hop look-ups, counting in
plain words over every record format, classify-then-count, and unanswerable questions (the
entity asked about is not in the text; a neighbour of the same kind is). Dev and held-out
use different fact kinds, vocabularies and question wordings, so what was tuned on one part
is measured on the other.

Scoring: a fact is right when the answer names the gold value and no other entity's value,
and the run called it grounded; counts by OOLONG's 0.75^|error|; an unanswerable question is
right only when the answer says it was not found (or the run marks it ungrounded) and names
no value from the text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .harness import BenchTask
from .hosts import HOSTS, host_text
from .suite_counts import FORMATS, classify_task, count_task

__all__ = ["FAMILIES", "PARTS", "make_tasks", "names_value", "not_found", "value_score"]

FAMILIES = ("fact", "multihop", "count", "classify", "unanswerable")
PARTS = ("dev", "heldout")
_NOT_FOUND = re.compile(r"\bnot\s+(found|stated|mentioned|given|in the)\b|\bno\s+(answer|"
                        r"information|mention|record)\b|\b(cannot|can't|could\s+not|"
                        r"couldn't)\s+(find|determine|answer)\b|\bdoes\s+not\s+(say|mention|"
                        r"contain|state)\b|\bunknown\b", re.IGNORECASE)


def not_found(answer: str) -> bool:
    return bool(_NOT_FOUND.search(answer))


@dataclass(frozen=True)
class _Kind:
    """A kind of fact: its sentence, its value, and the ways a person asks for it."""

    fact: str
    value: Callable[[random.Random], str]
    entities: tuple[str, ...]
    asks: tuple[str, ...]


def _digits(rng: random.Random) -> str:
    return f"{rng.randint(1000, 9999)}-{rng.randint(100, 999)}-{rng.randint(10, 99)}"


def _phrase(rng: random.Random) -> str:
    return f"{rng.choice(('amber', 'cobalt', 'juniper', 'saffron', 'tundra'))}-" \
           f"{rng.randint(1000, 9999)}"


def _money(rng: random.Random) -> str:
    return f"{rng.randint(1, 99)},{rng.randint(100, 999)}.{rng.randint(10, 99)} EUR"


def _rate(rng: random.Random) -> str:
    return f"{rng.randint(5, 18) * 100} units per hour"


_KINDS: dict[str, tuple[_Kind, ...]] = {
    "dev": (
        _Kind("{e} holds account number {v} at Northbank.", _digits,
              ("Acme Ltd", "Brightwater plc", "Corvid Labs", "Dunmore & Sons", "Elstree Foods",
               "Fenwick Tools", "Gallant Freight"),
              ("What is the account number of {e}?", "Which account number does {e} hold?",
               "{e}'s account number?")),
        _Kind("The vault passphrase for the {e} site is {v}.", _phrase,
              ("Aldgate", "Birchwood", "Cloverfield", "Elmstead", "Foxhollow", "Greystone",
               "Hawthorne"),
              ("What is the vault passphrase for the {e} site?",
               "Tell me the {e} site's vault passphrase.")),
    ),
    "heldout": (
        _Kind("The heparin infusion for bed {e} was set at {v} by the night registrar.", _rate,
              ("4A", "4B", "7C", "9D", "12E", "15F", "21G"),
              ("What heparin rate was set for bed {e}?",
               "At what rate is the heparin infusion running for bed {e}?")),
        _Kind("Invoice {e} was raised for the refit and its total comes to {v}.", _money,
              ("INV-1031", "INV-1187", "INV-2250", "INV-3304", "INV-4419", "INV-5006",
               "INV-6120"),
              ("What is the total on invoice {e}?", "How much does invoice {e} come to?")),
        _Kind("The access code of the {e} archive is {v}.", _phrase,
              ("Harbour", "Meridian", "Northgate", "Quarry", "Riverside", "Summit", "Vale"),
              ("Give me the access code for the {e} archive.",
               "Which code opens the {e} archive?")),
    ),
}


def _norm(text: str) -> str:
    return re.sub(r"[\s,]", "", text.lower())


def value_score(gold: str, others: list[str]) -> Callable[[str], float]:
    """Right when the answer names the gold value, no other entity's value, and is no
    "not found" (case, spaces and thousands separators aside)."""
    def score(answer: str) -> float:
        return float(names_value(answer, gold) and not any(names_value(answer, o) for o in others)
                     and not not_found(answer))
    return score


def names_value(answer: str, value: str) -> bool:
    """Whether `answer` names `value` (case, spaces and thousands separators aside). Each
    word of the answer is also read apart: with every space dropped, "amd64 3.25.1-1" would
    hide the version after a word ending in a digit. A value of a few letters ("S", a
    drive) is named only as a word of its own, not inside "documents"."""
    if re.fullmatch(r"[^\W\d_]{1,3}", value.strip()):
        return any(word.strip(".,:;()[]{}'\"!?\\/").lower() == value.strip().lower()
                   for word in answer.split())
    return _said(value, _norm(answer)) or any(
        _said(value, _norm(" ".join(words))) for n in range(1, len(value.split()) + 1)
        for words in zip(*(answer.split()[i:] for i in range(n)), strict=False))


def _said(value: str, said: str) -> bool:
    """`value` in the normalised answer, not inside a longer number ("700 units per hour"
    is not said by "1700 units per hour")."""
    return re.search(r"(?<![0-9])" + re.escape(_norm(value)) + r"(?![0-9])", said) is not None


def _facts(rng: random.Random, part: str, length: int, answerable: bool, i: int) -> BenchTask:
    kind = _KINDS[part][i % len(_KINDS[part])]
    entities = rng.sample(kind.entities, 6)
    values = [kind.value(rng) for _ in entities]
    target = entities[0]
    shown = entities if answerable else entities[1:]  # unanswerable: the target is absent
    facts = [kind.fact.format(e=e, v=v) for e, v in zip(entities, values, strict=True)
             if e in shown]
    host = list(HOSTS)[(i // len(_KINDS[part])) % len(HOSTS)]
    text = host_text(host, rng, length, facts)
    question = rng.choice(kind.asks).format(e=target)
    family = "fact" if answerable else "unanswerable"
    if answerable:
        score = value_score(values[0], values[1:])
    else:
        def score(answer: str) -> float:
            return float(not_found(answer) and not any(_norm(v) in _norm(answer)
                                                       for v in values))
    return BenchTask(group=f"{part} {family}", length=len(text), question=question,
                     documents=((f"{host}.txt", text),), score=score,
                     gold=(values[0] if answerable else "not found") + f" ({host})")


_CHAINS = {
    "dev": ("The {a} project is run by the {b} office.", "The alarm code of the {b} office is {v}.",
            ("What is the alarm code of the office that runs the {a} project?",
             "What's the alarm code for the office running the {a} project?")),
    "heldout": ("Ward {a} is supervised by nurse {b}.", "Nurse {b} carries pager number {v}.",
                ("What is the pager number of the nurse who supervises ward {a}?",
                 "Which pager does the nurse supervising ward {a} carry?")),
}
_CHAIN_NAMES = {
    "dev": (("Halcyon", "Meridian", "Bluebell", "Kestrel", "Obsidian", "Tamarind"),
            ("Oslo", "Lisbon", "Tallinn", "Porto", "Ghent", "Bergen")),
    "heldout": (("3 North", "5 East", "6 West", "8 South", "2 Central", "9 Annex"),
                ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Abernethy", "Castellano")),
}


def _multihop(rng: random.Random, part: str, length: int, i: int) -> BenchTask:
    first, second, asks = _CHAINS[part]
    starts, middles = (rng.sample(names, 6) for names in _CHAIN_NAMES[part])
    codes = [f"{rng.randint(1000, 9999)}-{rng.choice('ABCDEFGHJKMNPQRSTUVWXYZ')}"
             for _ in starts]
    facts = [s.format(a=a, b=b, v=v) for a, b, v in zip(starts, middles, codes, strict=True)
             for s in (first, second)]
    host = ("prose", "pdf")[i % 2]
    text = host_text(host, rng, length, facts)
    question = rng.choice(asks).format(a=starts[0])
    return BenchTask(group=f"{part} multihop", length=len(text), question=question,
                     documents=((f"{host}.txt", text),),
                     score=value_score(codes[0], codes[1:]), gold=f"{codes[0]} ({host})")


def make_tasks(seed: int, parts: list[str], families: list[str], length: int, per_family: int,
               classify_items: int = 300) -> list[BenchTask]:
    """`per_family` tasks per (part, family), seeded; formats and hosts rotate per task.

    Each (part, family) has its own generator, so a smaller `per_family` or another choice of
    families gives the first tasks of a larger run, and methods run apart stay comparable.
    """
    tasks: list[BenchTask] = []
    for part in parts:
        offset = 0 if part == "dev" else 3
        for family in families:
            rng = random.Random(f"{seed}-{part}-{family}")
            for i in range(per_family):
                if family == "fact":
                    tasks.append(_facts(rng, part, length, True, i))
                elif family == "unanswerable":
                    tasks.append(_facts(rng, part, length, False, i))
                elif family == "multihop":
                    tasks.append(_multihop(rng, part, length, i))
                elif family == "count":
                    fmt = FORMATS[(i + offset) % len(FORMATS)]
                    tasks.append(count_task(rng, part, fmt, length))
                else:
                    tasks.append(classify_task(rng, part, classify_items))
    return tasks


def describe(tasks: list[BenchTask]) -> dict[str, Any]:
    """What a run covered: tasks per group."""
    groups: dict[str, int] = {}
    for task in tasks:
        groups[task.group] = groups.get(task.group, 0) + 1
    return groups
