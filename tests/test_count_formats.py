"""Counting in plain words over every format a corpus may be written in, through the count
strategy (fake provider: no model is asked). Files come from real writers where one exists:
Python's logging for bracketed logs, the csv module for CSV and TSV, json for JSON lines."""

from __future__ import annotations

import csv
import io
import json
import logging
import random

import pytest
from strategy_support import ask, load, small_runtime, texts_of

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.corpus.records import detect_format, read_layout

SERVICES = ("lab-results", "pharmacy", "mailer")
LEVELS = ("INFO", "ERROR", "WARNING", "INFO")


def _rows(seed: int, n: int = 400) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    # Messages name other services and levels: a trap for plain word counts.
    return [(rng.choice(LEVELS), rng.choice(SERVICES),
             f"forwarded error report to {rng.choice(SERVICES)}") for _ in range(n)]


def _bracketed(rows) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s [%(name)s] %(message)s"))
    for level, service, msg in rows:
        logger = logging.getLogger(f"route-test.{service}")
        logger.propagate = False
        logger.handlers = [handler]
        logger.setLevel(logging.DEBUG)
        logger.log(getattr(logging, level), msg)
    # The logger's name is route-test.<service>; what a service names itself in the brackets.
    return stream.getvalue().replace("[route-test.", "[")


def _table(rows, delimiter: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(["time", "severity", "service", "message"])
    for i, (level, service, msg) in enumerate(rows):
        writer.writerow([f"2026-01-01T00:00:{i % 60:02d}", level, service, msg])
    return out.getvalue()


def _write(fmt: str, rows) -> str:
    if fmt == "jsonl":
        return "".join(json.dumps({"ts": i, "level": lv.lower(), "svc": s, "msg": m}) + "\n"
                       for i, (lv, s, m) in enumerate(rows))
    if fmt in ("csv", "tsv"):
        return _table(rows, "," if fmt == "csv" else "\t")
    if fmt == "logfmt":
        return "".join(f'ts={i} level={lv} service={s} msg="{m}"\n'
                       for i, (lv, s, m) in enumerate(rows))
    if fmt == "syslog":
        return "".join(f"Jan  5 10:00:{i % 60:02d} host{i % 2} {s}[{300 + i}]: "
                       f"<{lv.lower()}> {m}\n" for i, (lv, s, m) in enumerate(rows))
    if fmt == "bracketed":
        return _bracketed(rows)
    return "\n".join(f"Level: {lv}\nService: {s}\nMessage: {m}\n"
                     for lv, s, m in rows)  # keyvalue blocks


FORMATS = ("jsonl", "csv", "tsv", "logfmt", "syslog", "bracketed", "keyvalue")


@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


def _no_model(request):
    raise AssertionError("counting asks no model")


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_format_and_its_fields_are_inferred(fmt):
    rows = _rows(1, 60)
    text = _write(fmt, rows)
    assert detect_format(text) == fmt
    layout = read_layout([("d", text)])
    assert len(layout.records) == len(rows)
    values = {v.lower() for counts in layout.fields.values() for v in counts}
    assert {"error", "lab-results", "pharmacy"} <= values


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("question", [
    "How many ERROR lines are from the lab-results service?",
    "how many errors did lab-results log",
    "Count the errors from the Lab-Results service.",
])
async def test_plain_words_count_exactly_in_every_format(rt, fmt, question):
    rows = _rows(2)
    gold = sum(lv == "ERROR" and s == "lab-results" for lv, s, _ in rows)
    sid = load(rt, _write(fmt, rows))
    result, fake = await ask(rt, sid, question, "auto", _no_model)
    assert result.strategy == "count" and fake.requests == []
    assert result.answer.split()[0] == str(gold), result.answer
    assert "counted exactly by code" in result.answer
    texts = texts_of(rt, sid)
    for citation in result.citations:
        assert verify_citation(rt.store, sid, citation)["valid"]
        cited = texts[citation.doc_id][citation.start:citation.end].lower()
        assert "error" in cited and "lab-results" in cited


def _spreadsheet_export(rows) -> str:
    """What a spreadsheet or a practice system exports: every field quoted, semicolons (a
    decimal comma locale), header cells with slashes and brackets."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", quoting=csv.QUOTE_ALL)
    writer.writerow(["Rx #", "Date (dd/mm/yyyy)", "Ward / bay", "Drug (generic)", "Status",
                     "Cost (EUR)"])
    for i, (ward, status) in enumerate(rows):
        writer.writerow([f"RX-{9000 + i}", f"{1 + i % 28:02d}/10/2026", ward, "amoxicillin",
                         status, f"{3 + i % 7},50"])
    return out.getvalue()


async def test_a_quoted_semicolon_export_with_punctuated_headers_counts_exactly(rt):
    rng = random.Random(5)
    rows = [(rng.choice(["Cedar", "Birch", "Rowan"]), rng.choice(["Dispensed", "Cancelled"]))
            for _ in range(120)]
    text = _spreadsheet_export(rows)
    assert detect_format(text) == "csv"
    layout = read_layout([("d", text)])
    assert len(layout.records) == 120 and "Ward / bay" in layout.fields
    gold = sum(r == ("Cedar", "Cancelled") for r in rows)
    sid = load(rt, text)
    result, fake = await ask(rt, sid, "how many prescriptions on Cedar ward were cancelled",
                             "auto", _no_model)
    assert result.strategy == "count" and fake.requests == []
    assert result.answer.split()[0] == str(gold), result.answer


async def test_plural_and_multiword_values_match_by_stem(rt):
    lines = [json.dumps({"event": ev, "room": room}) for ev, room in
             [("fire alarm", "a1"), ("door opened", "a1"), ("fire alarm", "b2"),
              ("badge scan", "b2"), ("fire alarm", "a1")] * 3]
    sid = load(rt, "\n".join(lines) + "\n")
    result, _ = await ask(rt, sid, "How many fire alarms were there in room A1?", "count",
                          _no_model)
    assert result.answer.split()[0] == "6", result.answer


async def test_prose_counts_items_holding_the_phrase_the_question_names(rt):
    notes = "".join(f"Note {i}: {'the retry failed again' if i % 3 == 0 else 'all quiet'}.\n"
                    for i in range(30))
    sid = load(rt, notes)
    result, _ = await ask(rt, sid, "How many notes say a retry failed?", "auto", _no_model)
    assert result.strategy == "count"
    assert result.answer.split()[0] == "10", result.answer
    times, _ = await ask(rt, sid, "How many times does 'quiet' appear?", "count", _no_model)
    assert times.answer.split()[0] == "20", times.answer


async def test_no_match_is_not_found_never_a_zero_counted_exactly(rt):
    sid = load(rt, _write("logfmt", _rows(3, 50)))
    result, _ = await ask(rt, sid, "How many lines mention 'kernel panic'?", "count",
                          _no_model)
    assert result.answer.startswith("Not found")
    assert "counted exactly" not in result.answer
