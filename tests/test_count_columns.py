"""Counting asked in plain words over columns named the short way people name them: a
numeric column compared with a number ("over 80%" → yield_pct > 80), a column's short form
("pct", "ms", "temp") or its first letters ("germ" of germination) as the question's words,
and the words that name the collection as a whole, not a filter ("did the booking server
send back", "the seed library's packets"). Files come from real writers (csv, json); the
expected numbers are computed from the rows written. No model call."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import statistics

import pytest
from strategy_support import ask, load, never_asked, small_runtime

from rlm_recursive.agent.routing import count_draft, route
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.word_stems import names_key

CROPS = ("barley", "oats", "rye")


def _trials(seed: int = 11, n: int = 80) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [{"plot": f"P{i:03d}", "crop": rng.choice(CROPS),
             "field": rng.choice(("Top", "Long", "Mill")), "yield_pct": str(rng.randint(20, 99)),
             "soil_temp": f"{rng.uniform(4, 18):.1f}",
             "remarks": rng.choice(("", "", "slug damage", "lodged after storm"))}
            for i in range(n)]


def _tsv(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), delimiter="\t")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _api_log(seed: int = 4, n: int = 150) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [{"ts": f"2025-02-01T10:{i // 60:02d}:{i % 60:02d}Z",
             "route": rng.choice(("/login", "/search", "/basket")),
             "status": rng.choice((200, 200, 200, 302, 404, 500)),
             "dur_ms": rng.randint(3, 900)} for i in range(n)]


@pytest.fixture
def rt(tmp_path, monkeypatch):
    with contextlib.closing(small_runtime(tmp_path, monkeypatch)) as runtime:
        yield runtime


@pytest.mark.parametrize(("key_word", "word", "names"), [
    ("pct", "percentage", True), ("germ", "germinated", True), ("temp", "temperature", True),
    ("ms", "milliseconds", True), ("g", "grams", True), ("min", "minimum", False),
    ("note", "nothing", False), ("id", "idle", False)])
def test_a_columns_short_form_names_the_questions_word(key_word, word, names):
    assert names_key(key_word, word) is names


@pytest.mark.parametrize(("question", "select"), [
    ("How many plots yielded over 80%?", lambda r: int(r["yield_pct"]) > 80),
    ("How many barley plots had a yield percentage below 50?",
     lambda r: r["crop"] == "barley" and int(r["yield_pct"]) < 50),
    ("how many plots were at least 60 percent yield in Mill field",
     lambda r: r["field"] == "Mill" and int(r["yield_pct"]) >= 60),
])
async def test_a_numeric_column_compared_with_a_number(rt, question, select):
    rows = _trials()
    sid = load(rt, _tsv(rows))
    result, fake = await ask(rt, sid, question, "auto", never_asked)
    assert result.strategy == "count" and not fake.requests
    assert result.answer.startswith(f"{sum(map(select, rows))} — counted exactly by code")


async def test_an_average_of_a_column_named_by_its_short_form(rt):
    rows = _trials()
    sid = load(rt, _tsv(rows))
    result, _ = await ask(rt, sid, "What's the mean soil temperature of the oats plots?",
                          "auto", never_asked)
    want = statistics.fmean(float(r["soil_temp"]) for r in rows if r["crop"] == "oats")
    assert result.strategy == "count"
    assert result.answer.split(" — ")[0] == f"{want:.4g}" or abs(
        float(result.answer.split(" — ")[0].replace(",", "")) - want) < 0.01


async def test_the_collection_named_as_subject_or_owner_is_no_filter(rt):
    lines = _api_log()
    sid = load(rt, "".join(json.dumps(line) + "\n" for line in lines))
    for question in ("How many 404s did the booking server send back?",
                     "How many of the booking server's requests got a 404?"):
        result, _ = await ask(rt, sid, question, "auto", never_asked)
        assert result.answer.startswith(
            f"{sum(line['status'] == 404 for line in lines)} — counted exactly by code")
    result, _ = await ask(rt, sid, "How many requests to /search took more than 500 ms?",
                          "auto", never_asked)
    want = sum(line["route"] == "/search" and line["dur_ms"] > 500 for line in lines)
    assert result.answer.startswith(f"{want} — counted exactly by code")


def test_words_that_are_what_is_counted_stay_in_the_plan():
    notes = "\n\n".join(
        f"Patient {i} seen on the ward. " + ("Complains of back pain." if i % 3 else
                                             "Sent back to the GP.")
        for i in range(30))
    layout = read_layout([("notes", notes)])
    # "back pain" is counted; a name as the subject ("Leeds") is a filter, not the corpus.
    draft = count_draft("How many patients have back pain?", layout)
    assert any("back" in p for p in draft.plan.phrases)
    rows = _trials()
    layout = read_layout([("t", _tsv(rows))])
    assert route("How many plots did the North Farm trial sow with rye?", layout)[0] in (
        "count", "classify")
    assert count_draft("How many plots did the trial sow with rye?", layout).plan.filters
