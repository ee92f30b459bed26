"""Scoped look-up: the labelled line of the section, item or grid row the question names."""

from __future__ import annotations

from strategy_support import ask, first_excerpt_line, load

from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.scopes import labelled_lines, scoped_value

# A fleet cover note: two vehicles, each on its own ruled page, the same labels on both.
FLEET = """\
ORCHARD LANE MOTOR POLICY
Fleet cover note

Holder ........... Brightwater Joinery Ltd, Hexham
Renewal .......... 1 August 2026

*****************************************************************
   VEHICLE 1 OF 2
*****************************************************************
Registration: NK71 OPX   Ford Transit Custom van, garaged at Hexham
Use: carriage of own goods

   Windscreen excess ................. GBP 90
   Theft excess ...................... GBP 400
   Courtesy vehicle .................. 14 days

*****************************************************************
   VEHICLE 2 OF 2
*****************************************************************
Registration: YD19 KLM   Volvo XC60 estate car, garaged at Alnwick
Use: social, domestic and commuting

   Windscreen excess ................. GBP 120
   Theft excess ...................... GBP 250
   Courtesy vehicle .................. 7 days
"""

# A ward rota: a block per nurse, a grid of shift codes under day columns.
ROTA = """\
WARD 4 NURSING ROTA   week commencing 2 June

================================================================
NURSE: Priya SOLANKI      Band 6      Team: Blue
----------------------------------------------------------------
            Mon02  Tue03  Wed04  Thu05  Fri06
  shift      E      L      OFF    N      N
  base       W4     W4     -      W7     W7
================================================================
NURSE: Tomas BREEN        Band 5      Team: Red
----------------------------------------------------------------
            Mon02  Tue03  Wed04  Thu05  Fri06
  shift      L      L      E      OFF    E
  base       W4     W2     W4     -      W4
"""

# A booking's guests: numbered items, each item's lines indented under it.
BOOKING = """\
Guest list for booking RX-2207, contact harris.mcleod@example.org

        GUESTS
        --------------------------------------------------
        1. MCLEOD/HARRIS MR
           Loyalty number 88 1200 4471
           Room type: twin
        2. MCLEODS/ANNA JANE MRS
           Loyalty number 88 1200 4472
           Dietary note: no shellfish
"""

PRICES = """\
Harbour ferry fares

   Adult return ............ 6.40
   Senior return ........... 4.10
   Child single ............ 1.90
"""


def _answer(question: str, *docs: str) -> str | None:
    found = scoped_value(question, [(f"d{i}", text) for i, text in enumerate(docs)])
    return None if found is None else found[1].value


def test_the_page_whose_opening_lines_name_the_place_answers():
    assert _answer("theft excess on the Alnwick car", FLEET) == "GBP 250"
    assert _answer("Windscreen excess for the van garaged at Hexham", FLEET) == "GBP 90"
    # The holder's town is in the front both pages share: the page that says it wins.
    assert _answer("How many days of courtesy vehicle for the Volvo?", FLEET) == "7 days"


def test_a_grid_cell_is_its_row_label_and_its_column_header():
    assert _answer("which shift is Tomas Breen on on Tue 3rd", ROTA) == "L"
    assert _answer("what base is Priya Solanki at on thu the 5th", ROTA) == "W7"
    cells = [line for line in labelled_lines(ROTA) if line.label == "shift"]
    assert {line.column for line in cells} >= {"Mon 02", "Fri 06"}


def test_an_item_opens_the_scope_of_the_lines_indented_under_it():
    assert _answer("What is Anna Jane McLeods's loyalty number?", BOOKING) == "88 1200 4472"
    # "McLeod" is another guest than "McLeods", though the contact line says mcleod.
    assert _answer("What is the dietary note for Harris McLeod?", BOOKING) is None


def test_a_word_said_elsewhere_in_the_document_is_not_left_unsaid():
    # "child" picks another line: the adult fare is no answer.
    assert _answer("how much is a child return", PRICES) is None
    assert _answer("how much is a senior return", PRICES) == "4.10"


def test_a_sentence_holding_a_colon_is_no_labelled_line():
    prose = ("Notes\n\nThe warden said: 42 boats were moored by Friday. Nobody else "
             "counted them that week.\n")
    assert labelled_lines(prose) == ()


async def test_the_scoped_value_is_grounded_and_a_missing_page_is_not_found(small_rt):
    sid = load(small_rt, FLEET, ROTA)
    result, _ = await ask(small_rt, sid, "theft excess on the Alnwick car", "search",
                          first_excerpt_line)
    assert "250" in result.answer and "400" not in result.answer and result.grounded
    result, _ = await ask(small_rt, sid, "theft excess on the Morpeth car", "search",
                          first_excerpt_line)
    assert result.answer == NOT_FOUND and result.grounded is False


def test_a_word_thousands_of_labels_say_alike_picks_none_out():
    readings = "Meter log\n\n" + "".join(f"Meter {i} reading ........ {i * 7 % 1000} kWh\n"
                                          for i in range(2500))
    assert _answer("what is the meter 1204 reading", readings) is None
    assert _answer("what is the meter 1204 reading", readings[:4000]) is None  # 1204 not there
    assert _answer("what is the meter 12 reading", readings[:4000]) == "84 kWh"
