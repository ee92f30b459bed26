"""Counts a question's words cannot make by matching text: a thing a document writes as the
code its key defines (cells of a register, not lines that say the word), a judgement
("complain about"), a reported claim ("tell members that ..."), and the dates that only
name the period a document covers. The register is generated; the expected numbers are
computed from the cells written, not typed."""

from __future__ import annotations

import random

import pytest
from strategy_support import assert_counted_by_code, csv_text

from rlm_recursive.agent.counting.codes import code_count
from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally

_PUPILS = ["Shah, Priya", "Okafor, Daniel", "Lindqvist, Maja", "Brennan, Tom", "Nowak, Ola",
           "Haddad, Sami"]
_CODES = "PPPPPPALE"


def _register(seed: int = 3) -> tuple[str, dict[str, list[str]]]:
    """A class register for one week: a key, a grid of day cells per pupil, and a note
    that says "absent" and "late" in words (which are no cells)."""
    rng = random.Random(seed)
    grid = {p: [rng.choice(_CODES) for _ in range(5)] for p in _PUPILS}
    lines = ["ASHGROVE PRIMARY - CLASS 4B ATTENDANCE REGISTER",
             "Week beginning Monday 2 June 2025 (2-6 June)", "",
             "KEY:  P = present     A = absent     L = late     E = excused absence", "",
             f"{'Pupil':<20}  Mon  Tue  Wed  Thu  Fri"]
    lines += [f"{pupil:<20}  " + "    ".join(cells) for pupil, cells in grid.items()]
    lines += ["", "Notes: a pupil absent three days running is referred to the office. Late",
              "arrivals after 9.15 are marked A for the morning session by the office."]
    return "\n".join(lines) + "\n", grid


TEXT, GRID = _register()


def _cells(code: str, pupils: list[str] = _PUPILS) -> int:
    return sum(GRID[p].count(code) for p in pupils)


@pytest.mark.parametrize(("question", "expected"), [
    ("how many absences were recorded in class 4B during the 2-6 June week", _cells("A")),
    ("How many late arrivals were there in the attendance register?", _cells("L")),
    ("how many excused absences does the register show", _cells("E")),
])
async def test_a_keyed_code_is_counted_in_the_grid_cells(tmp_path, monkeypatch, question,
                                                         expected):
    assert expected > 0
    await assert_counted_by_code(tmp_path, monkeypatch, {"register_4B_w23.txt": TEXT}, question,
                                 expected)


def test_the_rest_of_the_plan_picks_the_rows_counted():
    """"was Maja Lindqvist late": only her row's cells."""
    layout = read_layout([("r", TEXT)], {"r": "register_4B_w23.txt"})
    question = "how many days was Maja Lindqvist late"
    counted = code_count(question, layout, [("r", TEXT)], count_draft(question, layout).plan)
    expected = _cells("L", ["Lindqvist, Maja"])
    assert (counted.total if counted else 0) == expected


def test_no_key_means_no_code_count():
    """The same grid without its key line: "absences" names no code, nothing is counted."""
    bare = "\n".join(line for line in TEXT.splitlines() if "=" not in line)
    layout = read_layout([("r", bare)], {"r": "register.txt"})
    question = "how many absences were recorded"
    assert code_count(question, layout, [("r", bare)], count_draft(question, layout).plan) \
        is None


_COMMENTS = [
    {"id": str(i), "posted": f"2025-05-{i + 1:02d}", "comment": text}
    for i, text in enumerate([
        "The canteen was lovely, great soup", "Canteen queue far too long at lunch",
        "Loved the garden walk", "Canteen staff were rude to my mother",
        "Parking was easy", "Best canteen scones in the county",
        "Toilets near the canteen were dirty", "Friendly guides in the east wing"])]


@pytest.mark.parametrize("question", [
    "how many visitor comments complain about the canteen",
    "How many comments praise the canteen?",
    "how many comments report a problem with the canteen",
])
def test_a_judgement_is_never_a_text_match(question):
    layout = read_layout([("c", csv_text(_COMMENTS))], {"c": "visitor_comments.csv"})
    draft = count_draft(question, layout)
    assert draft.unknown, draft.plan.describe()
    assert route(question, layout)[0] == "classify"


def test_please_is_politeness_not_a_judgement_of_being_pleased():
    rows = [{"id": str(i), "area": area, "kind": kind} for i, (area, kind) in enumerate(
        [("canteen", "complaint"), ("garden", "praise"), ("canteen", "praise"),
         ("parking", "complaint"), ("canteen", "complaint"), ("toilets", "complaint")])]
    layout = read_layout([("c", csv_text(rows))], {"c": "visitor_comments.csv"})
    question = "Please count the comments about the canteen"
    assert not count_draft(question, layout).unknown
    assert route(question, layout)[0] == "count"
    assert count_draft("how many visitors were pleased with the canteen", layout).unknown


