"""A code a key defines ("S = online portal", keys set apart by commas too) counted where a
register or a log writes it as a cell of its own, when the question says what the code means
("sent through the online portal", "coded R (rescue)")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.agent.counting.codes import code_count
from rlm_recursive.agent.counting.draft import count_draft
from rlm_recursive.corpus.records import read_layout
from tests.strategy_support import search_answer

REGISTER = """\
TOWN OFFICE - INCOMING MAIL BOOK
Channel: D = delivered by hand, M = post, W = online portal

No.       Date        Time   Chan  From                        Subject
--------------------------------------------------------------------------------
2026/101  02/03/2026  09:10  D     Halvard Moen                 Hedge complaint, Birch Row
2026/102  02/03/2026  10:02  W     Lakeside School              Minibus booking for 14/03
2026/103  02/03/2026  11:40  M     County Roads Dept            Resurfacing notice, W side
                                                                of Mill Lane
2026/104  03/03/2026  08:55  W     Ingrid Holm                  Street light out, D Street
2026/105  03/03/2026  09:30  D     Ingrid Holm                  Copy of the deed (see 104)
2026/106  04/03/2026  14:15  W     Rowing Club                  Hall booking, 21/03
"""

PATROL = """\
SURF PATROL LOG
Incident types: R = rescue, FA = first aid, PA = preventive action, LC = lost child

SAT 6 JUN 2026 - Captain: Ola Berg
 1010  PA  swimmers moved from the rip
 1135  R   boy on a bodyboard brought in
 1400  FA  cut foot, dressed
SUN 7 JUN 2026 - Captain: Ivo Dahl
 0940  R   two swimmers caught in rip, brought in by board
 1210  FA  sting, hot water
 1515  R   kayaker tipped out near the rocks
"""


def _count(text: str, question: str) -> int | None:
    layout = read_layout([("d", text)])
    draft = count_draft(question, layout)
    found = code_count(question, layout, [("d", text)], draft.plan, draft.unknown)
    return None if found is None else found.total


@pytest.mark.parametrize(("text", "question", "gold"), [
    (REGISTER, "How many letters came in through the online portal?", 3),
    (REGISTER, "How many entries were delivered by hand?", 2),
    (PATROL, "How many incidents are coded R (rescue)?", 3),
    (PATROL, "How many first aid treatments were there?", 2),
])
def test_a_keyed_code_is_counted_where_it_is_a_cell(text: str, question: str, gold: int):
    assert _count(text, question) == gold


def test_a_code_letter_inside_words_is_no_cell():
    """"W side", "D Street" hold the letters, not as a cell of the channel column."""
    assert _count(REGISTER, "How many letters came in through the online portal?") == 3


def test_words_the_key_does_not_say_are_not_counted_by_it():
    assert _count(REGISTER, "How many letters from farmers came through the online portal?") \
        is None
    # A word a record says picks the rows counted: the school's one booking by the portal.
    assert _count(REGISTER, "How many letters from schools came through the online portal?") \
        == 1


def test_the_count_is_exact_end_to_end(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, PATROL,
                           "How many incidents in the surf patrol log are coded R (rescue)?",
                           strategy="auto")
    assert result.answer.startswith("3 ") and result.grounded
