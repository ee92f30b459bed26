"""Grounding that accepts what a grid's row and heading say together, and refuses the rest:
a date given by a row's day number under a month heading ("6 SA" under "MARCH 2027"), a
weekday as "SA" or "Sundays", a route named by its heading ("ROUTE 12B --- SUNDAYS");
answers narrowed to the asked field (a date without its clock time, "lab (Name)")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlm_recursive.agent.answers.answer_form import as_answer
from rlm_recursive.agent.answers.sides import other_end
from rlm_recursive.agent.copied_check import verify_extract
from rlm_recursive.corpus.dates import day_row_date, month_heading, weekday_named
from rlm_recursive.corpus.evidence import best_units, split_units
from rlm_recursive.corpus.naming import entities, says
from rlm_recursive.corpus.units import normalise
from tests.strategy_support import search_answer

LAMP = """\
KESTREL POINT LIGHT - LAMP LOG
Schedule for MARCH 2027. Times are local (GMT).

Keeper notes are kept in the office ledger, not here.

DAY      LIT    OUT
 5 FR    1812   0615
 6 SA    1814   0612
 7 SU    1816   0610
"""

BUS = """\
MOORCROFT COMMUNITY BUSES
ROUTE 12 / 12B   Quarry Road - Dale End

ROUTE 12B  ---  SUNDAYS

Quarry Road (Stop 3)     0910  1110  1310  1510
Mill Square              0918  1118  1318  1518
Dale End                 0931  1131  1331  1531

ROUTE 12  ---  SUNDAYS

Quarry Road (Stop 3)     0840  1040  1240
Mill Square              0848  1048  1248
Dale End                 0901  1101  1301
"""

COACH = """\
HALDANE VALLEY MOTOR SERVICES
=====================================================================
ROUTE 31 / 31C   Haldane - Infirmary - Wrenby - Oxley Green
Timetable valid from Monday 4 January 2027 until further notice
=====================================================================

Times shown are departure times. | = bus does not serve this stop.

ROUTE 31  ---  MONDAY TO FRIDAY
                                X                             S
Haldane Interchange (Bay 2)     0610  0710  0810  0910  1010  1510  1710
Corn Street                     0614  0714  0814  0914  1014  1514  1714
Wrenby Park & Ride                |   0726  0826  0926  1026  1526    |
Oxley Green                     0640  0740  0840  0940  1040  1540  1740

ROUTE 31  ---  SUNDAYS

Haldane Interchange (Bay 2)     0730  0930  1130  1330  1530  1750
Corn Street                     0734  0934  1134  1334  1534  1754
Wrenby Park & Ride                |   0946  1146  1346  1546    |
Oxley Green                     0800  1000  1200  1400  1600  1822

ROUTE 31C  ---  SUNDAYS

Haldane Interchange (Bay 4)     0900  1100  1300
Corn Street                     0904  1104  1304
Oxley Green                     0931  1131  1331

SATURDAYS
  No route 31 or 31C. A dial-a-ride service covers the valley.

FARES
  Adult single ......................... £2.00
  Day ticket, 31/31C ................... £4.20

NOTES
  1. Corn Street stop is outside the library.
  2. Wrenby Park & Ride is open 0700-1730 daily. Journeys after 1730 (and the
     first Sunday journey) pass the P&R entrance without calling.
