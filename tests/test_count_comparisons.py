"""Count plans that say what is counted: a numeric comparison with its unit ("under $1,500
complete", "70 points or more", "between 50 and 60 points") over a laid-out price list or a
results table; a question's words that spell a label (`Ship Week/s: 14`) matched with that
label's value only; a figure a sentence states routed to a look-up; and a plan that names
only a place refused rather than counted. The documents are written here; the expected
numbers come from the rows written. No model call."""

from __future__ import annotations

import contextlib
import random

import pytest
from strategy_support import ask, csv_text, load, never_asked, small_runtime

from rlm_recursive.agent.counting.plan_words import stated_comparisons
from rlm_recursive.agent.counting.table_rows import compared_rows
from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.corpus.records import read_layout

BIKES = {  # section: (model, frame price, complete price or None)
    "ROAD": [("Kestrel 105", 690, 1390), ("Kestrel Ultegra", 880, 2150),
             ("Osprey Disc", 720, 1480), ("Osprey Aero Carbon", 1650, 3990),
             ("Tern Alloy Sora", 410, 899)],
    "GRAVEL": [("Harrier GRX 400", 640, 1299), ("Harrier GRX 600", 640, 1649),
               ("Merlin Ti", 1890, None), ("Merlin Steel Adventure", 520, 1180),
               ("Dunnock Flat-bar", 380, 949), ("Skua Carbon", 1400, 2890)],
}


def _price_list() -> str:
    lines = ["OWL & WHEEL CYCLES", "Spring price list (all prices in USD, tax included)", ""]
    for section, rows in BIKES.items():
        lines += ["=" * 62, f" {section:<44}frame  complete", "=" * 62]
        for i, (model, frame, complete) in enumerate(rows, 1):
            cell = f"{complete:,}" if complete else "-"
            lines.append(f" {i:>2}  {model:<38}{frame:>5}  {cell:>8}")
            if i % 2:
                lines.append("       ask in store for sizes")
        lines.append("")
    lines += ["Servicing: a full service is 95, a safety check 25.", ""]
    return "\n".join(lines)


def _results(seed: int = 7, n: int = 60) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [{"entrant": f"E{i:03d}", "club": rng.choice(("Northside", "Harbour", "Vale")),
             "points": str(rng.randint(30, 99))} for i in range(n)]




PARTS = [("Brass hinge, 40 mm", "Shipped", "14", "12"), ("Oak dowel pack", "Held", "15", "14"),
         ("Steel bracket", "Shipped", "16", "14"), ("Linseed oil 1 L", "Picking", "14", "16"),
         ("Beeswax polish", "Shipped", "12", "15"), ("Cabinet knob, black", "Held", "14", "14"),
         ("Pine board 2 m", "Picking", "15", "14")]


def _inventory() -> str:
    blocks = []
    for n, (name, stage, ship, ret) in enumerate(PARTS, 1):
        blocks.append(f"(P-{300 + n}) {name}\nStage: {stage}        Bin: C{n}\n"
                      f"Ship Week/s: {ship}        Return Week/s: {ret}\n"
                      f"Notes: counted on the last stock take\n")
    return "Stockroom export, 7 parts\n\n" + "\n".join(blocks)


@pytest.fixture
def rt(tmp_path, monkeypatch):
    with contextlib.closing(small_runtime(tmp_path, monkeypatch)) as runtime:
        yield runtime


@pytest.mark.parametrize(("question", "op", "value", "unit"), [
    ("how many gravel bikes cost under $1,500 complete", "<", 1500, "$"),
    ("entrants with 70 points or more", ">=", 70, "points"),
    ("parcels at most 2.5 kg", "<=", 2.5, "kg"),
    # "below the 6.5 lower limit": the number after "the" is still what is compared with.
    ("how many hives had a varroa count above the 3 per day threshold", ">", 3, "per"),
])
def test_a_comparison_is_read_with_its_number_and_unit(question, op, value, unit):
    (said,) = stated_comparisons(question)
    assert (said.op, said.value, said.unit) == (op, value, unit)


def test_between_is_two_inclusive_ends():
    low, high = stated_comparisons("how many scored between 50 and 60 points")
    assert (low.op, low.value, high.op, high.value) == (">=", 50, "<=", 60)


async def test_a_price_lists_rows_counted_by_the_named_column(rt):
    sid = load(rt, _price_list())
    result, fake = await ask(rt, sid, "How many gravel bikes are under $1,500 complete?",
                             "auto", never_asked)
    want = sum(1 for _, _, c in BIKES["GRAVEL"] if c is not None and c < 1500)
    assert result.strategy == "count" and not fake.requests
    assert result.answer.startswith(f"{want} — counted exactly by code")
    result, _ = await ask(rt, sid, "how many road bikes have a frame price of 700 or more",
                          "auto", never_asked)
    assert result.answer.startswith(
        f"{sum(1 for _, f, _ in BIKES['ROAD'] if f >= 700)} — counted exactly by code")


