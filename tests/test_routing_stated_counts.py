"""A count the text states makes a "how many" question a look-up, but only a count of the
thing asked about: not a year before a heading word, nor another document's "within 56 days"
when the question names a place that document never mentions."""

from __future__ import annotations

from rlm_recursive.agent.routing import _states_number
from rlm_recursive.corpus.records import read_layout

SCHEDULE = """HALLAM BRASS BAND - 2027 REHEARSAL PLAN
Band room, Crookes Road, 7.30pm unless shown otherwise.

 DATE       WHERE      NOTES
 Mon 4 Jan  Band room  New pads. Bring a stand.
 Mon 11 Jan Band room  Hymn tunes.
 Mon 18 Jan Church     Bring a torch for the car park.
 Mon 25 Jan Band room  Contest piece, bars 1-120.
 Mon 1 Feb  Band room  Bring your own copy of the march.
"""

FERRY = """WINTER SAILINGS - Kilbrannan crossing, December
Sailings run every day from Lochranza except Christmas Day.
 1 Dec  Lochranza 0815 1230 1615
 2 Dec  Lochranza 0815 1230
 3 Dec  Lochranza 0815 1230 1615
 4 Dec  Lochranza 0815 1230
"""

TERMS = """TERMS OF HIRE
Sailings cancelled for weather are refunded within 28 days.
Damage must be reported within 7 days; claims after that are refused.
"""


def _layout(docs: dict[str, str]):
    return read_layout(list(docs.items()), {name: name for name in docs})


def test_a_year_before_a_heading_word_states_no_count():
    layout = _layout({"band.txt": SCHEDULE})
    question = "how many band rehearsals ask players to bring something"
    assert not _states_number(question, layout)


def test_another_documents_days_state_no_count_of_the_named_place():
    layout = _layout({"ferry.txt": FERRY, "terms.txt": TERMS})
    question = "On how many days in December are there only two sailings from Lochranza?"
    assert not _states_number(question, layout)
    # The same words with the place said beside the number are a stated count.
    stated = _layout({"ferry.txt": FERRY + "Lochranza has 2 days of reduced sailings.\n"})
    assert _states_number("how many days of reduced sailings does Lochranza have", stated)
