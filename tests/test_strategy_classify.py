"""The classify strategy with the fake model: one label per item, summed by code."""

from __future__ import annotations

import asyncio
import json
import random
import re

import pytest
from strategy_support import ask, load, small_runtime, texts_of, tool_name

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.strategies.classify import MIN_BATCH, labels_for
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import Timeout
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, tool_reply

FRUIT = ("apple", "plum", "pear", "cherry", "mango")
OTHER = ("hammer", "candle", "potato", "scarf", "radio")
QUESTION = "How many of the notes mention a fruit?"


def _notes(seed: int, n: int) -> tuple[str, int]:
    rng = random.Random(seed)
    lines, gold = [], 0
    for i in range(n):
        fruit = rng.random() < 0.3
        gold += fruit
        lines.append(f"Note {i + 1}: left a {rng.choice(FRUIT if fruit else OTHER)} here.")
    return "\n".join(lines) + "\n", gold


def _judge(request: ChatRequest) -> ChatResult:
    """A 'model' that labels each numbered item it was shown (and only those)."""
    assert tool_name(request) == "rlm_item_labels"
    listing = request.messages[-1].content.split("Items:\n", 1)[1]
    labels = {}
    for line in listing.splitlines():
        number, text = line.split(". ", 1)
        labels[number] = "yes" if any(f in text for f in FRUIT) else "no"
    assert sorted(labels, key=int) == sorted(request.tools[0].parameters["required"], key=int)
    return tool_reply("rlm_item_labels", labels)


