"""Answers read across a report's two tables, and the clause or label that says what is
asked: a sample's result in the column headed by its number, "Report No." for a report's
reference number, a bullet's wrapped lines as one entry, and the words after a question's
stranded "tuned to" / "reset to"."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.corpus.asked import label_says, label_words
from rlm_recursive.corpus.grid_columns import column_link as grid_link
from rlm_recursive.corpus.wrapping import logical_lines
from tests.strategy_support import ask, load, search_answer, small_runtime

SOIL = """\
                    GREENACRE AGRONOMY LABORATORY
                    SOIL ANALYSIS REPORT

Report No.        : GAL/7731-B
Customer          : Thornbury Estates (Ms P. Vance)
Customer ref.     : SPRING SAMPLING - FIELDS 4 TO 7
Received          : 03/03/2027

Samples received
----------------
Lab No.     Field / location                   Depth    Texture
GA-5520     Field 4, Long Acre (north end)     0-15cm   clay loam
GA-5521     Field 5, Windmill Hill             0-15cm   sandy loam
GA-5522     Field 6, Church Meadow             0-15cm   silty clay
GA-5523     Field 7, Long Acre (south end)     0-15cm   clay loam

Results (air-dried, <2mm fraction)

Determinand        Units        5520     5521     5522     5523
pH (water)         pH units     6.1      7.2      5.8      6.4
Phosphorus (P)     mg/l         14       31       9        22
Potassium (K)      mg/l         162      240      118      190
Magnesium (Mg)     mg/l         88       61       104      95

Index values and lime advice follow on page 2.
"""

DIARY = """\
Boiler round - week 12

Mon 15 Mar
 - 08.30  Mr & Mrs Adeyemi, 4 Rose Lane, Hexby. Combi boiler
   (Worcester, 2014). System pressure reset to 1.4 bar after bleeding two
   radiators. Flue checked. £75 paid card.
 - 11.00  Hexby Scout Hut. Annual service, pressure left at 1.1 bar. Invoice to
   the district treasurer.

Tue 16 Mar
 - 09.15  Mrs O'Leary, 12 Mill Row. No heating. Diverter valve sticking, freed.
"""




def test_a_sample_result_is_read_in_the_column_headed_by_its_number():
    found = grid_link("What was the potassium level in the Windmill Hill field?", [("d", SOIL)])
    assert found is not None
    assert (found.value, found.label, found.code) == ("240", "Potassium (K)", "5521")


def test_two_samples_the_question_describes_alike_give_no_column():
    # "Long Acre" is two samples' location: which column is asked cannot be told.
    assert grid_link("phosphorus for Long Acre clay loam", [("d", SOIL)]) is None



def test_a_short_term_is_not_cut_as_camel_case():
    assert "ph" in label_words("pH")
    assert {"max", "replica"} <= label_words("maxReplicas")


def test_a_label_ending_no_names_the_number_of_the_thing_asked_of():
    question = "What is the reference number of the soil analysis report for Thornbury?"
    assert label_says(question, "Report No.")
    assert "number" not in label_words("No. of items")



def test_a_bullet_s_indented_lines_carry_it_on():
    lines = DIARY.split("\n")
    spans = logical_lines(DIARY, 0, lines)
    entry = next(DIARY[a:b] for a, b in spans if "Adeyemi" in DIARY[a:b])
    assert "1.4 bar" in entry and "£75" in entry and "Scout" not in entry



ROUNDS = "\n".join(
    f" - {9 + i % 8:02d}.{(i * 7) % 60:02d}  {name}, {street}. Gutter clear"
    + (". No charge, neighbour's favour." if i % 5 == 0 else f". £{30 + i} cash.")
    for i, (name, street) in enumerate(zip(
        ["Mr Abbot", "Mrs Begum", "Dr Cole", "Ms Dunn", "Mr Evans", "Mrs Faulk", "Mr Gray",
         "Ms Hale", "Mr Ince", "Mrs Joyce", "Mr Kerr", "Ms Lamb"],
        ["Ash Row", "Birch Way", "Cedar Ct", "Dale Rd", "Elm St", "Fir Lane", "Gorse Hill",
         "Hawk Rd", "Iris Way", "Jay St", "Kiln Lane", "Lark Rise"], strict=True)))


def test_a_negation_the_items_write_as_no_charge_is_judged_not_counted():
    from rlm_recursive.agent.routing import route
    from rlm_recursive.corpus.records import read_layout

    layout = read_layout([("d", ROUNDS)], {"d": "rounds.txt"})
    strategy, why = route("How many jobs were not charged for?", layout, [ROUNDS])
    # Counting the jobs that lack the word "charged" would count them all but none.
    assert strategy == "classify", why


EQUINE = """\
  OAKRIDGE EQUINE LABORATORY - CUMULATIVE RESULTS
  Patient: "Marigold" (mare, 14y)          Owner: Mrs T. Ashdown
  -----------------------------------------------------------------
  Sample no.        VH-2201      VH-2245      VH-2290
  Taken             02-Feb-27    09-Feb-27    16-Feb-27
  -----------------------------------------------------------------
  ELECTROLYTES                                        Ref range
  Sodium            138          136          139     132-146
  Potassium         3.9          6.2 H        4.1     2.8-4.5
  Chloride          99           101          100     95-105

  Comments
  1. Sample VH-2245: haemolysed in transit, potassium may be falsely raised.
  2. Repeat bloods booked for March.
