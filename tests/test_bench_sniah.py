"""The S-NIAH task generator: seeded, sized as asked, one findable needle per haystack."""

from __future__ import annotations

from rlm_recursive.bench.sniah import KINDS, make_tasks


def test_tasks_are_reproducible_sized_and_hold_exactly_one_needle():
    tasks = make_tasks(7, [8_000, 32_000], 5)
    assert tasks == make_tasks(7, [8_000, 32_000], 5)
    assert tasks != make_tasks(8, [8_000, 32_000], 5)
    assert [t.length for t in tasks] == [8_000] * 5 + [32_000] * 5
    for task in tasks:
        needle = f"The special magic {task.kind} for {task.key} is {task.value}."
        assert task.kind in KINDS
        assert len(task.haystack) == task.length
        assert task.haystack.count(needle) == 1
        assert task.haystack.count(task.key) == 1
        assert task.question == f"What is the special magic {task.kind} for {task.key}?"