def test_a_reported_claim_is_judged():
    """The bulletins say a closure in their own words: no phrase of the question decides."""
    bulletins = [{"id": str(i), "title": t} for i, t in enumerate([
        "Pool closed for maintenance on Saturday", "The pool will be shut all of next week",
        "Swimming lessons resume", "Gala night: pool closed to the public from 6pm",
        "New lockers fitted", "Sauna out of order"])]
    layout = read_layout([("b", csv_text(bulletins))], {"b": "bulletins.csv"})
    question = "how many bulletins tell members that the pool will be closed"
    assert "tell" in count_draft(question, layout).unknown
    assert route(question, layout)[0] == "classify"


def test_the_period_a_document_covers_is_no_condition_on_its_items():
    """"during the 2-6 June week" over a register headed with that week: neither "June" nor
    "6" is a word each counted item must hold."""
    layout = read_layout([("r", TEXT)], {"r": "register_4B_w23.txt"})
    plan = count_draft("how many absences were recorded in class 4B during the 2-6 June week",
                       layout).plan
    assert plan.months == []
    assert not any(p.isdigit() for p in plan.phrases), plan.phrases


def _posts(seed: int = 8) -> list[dict[str, str]]:
    rng = random.Random(seed)
    authors = ["Sam Reid (Editor)", "Cllr Ann Bose", "Joe Park", "Lena Ortiz (Editor)"]
    return [{"id": f"p{i}", "author": rng.choice(authors),
             "title": rng.choice(["Bin day moved", "Editor's note on the fete", "Hall hire"]),
             "status": rng.choice(["on loan", "returned", "on loan", "lost"]),
             "acquired_by": rng.choice(["gift", "purchase", "bequest"])} for i in range(30)]


POSTS = _posts()


@pytest.mark.parametrize(("question", "expected"), [
    # A role inside the author's value; the feed is what the file is, not a word it says.
    ("how many of the posts in the feed were written by the editor",
     sum("(Editor)" in p["author"] for p in POSTS)),
    ("How many posts have the status on loan right now?",
     sum(p["status"] == "on loan" for p in POSTS)),
    ("how many posts in the village export came in as bequests",
     sum(p["acquired_by"] == "bequest" for p in POSTS)),
])
def test_scope_words_select_no_records(question, expected):
    layout = read_layout([("f", csv_text(POSTS))], {"f": "village_posts.csv"})
    draft = count_draft(question, layout)
    assert not draft.unknown, draft.unknown
    assert route(question, layout)[0] == "count"
    assert tally(layout, draft.plan)[1] == expected, draft.plan.describe()


def test_a_rate_word_names_no_field_its_stem_begins():
    """"the total yearly premium" over records with a year column sums no years."""
    rows = [{"ref": f"r{i}", "acquired_year": str(1990 + i), "value": str(100 * i)}
            for i in range(10)]
    layout = read_layout([("r", csv_text(rows))], {"r": "objects.csv"})
    assert route("What's the total yearly premium for the Hearthstone policy?",
                 layout)[0] != "count"
    assert route("What is the total of acquired years over the objects?", layout)[0] == "count"


def test_a_field_named_by_a_sentence_is_not_named_by_its_function_words():
    """Fields named by a step's words ("the order total should be") are numeric; "the" in
    "the lowest visibility" or "the total premium" names none of them."""
    rows = [{"scenario": f"S{i}", "the order total should be": f"{20 + i}.50",
             "the discount line should read": f"{i}.00"} for i in range(8)]
    layout = read_layout([("s", csv_text(rows))], {"s": "checkout_steps.csv"})
    assert route("What was the lowest visibility Aberdeen reported on the morning?",
                 layout)[0] != "count"
    assert route("What's the total yearly premium for the Hearthstone home policy?",
                 layout)[0] != "count"
    assert route("what is the lowest order total over the scenarios", layout)[0] == "count"


def test_initials_name_a_tag():
    """"marked as waiting on customer" over tasks tagged "#woc": the tag its initials spell."""
    rng = random.Random(4)
    tasks = [{"task": f"T-{i}", "title": f"Task {i}",
              "labels": rng.choice(["#woc", "#woc #billing", "#urgent", "", "#billing"])}
             for i in range(40)]
    layout = read_layout([("t", csv_text(tasks))], {"t": "tasks.csv"})
    question = "how many tasks are marked as waiting on customer"
    draft = count_draft(question, layout)
    assert route(question, layout)[0] == "count"
    assert tally(layout, draft.plan)[1] == sum("#woc" in t["labels"] for t in tasks)