"""




def test_a_row_day_under_the_month_heading_grounds_the_date(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, LAMP,
                  "what time was the lamp lit at Kestrel Point on Sat 6 Mar")
    assert result.grounded is True, result.answer
    assert "1814" in result.answer and "1812" not in result.answer


def test_a_route_named_by_its_heading_grounds_the_cell(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, BUS,
                  "what time does the first 12B leave Quarry Road on sundays")
    assert result.grounded is True, result.answer
    assert "0910" in result.answer


def test_the_grid_cell_wins_over_a_note_naming_the_route_only_by_its_scope(
        tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, COACH,
                  "When does the last Sunday number 31 get into Oxley Green?")
    assert result.grounded is True, result.answer
    assert "1822" in result.answer and "1730" not in result.answer


def test_another_route_or_weekday_is_not_found(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, BUS,
                  "what time does the first 12C leave Quarry Road on sundays")
    assert result.grounded is False
    result = search_answer(tmp_path, monkeypatch, LAMP,
                  "what time was the lamp lit at Kestrel Point on Sun 6 Mar")
    assert result.grounded is False


def test_the_month_line_and_the_weekday_must_agree():
    row = " 6 SA    1814   0612"
    assert day_row_date(row, "Schedule for MARCH 2027.") == (6, 3, 2027)
    assert day_row_date(" 6 TU    1814", "Schedule for MARCH 2027.") is None  # not a Tuesday
    assert day_row_date(row, "Logs for March 2027 and April 2027") is None  # two months
    assert day_row_date(row, "valid from 1 March 2027") is None  # a day, not a table's month
    assert day_row_date("Bay 6   1814", "Schedule for MARCH 2027.") is None
    assert month_heading("you may 2027 go")is None


def test_verify_extract_reads_the_date_from_the_row_and_the_month_line():
    question = "what time was the lamp lit at Kestrel Point on Sat 6 Mar"
    above = "KESTREL POINT LIGHT - LAMP LOG\nDAY      LIT    OUT"
    row = " 6 SA    1814   0612"
    assert verify_extract(question, "LIT: 1814", row, "", above=above,
                          dated="Schedule for MARCH 2027.")
    # Without the month line, or under another month's, the date is not said.
    assert not verify_extract(question, "LIT: 1814", row, "", above=above)
    assert not verify_extract(question, "LIT: 1814", row, "", above=above,
                              dated="Schedule for APRIL 2027.")
    # Another place's heading: the entity the question names is not said.
    assert not verify_extract(question.replace("Kestrel Point", "Gannet Head"), "LIT: 1814",
                              row, "", above=above, dated="Schedule for MARCH 2027.")


def test_weekday_forms_and_order_words():
    assert weekday_named("SA") == 5 and weekday_named("Sundays") == 6
    assert weekday_named("t") is None and weekday_named("S") is None
    assert says(normalise("ROUTE 12 --- SUNDAYS"), "sunday")
    assert says(normalise(" 6 SA  1814"), "saturday")
    assert not says(normalise("the keeper had sa lunch"), "saturday")  # no day number beside
    assert entities("When does the last Sunday number 12 get into Dale End?")[-1] == "12"
    assert "12b" in entities("what time does the first 12B leave Quarry Road")
    assert other_end("when does the last bus leave", "the first journey does not call")
    assert not other_end("when does the last bus leave", "first and last buses call")


def test_a_date_asked_is_answered_without_its_clock_time():
    assert as_answer("On what date was the harvest notice posted?",
                     "posted: Mon, 14 Sep 2026 07:30:00 +0100") == "posted: Mon, 14 Sep 2026"
    assert as_answer("what date was the batch logged", "2026-09-14T07:30:00Z") == "2026-09-14"
    # Asked with the time, or a plain "when", the answer stays whole.
    assert as_answer("what date and time was the batch logged",
                     "2026-09-14T07:30:00Z") == "2026-09-14T07:30:00Z"


def test_a_word_and_its_bracketed_name_give_the_asked_field():
    line = "11:20 KP Mr Idris Vance 02/03/1961 Bridge fit 40 Booked kiln (Hollybank Works) Fri"
    assert as_answer("which kiln is firing Mr Vance's bridge", line) == "kiln: Hollybank Works"
    # Two bracketed names under the asked word: nothing tells which, the line stays whole.
    both = ("11:20 KP Mr Idris Vance 02/03/1961 40 Booked kiln (Hollybank Works) "
            "then kiln (Ashgrove Works) Fri")
    assert as_answer("which kiln is firing Mr Vance's bridge", both) == both


DAY_SHEET = """\
THERAPISTS
  KP  Dr Kim Park - Room 4
  JO  Jo Okafor - Room 6
TYPE KEY: Rev = review; Asmt = assessment

==============================================================================
BRAMBLE PHYSIO CLINIC          DAY SHEET            Tue 12/01/2027
==============================================================================
TIME   THR PATIENT                TYPE          MIN  STATUS    NOTES
------------------------------------------------------------------------------
09:00  JO  Mr Idris Vance         Assessment     45  Arrived   knee, post-op week 6
10:20  KP  Mrs Lena Ortiz         Rev            30  Arrived   shoulder
11:00  KP  Mr Idris Vance         Hydro          30  Booked    after assess. pool slot
"""


def test_a_key_line_gives_the_asked_thing_for_the_rows_code(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, DAY_SHEET,
                  "Which room was Mr Idris Vance's assessment held in?")
    assert result.grounded is True, result.answer
    assert "Room 6" in result.answer and "Room 4" not in result.answer


def test_a_key_giving_another_thing_is_not_read(tmp_path: Path, monkeypatch: Any):
    # The key gives rooms, not wards: no room is offered as the ward.
    result = search_answer(tmp_path, monkeypatch, DAY_SHEET,
                  "Which ward was Mr Idris Vance's assessment held in?")
    assert "Room" not in result.answer


def test_a_unit_saying_the_word_whole_beats_a_shorter_one_abbreviating_it():
    question = "Which room was Mrs Ines Grey's assessment held in?"
    units = split_units([
        "09:00  JO  Mrs Ines Grey   Assessment   45  Arrived   knee, post-op week 6, painful",
        "11:00  KP  Mrs Ines Grey   Hydro   30  Booked   after assessm. pool slot"])
    assert best_units(question, units, 1)[0][1].text.startswith("09:00")
