"""A model-judged total says so, and is refused when the items judged are not one counted
thing each (a table pasted whole into free text, a text of one or two paragraphs)."""

from __future__ import annotations

from collections import Counter

from strategy_support import ask, load_named, small_runtime, tool_name

from rlm_recursive.agent.strategies.classify import not_units
from rlm_recursive.cli.query import EXIT_NOT_FOUND, answer_exit_code
from rlm_recursive.corpus.records import Layout, Record
from rlm_recursive.providers.base import ChatRequest
from rlm_recursive.providers.fake import tool_reply

REVIEWS = ["The courier left it in the rain, box soaked.", "Lovely mug, glaze is perfect.",
           "Arrived a week late and the driver was rude.", "Good value for the price.",
           "Parcel was thrown over the gate by the delivery man.", "Colour as pictured.",
           "Handle is a bit small for my hand.", "Delivery took three attempts."]
DELIVERY = ("courier", "late", "delivery", "parcel")


def _judge(request: ChatRequest):
    assert tool_name(request) == "rlm_item_labels"
    listing = request.messages[-1].content.split("Items:\n", 1)[1]
    return tool_reply("rlm_item_labels", {
        line.split(". ", 1)[0]: "yes" if any(w in line.lower() for w in DELIVERY) else "no"
        for line in listing.splitlines()})


def _never(request: ChatRequest):
    raise AssertionError("no item should be judged")


async def test_a_judged_total_says_it_is_not_an_exact_count(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"reviews.txt": "\n".join(REVIEWS) + "\n"})
        result, _ = await ask(runtime, sid, "how many reviews complain about delivery",
                              "classify", _judge)
    finally:
        runtime.close()
    gold = sum(any(w in r.lower() for w in DELIVERY) for r in REVIEWS)
    assert result.answer.split()[0] == str(gold)
    assert "not an exact count" in result.answer and "exactly" not in result.answer
    assert result.exact is False and result.grounded is True


async def test_an_exact_count_says_it_is_exact(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    lines = "".join(f"t={i} level={'WARN' if i % 3 else 'ERROR'} svc=api\n" for i in range(12))
    try:
        sid = load_named(runtime, {"api.log": lines})
        result, _ = await ask(runtime, sid, "How many ERROR lines are there?", "count", _never)
    finally:
        runtime.close()
    assert result.answer.split()[0] == "4" and result.exact is True


async def test_a_count_over_a_text_that_is_no_list_is_not_found(tmp_path, monkeypatch):
    """Two paragraphs of a letter are no list of shipments: no total is judged from them."""
    letter = ("Dear Ms Okonjo,\nThank you for your order of 14 March. Three of the crates "
              "went out on the Tuesday van and the rest follow once the kiln is free.\n\n"
              "Kind regards,\nP. Lindqvist, Marsh Lane Pottery\n")
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"letter.txt": letter})
        result, fake = await ask(runtime, sid, "how many crates went out on the Tuesday van",
                                 "classify", _never)
    finally:
        runtime.close()
    assert not fake.requests
    assert result.grounded is False and answer_exit_code(result) == EXIT_NOT_FOUND
    assert "not a list" in str(result.grounding)


def _prose(doc: str, texts: list[str]) -> Layout:
    records, at = [], 0
    for text in texts:
        records.append(Record(doc_id=doc, start=at, end=at + len(text), text=text))
        at += len(text) + 2
    return Layout(records=records, formats={doc: "prose"}, fields={})


def test_a_table_pasted_whole_among_one_line_items_is_not_a_unit():
    rows = "\n".join(f"  {n:<14}{d:>8}  {s:>6}  {'yes' if i % 2 else 'no':>4}"
                     for i, (n, d, s) in enumerate([("Hollow Lane", "12 Mar", "0930"),
                                                    ("Quarry Rd", "13 Mar", "1015"),
                                                    ("Fen Bridge", "14 Mar", "1100"),
                                                    ("Kings Yard", "15 Mar", "1145"),
                                                    ("Old Mill", "16 Mar", "1230"),
                                                    ("Ash Court", "17 Mar", "1315")]))
    notes = [f"Note {i}: crew briefed at the depot." for i in range(8)]
    pasted = _prose("visits.txt", [*notes[:4], rows, *notes[4:]])
    why = not_units(pasted.records, pasted)
    assert why is not None and "table of 6 rows" in why
    # The same lines, one per item, are a list: each may be judged.
    listed = _prose("visits.txt", [*notes, *rows.splitlines()])
    assert not_units(listed.records, listed) is None


def test_paragraphs_of_like_size_are_units_and_records_always_are():
    recipes = [f"Recipe {i}\n- 200 g flour\n- 2 eggs\n- a pinch of salt\nBake {i} min."
               for i in range(6)]
    layout = _prose("book.txt", recipes)
    assert not_units(layout.records, layout) is None
    one = [Record(doc_id="t.json", start=0, end=5, text="{...}", fields={"a": "1"})]
    assert not_units(one, Layout(one, {"t.json": "json"}, {"a": Counter({"1": 1})})) is None
