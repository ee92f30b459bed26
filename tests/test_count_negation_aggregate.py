"""Negated conditions and sums/averages over records, computed by code (no model call):
"not in service", "except the high ones", "other than Leeds", "no parking bay"; "the total
odometer reading of the Leeds trucks", "the average cost". Files come from real writers (the
csv and json modules); the expected numbers are computed from the rows written, not typed."""

from __future__ import annotations

import json
import random
import statistics

import pytest
from strategy_support import ask, csv_text, load, no_model, small_runtime

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.aggregate import number_of
from rlm_recursive.corpus.records import read_layout

DEPOTS = ("Leeds", "York", "Hull")
TYPES = ("van", "truck", "car")
STATUSES = ("in service", "off road", "awaiting parts", "in service")


def _fleet(seed: int = 3, n: int = 120) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [{"registration": f"KX{i:03d}", "depot": rng.choice(DEPOTS),
             "vehicle_type": rng.choice(TYPES), "odometer_km": str(rng.randint(1000, 400000)),
             "status": rng.choice(STATUSES)} for i in range(n)]


def _incidents(seed: int = 5, n: int = 90) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [{"id": f"INC-{i}", "lab": rng.choice(("chemistry", "haematology", "microbiology")),
             "severity": rng.choice(("low", "medium", "high")), "cost_gbp": rng.randint(0, 5000)}
            for i in range(n)]


@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("question", "expected"), [
    ("How many vehicles are not in service?",
     lambda rows: sum(r["status"] != "in service" for r in rows)),
    ("How many vans are there other than the ones at the Leeds depot?",
     lambda rows: sum(r["vehicle_type"] == "van" and r["depot"] != "Leeds" for r in rows)),
    ("Count the trucks, excluding the ones off road.",
     lambda rows: sum(r["vehicle_type"] == "truck" and r["status"] != "off road"
                      for r in rows)),
    ("How many cars aren't at York?",
     lambda rows: sum(r["vehicle_type"] == "car" and r["depot"] != "York" for r in rows)),
])
async def test_negated_conditions_are_counted_exactly(rt, question, expected):
    rows = _fleet()
    sid = load(rt, csv_text(rows))
    result, fake = await ask(rt, sid, question, "auto", no_model)
    assert result.strategy == "count" and fake.requests == []
    assert result.answer.startswith(f"{expected(rows)} — counted exactly by code")
    assert "≠" in result.answer and result.grounded
    assert result.citations
    assert all(verify_citation(rt.store, sid, c)["valid"] for c in result.citations)


async def test_except_in_json_lines(rt):
    rows = _incidents()
    sid = load(rt, "".join(json.dumps(r) + "\n" for r in rows))
    result, _ = await ask(rt, sid, "Count the chemistry incidents except the high severity ones.",
                          "auto", no_model)
    gold = sum(r["lab"] == "chemistry" and r["severity"] != "high" for r in rows)
    assert result.strategy == "count" and result.answer.startswith(f"{gold} ")


@pytest.mark.parametrize(("question", "field", "compute"), [
    ("What is the total odometer reading of the Leeds trucks?", "odometer_km",
     lambda rows: sum(int(r["odometer_km"]) for r in rows
                      if r["depot"] == "Leeds" and r["vehicle_type"] == "truck")),
    ("What's the average odometer_km for vehicles at York?", "odometer_km",
     lambda rows: statistics.fmean(int(r["odometer_km"]) for r in rows if r["depot"] == "York")),
    ("What is the combined odometer reading of the vans not in service?", "odometer_km",
     lambda rows: sum(int(r["odometer_km"]) for r in rows
                      if r["vehicle_type"] == "van" and r["status"] != "in service")),
])
async def test_sums_and_averages_over_csv_rows(rt, question, field, compute):
    rows = _fleet()
    sid = load(rt, csv_text(rows))
    result, fake = await ask(rt, sid, question, "auto", no_model)
    assert result.strategy == "count" and fake.requests == [] and result.grounded
    said = number_of(result.answer.split(" — ")[0])
    assert said == pytest.approx(compute(rows), abs=0.01)
    assert "computed exactly by code" in result.answer and field in result.answer


async def test_a_total_over_key_value_records_with_currency(rt):
    blocks = [("Flat 1", "£875"), ("Flat 2", "£1,150"), ("Flat 3", "£0"), ("Shop", "£1,600")]
    text = "Millbrook House tenancy schedule\n\n" + "\n\n".join(
        f"Unit: {u}\nMonthly rent: {r}\nParking bay: {'none' if i % 2 else f'P{i}'}"
        for i, (u, r) in enumerate(blocks)) + "\n"
    sid = load(rt, text)
    result, _ = await ask(rt, sid, "What is the total monthly rent across Millbrook House?",
                          "auto", no_model)
    assert result.answer.startswith("3,625 — computed exactly by code")
    counted, _ = await ask(rt, sid, "How many units have no parking bay?", "auto", no_model)
    assert counted.answer.startswith("2 — counted exactly by code")


