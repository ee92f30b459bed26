"""Multi-hop look-ups: two- and three-hop chains hidden among distractor facts, from a seed.

Two hops: "The Halcyon project is run by the Oslo office." ... "The alarm code of the Oslo
office is 4417-K." asked as "What is the alarm code of the office that runs the Halcyon
project?" Every other office has its own code and runs its own project (the distractors).
Three hops add a building between the office and the code. Facts sit at random depths in
neutral filler. Scored by exact match: the right code named, and no other code.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from .harness import BenchTask
from .hosts import host_text

__all__ = ["HOPS", "make_tasks"]

HOPS = (2, 3)
_PROJECTS = ("Halcyon", "Meridian", "Bluebell", "Kestrel", "Obsidian", "Tamarind",
             "Zephyr", "Lodestar", "Marigold", "Quillon", "Sorrel", "Vantage")
_OFFICES = ("Oslo", "Lisbon", "Tallinn", "Porto", "Ghent", "Bergen", "Malmo", "Utrecht",
            "Krakow", "Turin", "Seville", "Leeds")
_BUILDINGS = ("Aldgate", "Birchwood", "Cloverfield", "Dunmore", "Elmstead", "Foxhollow",
              "Greystone", "Hawthorne", "Ivybridge", "Juniper", "Kingsmere", "Larkspur")


def _code(rng: random.Random) -> str:
    return f"{rng.randint(1000, 9999)}-{rng.choice('ABCDEFGHJKMNPQRSTUVWXYZ')}"


def _score(gold: str, others: list[str]) -> Callable[[str], float]:
    def score(answer: str) -> float:
        named = set(re.findall(r"\d{4}-[A-Z]", answer.upper()))
        return float(gold in named and not named & set(others))
    return score


def make_task(rng: random.Random, hops: int, length: int, chains: int = 8) -> BenchTask:
    projects = rng.sample(_PROJECTS, chains)
    offices = rng.sample(_OFFICES, chains)
    buildings = rng.sample(_BUILDINGS, chains)
    codes = [_code(rng) for _ in range(chains)]
    while len(set(codes)) < chains:
        codes = [_code(rng) for _ in range(chains)]
    facts = []
    for project, office, building, code in zip(projects, offices, buildings, codes,
                                               strict=True):
        facts.append(f"The {project} project is run by the {office} office.")
        if hops == 2:
            facts.append(f"The alarm code of the {office} office is {code}.")
        else:
            facts.append(f"The {office} office is housed in the {building} building.")
            facts.append(f"The alarm code of the {building} building is {code}.")
    target = rng.randrange(chains)
    if hops == 2:
        question = (f"What is the alarm code of the office that runs the {projects[target]} "
                    "project?")
    else:
        question = ("What is the alarm code of the building that houses the office that runs "
                    f"the {projects[target]} project?")
    text = host_text("prose", rng, length, facts)
    others = codes[:target] + codes[target + 1:]
    return BenchTask(group=f"{hops} hops {length:,}", length=length, question=question,
                     documents=(("handbook.txt", text),), score=_score(codes[target], others),
                     gold=codes[target])


def make_tasks(seed: int, hops: list[int], lengths: list[int], per_row: int) -> list[BenchTask]:
    rng = random.Random(seed)
    return [make_task(rng, h, length) for h in hops for length in lengths
            for _ in range(per_row)]
