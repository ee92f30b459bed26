"""Packing pieces of text into model calls: batches that fill a window without overflowing
it, and the groups of a tree reduce (pure functions; the strategies make the calls)."""

from __future__ import annotations

from collections.abc import Sequence

from .context import RunContext
from .recursion import Tier

__all__ = ["batch_ranges", "calls_in_flight", "tree_groups"]

_ONE_AT_A_TIME = frozenset({"embedded"})
"""Providers that run one generation at a time in this process (one llama.cpp context)."""


def calls_in_flight(rc: RunContext, tier: Tier) -> int:
    """How many calls to send at once: queued behind an in-process model, a call would spend
    its own timeout waiting for the others, so those go one at a time."""
    return 1 if tier.provider in _ONE_AT_A_TIME else rc.settings.concurrency


def batch_ranges(sizes: Sequence[int], budget: int, overhead: int = 0,
                 max_per_batch: int | None = None) -> list[tuple[int, int]]:
    """Consecutive `[start, stop)` index ranges whose sizes plus `overhead` each fit `budget`.

    Greedy, in order, so every piece is in exactly one batch. A piece larger than the budget
    on its own gets a batch of its own (the caller must shorten it).
    """
    if budget <= 0:
        raise ValueError("budget must be positive")
    ranges, start, used = [], 0, 0
    for i, size in enumerate(sizes):
        cost = size + overhead
        full = max_per_batch is not None and i - start >= max_per_batch
        if i > start and (used + cost > budget or full):
            ranges.append((start, i))
            start, used = i, 0
        used += cost
    if start < len(sizes):
        ranges.append((start, len(sizes)))
    return ranges


def tree_groups(sizes: Sequence[int], budget: int, overhead: int = 0) -> list[list[int]]:
    """Groups of partial answers for one level of a tree reduce: each group fits `budget`.

    Every level must shrink, or the tree would never end: when no two neighbours fit
    together, pieces are paired anyway and the caller shortens each to half the budget.
    """
    groups = [list(range(a, b)) for a, b in batch_ranges(sizes, budget, overhead)]
    if len(sizes) > 1 and len(groups) == len(sizes):
        groups = [list(range(i, min(i + 2, len(sizes)))) for i in range(0, len(sizes), 2)]
    return groups
