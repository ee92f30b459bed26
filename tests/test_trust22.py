"""Records people keep and reports programs print, read as people ask of them: a diary's
lesson rows, a register in another language, a standings sheet's right-set numbers, a job
history, a day's invoice lines under one heading; words a prefix changes ("pre-test"),
irregular verbs ("sold"), rates by a slash ("$3.10/lb"), headers cut short ("HDCP")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.corpus.asked import asked_phrase, label_says
from rlm_recursive.corpus.evidence import Unit, best_units
from rlm_recursive.corpus.grid_tables import grid_rows, grids
from rlm_recursive.corpus.record_fields import _own_lines, record_field
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.units import consonants_of, stems
from tests.strategy_support import counted_by_code, search_answer

LESSON_DIARY = """\
DRIVING LESSONS - diary, March 2026  (instructor: Orla Keane)

Mon 2 Mar
 09:00-10:00  Tomasz Wrona      EDT 4   roundabouts, mock test route B  €40 card
 11:00-12:00  Saoirse Lynch     pre-test  reversing, hill start  €45 cash
 14:00-15:00  Tomasz Wrona      EDT 5   €40 card

Wed 4 Mar
 10:00-11:00  Saoirse Lynch     pre-test (2/4)
 12:00-13:00  Declan Moyles     EDT 1   first lesson  €40 cash
 16:30-17:30  Tomasz Wrona      EDT 6   €40 card

Mon 9 Mar
 09:00-10:00  Tomasz Wrona      EDT 7   €40 card
 12:00-13:00  Declan Moyles     EDT 2   €40 cash
 15:00-16:00  Saoirse Lynch     pre-test (3/4) -- block done. test 19 Mar 11:45 Finglas

Wed 11 Mar
 10:00-11:00  Declan Moyles     EDT 3   €40 cash
 14:00-15:00  Tomasz Wrona      EDT 8   €40 card

Tests booked:
   Saoirse Lynch      19 Mar 11:45  Finglas   (car hire €90 paid)
"""

FARRIER_BOOK = """\
REGISTRO LAVORI - maniscalco Bruno Ferrante

lun 28/09  Scuderia Il Castagno
  - "Tornado" FA      EUR 120
mar 29/09  Maneggio La Quercia
  - "Stella"  PAR     EUR 45
mer 30/09  Scuderia Il Castagno
  - "Ulisse"  FA      EUR 120

FATTURE SETTEMBRE
  Maneggio La Quercia       - fattura n. 39/2026 del 30/09   EUR    45,00 + IVA
  Scuderia Il Castagno      - fattura n. 38/2026 del 30/09   EUR   240,00 + IVA
  pagato subito (contanti + bonifico)                        EUR   285,00
"""

BERTH_REGISTER = """\
SKOGSVIKENS BÅTKLUBB – bryggplatser 2026

Medl.nr | Namn              | Båt              | Brygga-plats | Betalt
--------+-------------------+------------------+--------------+-------
 0305   | Ingrid Holm       | Vega 27          | C-03         | ja
 0311   | Per Sundqvist     | Comfort 30       | C-04         | nej
 0318   | Maja Ekdahl       | IF-båt           | D-01         | ja
"""

STANDINGS = """\
  WEDNESDAY EARLY BIRDS LEAGUE     week 9 of 28
  Handicap: 90% of 210

  Pl  #  Team Name           Pts Won  Pts Lost
   1  3  Alley Oops            40.0     24.0
   2  1  Strike Force          36.0     28.0
   3  2  Pin Heads             30.0     34.0

  ID   Name                 Sex Team  Gms   Avg  HDCP   Hi Gm
  201  Ron Baxter            M    1    27   188    19     240
  202  Mae Baxter            W    1    27   151    53     199
  203  Vic Dolan             M    2    24   166    39     220   SICK (avg-10 used)
  204  Ida Crowe             W    2    27   173    33     225
  205  Lou Patel             M    3    27   197    11     256
"""

LEAGUE = """\
  THURSDAY TRIOS LEAGUE     week 6 of 30

  ID   Name                 Sex Team  Gms   Avg  HDCP   Hi Gm
