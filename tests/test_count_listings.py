"""A day's listing (a court list, a clinic's session sheet): sittings led by a time with their
details indented under them, grouped under room headings, the day written once at the top.
Each sitting is a record, a room's heading belongs to none of them, and "listed for 3 Mar"
names the list's day, not a date each sitting writes. Documents are generated here."""

from __future__ import annotations

import random

import pytest

from rlm_recursive.agent.routing import count_draft
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally

_KINDS = ("Review appointment", "New patient assessment", "Dressing change")


def _session_sheet(seed: int) -> tuple[str, list[tuple[str, str]]]:
    """A clinic's day sheet; returns the text and (room, kind) of every sitting."""
    rng = random.Random(seed)
    lines = ["NORTHGATE COMMUNITY CLINIC", "OUTPATIENT SESSION SHEET",
             "for Wednesday 3 March 2027", "",
             "Printed Tuesday 2 March 2027. Patients should arrive 15 minutes early.", "",
             "=" * 60]
    sittings = []
    for room in ("Room A (ground floor)", "Room B (first floor)", "Treatment room"):
        lines += [room.upper(), f"Clinician: {rng.choice(['Dr Y. Osei', 'Nurse T. Bryn'])}",
                  ""]
        for slot in range(rng.randint(3, 6)):
            kind = rng.choice(_KINDS)
            sittings.append((room, kind))
            lines += [f"  {9 + slot:02d}:{rng.choice(['00', '30'])}   "
                      f"NHS {rng.randint(100, 999)} {rng.randint(100, 999)}   "
                      f"{rng.choice(['Mr', 'Ms'])} {rng.choice(['Ahmed', 'Lowe', 'Quinn'])}",
                      f"          {kind}. Time allowed: {rng.choice([20, 30, 45])} minutes."]
        lines += ["", "=" * 60]
    return "\n".join(lines) + "\n", sittings


@pytest.mark.parametrize("seed", [2, 9])
def test_each_sitting_is_a_record_without_the_next_rooms_heading(seed):
    text, sittings = _session_sheet(seed)
    layout = read_layout([("sheet.txt", text)])
    led = [r for r in layout.records if r.text[:2].isdigit()]
    assert len(led) == len(sittings)
    assert not any("FLOOR" in r.text or "Clinician" in r.text for r in led)


@pytest.mark.parametrize("seed", [4, 13])
def test_the_lists_own_day_selects_no_sitting(seed):
    text, sittings = _session_sheet(seed)
    other = "Stock check log\n\n" + "\n".join(
        f"{d:02d}/03/2027 gloves counted, review appointment booked" for d in range(1, 29))
    layout = read_layout([("sheet.txt", text), ("stock.txt", other)])
    draft = count_draft("number of dressing changes listed for 3 Mar", layout)
    assert not draft.plan.months
    assert tally(layout, draft.plan)[1] == sum(k == "Dressing change" for _, k in sittings)
    # Items that write their own dates keep the month as a condition.
    rows = "date,item,counted\n" + "".join(
        f"2027-{m:02d}-{d:02d},{item},{d * 3}\n" for m in (2, 3, 4) for d in range(1, 11)
        for item in ("gloves", "masks"))
    log = read_layout([("stock.csv", rows)])
    dated = count_draft("how many gloves rows are dated in March", log)
    assert dated.plan.months == [3]
    assert tally(log, dated.plan)[1] == 10
