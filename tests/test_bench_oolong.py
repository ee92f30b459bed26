"""OOLONG-style and multi-hop task generators: seeded, sized, gold answers recomputed."""

from __future__ import annotations

import re

from rlm_recursive.bench.multihop import make_tasks as multihop_tasks
from rlm_recursive.bench.oolong import (
    FRUITS,
    first_integer,
    label_score,
    make_tasks,
    numeric_score,
)


def test_scoring_is_oolongs():
    score = numeric_score(10)
    assert score("10 lines") == 1.0
    assert score("There are 12.") == 0.75 ** 2
    assert score("1,000 or so") == 0.75 ** 990
    assert score("no idea") == 0.0
    assert first_integer("about -3") == -3
    label = label_score("login", ("billing", "login", "refund"))
    assert label("Login is the most frequent") == 1.0
    assert label("billing, then login") == 0.0  # the first label named is the answer
    assert label("none") == 0.0


def test_tasks_are_reproducible_and_sized():
    a = make_tasks(3, ["count", "judge", "most"], [32_000, 64_000], 2, judge_items=120)
    assert [t.question for t in a] == [t.question for t in make_tasks(
        3, ["count", "judge", "most"], [32_000, 64_000], 2, judge_items=120)]
    assert [t.group for t in a] == ["count 32,000"] * 2 + ["count 64,000"] * 2 + [
        "judge 120 items"] * 2 + ["most 32,000"] * 2 + ["most 64,000"] * 2
    for task in a:
        if not task.group.startswith("judge"):
            assert task.length <= len(task.documents[0][1]) < task.length + 200


def test_gold_answers_match_an_independent_recount():
    for task in make_tasks(11, ["count", "judge", "most"], [32_000], 3, judge_items=200):
        text = task.documents[0][1]
        if task.group.startswith("count"):
            level, service = re.search(r"level (\w+) from the (\w+) service", task.question
                                       ).groups()
            gold = sum(f"level={level} service={service} " in line
                       for line in text.splitlines())
            assert task.gold == str(gold)
        elif task.group.startswith("judge"):
            lines = text.splitlines()
            assert len(lines) == 200
            fruit = sum(any(re.search(rf"\b{f}\b", line) for f in FRUITS) for line in lines)
            assert task.gold == str(fruit) and 0 < fruit < 200
        else:
            offered = re.search(r": (.*)\?", task.question).group(1).replace(" or ", ", ")
            counts = {c: text.count(f"category={c} ") for c in offered.split(", ")}
            assert task.gold == max(counts, key=counts.__getitem__)
            assert sorted(counts.values())[-1] > sorted(counts.values())[-2]  # no tie


def test_multihop_chains_have_one_answer_among_distractors():
    tasks = multihop_tasks(5, [2, 3], [32_000], 3)
    assert [t.question for t in tasks] == [t.question for t in multihop_tasks(
        5, [2, 3], [32_000], 3)]
    for task in tasks:
        text = task.documents[0][1]
        project = re.search(r"the (\w+) project\?", task.question).group(1)
        office = re.search(rf"The {project} project is run by the (\w+) office", text).group(1)
        holder = office
        if task.group.startswith("3"):
            holder = re.search(rf"The {office} office is housed in the (\w+) building",
                               text).group(1)
        code = re.search(rf"The alarm code of the {holder} \w+ is (\d{{4}}-[A-Z])", text)
        assert code.group(1) == task.gold
        codes = set(re.findall(r"\d{4}-[A-Z]", text))
        assert len(codes) == 8 and task.gold in codes  # seven distractor codes
        assert task.score(f"It is {task.gold}.") == 1.0
        assert task.score(f"{task.gold} or {sorted(codes - {task.gold})[0]}") == 0.0