@pytest.fixture
def notes(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    text_a, gold_a = _notes(1, 260)
    text_b, gold_b = _notes(2, 240)
    yield runtime, load(runtime, text_a, text_b), gold_a + gold_b
    runtime.close()


def _seen(answer: str) -> tuple[int, int]:
    match = re.search(r"items seen (\d+) / items total (\d+)", answer)
    assert match, answer
    return int(match.group(1)), int(match.group(2))


async def test_every_item_is_judged_once_and_the_count_is_summed_in_code(notes):
    runtime, sid, gold = notes
    result, fake = await ask(runtime, sid, QUESTION, "classify", _judge, max_sub_calls=500)
    assert result.answer.split()[0] == str(gold)
    assert _seen(result.answer) == (500, 500)
    shown = [line for r in fake.requests
             for line in r.messages[-1].content.split("Items:\n", 1)[1].splitlines()]
    assert len(shown) == 500  # each item in exactly one batch
    assert len(fake.requests) <= 500 / MIN_BATCH
    # Every positive item is cited, exactly, and verifies.
    texts = texts_of(runtime, sid)
    assert len(result.citations) == gold
    for citation in result.citations:
        assert verify_citation(runtime.store, sid, citation)["valid"]
        assert any(f in texts[citation.doc_id][citation.start:citation.end] for f in FRUIT)
    # No prompt overflowed the 4096-token window (reply reserve 1024, 3 chars per token).
    assert all(sum(len(m.content) for m in r.messages)
               + len(json.dumps(r.tools[0].parameters)) <= (4096 - 1024) * 3
               for r in fake.requests)


async def test_batches_run_with_bounded_concurrency_and_hit_the_cache(notes):
    runtime, sid, gold = notes
    in_flight, peak = 0, 0

    async def slow_judge(request: ChatRequest) -> ChatResult:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return _judge(request)

    fake = FakeProvider(script=slow_judge)
    pool = ProviderPool({"fake": fake})
    options = QueryOptions(provider="fake", model="small", strategy="classify",
                           max_sub_calls=500)
    first = await run_query(runtime, sid, QUESTION, options, providers=pool)
    calls = len(fake.requests)
    assert 1 < peak <= 4
    second = await run_query(runtime, sid, QUESTION, options, providers=pool)
    assert len(fake.requests) == calls  # temperature 0: every batch came from the cache
    assert first.answer == second.answer and first.answer.split()[0] == str(gold)


async def test_a_batch_without_usable_labels_is_retried_in_halves(notes):
    runtime, sid, gold = notes
    broken = {"done": False}

    def flaky(request: ChatRequest) -> ChatResult:
        if not broken["done"]:  # the first reply labels nothing usable
            broken["done"] = True
            return tool_reply("rlm_item_labels", {"1": "maybe"})
        return _judge(request)

    result, _ = await ask(runtime, sid, QUESTION, "classify", flaky, max_sub_calls=500)
    assert _seen(result.answer) == (500, 500)
    assert result.answer.split()[0] == str(gold)


def test_labels_are_offered_by_the_question_or_yes_no():
    assert labels_for("How many notes mention a fruit?") == ["yes", "no"]
    assert labels_for("Which topic is most common: billing, shipping or login?") == [
        "billing", "shipping", "login"]


async def test_offered_labels_give_a_distribution_ranked_in_code(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    topics = ["billing"] * 13 + ["login"] * 21 + ["shipping"] * 6
    random.Random(4).shuffle(topics)
    sid = load(runtime, "".join(f"Ticket {i}: a question about {t}.\n"
                                for i, t in enumerate(topics)))

    def label(request: ChatRequest) -> ChatResult:
        keys = request.tools[0].parameters["required"]
        listing = request.messages[-1].content.split("Items:\n", 1)[1].splitlines()
        return tool_reply("rlm_item_labels", {k: line.rsplit(" ", 1)[1].rstrip(".")
                                              for k, line in zip(keys, listing, strict=True)})

    result, fake = await ask(runtime, sid, "Which topic is most common: billing, shipping or "
                             "login?", "classify", label)
    assert result.answer.startswith("login (billing: 13, shipping: 6, login: 21)")
    assert len(fake.requests) == 1 and len(result.citations) == 21
    runtime.close()


async def test_the_job_is_estimated_before_the_first_call_and_reported_as_it_runs(notes):
    runtime, sid, gold = notes
    events: list[dict] = []
    calls_at_estimate: list[int] = []
    fake = FakeProvider(script=_judge)

    def progress(event: dict) -> None:
        if event.get("task") == "classify":
            events.append(event)
            if event["phase"] == "estimate":
                calls_at_estimate.append(len(fake.requests))

    result = await run_query(runtime, sid, QUESTION,
                             QueryOptions(provider="fake", model="small", strategy="classify",
                                          max_sub_calls=500),
                             providers=ProviderPool({"fake": fake}), progress=progress)
    estimate = events[0]
    assert estimate["phase"] == "estimate" and calls_at_estimate == [0]
    assert estimate["items"] == 500 and estimate["calls"] == len(fake.requests)
    done = [e["done"] for e in events if e["phase"] == "progress"]
    assert done == sorted(done) and done[-1] == 500
    assert result.answer.split()[0] == str(gold) and "PARTIAL" not in result.answer


async def test_the_time_budget_returns_a_partial_count_marked_partial(notes):
    runtime, sid, gold = notes

    async def slow(request: ChatRequest) -> ChatResult:
        await asyncio.sleep(0.15)
        return _judge(request)

    fake = FakeProvider(script=slow)
    result = await run_query(runtime, sid, QUESTION,
                             QueryOptions(provider="fake", model="small", strategy="classify",
                                          max_sub_calls=500, concurrency=1,
                                          classify_budget_s=0.4),
                             providers=ProviderPool({"fake": fake}))
    seen, total = _seen(result.answer)
    assert total == 500 and 0 < seen < 500
    assert "PARTIAL" in result.answer and result.answer.startswith("~")
    assert len(fake.requests) < 500 / MIN_BATCH  # it stopped asking
    # The estimate scales the share judged yes to every item: near the truth here.
    estimate = int(result.answer[1:].split()[0])
    assert abs(estimate - gold) <= 0.35 * gold


def _says_yes_to(word: str, shown: list[str]):
    """A 'model' that says yes to the items holding `word`; it keeps the items it was shown."""
    def judge(request: ChatRequest) -> ChatResult:
        keys = request.tools[0].parameters["required"]
        listing = request.messages[-1].content.split("Items:\n", 1)[1].splitlines()
        shown.extend(listing)
        return tool_reply("rlm_item_labels", {k: "yes" if word in line else "no"
                                              for k, line in zip(keys, listing, strict=True)})
    return judge


async def test_named_fields_narrow_the_items_judged(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    lines = [f"level={'ERROR' if i % 2 else 'INFO'} msg=\"{'socket closed' if i % 3 else 'ok'}\""
             for i in range(60)]
    sid = load(runtime, "\n".join(lines) + "\n")
    shown: list[str] = []
    judge = _says_yes_to("socket", shown)
    result, _ = await ask(runtime, sid, "How many ERROR lines describe a network problem?",
                          "auto", judge)
    runtime.close()
    assert result.strategy == "classify"
    assert len(shown) == 30 and all("level=ERROR" in line for line in shown)
    gold = sum(i % 2 == 1 and i % 3 != 0 for i in range(60))
    assert result.answer.split()[0] == str(gold)


def test_the_estimate_is_revised_from_measured_calls_and_remembered(monkeypatch):
    """A loaded machine runs the embedded model ~3x slower than its size says: the pace of
    the first calls revises the estimate, and the next run on that model starts from it."""
    from rlm_recursive.agent.recursion import Tier
    from rlm_recursive.agent.strategies import classify as classify_strategy
    from rlm_recursive.catalog import ModelInfo

    monkeypatch.setattr(classify_strategy, "_MEASURED", {})
    tier = Tier(provider="embedded", model="smollm2",
                info=ModelInfo(provider="embedded", params_b=0.135))
    prior = classify_strategy.estimate(tier, 300, 6, 6000)
    assert prior > 0
    # Two calls of six done, one at a time, at three times the prior's pace per call.
    pace = 3 * prior / 6
    whole = classify_strategy.revised(prior, 2 * pace, 2, 6, 1)
    assert whole == pytest.approx(3 * prior)
    # Two in flight: four calls in the time of two, so the six take the time of three.
    assert classify_strategy.revised(prior, 2 * pace, 4, 6, 2) == pytest.approx(3 * pace)
    classify_strategy._MEASURED[("embedded", "smollm2")] = whole / prior
    assert classify_strategy.estimate(tier, 300, 6, 6000) == pytest.approx(3 * prior)


async def test_a_field_the_question_names_leaves_out_records_without_it(tmp_path, monkeypatch):
    # "have remarks that report ...": a row with no remarks reports nothing; it is not judged.
    runtime = small_runtime(tmp_path, monkeypatch)
    rng = random.Random(7)
    rows = ["batch,line,remarks"] + [
        f"B{i},L{i % 3},{rng.choice(('', '', 'seal leaking', 'label smudged'))}"
        for i in range(40)]
    sid = load(runtime, "\n".join(rows) + "\n")
    shown: list[str] = []
    judge = _says_yes_to("leak", shown)
    result, _ = await ask(runtime, sid, "How many batches have remarks that report a "
                          "packaging fault?", "classify", judge)
    runtime.close()
    with_remarks = [r for r in rows[1:] if not r.endswith(",")]
    assert len(shown) == len(with_remarks) and len(shown) < 40
    assert result.answer.split()[0] == str(sum("leak" in r for r in rows[1:]))


async def test_a_call_over_the_time_limit_goes_again_in_halves(notes):
    # A loaded machine: a long batch times out; its halves answer, and the count is whole.
    runtime, sid, gold = notes
    sizes: list[int] = []

    def slow_on_long_batches(request: ChatRequest) -> ChatResult:
        size = len(request.tools[0].parameters["required"])
        sizes.append(size)
        if size > 30:
            raise Timeout("embedded model 'small' did not answer within 180s", model="small")
        return _judge(request)

    result, _ = await ask(runtime, sid, QUESTION, "classify", slow_on_long_batches,
                          max_sub_calls=500)
    assert max(sizes) > 30 and _seen(result.answer) == (500, 500)
    assert result.answer.split()[0] == str(gold) and "PARTIAL" not in result.answer


async def test_a_question_naming_a_ticket_export_judges_its_tickets_only(tmp_path, monkeypatch):
    """"how many tickets ..." over a JSON ticket export beside a long chat log: the model
    judges each ticket (one item per object), not the log's lines or the export's lines, and
    sees each ticket's prose first."""
    runtime = small_runtime(tmp_path, monkeypatch)
    rng = random.Random(7)
    # Ids, stamps and people before the body: the body is past the cut of a raw object.
    tickets = [{"id": f"SUP-{i}", "status": rng.choice(["open", "closed"]),
                "created": f"2026-10-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
                "updated": f"2026-10-{1 + i % 28:02d}T17:{i % 60:02d}:00Z",
                "requester": {"name": f"Customer {i}", "org": f"Org {i}", "plan": "Team"},
                "assignee": "Desk 2", "channel": "email", "priority": "P3",
                "body": f"I left a {rng.choice(FRUIT + OTHER)} at the desk"} for i in range(30)]
    chat, _ = _notes(3, 200)
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    for name, text in (("support_tickets.json", json.dumps(tickets, indent=2)),
                       ("chat.txt", chat)):
        runtime.store.add_document(sid, text.encode(), length_chars=len(text), source=name,
                                   source_type="inline")
    try:
        result, _ = await ask(runtime, sid, "how many tickets are about something edible",
                              "auto", _judge)
    finally:
        runtime.close()
    assert result.strategy == "classify"
    assert _seen(result.answer) == (30, 30)
    assert result.answer.split()[0] == str(sum(any(f in t["body"] for f in FRUIT)
                                               for t in tickets))


async def test_a_value_inside_the_relative_clause_does_not_narrow_the_items(tmp_path,
                                                                            monkeypatch):
    """"people who left something edible at the desk": "desk" is a tag of some tickets, but
    it is part of what is judged, not which tickets are."""
    runtime = small_runtime(tmp_path, monkeypatch)
    rng = random.Random(11)
    tickets = [{"id": f"SUP-{i}", "tags": [rng.choice(["desk", "billing"])],
                "body": f"I left a {rng.choice(FRUIT + OTHER)} at the desk"} for i in range(30)]
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    text = json.dumps(tickets, indent=2)
    runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                               source="support_tickets.json", source_type="inline")
    try:
        result, _ = await ask(runtime, sid, "how many tickets are from people who left "
                              "something edible at the desk", "classify", _judge)
    finally:
        runtime.close()
    assert _seen(result.answer) == (30, 30)
    assert result.answer.split()[0] == str(sum(any(f in t["body"] for f in FRUIT)
                                               for t in tickets))
