"""Counting through what a record's fields hold and what it refers to, by code (no model
call): "born in Ellerby" (a place inside a nested field's longer value), "on 30-day terms"
(a camel-case field name), and "loans by members on the concession tier" (the counted
records joined to the records the condition selects through an identifying field). Files
come from real writers (csv, json); expected numbers are computed from what was written."""

from __future__ import annotations

import json
import random

from strategy_support import ask, csv_text, load_named, no_model, small_runtime

from rlm_recursive.agent.counting.join import joined
from rlm_recursive.agent.routing import count_draft
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally

TOWNS = ("Harwick", "Lowmoor", "Brackenfield")


def _people(seed: int = 4, n: int = 30) -> list[dict]:
    rng = random.Random(seed)
    return [{"id": f"P{i}", "name": f"Person {i}",
             "birth": {"date": str(rng.randint(1850, 1950)),
                       "place": f"{rng.choice(TOWNS)}, Westshire"},
             "death": {"place": f"{rng.choice(TOWNS)}, Westshire"}} for i in range(n)]


async def test_a_place_inside_the_field_the_verb_names(tmp_path, monkeypatch):
    people = _people()
    text = "".join(json.dumps(p) + "\n" for p in people)
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"parish_people.jsonl": text})
        result, _ = await ask(runtime, sid, "How many people were born in Lowmoor?", "auto",
                              no_model)
    finally:
        runtime.close()
    expected = sum(p["birth"]["place"].startswith("Lowmoor") for p in people)
    assert 0 < expected < len(people)
    assert result.strategy == "count" and result.answer.split()[0] == str(expected)


def test_a_camel_case_field_name_names_its_words():
    rng = random.Random(8)
    rows = [{"InvoiceNo": f"INV-{i}", "PaymentTerms": rng.choice(["14 days", "30 days"]),
             "NetAmount": str(rng.randint(50, 900))} for i in range(25)]
    layout = read_layout([("i", csv_text(rows))], {"i": "sales_invoices.csv"})
    draft = count_draft("how many invoices are on 30-day terms", layout)
    assert not draft.unknown and not draft.plan.phrases
    assert tally(layout, draft.plan)[1] == sum(r["PaymentTerms"] == "30 days" for r in rows)


def _club(seed: int = 6) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    rng = random.Random(seed)
    members = [{"member_ref": f"M{i:03d}", "full_name": f"Member {i}",
                "band": rng.choice(["standard", "reduced", "family"])} for i in range(15)]
    bookings = [{"booking_id": f"B{i}", "member_ref": rng.choice(members)["member_ref"],
                 "court": rng.choice(["1", "2", "3"])} for i in range(50)]
    return members, bookings


async def test_records_counted_through_the_records_a_condition_selects(tmp_path, monkeypatch):
    members, bookings = _club()
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"members.csv": csv_text(members),
                                   "bookings.csv": csv_text(bookings)})
        result, _ = await ask(runtime, sid, "how many bookings were made by members on the "
                              "reduced band", "auto", no_model)
    finally:
        runtime.close()
    reduced = {m["member_ref"] for m in members if m["band"] == "reduced"}
    expected = sum(b["member_ref"] in reduced for b in bookings)
    assert expected != len(reduced)
    assert result.strategy == "count" and result.answer.split()[0] == str(expected)
    assert "member_ref" in result.answer


def test_no_join_through_a_field_many_selected_records_share():
    """Log lines with status=deferred are not joined to message lines by their host: a host
    names many lines, it identifies none."""
    lines = []
    for i in range(12):
        lines.append(f"host=mx{i % 2} msgid=<m{i}@x> size={100 + i}")
        lines.append(f"host=mx{i % 2} status={'deferred' if i % 4 == 0 else 'sent'}")
    layout = read_layout([("m", "\n".join(lines) + "\n")], {"m": "mail.log"})
    draft = count_draft("how many msgids were deferred", layout)
    assert joined("how many msgids were deferred", layout, draft.plan) is None