"""



QUEUES = """\
$ queue-stats --describe --all
VHOST        QUEUE              SHARD  READY     UNACKED  BACKLOG   CONSUMER-TAG           NODE
orders       orders.created     0      1200      3        41        orders-worker-1        rabbit-1
orders       orders.created     1      1180      2        38        orders-worker-2        rabbit-2
orders       orders.created     2      1211      0        44        orders-worker-1        rabbit-1

VHOST        QUEUE              SHARD  READY     UNACKED  BACKLOG   CONSUMER-TAG           NODE
invoicing    invoice.render     0      310       1        9120      invoice-renderer-1     rabbit-3
invoicing    invoice.render     1      305       0        8874      invoice-renderer-2     rabbit-3
invoicing    invoice.render     2      298       4        9311      invoice-renderer-1     rabbit-3
"""


def test_a_total_sums_the_column_named_next_to_its_cue_where_the_header_names_others():
    from rlm_recursive.agent.counting.table_rows import summed_rows

    found = summed_rows("Total backlog across all shards of the invoice-renderer consumer queue?",
                        [("q", QUEUES)], [])
    assert found is not None
    assert (found.column, found.value) == ("BACKLOG", 9120 + 8874 + 9311)


PICKS = """\
=====================================================
 NORTHGATE FULFILMENT - Pick & Despatch Export
 Client: Brindle Tea Co.   Generated 02/03/2027 08:00
=====================================================
""" + "\n".join(f"""
Order: NF-{5100 + i}        Channel: {channel}
Customer ref: BT-{900 + i}          Weight: {weight} kg    Lines: {1 + i % 3}
Ship to:     {town}
  01/03/2027 09:{10 + i:02d}  Bay 4      Picked
  01/03/2027 11:{20 + i:02d}  Dock 2     Despatched""" for i, (channel, weight, town) in enumerate([
    ("Web", "1.20", "Harrowgate"), ("Wholesale", "12.50", "Linby"), ("Web", "0.85", "Ossett"),
    ("Marketplace", "2.10", "Redcar"), ("Web", "3.05", "Selby")])) + "\n"


def test_blocks_opened_by_a_key_line_are_records_with_every_pair_of_their_lines():
    from rlm_recursive.corpus.records import read_layout

    layout = read_layout([("p", PICKS)], {"p": "picks.txt"})
    orders = [r for r in layout.records if "Order" in r.fields]
    assert len(orders) == 5
    assert orders[1].fields["Weight"] == "12.50 kg" and orders[1].fields["Customer ref"] == "BT-901"


def test_of_two_fields_sharing_a_question_word_the_asked_noun_s_answers():
    from rlm_recursive.agent.answers.record_answer import field_asked
    from rlm_recursive.corpus.records import Record

    folio = "Room: 214   Nights: 3   Rate: GBP 88.00 per night"
    record = Record("f", 0, len(folio), folio, {"Room": "214", "Nights": "3",
                                                "Rate": "GBP 88.00 per night"})
    assert field_asked("nightly rate for room 214", record) == ("Rate", "GBP 88.00 per night")


def test_records_of_key_blocks_are_counted_and_summed(tmp_path: Path, monkeypatch: Any):
    from tests.strategy_support import no_model

    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, PICKS)
        counted, _ = asyncio.run(ask(runtime, sid, "How many orders came in on the Web channel?",
                                     "auto", no_model))
        summed, _ = asyncio.run(ask(runtime, sid, "What is the combined weight of all orders?",
                                    "auto", no_model))
    finally:
        runtime.close()
    assert counted.answer.startswith("3 "), counted.answer
    assert summed.answer.startswith("19.7"), summed.answer


DIVES = """\
DIVE LOG - transcribed, book 2
 DATE      SITE            BOAT      MAX   TIME  GAS    REMARKS
           -------------   -------   ---   ----  -----  -------
 Carried forward from book 1                  41:20
 02/05/27  Wreck of Hawk   Seaspray  28m   41    EAN32  good vis
 09/05/27  Gull Reef       Seaspray  18m   55    air    current
 16/05/27  Wreck of Hawk   Tern II   30m   38    EAN28  cold at depth