def test_value_looking_totals_are_not_sums():
    """"the sum insured on policy X" names a field whose own name holds "sum"; "the total on
    invoice 7" names no numeric field: look-ups, not aggregates. "The total sum insured of all
    policies" is one."""
    text = "\n\n".join(f"Policy: HX-{i}\nSum insured: £{i},000\nHolder: Firm {i}"
                       for i in range(1, 8))
    layout = read_layout([("p", text)])
    assert route("What is the sum insured on policy HX-3?", layout)[0] == "search"
    assert route("What is the total on invoice 7?", layout)[0] == "search"
    assert route("What is the total sum insured of all policies?", layout)[0] == "count"


def test_a_negation_naming_nothing_the_records_mark_is_still_judged():
    rows = _fleet()
    layout = read_layout([("f", csv_text(rows))])
    draft = count_draft("How many vehicles are not roadworthy?", layout)
    assert draft.negated  # "roadworthy" is no value or phrase of the rows
    assert route("How many vehicles are not roadworthy?", layout)[0] == "classify"


def test_a_negation_the_records_write_is_what_they_say_not_a_word_to_exclude():
    """Consultation replies that say "No objection" are the items asked for: excluding
    "objection" counted every other line of the corpus "exactly"."""
    rng = random.Random(11)
    bodies = ("Highways Authority", "Parish Council", "Ecology Officer", "Drainage Board",
              "Conservation Officer", "Tree Officer", "Environmental Health")
    verdicts = [rng.choice(("No objection.", "Objects: loss of hedgerow.",
                            "Comments: condition on lighting.")) for _ in bodies]
    replies = "\n".join(f"{body} replied on {d + 3} May: {verdict}"
                         for d, (body, verdict) in enumerate(zip(bodies, verdicts, strict=True)))
    minutes = "\n".join(f"Item {i}: the hall roof repair was discussed and deferred."
                         for i in range(40))
    layout = read_layout([("replies", replies), ("minutes", minutes)])
    question = "how many of the consultees said they had no objection to the scheme"
    assert count_draft(question, layout).negated
    assert route(question, layout)[0] != "count"
    # A negation the records never write still excludes what it names.
    assert not count_draft("how many replies were not from the Parish Council",
                           layout).negated


def test_a_field_named_in_words_is_not_its_value():
    """"not opened by alice": "opened by" names the opened_by field, not status=open."""
    text = "ticket,status,opened_by\n" + "".join(
        f"T-{i},{('open', 'closed')[i % 2]},{('alice', 'bob', 'carol')[i % 3]}\n"
        for i in range(30))
    draft = count_draft("How many tickets were not opened by alice?",
                        read_layout([("t", text)]))
    assert [(f.field, f.value) for f in draft.plan.exclude] == [("opened_by", "alice")]
    assert draft.plan.filters == []


async def test_the_collection_named_selects_its_document(rt):
    """"in the mail log" is the document, not a phrase to match ("mail-relay")."""
    mail = "".join(f"Apr  2 06:0{i}:00 mx1 postfix/smtp[22{i}]: to=<a@b>, "
                   f"status={'deferred' if i % 3 == 0 else 'sent'} via mail-relay\n"
                   for i in range(9))
    other = "".join(f"2024-05-02 08:00:0{i},000 INFO [mailer] status=deferred\n"
                    for i in range(7))
    sid = rt.store.create_session("s", SessionConfig())["session_id"]
    for name, text in (("mail.log", mail), ("app.log", other)):
        rt.store.add_document(sid, text.encode(), length_chars=len(text), source=name,
                              source_type="inline")
    result, _ = await ask(rt, sid, "How many messages were deferred in the mail log?", "auto",
                          no_model)
    assert result.answer.startswith("3 — counted exactly by code")


def test_in_total_at_the_end_sums_the_field_named_before_it():
    text = "booking\tnights\tchannel\n" + "".join(
        f"B-{i}\t{i % 4 + 1}\t{('agency', 'direct')[i % 2]}\n" for i in range(12))
    layout = read_layout([("b", text)])
    draft = count_draft("How many nights were booked through agencies, in total?", layout)
    assert draft.aggregate is not None and draft.aggregate.key == "nights"
    assert [(f.field, f.value) for f in draft.plan.filters] == [("channel", "agency")]
    assert route("How many nights were booked through agencies, in total?", layout)[0] == "count"
