"""Hops through records, run as the search strategy runs them: the record a question
describes by what it says, and the person heading another item of a value it names."""

from __future__ import annotations

import pytest
from strategy_support import ask, first_excerpt_line, load, over_layout, small_runtime

from rlm_recursive.agent.lookups.record_hops import described_record, linked_record, role_heading
from rlm_recursive.corpus.role_heads import role_head

_ROTA = """\
CROWN COURT AT EXAMPLETON - LIST FOR WEDNESDAY 4 MARCH

COURT 1
Recorder Imogen Thwaite
  10:30   T20250114   R v Callum Brisco          Trial (day 2)
  14:00   S20250301   R v Harlow Glass Co Ltd    Sentence

COURT 2
Her Honour Judge Petra Lindahl
  10:00   T20250221   R v Marsh Forwarding Ltd   Plea and trial preparation

RESULTS RECORDED YESTERDAY
  T20240998   R v Denby Quarries Ltd (appeal by Owen Fairweather) — appeal dismissed
  T20241002   R v Ellis Tanner — acquitted
"""

_STOCKTAKE = """\
STOCKTAKE - COLD ROOM
Each shelf is counted by one counter (C) per night; the counter signs the sheet.

Night       Shelf  Counter     Remarks
----------  -----  ----------  -----------------------------------------
02/02/2026  S1     Abernethy   all present
03/02/2026  S2     Pallister   two crates of oat milk past date, binned
04/02/2026  S3     Abernethy   door seal torn, maintenance told
"""


def test_the_judge_over_another_case_of_the_party_the_question_names_answers() -> None:
    found = role_head("Which judge hears the case of the company Owen Fairweather lost to?",
                      ("judg",), [("rota", _ROTA)])
    # Denby Quarries is not listed today: no heading over another of its items.
    assert found is None
    text = _ROTA.replace("R v Ellis Tanner", "R v Marsh Forwarding Ltd (Ellis Tanner)")
    found = role_head("Which judge is hearing today's case against the firm Ellis Tanner "
                      "worked for?", ("judg",), [("rota", text)])
    assert found is not None and found.name == "Petra Lindahl"
    assert found.value == "Marsh Forwarding Ltd" and found.role == "Judge"


def test_a_heading_with_no_name_after_the_role_answers_nothing() -> None:
    text = _ROTA.replace("Her Honour Judge Petra Lindahl", "Judge to be confirmed")
    text = text.replace("R v Ellis Tanner", "R v Marsh Forwarding Ltd (Ellis Tanner)")
    assert role_head("Which judge is hearing today's case against the firm Ellis Tanner "
                     "worked for?", ("judg",), [("rota", text)]) is None


def test_the_role_chain_cites_heading_item_and_the_questions_line(tmp_path, monkeypatch):
    text = _ROTA.replace("R v Ellis Tanner", "R v Marsh Forwarding Ltd (Ellis Tanner)")
    chain = over_layout(tmp_path, monkeypatch, text,
                        "Which judge is hearing the case against the firm Ellis Tanner "
                        "worked for?", lambda store, sid, q, _: role_heading(store, sid, q))
    assert chain is not None and chain.found.answer == "Judge: Petra Lindahl"
    assert chain.bridges == ["Marsh Forwarding Ltd"]
    record = text[chain.found.ref.start:chain.found.ref.end]
    assert record.startswith("Her Honour Judge") and "T20250221" in record


def test_the_described_record_chain_names_the_field_as_asked(tmp_path, monkeypatch):
    chain = over_layout(tmp_path, monkeypatch, _STOCKTAKE,
                        "which counter did the shelf in the night the door seal was torn",
                        lambda store, sid, q, _: described_record(store, sid, q))
    assert chain is not None and chain.found.answer == "Counter: Abernethy"
    record = _STOCKTAKE[chain.found.ref.start:chain.found.ref.end]
    assert "door seal torn" in record


@pytest.mark.asyncio
async def test_a_described_row_is_answered_and_grounded_by_search(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, _STOCKTAKE)
        result, _ = await ask(runtime, sid, "which shelf was counted in the night two crates "
                              "of oat milk were binned", "search", first_excerpt_line)
    finally:
        runtime.close()
    assert result.grounded is not False and "S2" in result.answer, result.answer


_PLANT_LOG = """\
PLANT ROOM LOG

Date        Unit   Checked by  Notes
----------  -----  ----------  ------------------------------------------
04/03/2026  AHU-1  Petrov      belt squeal on supply fan, east riser
11/03/2026  AHU-2  Petrov      all normal
18/03/2026  AHU-1  Okoro       condensate tray overflowing, west riser

CONTRACTOR VISITS
Ref     Contractor    Work
------  ------------  -------------------------------------------------
CV-01   Brightwater   AHU-1 supply fan east riser: belt replaced, tensioned
CV-02   Coldline      west riser tray drain cleared, pump checked
"""


def test_the_record_a_date_pins_leads_to_the_one_holding_what_is_asked(tmp_path, monkeypatch):
    chain = over_layout(tmp_path, monkeypatch, _PLANT_LOG,
                        "which contractor fixed the fan noise first logged on 4 March",
                        lambda store, sid, q, _: linked_record(store, sid, q))
    assert chain is not None and chain.found.answer == "Contractor: Brightwater"
    assert chain.bridges and chain.bridges[0] in _PLANT_LOG.lower()
    pinned = chain.links[1]
    assert _PLANT_LOG[pinned.start:pinned.end].startswith("04/03/2026")


def test_a_date_no_record_says_pins_nothing(tmp_path, monkeypatch):
    assert over_layout(tmp_path, monkeypatch, _PLANT_LOG,
                       "which contractor fixed the fan noise first logged on 5 March",
                       lambda store, sid, q, _: linked_record(store, sid, q)) is None
