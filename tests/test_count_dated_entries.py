"""Counting dated entries of a printout by a year: "how many times did Juniper see Owen Price
in 2026" over a farrier's history, whose entries each open with their date and whose header
block names the horse on its fifth line. The year is a condition on the date each entry opens
with (an entry of 2025 that books the next visit in 2026 is of 2025), and the horse's name
picks the document, not the entries (they never repeat it). The documents are written here.
No model call."""

from __future__ import annotations

from strategy_support import assert_counted_by_code

from rlm_recursive.agent.counting.draft import count_draft
from rlm_recursive.corpus.dates import in_year, record_years
from rlm_recursive.corpus.records import read_layout

_HISTORY = """HOLLOWAY FORGE & FARRIERY -- CLIENT HORSE RECORD
Forge: Unit 3, Mill Yard, Carrow Bridge
Report run: 02/12/2026 08:15 (office)
Owner: Ms Tegan Albright, Flint Cottage, Carrow Bridge
Horse: "JUNIPER"   Type: Welsh Cob (sec D)   Age: 11
==============================================================

04/02/2025  10:30  Farrier: Owen Price DipWCF   Job: full set
  Fronts rolled toe, hinds plain stamped. Frogs good.
  Next visit booked 18/03/2026 (owner away until then).

11/06/2025  15:00  Farrier: Owen Price DipWCF   Job: remove and refit
  Lost near fore in field. Refit, two new nails. Walls dry.

20/09/2025  09:10  Farrier: Lowri Baines AWCF   Job: trim only
  Turned away for winter, barefoot trim all round.

18/03/2026  11:45  Farrier: Owen Price DipWCF   Job: full set
  Back in work. Fronts with clips, hinds plain. Slight thrush NF, treated.

29/04/2026  14:20  Farrier: Lowri Baines AWCF   Job: remedial
  Heart bar NF on vet's request (see radiographs 22/04/2026).

07/07/2026  16:05  Farrier: Owen Price DipWCF   Job: full set
  Heart bar reset. Sound on the lunge.

25/08/2026  08:40  Farrier: Owen Price DipWCF   Job: remove and refit
  Sprung shoe OH, refit.
"""

_OTHER = """CARROW BRIDGE PONY CLUB -- RALLY NOTES

Rally leaders this season: Owen Price (farriery talk), Dr S. Mehta (first aid).
Owen Price gave the shoeing demonstration at the March rally.
"""


def test_a_record_is_of_the_year_its_opening_date_is_in() -> None:
    assert record_years("04/02/2025  10:30  Farrier ...\n  Next visit booked 18/03/2026") == {
        2025}
    assert in_year("seen 3 Mar 2024, rechecked 2026-01-02", 2026)
    assert not in_year("Model 2026 rasp", 2026)  # a year alone dates nothing


def test_the_year_is_a_condition_and_the_header_names_the_document() -> None:
    names = {"juniper.txt": "juniper.txt", "rally.txt": "rally.txt"}
    layout = read_layout([("juniper.txt", _HISTORY), ("rally.txt", _OTHER)], names)
    plan = count_draft("how many times did Juniper see Owen Price in 2026", layout).plan
    assert plan.years == [2026]
    assert plan.docs == ["juniper.txt"]
    assert plan.phrases == ["owen price"]


async def test_visits_by_one_farrier_in_a_year_are_counted(tmp_path, monkeypatch) -> None:
    files = {"juniper.txt": _HISTORY, "rally.txt": _OTHER}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    await assert_counted_by_code(tmp_path / "a", monkeypatch, files,
                                 "How many times did Juniper see Owen Price in 2026?", 3)
    await assert_counted_by_code(tmp_path / "b", monkeypatch, files,
                                 "how many times did Owen Price come out to Juniper during 2025",
                                 2)


def test_a_year_every_entry_is_of_is_no_filter() -> None:
    undated = "ROTA 2026\n\n12 Mar  Owen Price\n\n19 Mar  Lowri Baines\n\n26 Mar  Owen Price\n"
    layout = read_layout([("rota.txt", undated)], {"rota.txt": "rota.txt"})
    plan = count_draft("how many shifts did Owen Price do in 2026", layout).plan
    assert plan.years == []


def test_a_header_names_the_document_only_by_names_its_entries_never_say() -> None:
    text = ("RIVER GAUGE READINGS\nSaved from the telemetry screen\nBy: duty officer\n"
            "Gauges: NORTHGATE WEIR, EASTLEIGH BRIDGE\nLevels in metres, as reported\n\n"
            "NORTHGATE WEIR\n  06:00 1.42 m\n\nEASTLEIGH BRIDGE\n  06:00 0.97 m, reported late\n")
    layout = read_layout([("gauges.txt", text)], {"gauges.txt": "gauges.txt"})
    subject = layout.subjects["gauges.txt"].split()
    assert "NORTHGATE" not in subject and "EASTLEIGH" not in subject  # sections of their own
    assert "reported" not in subject  # a header's words are no names
    history = read_layout([("juniper.txt", _HISTORY)], {"juniper.txt": "juniper.txt"})
    assert "JUNIPER" in history.subjects["juniper.txt"].split()