""" + "".join(f"  {300 + k}  {name:<20}  {'MW'[k % 2]}    {1 + k % 4}    18   {avg}    "
              f"{max(0, 198 - avg)}     {avg + 40}{note}\n"
              for k, (name, avg, note) in enumerate([
                  ("Ron Baxter", 188, ""), ("Mae Baxter", 151, ""), ("Vic Dolan", 166, ""),
                  ("Ida Crowe", 173, ""), ("Lou Patel", 197, ""), ("Sid Moss", 159,
                                                                   "   SICK (avg-10 used)"),
                  ("Ada Ruiz", 184, ""), ("Kit Lamb", 142, "   SICK (avg-10 used)"),
                  ("Ned Shaw", 181, ""), ("Pat Kerr", 170, ""), ("Ann Voss", 163, ""),
                  ("Ben Tate", 192, "")]))

JOB_HISTORY = """\
PRINT ROOM -- job history (export)   Range: 2026-04-01 .. 2026-04-03

  Job  Start             Printer   User      Mat     Time  Fil(g) Status     Cost
--------------------------------------------------------------------------------
 7701  2026-04-01 09:12  Delta-1   ana.m     PLA     2h10    31.5 completed  1.26
 7702  2026-04-01 13:40  Delta-2   joel      PETG    1h05    12.0 failed     0.48
 7703  2026-04-02 08:02  Delta-1   ana.m     PLA     4h44    88.1 failed     3.52
 7704  2026-04-02 15:30  Delta-1   kirsi     ABS     0h40     6.2 failed     0.25
 7705  2026-04-03 10:00  Delta-2   joel      PLA     3h12    50.7 completed  2.03
 7706  2026-04-03 16:20  Delta-1   kirsi     PLA     1h30    20.0 completed  0.80
"""

SYRUP_NOTES = """\
CEDAR HOLLOW SUGARBUSH - notes 2026

Drums (sold Apr):
   drums 1-2  Amber -> kept for the shop
   drums 3-6  Dark -> sold bulk to Riverside Packers, 12 Apr, $2.95/lb, ticket #RP-1180
   drum 7     off flavour, sold to a buddy at $1.60/lb