"""


def test_a_ruled_table_with_an_unruled_first_column_and_a_carried_total_has_rows():
    from rlm_recursive.corpus.rows import ruled_rows

    rows = ruled_rows(DIVES)
    assert [r[2]["DATE"] for r in rows] == ["02/05/27", "09/05/27", "16/05/27"]
    assert rows[2][2]["BOAT"] == "Tern II" and rows[0][2]["SITE"] == "Wreck of Hawk"


def test_a_name_the_report_never_says_picks_no_dated_column():
    assert grid_link("Buttercup's sodium on 9 February 2027", [("d", EQUINE)]) is None


def test_a_polite_opening_and_a_name_after_the_noun_leave_the_asked_noun():
    from rlm_recursive.corpus.asked import asked_phrase

    assert asked_phrase("Could you tell me what start number Ada Finch wore?") == ["start",
                                                                                 "number"]
    assert asked_phrase("What is the total VAT on the bill?") == ["total", "vat"]



ROOFER = """\
PIKE & SON ROOFING - DAY BOOK
Kennel licence for the yard dog: licence no. KEN/22/0917, 18 kennels on the list

Wed 3 Mar
------------------------------------------------------------
 - 08:30  Mrs Ruth Ames, 7 Holly Lane, Brackby
     Ridge tiles slipped, two cracked.  Photos taken.
     Quoted ridge re-bed + 2 tiles, £860 (quote R-22).  £45 call-out, card.
 - 13:00  Mr Ian Pike, 12 Mill Road
     Gutter clear.  £60 cash.
"""

GAS = """\
RECORD No. GS-114     Property: Flat 6, 3 Dock Street
Tenant: Ms Okafor     Date: 04/03/2027
Defects: cooker hood fan seized.
Remedial action: fan isolated.  Landlord to replace cooker hood.
"""


def test_a_count_of_things_a_year_a_sum_or_a_house_number_answer_no_number_or_quote():
    from rlm_recursive.agent.answers.kinds import fits_kind, fits_kind_in

    line = "Kennel licence for the yard dog: licence no. KEN/22/0917, 18 kennels on the list"
    assert not fits_kind_in("What is the kennel licence number?", "18", line)
    assert not fits_kind("What is the permit number?", "PERMIT REGISTER (spring 2027)")
    assert fits_kind("When does the last number 12 bus reach Hale?", "time: 1906")
    assert not fits_kind("Which certificate number was issued?", "No cert.: £110")
    assert not fits_kind("What did the roofer quote Mr Pike?", "13:00 Mr Ian Pike, 12 Mill Road")
    assert fits_kind("What did the roofer quote Mrs Ames?", "£860 (quote R-22)")



def test_a_date_of_an_act_still_to_come_is_not_found(tmp_path: Path, monkeypatch: Any):
    from rlm_recursive.agent.answers.kinds import only_intended

    assert only_intended("When was the cooker hood in Flat 6 replaced?", GAS)
    assert not only_intended("When was the cooker hood in Flat 6 replaced?",
                             GAS.replace("Landlord to replace", "Landlord replaced"))
    result = search_answer(tmp_path, monkeypatch, GAS, "On what date was the cooker hood in Flat 6 "
                                              "replaced?")
    assert result.grounded is False, result.answer


def test_the_person_the_question_names_is_not_whom_it_asks_for_a_middle_name():
    from rlm_recursive.agent.answers.kinds import fits_kind

    question = "Who read the lesson at the funeral of the man buried beside Edith Marlow?"
    assert not fits_kind(question, "Edith Rose MARLOW")
    assert fits_kind(question, "Revd Aled Pryce")


RACE = """\
HILLSIDE HARRIERS - 5K PARKLAND RACE - RESULTS

Pos  No   Name               Club                  Time
---  ---  -----------------  --------------------  -----
 1   112  Tomasz Wierzba     Hillside Harriers     16:40
 2   87   Priya Anand        Vale Runners          17:02
 3   140  Cormac Dunleavy    Hillside Harriers     17:15
 4   95   Edith Marr         Vale Runners          17:31
"""

GROUNDED = [
    (SOIL, "What was the pH of the soil at Church Meadow?", "5.8", "6.1"),
    (SOIL, "What is the reference number of the soil analysis report for Thornbury Estates?",
     "GAL/7731-B", "SPRING"),
    (DIARY, "What was the Adeyemi boiler's pressure reset to on Monday?", "1.4", "1.1"),
    (EQUINE, "What potassium result came from the sample that was haemolysed?", "6.2", "3.9"),
    (EQUINE, "Marigold's sodium on 9 February 2027", "136", "138"),
    (RACE, "Can you tell me what race number Cormac Dunleavy was wearing?", "140", "17:15"),
    (ROOFER, "What did the roofer quote Mrs Ames for re-bedding the ridge?", "£860", "£45"),
]
"""A sample's result under its number's column, a report's number for its reference, the
words after a stranded "reset to", a comment's specimen, a dated column, a column headed
"No" alone, and a timed entry's indented line: each read by code and grounded."""


@pytest.mark.parametrize(("text", "question", "wanted", "unwanted"), GROUNDED)
def test_read_by_code_and_grounded(tmp_path: Path, monkeypatch: Any, text: str,
                                   question: str, wanted: str, unwanted: str):
    result = search_answer(tmp_path, monkeypatch, text, question)
    assert result.grounded is True, result.answer
    assert wanted in result.answer and unwanted not in result.answer
