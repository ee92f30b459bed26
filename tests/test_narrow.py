"""An answer line narrowed to the one value asked (`corpus.narrow`), and a sibling's line
never grounding an answer about this entity (`evidence.named_after`): pure text checks, then
the search strategy with the fake model end to end."""

from __future__ import annotations

import pytest
from strategy_support import answers, ask, load, small_runtime

from rlm_recursive.agent.answers.extractive import Extract, extract
from rlm_recursive.corpus.evidence import check_support
from rlm_recursive.corpus.narrow import narrowed, narrowed_in_line
from rlm_recursive.corpus.siblings import outscoped

SPECS = ("Battery life (quiet / normal / turbo) ...... 11 / 8 / 3 h   "
         "(PRO edition: 16 h in quiet)")


@pytest.mark.parametrize(("question", "value", "not_said"), [
    ("battery life of the basic model in quiet mode", "11", ("8", "3", "16")),
    ("how long does the battery last on turbo", "3", ("11", "8", "16")),
    ("battery life of the PRO edition in quiet mode", "16", ("11", "8", "3")),
])
def test_a_list_aligned_with_its_labels_list_gives_the_item_asked(question, value, not_said):
    out = narrowed(question, SPECS)
    assert out is not None and value in out.split()
    assert not any(other in out.split() for other in not_said)


def test_the_list_as_it_is_when_the_question_names_no_item():
    out = narrowed("what is the battery life", "Battery life (quiet / turbo) .... 11 / 3 h")
    assert out is not None and "11" in out and "3" in out


def test_the_value_after_the_asked_label_of_several_on_a_line():
    line = "Fee: €42.50   Seats: 120   Opened: 1998"
    assert narrowed("what is the fee", line) == "Fee: €42.50"
    assert narrowed("how many seats", line) == "Seats: 120"


def test_a_labelled_aside_gives_the_asked_value():
    line = "14/09/2023  inspection   km 80,114   inspector: R. Malone (badge 3318)"
    assert narrowed("what is R. Malone's inspector badge", line) == "badge 3318"  # as written


def test_an_old_value_in_brackets_is_dropped_unless_asked():
    line = "Ticket: $64.00 (was $80.00)"
    assert narrowed("ticket price", line) == "Ticket: $64.00"
    assert "80.00" in (narrowed("what was the ticket price before", line) or "")


def test_the_value_after_the_questions_preposition():
    line = "BX/7/2   1890-1912   Parish tithe maps   SEALED until 2031   3 rolls"
    assert narrowed("until what year are the tithe maps sealed", line) == "until 2031"


def test_several_values_of_the_kind_asked_and_nothing_to_tell_them_apart_is_no_answer():
    assert narrowed("what year were the tithe maps made",
                    "Parish tithe maps 1890 and 1912, 3 rolls") is None
    assert narrowed("what does a season pass cost", "Season pass £120 or £95 in May") is None


@pytest.mark.parametrize("line", [
    "Heparin infusion at 900 units/hr",
    "The meeting is at 14:00 on 3 March 2024",
    "Parking permit: 7 days",
])
def test_a_line_with_one_value_or_no_competing_kind_is_kept(line):
    assert narrowed("what is it", line) == line


def test_a_clause_is_narrowed_by_the_line_it_was_cut_from():
    unit = "Engine  Battery life (quiet / turbo) ..... 11 / 3 h"
    assert narrowed_in_line("battery life on turbo", "11 / 3 h", unit) == "Battery life: 3 h"
    assert narrowed_in_line("battery life", "Gearbox", unit) == "Gearbox"


PAGE = ("ORCA 3 Trail Camera\n\n"
        "Price: £89.00  (was £99.00)   Stars: 4.1 / 5 from 9 reviews\n"
        "Also offered: ORCA 3 MAX (code OC-3M), priced £129.00, with a night lens and\n"
        "a longer strap.\n")


def test_a_value_is_not_an_entity_s_when_only_a_later_line_names_it_with_its_own():
    assert not check_support("£89.00", "price of the ORCA 3 MAX", [PAGE]).supported
    assert check_support("£129.00", "price of the ORCA 3 MAX", [PAGE]).supported


def test_of_several_lines_the_one_naming_the_entity_with_a_value():
    assert narrowed("price of the ORCA 3 MAX", PAGE.split("\n\n", 1)[1]) == (
        "Also offered: ORCA 3 MAX (code OC-3M), priced £129.00, with a night lens and")


@pytest.fixture
def shop(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    return runtime, load(runtime, "Field notes.\n\n" + PAGE + "\nDelivery in 3 days.\n")


async def test_the_siblings_price_line_said_back_is_never_a_grounded_answer(shop):
    runtime, sid = shop
    line = "Price: £89.00  (was £99.00)   Stars: 4.1 / 5"
    result, _ = await ask(runtime, sid, "price of the ORCA 3 MAX", "search",
                          answers(line, reasked=line))
    assert "89.00" not in result.answer or result.grounded is False
    assert result.grounded is False or "129.00" in result.answer


GARAGE = """RIVERSIDE CYCLES - WORKSHOP CARD
Customer: J. Ambrose

==========================================================
BIKE A
Frame: Dawes Galaxy touring, steel, 56 cm
Colour: forest green
==========================================================
** 02/02/2025   full service   chain 0.5 % worn
   NEXT SERVICE DUE: 02/02/2026
** 10/06/2025   puncture       rear tube
==========================================================
BIKE B
Frame: Brompton C Line folding, 6 speed
Colour: lagoon blue
==========================================================
** 14/03/2025   full service   hub gears adjusted
   NEXT SERVICE DUE: 14/09/2025
** 01/08/2025   brake pads     front and rear
"""


def test_a_siblings_line_gives_way_to_the_line_scoped_by_the_named_thing():
    first = GARAGE.index("NEXT SERVICE DUE: 02/02/2026")
    second = GARAGE.index("NEXT SERVICE DUE: 14/09/2025")
    asked = "when is the brompton next due a service"
    assert outscoped(asked, "02/02/2026", GARAGE, first, first + 30)
    assert not outscoped(asked, "14/09/2025", GARAGE, second, second + 30)
    # Naming neither bike tells no line from the other.
    assert not outscoped("when is the next service due", "02/02/2026", GARAGE, first,
                         first + 30)


async def test_the_extract_is_the_named_bikes_own_line(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, GARAGE)
    found = extract(runtime.store, sid, "when is the brompton next due a service", None)
    assert isinstance(found, Extract) and "14/09/2025" in found.answer


def test_a_labelled_aside_is_not_taken_when_the_line_says_its_label_itself():
    line = "Extension 4410. Her deputy is Rhys Pugh (extension 4417)."
    assert narrowed("what is the extension of the estates manager", line) == line


def test_what_time_takes_the_clock_time_of_a_listing_line():
    line = "09:45   7712/2025   Ms Ada Quist  v  Harbour Stores Ltd   Room 2"
    assert narrowed("what time is Ada Quist's hearing", line) == "09:45"
    # Two times nothing tells apart stay as they are, for grounding to judge.
    assert narrowed("what time is the talk", "Talk 10:00 to 11:30, room 4") == (
        "Talk 10:00 to 11:30, room 4")
