"""Event and audit lines (a time stamp, then columns set apart by brackets, pipes, arrows or
runs of spaces) are records whose cells are fields, counted in plain words by code: the
outcome in everyday words ("refused entry" for "ACCESS DENIED"), a place by its name
without its codes ("the loading dock" for "D03 Loading Dock B2"), a person either way round
("Harriet Webb" for "WEBB Harriet")."""

from __future__ import annotations

import random

import pytest
from strategy_support import assert_counted_by_code

from rlm_recursive.corpus.events import event_fields
from rlm_recursive.corpus.records import detect_format, read_layout

PEOPLE = ["WEBB Harriet", "OSEI Kwame", "LARSSON Britt", "WEBB Thomas"]
DOORS = ["D03 Loading Dock B2", "D07 Records Store", "D11 Loading Dock B4", "D01 Front Lobby"]
OUTCOMES = ["ENTRY GRANTED", "ENTRY GRANTED", "ENTRY GRANTED", "ACCESS DENIED"]


def _events(n: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(DOORS), rng.choice(PEOPLE), rng.choice(OUTCOMES)) for _ in range(n)]


def _pipe_log(events: list[tuple[str, str, str]]) -> str:
    """A badge system's export: ISO stamps, pipes between columns, a legend on top."""
    head = ("Badge audit export, depot 4\nDoors: D01 lobby, D03 and D11 docks, D07 store\n\n")
    lines = [f"2025-06-{2 + i // 40:02d} {7 + i % 12:02d}:{i % 60:02d}:05 | {door} | "
             f"{who} | {outcome}" for i, (door, who, outcome) in enumerate(events)]
    return head + "\n".join(lines) + "\n"


def _arrow_log(events: list[tuple[str, str, str]]) -> str:
    """A panel's printout: a sequence number, a day-first date, the door in brackets, the
    card in parentheses and the outcome after an arrow, its reason after a dash."""
    lines = [f"E{900 + i} {3 + i // 50}/7/2025 {8 + i % 10}:{i % 60:02d} [{door}] {who} "
             f"(card {400 + PEOPLE.index(who)}) -> {outcome}"
             + (" - WRONG ZONE" if outcome == "ACCESS DENIED" and i % 2 else "")
             for i, (door, who, outcome) in enumerate(events)]
    return "PANEL 2 EVENT PRINTOUT\n\n" + "\n".join(lines) + "\n"


def test_an_event_line_splits_into_its_cells() -> None:
    fields = event_fields("#7 04.02.2026 13:05:09 [R2 Side Gate] ALLEN Jo (#311) >> "
                          "ACCESS DENIED - EXPIRED")
    assert fields == {"id": "#7", "date": "04.02.2026", "time": "13:05:09",
                      "bracket1": "R2 Side Gate", "cell1": "ALLEN Jo", "paren1": "#311",
                      "cell2": "ACCESS DENIED", "cell3": "EXPIRED"}
    assert event_fields("Doors: D01 lobby, D03 and D11 docks") is None
    assert event_fields("12:00") is None  # a stamp with nothing after it is no event


@pytest.mark.parametrize("write", [_pipe_log, _arrow_log])
def test_event_logs_are_read_as_events_with_fields(write) -> None:
    text = write(_events(120, 3))
    assert detect_format(text) == "events"
    layout = read_layout([("d", text)])
    outcomes = {r.fields.get("cell3") or r.fields.get("cell2") for r in layout.records
                if r.fields}
    assert {"ENTRY GRANTED", "ACCESS DENIED"} <= outcomes


@pytest.mark.parametrize("write", [_pipe_log, _arrow_log])
async def test_refusals_at_either_dock_are_counted_by_code(tmp_path, monkeypatch, write
                                                           ) -> None:
    events = _events(150, 11)
    expected = sum(1 for door, _, outcome in events
                   if "Loading Dock" in door and outcome == "ACCESS DENIED")
    await assert_counted_by_code(
        tmp_path, monkeypatch, {"doors.log": write(events)},
        "how many times was someone refused entry at either loading dock during the week",
        expected)


async def test_a_person_named_first_name_first_is_counted(tmp_path, monkeypatch) -> None:
    events = _events(150, 5)
    expected = sum(1 for _, who, outcome in events
                   if who == "WEBB Harriet" and outcome == "ENTRY GRANTED")
    await assert_counted_by_code(
        tmp_path, monkeypatch, {"doors.log": _pipe_log(events)},
        "how many times was Harriet Webb granted access", expected)


def test_one_word_is_no_synonym_of_a_value() -> None:
    """"doses were refused" names no loan "declined": synonyms only in two-word forms."""
    from collections import Counter

    from rlm_recursive.corpus.value_match import match_values
    from rlm_recursive.corpus.word_stems import stems
    fields = {"status": Counter({"declined": 2, "agreed": 5}),
              "event": Counter({"ACCESS DENIED": 3, "ACCESS GRANTED": 9})}
    assert match_values(stems("how many doses were refused"), fields) == []
    named = match_values(stems("how often was entry refused"), fields)
    assert [(m.field, m.value) for m in named] == [("event", "ACCESS DENIED")]