def test_a_table_refuses_what_it_cannot_say():
    text = _price_list()
    # No column named, or a condition no heading or row says: nothing counted.
    assert compared_rows("how many gravel bikes are under $1,500", [("d", text)], []) is None
    assert compared_rows("how many folding bikes are under $1,500 complete",
                         [("d", text)], []) is None


async def test_a_results_table_compared_with_a_suffix_and_a_range(rt):
    rows = _results()
    sid = load(rt, csv_text(rows))
    for question, keep in [
        ("How many entrants scored 70 points or more?", lambda p: p >= 70),
        ("how many Vale entrants got between 50 and 60 points",
         None),
    ]:
        result, _ = await ask(rt, sid, question, "auto", never_asked)
        if keep is None:
            want = sum(r["club"] == "Vale" and 50 <= int(r["points"]) <= 60 for r in rows)
        else:
            want = sum(keep(int(r["points"])) for r in rows)
        assert result.answer.startswith(f"{want} — counted exactly by code"), result.answer


async def test_a_comparison_nothing_holds_is_never_left_out(rt):
    # Prices in running text, no column: "under £90" cannot be counted by code, and the
    # rooms on floor 1 are not the answer.
    sid = load(rt, "\n\n".join(f"Room {i}: a double room on floor {i % 3}, £{60 + 10 * i} a "
                               "night." for i in range(8)))
    result, _ = await ask(rt, sid, "how many rooms on floor 1 are under £90 a night",
                          "count", never_asked)
    assert result.answer.startswith("Not counted"), result.answer


async def test_a_label_the_question_spells_matches_its_own_value(rt):
    sid = load(rt, _inventory())
    result, _ = await ask(rt, sid, "number of parts scheduled for ship week 14", "auto",
                          never_asked)
    want = sum(ship == "14" for _, _, ship, _ in PARTS)
    assert result.strategy == "count"
    assert result.answer.startswith(f"{want} — counted exactly by code"), result.answer
    layout = read_layout([("d", _inventory())])
    draft = count_draft("number of parts scheduled for ship week 14", layout)
    assert not draft.plan.filters  # not Stage=Shipped
    assert [(f.field, f.value) for f in draft.plan.labelled] == [("Ship Week/s", "14")]


NOTICE = """LANTERN SAFETY NOTICE

The battery door of some Glowmoth camping lanterns may come loose.
We have received 6 reports of loose battery doors, all of them from Norway.

About 4,200 affected lanterns were shipped to retailers in Denmark and 310 to retailers in
Finland. Lanterns shipped after March are not affected.

Customers in Finland can call 0800 000 111 for a free replacement door.

Customers in Denmark can call 0800 000 222 for a free replacement door.

Shops in Finland have been asked to remove the lanterns from display.

Please keep your receipt if you have one.
"""


def test_a_stated_figure_is_looked_up_not_counted():
    layout = read_layout([("d", NOTICE)])
    question = "how many of the lanterns were shipped to Finland"
    assert route(question, layout, [NOTICE])[0] == "search"
    # Nothing states a figure for what this asks: not sent to a look-up by that rule.
    assert route("how many of the lanterns broke in Finland", layout, [NOTICE])[0] != "search"


async def test_a_plan_naming_only_a_place_is_refused(rt):
    sid = load(rt, NOTICE)
    result, _ = await ask(rt, sid, "how many of the lantern door reports came from finland",
                          "count", never_asked)
    assert "counted exactly" not in result.answer
    assert result.answer.startswith("Not counted")


async def test_a_value_in_a_tables_first_rows_is_a_condition_not_its_title(rt):
    rows = [{"lot": f"L{i}", "seller": ("trade", "private")[i % 3 == 0],
             "hammer": str(100 + 37 * i)} for i in range(12)]
    from strategy_support import load_named
    sid = load_named(rt, {"auction_lots.csv": csv_text(rows),
                          "viewing_notes.txt": "Viewing days are Friday and Saturday.\n"})
    result, _ = await ask(rt, sid, "What is the average hammer of the private lots?", "auto",
                          never_asked)
    private = [int(r["hammer"]) for r in rows if r["seller"] == "private"]
    assert "seller=private" in result.answer, result.answer
    assert float(result.answer.split(" — ")[0].replace(",", "")) == sum(private) / len(private)


def test_a_place_inside_a_named_document_marks_its_items():
    from rlm_recursive.agent.counting.scope_only import scope_only
    from rlm_recursive.corpus.tally import TallyPlan
    layout = read_layout([("d", NOTICE)])
    question = "how many of the lantern door reports came from finland"
    assert scope_only(question, TallyPlan(phrases=["finland"]), layout)
    # "questions from the floor during the briefing": the named document's items counted.
    assert not scope_only(question, TallyPlan(phrases=["finland"], docs=["d"]), layout)