"""


def _counted(tmp_path: Path, monkeypatch: Any, text: str, question: str) -> Any:
    """One `auto` run over one text with a model that must not be asked: counted by code."""
    return counted_by_code(tmp_path, monkeypatch, {"doc0.txt": text}, question)


def test_a_pre_test_is_no_test(tmp_path: Path, monkeypatch: Any):
    assert "test" not in stems("pre-test (3/4)") and "test" in stems("mock test")
    assert "total" not in stems("Sub-total 40.00")
    result = search_answer(tmp_path, monkeypatch, LESSON_DIARY,
                           "What time is Saoirse Lynch's driving test?")
    assert result.grounded and "11:45" in result.answer


def test_a_records_rows_that_name_the_pupil_are_its_own_lines():
    # A record read as a fortnight's Wednesdays: its first lines are rows of a list, so a
    # pupil they name is one the record lists, and only the pupil's rows are about them.
    text = LESSON_DIARY
    start = text.index("Wed 4 Mar")
    unit = Unit(0, start, text.index("Tests booked"), text[start:text.index("Tests booked")])
    own = _own_lines(text, unit, {"declan", "moyl"})
    assert own and all("Declan" in text[a:b] for a, b in own)


def test_a_value_on_another_pupils_row_answers_nothing(tmp_path: Path, monkeypatch: Any):
    # Declan has had one lesson: the test booked in that day's rows is Saoirse's.
    assert record_field("When is Declan Moyles's driving test?",
                        [("d", LESSON_DIARY)]) is None
    result = search_answer(tmp_path, monkeypatch, LESSON_DIARY,
                           "When is Declan Moyles's driving test?")
    assert not result.grounded and "19 Mar" not in result.answer


def test_the_row_saying_the_name_beats_a_shorter_sibling_under_the_same_heading():
    scope = "SETTEMBRE / mar 29/09  Maneggio La Quercia / mer 30/09  Scuderia Il Castagno"
    sibling = Unit(0, 0, 70, "  Maneggio La Quercia       - fattura n. 39/2026 del 30/09   "
                             "EUR    45,00 + IVA", scope=scope)
    own = Unit(0, 71, 200, "  Scuderia Il Castagno      - fattura n. 38/2026 del 30/09   "
                           "EUR   240,00 + IVA\n  pagato subito (contanti + bonifico)  "
                           "                      EUR   285,00", scope=scope)
    best = best_units("farrier september invoice number Scuderia Il Castagno", [sibling, own])
    assert best[0][1] is own


def test_the_row_saying_the_name_beats_its_siblings_under_one_heading(
        tmp_path: Path, monkeypatch: Any):
    # Every invoice line sits under the days that name both stables.
    result = search_answer(tmp_path, monkeypatch, FARRIER_BOOK,
                           "farrier september invoice number Scuderia Il Castagno")
    assert result.grounded and "38/2026" in result.answer and "39/2026" not in result.answer


@pytest.mark.parametrize(("question", "value"), [
    ("What's Maja Ekdahl's membership number at Skogsviken?", "0318"),
    ("Which mooring spot does Per Sundqvist have for his Comfort 30?", "C-04"),
])
def test_a_registers_labels_in_its_own_language(tmp_path: Path, monkeypatch: Any,
                                                question: str, value: str):
    result = search_answer(tmp_path, monkeypatch, BERTH_REGISTER, question)
    assert result.grounded and value in result.answer


def test_a_standings_sheet_is_read_by_its_header():
    by_grid = grids("d", STANDINGS)
    # "#" names a column; the row broken by a note keeps the header over the rows after it.
    assert by_grid[0].heads[:3] == ("Pl", "#", "Team Name")
    rows = {fields["Name"]: fields for _, _, fields in grid_rows(STANDINGS) if "Name" in fields}
    assert rows["Ida Crowe"]["Avg"] == "173" and rows["Lou Patel"]["HDCP"] == "11"
    assert rows["Ron Baxter"]["Sex"] == "M" and rows["Ron Baxter"]["Team"] == "1"


def test_bowlers_averaging_a_score_or_better_are_counted_by_code(
        tmp_path: Path, monkeypatch: Any):
    result = _counted(tmp_path, monkeypatch, LEAGUE,
                      "In the Thursday trios league, how many bowlers are averaging 180 or "
                      "better?")
    # Ron 188, Lou 197, Ned 181, Ben 192, and Ada 184, whose row stands alone between two
    # notes.
    assert result.grounded and result.exact and result.answer.startswith("5 ")


@pytest.mark.parametrize(("short", "word", "meant"), [
    ("hdcp", "handicap", True), ("bldg", "building", True), ("pmt", "payment", True),
    ("avg", "average", True), ("hdcp", "hardship", False), ("rm", "room", False),
    ("pts", "past", False),
])
def test_a_header_written_in_consonants(short: str, word: str, meant: bool):
    assert consonants_of(short, word) is meant


def test_a_bowlers_handicap_and_average_so_far(tmp_path: Path, monkeypatch: Any):
    assert label_says("What is Lou Patel's handicap?", "HDCP")
    assert asked_phrase("Could you tell me Mae Baxter's average so far this season?") == [
        "averag"]
    result = search_answer(tmp_path, monkeypatch, STANDINGS,
                           "Could you tell me Ida Crowe's bowling average so far this season?")
    assert result.grounded and "173" in result.answer


def test_a_job_historys_rows_are_named_by_its_header(tmp_path: Path, monkeypatch: Any):
    layout = read_layout([("d", JOB_HISTORY)])
    row = next(r for r in layout.records if "7703" in r.text)
    # A number's header may start left of it ("Fil(g)" over " 88.1"): two columns, not one.
    assert row.fields["Fil(g)"] == "88.1" and row.fields["Status"] == "failed"
    assert row.fields["Printer"] == "Delta-1"


def test_the_words_describing_the_document_select_no_items(tmp_path: Path, monkeypatch: Any):
    result = _counted(tmp_path, monkeypatch, JOB_HISTORY,
                      "number of failed prints on Delta-1 in the three-day print room export")
    assert result.grounded and result.exact and result.answer.startswith("2 ")
    assert "three" not in result.answer


def test_sold_at_a_price_per_pound(tmp_path: Path, monkeypatch: Any):
    assert {"sell", "per", "pound"} <= set(stems("sold at $2.95/lb"))
    assert "per" not in stems("0400-0800 3/E  Fuel valve change good.")  # the third engineer
    assert "gallon" in stems("syrup: 33.5 gal")
    result = search_answer(tmp_path, monkeypatch, SYRUP_NOTES,
                           "At what price per pound were the bulk drums sold to Riverside "
                           "Packers?")
    assert result.grounded and "2.95" in result.answer and "1.60" not in result.answer


RESULTS = """\
SplitTime 3.2   Split times                                       Printed 2026-06-07 15:10
Lindgrove OK - Club Championship, middle distance
Date: 2026-06-07   Arena: Lindgrove school

W21  (Women 21)  4,1 km, 9 controls
Pl   Name                    Club           Time
1.   Elin Borg               Lindgrove OK   29:40
2.   Hanna Vik               Norrby SK      31:02
"""

WATER_SPLIT = """\
CONDOMINIO VIA DEI PINI 4 - ripartizione acqua 2025

Sc. Int.  Condomino                 Matricola    Lett.prec  Lett.att  Cons.mc    TOTALE  N.
-------------------------------------------------------------------------------------------
A   A01   BERTOLI Marco             SNS4410021        512       590       78    121,40
A   A02   FERRARI Lucia             MDD7730154        208       260       52     88,15  R
A   A03   GALLO Piero               SNS2219870        660       771      111    170,92
"""

ROUND_BOOK = """\
BRIGHTPANE - round book, November

