"""The value where a grid row the question names crosses the column it asks (`grid_cells`),
and the refusals: two rows fit, no column is named, the cell is blank, two cells fit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlm_recursive.agent.lookups.record_hops import grid_crossing
from rlm_recursive.corpus.grid_cells import grid_cell
from rlm_recursive.corpus.grid_tables import grids
from tests.strategy_support import load, small_runtime

ROTA = """\
BRIGHTWATER HEALTH CENTRE - CLINIC ROTA, WEEK 14

Clinician        Mon          Tue          Wed           Thu
Dr Osei          Room 4       Room 2       -             Room 4
Dr Lindqvist     Room 1       -            Room 3        Room 1
Nurse Achterberg  Room 6      Room 6       Room 5        -
Dr Osei-Bonsu    Room 7       Room 7       Room 7        Room 8
"""

TRAINS = """\
VALE LINE - SUNDAY SERVICE (from 4 October)

Calder Junction     0812  1012  1212  1412  1612  1812
Mill Lane           0821  1021  1221  1421  1621  1821
Upper Wharf         0830  1030  1230  1430    |   1830
Hobb's Crossing     0842  1042  1242  1442  1642  1842

VALE LINE - SATURDAY SERVICE

Calder Junction     0742  0942  1142  1342
Mill Lane           0751  0951  1151  1351
Upper Wharf         0800  1000  1200  1400
Hobb's Crossing     0812  1012  1212  1412
"""

WELLS = """\
RIVER ASHFORD GAUGE - READINGS FOR MARCH 2027
Levels in metres at the weir board.

DAY      CLOCK  LEVEL   CLOCK  LEVEL   CLOCK  LEVEL
------------------------------------------------------

 2 TU    0310   2.1    0930   0.8    1540   2.4
 3 WE    0405   0.7    1120   2.6    1705   0.9
 4 TH    0450   2.3    1200   0.6    1750   2.5
"""

PRICES = """\
KILNWORKS STUDIO - FIRING CHARGES

| Kiln      | Bisque | Glaze  | Raku   |
|-----------|--------|--------|--------|
| Small     | 6.50   | 8.00   | 11.00  |
| Medium    | 9.50   | 12.00  |        |
| Large     | 14.00  | 17.50  | 21.00  |
"""


def _ask(question: str, *texts: str) -> str | None:
    found = grid_cell(question, [(f"d{i}", t) for i, t in enumerate(texts)])
    return found.value if found else None


def test_columns_of_a_rota_are_named_from_its_header():
    (rota,) = grids("d", ROTA)
    assert rota.heads == ("Clinician", "Mon", "Tue", "Wed", "Thu")
    assert [c.text for c in rota.rows[0].cells] == ["Dr Osei", "Room 4", "Room 2", "-",
                                                    "Room 4"]


def test_row_and_column_cross():
    assert _ask("which room is Dr Lindqvist in on Wed", ROTA) == "Room 3"


def test_the_row_named_most_closely_wins():
    # "Osei" is said by two rows; "Bonsu" only by one.
    assert _ask("which room is Dr Osei-Bonsu in on Thu", ROTA) == "Room 8"


def test_two_rows_fit_equally_gives_nothing():
    # "Dr Osei" and "Dr Osei-Bonsu" both say all the question says.
    assert _ask("which room is Dr Osei in on Mon", ROTA) is None


def test_a_blank_cell_gives_nothing():
    assert _ask("which room is Dr Lindqvist in on Tue", ROTA) is None


def test_no_column_named_gives_nothing():
    assert _ask("which room is Dr Lindqvist in", ROTA) is None


def test_timetable_heading_picks_the_table_and_first_or_last_the_journey():
    assert _ask("what time does the first Sunday train leave Mill Lane", TRAINS) == "0821"
    assert _ask("when does the last saturday train reach Hobb's Crossing", TRAINS) == "1412"


def test_timetable_without_a_quality_gives_nothing():
    # Six Sunday times on the row: none is picked.
    assert _ask("what time does the Sunday train leave Mill Lane", TRAINS) is None


def test_part_of_day_picks_the_one_time():
    assert _ask("what time does the afternoon Sunday train reach Upper Wharf", TRAINS) is None
    assert _ask("what time does the evening Sunday train reach Upper Wharf", TRAINS) == "1830"


def test_day_number_row_with_the_month_above_and_high_reading():
    asked = "what clock time is the morning high level at the Ashford weir on Wed 3 March"
    assert _ask(asked, WELLS) == "1120"
    assert _ask("what clock time is the afternoon low level at the Ashford weir on Wed 3 March",
                WELLS) == "1705"
    assert _ask("what clock time is the morning low level at the Ashford weir on Thu 4 March",
                WELLS) is None  # 0450 is a high, 1200 is noon
    assert _ask("what clock time is the morning low level at the Ashford weir on Wed 3 March",
                WELLS) == "0405"


def test_another_month_or_a_wrong_weekday_gives_nothing():
    assert _ask("what clock time is the afternoon high level at the Ashford weir on 3 April",
                WELLS) is None
    assert _ask("what clock time is the afternoon high level at the Ashford weir on Fri 3 March",
                WELLS) is None


def test_pipe_table_cell_and_its_blank():
    assert _ask("what is the glaze price for a medium kiln at Kilnworks", PRICES) == "12.00"
    assert _ask("what is the raku price for a medium kiln at Kilnworks", PRICES) is None


def test_a_word_said_elsewhere_in_the_document_is_asked_of_that():
    text = TRAINS + "\nSunday ticket office at Mill Lane opens 0800.\n"
    assert _ask("what time does the first Sunday ticket office open at Mill Lane", text) is None


def test_record_hop_cites_the_row_and_the_heading(tmp_path: Path, monkeypatch: Any):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, TRAINS)
        chain = grid_crossing(runtime.store, sid, "what time does the first Sunday train leave "
                              "Mill Lane")
        assert chain is not None
        assert chain.found.answer == "time: 0821"
        assert chain.found.field == "time"
        text = runtime.store.text(runtime.store.documents(sid)[0])
        assert text[chain.found.ref.start:chain.found.ref.end].startswith("Mill Lane")
        assert "SUNDAY" in text[chain.found.heading.start:chain.found.heading.end]
    finally:
        runtime.close()


def test_a_header_typed_off_its_columns_names_them_in_order():
    text = ("SLOT  START  LANE  START  LANE\n"
            "-----------------------------\n"
            "A1        0900   3     1300    5\n"
            "A2        0930   4     1330    6\n")
    (grid,) = grids("d", text)
    assert grid.heads == ("SLOT", "START", "LANE", "START", "LANE")
    assert [c.column for c in grid.rows[1].cells] == [0, 1, 2, 3, 4]
