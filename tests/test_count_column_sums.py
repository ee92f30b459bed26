"""A delimited export under its comment lines (pipes too) is a table; "how many <column>"
sums a numeric column's cells; a day written whole ("on 14 March 2026") selects that day;
a ledger's "2026/03/14" is a date."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.agent.routing import route
from rlm_recursive.corpus.dates import date_of, said_dates
from rlm_recursive.corpus.records import read_layout
from tests.strategy_support import search_answer

PANTRY = """\
# Riverside Community Pantry - distribution export
# generated 2026-03-16 07:55 by PantryDesk (site: Mill St)
# Period: 2026-03-13 .. 2026-03-14
visit_date|time_in|client_id|adults|children|hamper|weight_kg|notes
2026-03-13|10:02|RCP-2201|2|3|FAM|21.0|
2026-03-13|10:15|RCP-1870|1|0|SNG|5.5|first visit
2026-03-13|10:31|RCP-2044|2|1|STD|14.0|
2026-03-14|09:40|RCP-1432|1|2|STD|13.5|needs formula
2026-03-14|09:52|RCP-2290|2|4|FAM|22.5|first visit
2026-03-14|10:07|RCP-1988|1|0|SNG|6.0|
2026-03-14|10:20|RCP-2011|3|2|FAM|21.5|
"""


def test_a_pipe_delimited_export_under_comment_lines_is_a_table():
    layout = read_layout([("d", PANTRY)])
    rows = [r.fields for r in layout.records if "client_id" in r.fields]
    assert len(rows) == 7
    assert rows[3] == {"visit_date": "2026-03-14", "time_in": "09:40", "client_id": "RCP-1432",
                       "adults": "1", "children": "2", "hamper": "STD", "weight_kg": "13.5",
                       "notes": "needs formula"}


def test_how_many_of_a_numeric_column_sums_it_over_the_day_asked():
    layout = read_layout([("d", PANTRY)])
    strategy, why = route("How many children were covered by pantry visits on 14 March 2026?",
                          layout, [PANTRY])
    assert strategy == "count" and "sum of children" in why


def test_a_column_the_noun_only_begins_is_another_quantity():
    """"visits" is no `visits_ytd`: the visits are the rows, counted."""
    text = PANTRY.replace("notes\n", "visits_ytd\n", 1)
    layout = read_layout([("d", text)])
    strategy, why = route("How many visits were there on 14 March 2026?", layout, [text])
    assert strategy == "count" and "sum" not in why


@pytest.mark.parametrize(("question", "gold"), [
    ("How many children were covered by pantry visits on 14 March 2026?", "8"),
    ("How many adults came to the pantry on 13 March 2026?", "5"),
    ("How many visits were there on 14 March 2026?", "4"),
])
def test_the_day_asked_is_counted_exactly(tmp_path: Path, monkeypatch: Any, question: str,
                                          gold: str):
    result = search_answer(tmp_path, monkeypatch, PANTRY, question, strategy="auto")
    assert result.answer.split()[0] == gold, result.answer
    assert result.exact is True


def test_a_ledgers_year_first_dates_are_dates():
    assert date_of("2026/03/14") == date_of("2026-03-14") is not None
    assert said_dates("2026/03/14 * Childminder ; invoice CM-0312")[0][2] == (14, 3, 2026)
    assert said_dates("host 127.0.0.1 up") == []
