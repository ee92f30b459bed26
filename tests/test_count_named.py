"""Counting what a question names in everyday words: field values by their parts and common
names ("cats" for "Feline / Siamese", "no-shows" for "Did not attend"), documents by their
names ("the support tickets", "in the Harbour export"), and small numbers that belong to the
word before them ("disk 2"). Files come from the csv and json writers; no model is asked."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from strategy_support import ask, load_named, no_model, small_runtime

from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally
from rlm_recursive.corpus.value_match import match_values
from rlm_recursive.corpus.word_stems import stems

_SPECIES = ("Feline / Siamese", "Feline / Domestic longhair", "Canine / Whippet",
            "Canine / Boxer", "Lagomorph / Rex")
_ROOMS = ("Exam A", "Exam B", "Surgery suite", "Grooming")
_OUTCOMES = ("Seen", "Seen, follow-up booked", "Did not attend", "Cancelled by owner")


def _bookings(seed: int, n: int = 90) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [{"Ref": f"BK-{700 + i}", "Species / breed": rng.choice(_SPECIES),
             "Room": rng.choice(_ROOMS), "Outcome": rng.choice(_OUTCOMES),
             "Notes": rng.choice(["weight check", "nail clip", "vaccination", "limping"])}
            for i in range(n)]


def _csv(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), delimiter=";",
                            quoting=csv.QUOTE_ALL)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _tickets(seed: int, n: int = 40) -> list[dict]:
    rng = random.Random(seed)
    return [{"key": f"OPS-{300 + i}", "state": rng.choice(["open", "resolved", "waiting"]),
             "severity": rng.choice(["S1", "S2", "S3"]),
             "reporter": {"team": rng.choice(["finance", "warehouse"])},
             "summary": rng.choice(["printer jammed", "cannot reach VPN", "label misprint"])}
            for i in range(n)]


def _corpus(seed: int) -> tuple[list[dict], list[dict], list[tuple[str, str]], dict[str, str]]:
    bookings, tickets = _bookings(seed), _tickets(seed)
    docs = [("b", _csv(bookings)), ("t", json.dumps(tickets, indent=2)),
            ("n", "Harbour Street clinic - week notes\n\nThe open day went well. Two cats "
                  "were adopted. Reception asked about no-show fees again.\n")]
    names = {"b": "harbour_vets_bookings_2026.csv", "t": "helpdesk_tickets_export.json",
             "n": "notes.txt"}
    return bookings, tickets, docs, names


@pytest.mark.parametrize(("question", "wanted"), [
    ("how many bookings were no-shows", lambda r: r["Outcome"] == "Did not attend"),
    ("How many appointments were for cats?", lambda r: r["Species / breed"].startswith("Fel")),
    ("number of dogs in the Harbour export", lambda r: r["Species / breed"].startswith("Can")),
    ("how many of the vet bookings took place in the surgery suite?",
     lambda r: r["Room"] == "Surgery suite"),
    ("How many whippets came in?", lambda r: r["Species / breed"] == "Canine / Whippet"),
])
def test_values_named_by_their_parts_and_common_names(question, wanted):
    bookings, _, docs, names = _corpus(1)
    layout = read_layout(docs, names)
    draft = count_draft(question, layout)
    assert not draft.unknown, draft
    assert route(question, layout)[0] == "count"
    assert tally(layout, draft.plan)[1] == sum(map(wanted, bookings)), draft.plan.describe()


@pytest.mark.parametrize(("question", "wanted"), [
    ("how many helpdesk tickets are in state open", lambda t: t["state"] == "open"),
    ("How many tickets were raised as S2?", lambda t: t["severity"] == "S2"),
    ("how many tickets did the warehouse team report", lambda t: t["reporter"]["team"]
     == "warehouse"),
])
def test_the_words_that_name_a_document_select_it(question, wanted):
    _, tickets, docs, names = _corpus(2)
    layout = read_layout(docs, names)
    draft = count_draft(question, layout)
    assert draft.plan.docs == ["t"], draft
    assert tally(layout, draft.plan)[1] == sum(map(wanted, tickets)), draft.plan.describe()


def test_a_word_the_records_say_is_still_a_phrase_not_a_document():
    # "limping" is in no name; "vaccination" is in the records, so it is counted there.
    bookings, _, docs, names = _corpus(3)
    layout = read_layout(docs, {**names, "b": "vaccination_bookings.csv"})
    draft = count_draft("how many vaccination bookings were there", layout)
    assert "vaccination" in draft.plan.describe() and draft.plan.docs == []
    assert tally(layout, draft.plan)[1] == sum(r["Notes"] == "vaccination" for r in bookings)


def test_a_small_number_is_a_value_only_beside_its_field_name():
    fields = read_layout([("e", "\n".join(
        f"Event: {i}\nSource: {'disk' if i % 2 else 'ntfs'}\nTask: ({i % 3})\n"
        for i in range(30)))]).fields
    beside = match_values(stems("how many events of task 2"), fields)
    assert [(m.field, m.value) for m in beside] == [("Task", "(2)")]
    after_other = match_values(stems("how many events on disk 2"), fields)
    assert [(m.field, m.value) for m in after_other] == [("Source", "disk")]


def test_a_key_whose_value_is_on_the_next_lines_keeps_that_text():
    blocks = []
    for i in range(12):
        message = "The write to volume 2 was retried." if i % 3 == 0 else "Backup finished."
        blocks.append(f"Record[{i}]:\n  Source: {'disk' if i % 3 == 0 else 'backup'}\n"
                      f"  Date: 2026-03-{i + 1:02d}\n  Computer: NAS-1\n  Event ID: {150 + i}\n"
                      f"  Severity: {'Warning' if i % 2 else 'Information'}\n"
                      f"  Message:\n{message}\n")
    layout = read_layout([("x", "\n".join(blocks))])
    assert len(layout.records) == 12
    draft = count_draft("how many times was a write to volume 2 retried", layout)
    assert tally(layout, draft.plan)[1] == 4, draft.plan.describe()


async def test_counted_end_to_end_over_named_files(tmp_path, monkeypatch):
    bookings, _, docs, names = _corpus(4)
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {names[doc_id]: text for doc_id, text in docs})
        result, fake = await ask(runtime, sid, "how many appointments were no-shows", "auto",
                                 no_model)
    finally:
        runtime.close()
    assert result.strategy == "count" and fake.requests == []
    gold = sum(r["Outcome"] == "Did not attend" for r in bookings)
    assert result.answer.split()[0] == str(gold), result.answer


def test_a_title_word_the_records_say_narrows_a_judgement_but_stays_a_phrase():
    from rlm_recursive.agent.counting.scope import titled_documents

    rng = random.Random(5)
    shift = "".join(f"0{6 + i % 3}:00 kiln {rng.choice(['loaded', 'fired', 'cooled'])}\n"
                    for i in range(40))
    docs = [("k", shift), ("o", "Office rota\n" + "desk cover by Sam\n" * 20)]
    layout = read_layout(docs, {"k": "kiln_shift_log.txt", "o": "office_rota.txt"})
    question = "how many times did the kiln crew find a crack"
    assert titled_documents(question, layout) == ["k"]
    plan = count_draft("how many kiln firings were logged", layout).plan
    assert plan.docs == [] and any("kiln" in p for p in plan.phrases)


_NOTES = """# Allotment committee minutes

