"""The record a question describes by what it says, and the field it asks of it."""

from __future__ import annotations

from rlm_recursive.corpus.described import asked_phrase, described_field
from rlm_recursive.corpus.record_units import table_units

_CHECKS = """\
BOILER HOUSE - PRESSURE VESSEL CHECKS
Each Friday a different relief valve (RV) is lifted by hand; the duty fitter signs.

Week of     Vessel   RV     Fitter          Notes
----------  -------  -----  --------------  --------------------------------------
03/03/2025  PV-1     RV11   Okafor          fine
10/03/2025  PV-1     RV12   Lindqvist       gauge glass cracked, replaced same day
17/03/2025  PV-2     RV21   Okafor          drain cock dripping; washer renewed
24/03/2025  PV-2     RV22   Marchetti       fine
31/03/2025  PV-3     RV31   Lindqvist       low-water alarm slow to sound, reported

Annual inspection booked for June.
"""

_SLIPS = """\
REMITTANCE ADVICE BATCH 14
=======================================================================
Supplier ref  SUP-0071        Name: Harbour Paints Ltd
Invoice       Amount
INV 2231      1,204.00
Early settlement discount    -24.08
=======================================================================
Supplier ref  SUP-0102        Name: Quayside Timber
Invoice       Amount
INV 9012      880.50
=======================================================================
Supplier ref  SUP-0144        Name: Dunmore Fixings
Invoice       Amount
INV 0441      96.12
=======================================================================
"""


def test_a_row_described_by_its_notes_answers_the_asked_column() -> None:
    found = described_field("which relief valve was lifted in the week the gauge glass "
                            "cracked", [("checks", _CHECKS)])
    assert found is not None and found.value == "RV12"
    assert found.label == "RV"  # named as the text declares it: "relief valve (RV)"


def test_a_column_asked_in_plain_words_over_a_described_row() -> None:
    found = described_field("name of the fitter who reported the low-water alarm slow "
                            "to sound", [("checks", _CHECKS)])
    assert found is not None and found.value == "Lindqvist"


def test_a_record_between_rules_described_by_one_of_its_lines() -> None:
    found = described_field("supplier ref of whoever got an early settlement discount",
                            [("batch", _SLIPS)])
    assert found is not None and found.value == "SUP-0071"


def test_a_description_no_record_says_picks_nothing() -> None:
    assert described_field("which relief valve was lifted in the week the boiler "
                           "flooded", [("checks", _CHECKS)]) is None


def test_a_description_two_records_say_equally_picks_nothing() -> None:
    # "fine" is the note of two weeks: neither is the one described.
    assert described_field("which fitter signed in the week everything was fine and "
                           "nothing was noted", [("checks", _CHECKS)]) is None


def test_a_label_the_question_gives_a_value_of_is_not_asked() -> None:
    # "RV22" is given; the fitter is asked, the valve is not.
    found = described_field("which fitter lifted valve RV22 in the week noted fine",
                            [("checks", _CHECKS)])
    assert found is not None and (found.label, found.value) == ("Fitter", "Marchetti")


def test_what_is_asked_must_be_all_of_the_label() -> None:
    # "discount amount" is not the invoice's "Amount" column of a slip.
    assert described_field("settlement discount amount of Quayside Timber",
                           [("batch", _SLIPS)]) is None


def test_the_asked_phrase() -> None:
    assert asked_phrase("which call point was used for the test") == ["call", "point"]
    assert asked_phrase("name of the engineer who repaired it") == ["engin"]
    assert asked_phrase("employee number of whoever pays") == ["employe", "number"]
    assert asked_phrase("who repaired it") == []


def test_rows_under_a_ruled_header_are_split_where_the_rule_divides() -> None:
    rows = table_units("checks", _CHECKS)[0]
    assert len(rows) == 5
    assert dict((label, value) for label, value, *_ in rows[1].fields)["Fitter"] == \
        "Lindqvist"


_CARDS = """\
HILLTOP KENNELS - boarding cards, week 12

CARD 301 | in Mon 17/03 | out Fri 21/03
  Dog: Biscuit (beagle, 6y)
  Owner: R. Ambrose
  Diet: dry food twice a day
  Run: R4 | walker TESS

CARD 302 | in Tue 18/03 | out Sun 23/03
  Dog: Moss (collie cross, 3y)
  Owner: J. Kettering
  Diet: raw, no chicken - allergic
  Run: R7 | walker DAN

CARD 303 | in Wed 19/03 | out Thu 20/03
  Dog: Pip (terrier, 11y)
  Owner: S. Varga
  Diet: soft food only, heart tablet with breakfast
  Run: R2 | walker TESS
"""


def test_a_card_between_blank_lines_described_by_one_of_its_lines() -> None:
    found = described_field("which run is the dog with the chicken allergy in",
                            [("cards", _CARDS)])
    assert found is not None and (found.label, found.value) == ("Run", "R7")
    assert described_field("owner of the dog on heart tablets", [("cards", _CARDS)]
                           ).value == "S. Varga"


def test_a_card_no_line_describes_answers_nothing() -> None:
    assert described_field("which run is the dog that needs eye drops in",
                           [("cards", _CARDS)]) is None


_FINISHERS = """\
Pos  Boat                 Club                   Elapsed   Notes
---  -------------------  ---------------------  --------  ------------------------
1    Kestrel              Wyre Sailing Club      01:12:40
2    Tern II              Fleetwood SC           01:14:05
3    Merganser            Wyre Sailing Club      01:15:51  oldest boat racing
4    Dunlin               Heysham YC             01:16:30
"""


def test_a_row_picked_by_its_place_must_say_that_place() -> None:
    # "placed third" is the Pos column's 3; the row that says "boat" in its notes is not
    # the third boat by its words, so no row is described.
    assert described_field("Which club does the boat placed fourth sail for?",
                           [("results", _FINISHERS)]) is None
    found = described_field("which club does the oldest boat racing sail for",
                            [("results", _FINISHERS)])
    assert found is not None and found.value == "Wyre Sailing Club"
