"""A hop through a value: what is asked is on the line of a thing the question's line names,
or in the heading that line sits under (agent/hops)."""

from __future__ import annotations

from fact_support import knows_nothing
from strategy_support import ask, load, over_layout, small_runtime

from rlm_recursive.agent.answers.clauses import says_asked
from rlm_recursive.agent.lookups.hops import described, hop_label, hop_through
from rlm_recursive.corpus.units import Unit, stems

_DOOR_LOG = """\
KEYPAD AUDIT - Northgate depot - export 2031-06-07

STAFF ON FILE
  badge 3307   QUIGLEY Mairead      team: Payroll
  badge 3312   OYELOWO Bankole      team: Fleet Maintenance
  badge 3340   SANDERS Ilse         team: Canteen

EVENTS
4471 | 03/06/2031 22:51:09 | Lab 3 | OYELOWO Bankole (3312) | LOCKED OUT - BAD PIN
4472 | 04/06/2031 07:45:12 | Lab 3 | QUIGLEY Mairead (3307) | LOCKED OUT - BAD PIN
4473 | 04/06/2031 07:52:40 | Lab 3 | QUIGLEY Mairead (3307) | OPENED
4474 | 04/06/2031 09:10:03 | Stores | SANDERS Ilse (3340) | OPENED
"""

_CATALOGUE = """\
Parish chest of St Olave, Marton - list of contents

CHEST A  CHURCHWARDENS  (Shelf 7)
  MT/1/1   1702-1760   Churchwardens' accounts, vellum bound
  MT/1/2   1761-1830   Churchwardens' accounts, with pew rents

CHEST B  OVERSEERS OF THE POOR  (Shelf 9)
  MT/2/1   1790-1834   Rate books of the overseers
  MT/2/2   1801-1822   Bastardy bonds and settlement papers
"""

_VENUE = """\
SPRING FORUM - running order

SPACES
  Linden Suite ...... level 3, capacity 60
  Ash Lounge ........ level 1, capacity 24

09:00  Opening remarks — Main Tent
10:00  Beekeeping clinic — Ash Lounge
11:00  Soil biology primer — Linden Suite
"""


def _hop(tmp_path, monkeypatch, text, question):
    return over_layout(tmp_path, monkeypatch, text, question,
                       lambda store, sid, q, _layout: hop_through(store, sid, q))


def test_the_asked_label_and_the_description_are_told_apart():
    question = "on which level is the space hosting the soil biology primer"
    assert hop_label(question) == ("level",)
    assert described(question) == "is the space hosting the soil biology primer"
    assert hop_label("since what year has the treasurer kept bees") == ("year", *stems("since"))


def test_a_person_named_on_an_event_line_is_looked_up_on_their_own_line(tmp_path, monkeypatch):
    # The event line writes the date and time its own way (04/06/2031 07:45:12) and names
    # the person; the team is on the staff line, where the person is the subject.
    chain = _hop(tmp_path, monkeypatch, _DOOR_LOG,
                 "which team does the person locked out at Lab 3 at 07:45 on 4 June belong to")
    assert chain is not None
    assert "Payroll" in chain.found.answer and "Fleet" not in chain.found.answer
    assert chain.bridges and chain.bridges[0] in ("QUIGLEY Mairead", "3307")
    bridge = chain.links[0]
    assert "07:45:12" in _DOOR_LOG[bridge.start:bridge.end]


def test_an_event_that_is_not_in_the_log_leads_nowhere(tmp_path, monkeypatch):
    assert _hop(tmp_path, monkeypatch, _DOOR_LOG,
                "which team does the person locked out at Lab 3 at 08:15 on 4 June "
                "belong to") is None


def test_the_heading_a_row_sits_under_says_what_the_row_does_not(tmp_path, monkeypatch):
    chain = _hop(tmp_path, monkeypatch, _CATALOGUE,
                 "which shelf are the bastardy bonds kept on")
    assert chain is not None
    assert chain.found.answer == "Shelf 9"
    head = chain.found.ref
    assert "OVERSEERS" in _CATALOGUE[head.start:head.end]


def test_a_room_named_beside_a_talk_is_read_on_its_own_line(tmp_path, monkeypatch):
    chain = _hop(tmp_path, monkeypatch, _VENUE,
                 "on which level is the space hosting the soil biology primer")
    assert chain is not None
    assert chain.found.answer == "level 3" and chain.bridges == ["Linden Suite"]
    chain = _hop(tmp_path / "b", monkeypatch, _VENUE,
                 "what is the capacity of the room where the beekeeping clinic is held")
    assert chain is not None and chain.found.answer == "capacity 24"


def test_a_thing_whose_own_line_does_not_say_the_label_answers_nothing(tmp_path, monkeypatch):
    # The Main Tent has no line of its own: nothing to hop to.
    assert _hop(tmp_path, monkeypatch, _VENUE,
                "on which level is the space hosting the opening remarks") is None


def test_a_name_beside_a_place_is_not_its_phone(tmp_path, monkeypatch):
    # The manager's number is not the office's: the staff line never says "phone".
    text = ("Site office: Harbour Lane. Manager Petra Oyelaran.\n\n"
            "Staff phone list\nPetra Oyelaran — 07700 900 612\n")
    assert _hop(tmp_path, monkeypatch, text,
                "What is the phone number of the Harbour Lane site office?") is None


def test_two_things_that_lead_to_different_answers_say_nothing(tmp_path, monkeypatch):
    # The line names two rooms, each with its own level: the bridge is not known.
    text = _VENUE + "12:00  Seed swap — Ash Lounge and Linden Suite\n"
    assert _hop(tmp_path, monkeypatch, text,
                "on which level is the space hosting the seed swap") is None


def test_a_year_written_says_what_year_is_asked():
    question = "since what year has the beekeeper held hive 4"
    row = "Hive 4   B. Okoro        since 2019    paid"
    assert says_asked(question, Unit(0, 0, len(row), row))
    bare = "Hive 4   B. Okoro        paid"
    assert not says_asked(question, Unit(0, 0, len(bare), bare))


async def test_search_and_iterative_ground_the_hops_answer(tmp_path, monkeypatch):
    # A model that finds nothing: the runtime's hop is the answer, the shelf of the chest
    # the row is listed under, grounded on that heading; never the row itself.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _CATALOGUE)
    for strategy in ("search", "iterative"):
        result, _ = await ask(runtime, sid, "which shelf are the bastardy bonds kept on",
                              strategy, knows_nothing)
        assert result.grounded is True, strategy
        assert result.answer == "Shelf 9", strategy
    runtime.close()
