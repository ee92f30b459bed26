"""The model-independent cores of the runtime-planned strategies: items, counting, batching."""

from __future__ import annotations

import random

import pytest

from rlm_recursive.agent.batching import batch_ranges, tree_groups
from rlm_recursive.agent.routing import count_draft
from rlm_recursive.corpus.items import detect_item_kind, split_items
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import FieldFilter, TallyPlan, group_counts, tally


@pytest.mark.parametrize(("text", "kind", "expected"), [
    ("alpha one\nbeta two\n\ngamma three\n", "lines", ["alpha one", "beta two", "gamma three"]),
    ("p1 a\np1 b\n\np2 a\np2 b\n\np3 a\np3 b\n", "paragraphs",
     ["p1 a\np1 b", "p2 a\np2 b", "p3 a\np3 b"]),
    ("E1 failed\n  at x\n  at y\nE2 ok\nE3 failed\n  at z\n", "records",
     ["E1 failed\n  at x\n  at y", "E2 ok", "E3 failed\n  at z"]),
    ("---\nfirst\nrecord\n---\nsecond\n---\nthird\n", "delimiter",
     ["first\nrecord", "second", "third"]),
])
def test_items_are_detected_and_split_with_exact_offsets(text, kind, expected):
    assert detect_item_kind(text)[0] == kind
    items = split_items([("d1", text)])
    assert [i.text for i in items] == expected
    assert all(text[i.start:i.end] == i.text and i.doc_id == "d1" for i in items)


def test_a_given_item_kind_overrides_detection():
    text = "a\nb\n\nc\nd\n"
    assert [i.text for i in split_items([("d", text)], "lines")] == ["a", "b", "c", "d"]
    assert [i.text for i in split_items([("d", text)], "paragraphs")] == ["a\nb", "c\nd"]


def _log(seed: int, n: int) -> tuple[str, dict[tuple[str, str], int]]:
    rng = random.Random(seed)
    lines, truth = [], {}
    for i in range(n):
        level = rng.choice(["INFO", "WARN", "ERROR"])
        service = rng.choice(["billing", "auth", "search"])
        # The message sometimes names another service: a trap for a plain word count.
        other = rng.choice(["billing", "auth"])
        lines.append(f'{i} level={level} service={service} msg="sent to {other}"')
        truth[level, service] = truth.get((level, service), 0) + 1
    return "\n".join(lines) + "\n", truth


def test_field_filters_ground_in_the_question_and_count_exactly():
    text, truth = _log(1, 3000)
    half = text.index("\n", len(text) // 2) + 1
    layout = read_layout([("a", text[:half]), ("b", text[half:])])
    assert set(layout.fields["level"]) == {"INFO", "WARN", "ERROR"}
    draft = count_draft("How many log lines have level ERROR from the billing service?", layout)
    assert set(draft.plan.filters) == {FieldFilter(field="level", value="ERROR"),
                                       FieldFilter(field="service", value="billing")}
    assert draft.unknown == [] and draft.plan.phrases == []
    # Split over two documents: the count covers every document.
    hits, total = tally(layout, draft.plan, sample=3)
    assert total == truth["ERROR", "billing"]
    assert len(hits) == 3
    for hit in hits:
        line = (text[:half] if hit.doc_id == "a" else text[half:])[hit.start:hit.end]
        assert "level=ERROR" in line and "service=billing" in line


def test_phrases_count_records_or_every_occurrence_by_stem():
    layout = read_layout([("d", "timeout at 1\nok\nTimeouts at 2\ntimeout twice timeout\n")])
    assert tally(layout, TallyPlan(phrases=["timeout"]))[1] == 3
    assert tally(layout, TallyPlan(phrases=["timeout"], occurrences=True))[1] == 4
    assert tally(layout, TallyPlan())[1] == 0  # an empty plan counts nothing


def test_group_counts_each_value_of_a_field():
    text, truth = _log(2, 2000)
    layout = read_layout([("d", text)])
    counts = group_counts(layout.records,
                          TallyPlan(filters=[FieldFilter(field="level", value="WARN")]),
                          "service")
    assert dict(counts) == {s: truth["WARN", s] for s in ("billing", "auth", "search")}


def test_batches_fill_the_budget_without_overflow_and_keep_every_piece_once():
    rng = random.Random(3)
    sizes = [rng.randint(10, 400) for _ in range(500)]
    ranges = batch_ranges(sizes, budget=2000, overhead=20, max_per_batch=40)
    assert [i for a, b in ranges for i in range(a, b)] == list(range(500))
    assert all(sum(sizes[a:b]) + 20 * (b - a) <= 2000 for a, b in ranges)
    assert all(b - a <= 40 for a, b in ranges)
    # Full: the next piece would not have fitted.
    assert all(sum(sizes[a:b + 1]) + 20 * (b + 1 - a) > 2000 or b - a == 40
               for a, b in ranges[:-1])
    # A piece larger than the budget is alone (the caller shortens it).
    assert batch_ranges([50, 5000, 50], budget=1000) == [(0, 1), (1, 2), (2, 3)]


def test_tree_groups_always_shrink_a_level():
    assert tree_groups([100] * 10, budget=350) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    # No two fit together: pairs anyway (the caller halves each), so the tree ends.
    assert tree_groups([900, 900, 900], budget=1000) == [[0, 1], [2]]
    assert tree_groups([10], budget=5) == [[0]]
