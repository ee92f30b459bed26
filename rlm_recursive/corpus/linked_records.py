"""A hop from the record a question pins down to the record that holds what it asks: "the
engineer who repaired the sounder fault first logged on 23 June".

A log book says the fault on its weekly-test row of 23/06 ("Zone 4 sounder (3rd flr stair
B) not heard"), and who mended it on a service-visit row that gives no date of the fault
("Z4 sounder 3rd flr stair B: faulty driver board, replaced" by L. Farrant). No one record
says both the question's date and the engineer. So, with no model call, for a question
that gives a date or a code:

1. the groups of records with the asked field (`described.asked_labels`) where no record
   says the question's date or code;
2. the one short record elsewhere (a table row, a record of a few lines) the question picks,
   saying its date or code (`described.pick_record`);
3. that record's words pick the one record of the asked field's group
   (`described.pick_record` again), and the two must share a run of words ("sounder 3rd
   flr stair b"): the bridge the answer is grounded beside.
Two answers, or none, say nothing (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .dates import said_dates
from .described import (
    Described,
    asked_labels,
    one_answer,
    pick_record,
    question_codes,
    read_field,
    said_code,
    said_date,
)
from .record_units import Unit, record_units, table_units
from .units import STOP, normalise, stems

__all__ = ["Linked", "linked_field"]

_SHORT = 4
"""Lines a pinned record may have: a row or a short entry, not a page."""
_MIN_RUN = 2


@dataclass(frozen=True)
class Linked:
    """The field read, the pinned record it was reached from, and the words they share."""

    found: Described
    pinned: Unit
    bridge: str


def _shared_run(one: str, other: str) -> str:
    """The longest run of words both texts say (with a word that is no stop word), as
    `other` writes it ("sounder 3rd flr stair B")."""
    a, b = (re.findall(r"[a-z0-9]+", t.lower()) for t in (one, other))
    best: list[str] = []
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            if k > len(best) and any(w not in STOP and len(w) >= 3 for w in a[i:i + k]):
                best = a[i:i + k]
    if len(best) < _MIN_RUN:
        return ""
    written = re.search(r"(?<![a-z0-9])" + r"[^a-z0-9]+".join(best) + r"(?![a-z0-9])",
                        other, re.IGNORECASE)
    return written.group() if written else ""


def _pins(unit: Unit, dates: list, codes: list[str]) -> bool:
    """The record says one of the question's dates or codes."""
    return said_date(unit.text, dates) or any(said_code(code, unit.text) for code in codes)


def _overlaps(unit: Unit, group: list[Unit]) -> bool:
    return any(unit.doc_id == u.doc_id and unit.start < u.end and u.start < unit.end
               for u in group)


def linked_field(question: str, docs: Iterable[tuple[str, str]]) -> Linked | None:
    """The asked field of the record linked to the one the question pins (see the module)."""
    docs = list(docs)
    dates = [d for _, _, d in said_dates(question)]
    codes = question_codes(question)
    if not dates and not codes:
        return None
    asked = set(stems(question)) - STOP
    pool = [g for doc_id, text in docs
            for g in (*table_units(doc_id, text), *record_units(doc_id, text))]
    found, links = [], {}
    for group, label, used in asked_labels(question, docs):
        if any(_pins(unit, dates, codes) for unit in group):
            continue  # the question's own date or code is in this group: no hop
        pinned = []
        for other in pool:
            if other is group or _overlaps(other[0], group):
                continue
            picked = pick_record(other, asked - used, set(), dates, codes)
            if (picked is not None and picked[0].text.count("\n") < _SHORT
                    and _pins(picked[0], dates, codes)):
                pinned.append(picked[0])
        pinned = list({(u.doc_id, u.start): u for u in pinned}.values())
        if len(pinned) != 1:
            continue
        words = set(stems(pinned[0].text)) - STOP - used
        target = pick_record(group, words, set(), [], [])
        if target is None:
            continue
        bridge = _shared_run(pinned[0].text, target[0].text)
        read = read_field(question, target[0], label, used, target[1]) if bridge else None
        if read is not None:
            found.append((used, read))
            links[normalise(read.value)] = (pinned[0], bridge)
    one = one_answer(found)
    if one is None:
        return None
    pinned_unit, bridge = links[normalise(one.value)]
    return Linked(one, pinned_unit, bridge)