WED 4 NOV - Orchard Close + Mill Gardens
 3 Mill Gdns        Mrs Hale         F/B        £16   pd cash
 5 Mill Gdns        Dr Osei          F/B + C&F  £36   pd BT
St Anne's Hall       (parish)         all ext.   £44   invoice to parish office,
                                                   PO no. SAH/2026/41
 9 Orchard Close    Mr Quinn         F/O        £11   pd cash
"""


def test_the_line_under_a_programs_banner_names_the_document(tmp_path: Path, monkeypatch: Any):
    from rlm_recursive.corpus.doc_titles import document_names

    assert "Lindgrove OK - Club Championship" in document_names(RESULTS)
    result = search_answer(tmp_path, monkeypatch, RESULTS,
                           "Which club does Hanna Vik run for at the Lindgrove OK championship?")
    assert result.grounded and "Norrby SK" in result.answer


def test_a_runners_time_is_a_time_not_her_club(tmp_path: Path, monkeypatch: Any):
    from rlm_recursive.agent.answers.kinds import fits_kind

    asked = "What was Hanna Vik's time at the Lindgrove OK club championship?"
    assert fits_kind(asked, "Time: 31:02") and fits_kind(asked, "1 h 02 min")
    assert not fits_kind(asked, "2.: Norrby SK")
    assert fits_kind("Is there a time zone on the Lindgrove sheet?", "CET")
    result = search_answer(tmp_path, monkeypatch, RESULTS, asked)
    assert "Norrby" not in result.answer


def test_a_header_set_over_other_columns_is_read_where_its_words_sit(
        tmp_path: Path, monkeypatch: Any):
    row = next(f for _, _, f in grid_rows(WATER_SPLIT) if "FERRARI Lucia" in f.values())
    assert row["Condomino"] == "FERRARI Lucia" and row["Matricola"] == "MDD7730154"
    result = search_answer(tmp_path, monkeypatch, WATER_SPLIT,
                           "water meter serial no. for Lucia Ferrari's flat")
    assert result.grounded and "MDD7730154" in result.answer


def test_a_street_written_short_and_a_note_typed_off_its_column(
        tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, ROUND_BOOK,
                           "How much does the window cleaner charge Dr Osei in Mill Gardens?")
    assert result.grounded and "£36" in result.answer and "£16" not in result.answer
    result = search_answer(tmp_path, monkeypatch,
                           ROUND_BOOK + "\nOrder of the round: east first.\n",
                           "purchase order no. for the St Anne's Hall window job")
    assert result.grounded and "SAH/2026/41" in result.answer


def test_a_slot_starts_at_its_time():
    from rlm_recursive.corpus.naming import contains

    assert contains("11:30-12:30 conor fahy", "11:30")
    assert not contains("10:30-11:30 laura byrne", "11:30")
    assert not contains("11:300", "11:30")


def test_members_who_have_not_paid_are_the_no_of_a_yes_no_column(
        tmp_path: Path, monkeypatch: Any):
    rows = "\n".join(f" {300 + k:04d}   | Member {k:<10} | Boat {k:<11} | C-{k:02d}         | "
                     f"{'nej' if k % 4 == 1 else 'ja' if k % 7 else ''}"
                     for k in range(1, 15))
    register = BERTH_REGISTER.split("\n 0305")[0] + "\n" + rows + "\n"
    result = _counted(tmp_path, monkeypatch, register, "how many boat club members hadn't paid yet")
    # Members 1, 5, 9 and 13 wrote "nej"; 7 and 14 left the column blank (not known).
    assert result.grounded and result.exact and result.answer.startswith("4 ")


def test_no_seed_time_is_the_code_the_sheet_writes_for_it(tmp_path: Path, monkeypatch: Any):
    seeds = ["31.20", "NT", "33.05", "NT", "29.88", "32.40", "NT", "30.15"]
    sheet = ("Event 5  Girls 11-12 50 LC Meter Butterfly\n"
             "    Name                    Age Team        Seed Time  Finals Time\n"
             + "".join(f"  {k + 1} Swimmer, Name{k:<12}  12 LKHD-ON   {seed:>9}      "
                       f"{34 + k}.{k}0\n" for k, seed in enumerate(seeds))
             + "Legend: NT = no time  DQ = disqualified\n")
    result = _counted(tmp_path, monkeypatch, sheet, "how many swimmers had no seed time (NT)")
    assert result.grounded and result.exact and result.answer.startswith("3 ")
    assert "≠" not in result.answer and "blank" not in result.answer