## 3 March

### Decisions
- Water butts to be bought for plots 4 and 9.

### Actions
- Priya to ring the council about the gate lock.
- Tom to order wood chip.

## 7 April

### Actions
- Priya to chase the wood chip delivery.

### Complaints
- Bonfire smoke near plot 12.
- Rats seen by the compost bays.

## 5 May

### Decisions
- Rents stay at 40 pounds.
- Plot 7 goes to the waiting list.
- Hose pipes allowed after 6 pm only.
"""


@pytest.mark.parametrize(("question", "gold"), [
    ("how many actions were agreed", 3),
    ("How many decisions did the committee make?", 4),
    ("how many complaints were raised", 2),
    ("how many decisions were made on 5 May", 3),
    ("how many decisions or complaints are there", 6),
])
def test_lines_under_markdown_headings_count_by_their_section(question, gold):
    layout = read_layout([("m", _NOTES)], {"m": "minutes.md"})
    draft = count_draft(question, layout)
    assert tally(layout, draft.plan)[1] == gold, draft.plan.describe()


def test_the_counted_noun_is_not_a_second_value_of_the_field():
    # "how many kitchen complaints": a Category field holds both words; "complaints" is the
    # unit counted, not the alternative Category=Complaints.
    rows = [{"Category": c, "Area": a} for c, a in
            [("Kitchen", "north"), ("Complaints", "north"), ("Kitchen", "south"),
             ("Garden", "south"), ("Complaints", "south"), ("Kitchen", "north")]]
    layout = read_layout([("t", _csv(rows))])
    draft = count_draft("how many kitchen complaints came from the north", layout)
    assert tally(layout, draft.plan)[1] == 2, draft.plan.describe()
    both = count_draft("how many kitchen or complaints rows came from the north", layout)
    assert tally(layout, both.plan)[1] == 3, both.plan.describe()
