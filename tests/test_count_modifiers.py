"""The counted noun's modifiers are conditions ("the billing chores", "damaged parcels"): only
the noun itself may go when the records never say it, and a modifier goes only when a
heading above the counted records says it. Dropping one counted every record of the place
the question names, "counted exactly" and wrong. Texts are written here; no model is asked."""

from __future__ import annotations

import random
from pathlib import Path

from rlm_recursive.agent.routing import _states_number, count_draft, route
from rlm_recursive.bench import written
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally

_AREAS = ("billing", "garden", "kitchen", "car")


def _chores(seed: int) -> tuple[str, list[tuple[str, str]]]:
    rng = random.Random(seed)
    chores = [(rng.choice(("open", "closed", "parked")), rng.choice(_AREAS)) for _ in range(30)]
    lines = ["House jobs, spring list", "Status words: open, parked, closed.", ""]
    lines += [f"- [{state}] {rng.choice(('Sort', 'Fix', 'Chase', 'Check'))} item {i} "
              f"+{area}" for i, (state, area) in enumerate(chores)]
    return "\n".join(lines) + "\n", chores


def test_a_modifier_of_the_counted_noun_stays_a_condition():
    for seed in range(3):
        text, chores = _chores(seed)
        layout = read_layout([("c", text)], {"c": "jobs.txt"})
        draft = count_draft("count the billing chores that are marked open", layout)
        gold = sum(state == "open" and area == "billing" for state, area in chores)
        assert tally(layout, draft.plan)[1] == gold, draft.plan.describe()


def _depots() -> str:
    rows = ["Parcel depots - week 47", ""]
    for depot, n in (("Kirkby", 6), ("Ormskirk", 7)):
        rows += [f"{depot} round {k} - {20 + k} parcels out and {18 + k} delivered"
                 for k in range(n)]
    rows += ["", "Returns - 3 parcels came back damaged; claim 4471 raised by the office."]
    return "\n".join(rows) + "\n"


def test_a_plan_left_with_only_the_place_is_no_exact_count():
    layout = read_layout([("d", _depots())], {"d": "depot_sheet.txt"})
    question = "number of damaged parcels in Kirkby"
    draft = count_draft(question, layout)
    total = tally(layout, draft.plan)[1]
    # "damaged" and "parcels" say what is counted: a plan of "kirkby" alone is refused.
    assert "damaged" in draft.plan.describe() or draft.unknown, draft.plan.describe()
    assert total == 0 or route(question, layout)[0] != "count"


def test_a_modifier_a_heading_says_may_go():
    lines = ["PUMP HOUSE 3 - LOG", "", "SECTION 1 - MONTHLY CHECKS", "Date   Pump  Result  By"]
    results = ["PASS" if k % 3 else "FAIL" for k in range(18)]
    lines += [f"{k + 1:02d}/26  P{k % 4}    {r}    {'AK' if k % 2 else 'JT'}"
              for k, r in enumerate(results)]
    layout = read_layout([("p", "\n".join(lines) + "\n")], {"p": "pumps.txt"})
    draft = count_draft("how many monthly checks were marked FAIL", layout)
    assert tally(layout, draft.plan)[1] == results.count("FAIL"), draft.plan.describe()


def _slips() -> str:
    slips = []
    for name, extra in (("ADA", "Late check-out"), ("BEN", "Parking"), ("CY", "Late check-out"),
                        ("DEV", "Parking"), ("EVE", "Breakfast"), ("FIN", "Late check-out")):
        slips.append(f"RIVERSIDE INN  ·  Company No. 0918 77\n             GUEST SLIP\n"
                     f"Guest: {name}\nRoom charge 80.00\n{extra} charge 15.00\n")
    return "\n".join(slips)


def test_a_number_ending_one_line_states_no_count_of_the_next():
    # "... No. 0918 77" over "GUEST SLIP": no text states how many guests there are.
    layout = read_layout([("s", _slips())], {"s": "slips.txt"})
    question = "how many guests were charged for a late check-out"
    assert route(question, layout)[0] == "count"
    assert tally(layout, count_draft(question, layout).plan)[1] == 3


def test_a_number_a_sentence_wraps_onto_the_next_line_still_states_the_count():
    # The dev part's minutes: "... reported 1,284\nvisiting yachts in April." is one
    # sentence, so the question is a look-up, not a count.
    minutes = (Path(written.__file__).parent / "data" / "written" / "dev"
               / "board_minutes.txt").read_text()
    layout = read_layout([("m", minutes)], {"m": "board_minutes.txt"})
    assert _states_number("How many visiting yachts did the harbour master report for April?",
                          layout)
    # A heading under a number that ends a line is no count of it.
    slips = read_layout([("s", _slips())], {"s": "slips.txt"})
    assert not _states_number("how many guests were charged for a late check-out", slips)


def test_a_comparison_with_no_number_is_judged_not_found_as_a_word():
    lines = ["Pupil: Ola   Note: reading is below the class average this term"]
    lines += [f"Pupil: Ola   Subject: S{k}   Target: {5 + k % 2}   Now: {4 + k % 3}"
              for k in range(8)]
    layout = read_layout([("r", "\n".join(lines) + "\n")], {"r": "report.txt"})
    draft = count_draft("in how many subjects is Ola working below her target", layout)
    assert "below" in draft.unknown, draft.plan.describe()
