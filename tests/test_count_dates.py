"""Conditions on dates and empty fields, counted by code (no model call): "returned after
the due date" (two date fields of one record), "before 2012" and "since September" (a date
field against a period), "haven't come back yet" (a field left blank). Files come from real
writers (csv, json); the expected numbers are computed from the rows written, not typed."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import pytest
from strategy_support import assert_counted_by_code, csv_text

from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.corpus.dates import date_of
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally


def _hires(seed: int = 5, n: int = 60) -> list[dict[str, str]]:
    """Equipment hires: some back early, some late, some still out (a blank cell)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        start = date(2025, 7, 1) + timedelta(days=rng.randint(0, 120))
        due = start + timedelta(days=7)
        back = None if rng.random() < 0.25 else due + timedelta(days=rng.randint(-3, 6))
        rows.append({"hire_ref": f"H{i:03d}", "kit": rng.choice(["tent", "stove", "kayak"]),
                     "hired_on": start.isoformat(), "due_date": due.isoformat(),
                     "returned_on": back.isoformat() if back else ""})
    return rows


ROWS = _hires()


def _d(value: str) -> date | None:
    return date.fromisoformat(value) if value else None


@pytest.mark.parametrize(("question", "expected"), [
    ("How many hires came back after the due date?",
     sum(1 for r in ROWS if r["returned_on"] and _d(r["returned_on"]) > _d(r["due_date"]))),
    ("how many hires were returned before their due date",
     sum(1 for r in ROWS if r["returned_on"] and _d(r["returned_on"]) < _d(r["due_date"]))),
    ("how many hires haven't been returned yet", sum(1 for r in ROWS if not r["returned_on"])),
    ("how many hires since October are still not back",
     sum(1 for r in ROWS if not r["returned_on"] and _d(r["hired_on"]) >= date(2025, 10, 1))),
    ("How many hires were taken out before September?",
     sum(1 for r in ROWS if _d(r["hired_on"]) < date(2025, 9, 1))),
])
async def test_date_and_blank_conditions_are_counted_by_code(tmp_path, monkeypatch, question,
                                                             expected):
    await assert_counted_by_code(tmp_path, monkeypatch, {"hires.csv": csv_text(ROWS)}, question,
                                 expected)


def test_a_year_bound_reads_a_field_of_bare_years_in_json_lines():
    rng = random.Random(2)
    refs = [{"id": f"r{i}", "author": f"Author {i}", "year": rng.randint(1995, 2022),
             "kind": rng.choice(["article", "chapter"])} for i in range(40)]
    text = "".join(json.dumps(r) + "\n" for r in refs)
    layout = read_layout([("refs", text)], {"refs": "references.jsonl"})
    for question, keep in [
            ("how many references were published before 2012", lambda y: y < 2012),
            ("how many references are from after 2015", lambda y: y > 2015),
            ("how many references since 2010", lambda y: y >= 2010)]:
        draft = count_draft(question, layout)
        assert route(question, layout)[0] == "count", question
        assert not draft.unknown, (question, draft.unknown)
        assert tally(layout, draft.plan)[1] == sum(keep(r["year"]) for r in refs), question


def test_a_blank_condition_needs_a_record_that_leaves_the_field_blank():
    """"not returned" over a table every row of which was returned names nothing blank: no
    condition is made up (the question goes on to be judged or refused, never counted 0)."""
    rows = [dict(r, returned_on=r["returned_on"] or r["due_date"]) for r in ROWS]
    layout = read_layout([("h", csv_text(rows))], {"h": "hires.csv"})
    assert count_draft("how many hires haven't been returned yet", layout).plan.blank == []


def test_a_row_of_another_table_is_not_blank():
    """Two tables in one export: the rows of the kit table lack `returned_on` because
    they are another table, not because they are still out."""
    some = ROWS[:20]
    out = sum(1 for r in some if not r["returned_on"])
    assert out > 0
    hires = csv_text(some)
    kit = "kit,shelf,deposit\ntent,B1,20\nstove,B2,10\nkayak,Yard,50\n"
    layout = read_layout([("h", hires), ("k", kit)], {"h": "hires.csv", "k": "kit.csv"})
    draft = count_draft("how many hires haven't been returned yet", layout)
    assert draft.plan.blank == ["returned_on"]
    assert tally(layout, draft.plan)[1] == out


@pytest.mark.parametrize(("value", "expected"), [
    ("2026-10-01", date(2026, 10, 1)), ("20261019", date(2026, 10, 19)),
    ("03/10/2026", date(2026, 10, 3)), ("3 Oct 2026", date(2026, 10, 3)),
    ("Oct 3, 2026", date(2026, 10, 3)), ("ABT MAR 1890", date(1890, 3, 1)),
    ("2012", date(2012, 1, 1)), ("2026-10-22T17:03:41+01:00", date(2026, 10, 22)),
    ("145.00", None), ("B-2026-10A", None), ("hello", None),
])
def test_dates_as_records_write_them(value, expected):
    assert date_of(value) == expected
