"""JSON arrays and YAML read as records, one per object, keys as fields (nested keys with
dots), through the real json and yaml writers; and counted by code in plain words."""

from __future__ import annotations

import json
import random

import pytest
import yaml
from strategy_support import ask, load_named, no_model, small_runtime

from rlm_recursive.corpus.records import detect_format, read_layout
from rlm_recursive.corpus.structured import flatten, structured_records

_KINDS = ("refund", "exchange", "repair")
_SITES = ("Dundee", "Truro", "Bangor")


def _orders(seed: int, n: int) -> list[dict]:
    rng = random.Random(seed)
    return [{"order": f"OR-{5000 + i}", "kind": rng.choice(_KINDS),
             "customer": {"town": rng.choice(_SITES), "tier": rng.choice(("gold", "basic"))},
             "labels": rng.sample(["fragile", "late", "gift"], 2),
             "note": f"parcel {i} handled at the {rng.choice(_SITES)} counter"}
            for i in range(n)]


def test_a_pretty_printed_json_array_is_one_record_per_object():
    orders = _orders(1, 30)
    text = json.dumps(orders, indent=2)
    assert detect_format(text) == "json"
    layout = read_layout([("d", text)])
    assert len(layout.records) == 30
    first = layout.records[0]
    assert json.loads(first.text) == orders[0]  # the span is the whole object
    assert first.fields["customer.town"] == orders[0]["customer"]["town"]
    assert first.fields["labels"] == ", ".join(orders[0]["labels"])
    assert layout.unit == "record"
    assert sum(layout.fields["kind"].values()) == 30


def test_an_object_holding_the_array_gives_the_array_s_objects():
    orders = _orders(2, 12)
    text = json.dumps({"exported": "2026-11-01", "orders": orders, "count": 12}, indent=4)
    found = structured_records(text)
    assert found is not None and found[0] == "json"
    spans = found[1]
    assert [json.loads(text[a:b])["order"] for a, b, _ in spans] == [o["order"] for o in orders]
    assert "orders" not in {k for _, _, f in spans for k in f}  # the collection is no field


def test_a_single_json_object_is_not_a_collection_of_records():
    assert structured_records(json.dumps({"name": "x", "retries": 3}, indent=2)) is None


def test_a_yaml_list_of_mappings_and_a_stream_of_documents():
    orders = _orders(3, 15)
    listed = yaml.safe_dump(orders, sort_keys=False)
    layout = read_layout([("a.yml", listed)], {"a.yml": "orders.yml"})
    assert layout.formats["a.yml"] == "yaml" and len(layout.records) == 15
    assert layout.records[4].fields["customer.tier"] == orders[4]["customer"]["tier"]
    assert layout.records[4].text.startswith("order: OR-5004")
    stream = yaml.safe_dump_all(orders[:5], sort_keys=False, explicit_start=True)
    found = structured_records(stream)  # "---" opens it: YAML without a name
    assert found is not None and found[0] == "yaml"
    assert [f["order"] for _, _, f in found[1]] == [o["order"] for o in orders[:5]]


def test_a_yaml_mapping_of_records_names_each_by_its_key():
    hosts = {"web-1": {"role": "frontend", "zone": "a"}, "web-2": {"role": "frontend"},
             "db-1": {"role": "database", "zone": "b"}}
    text = yaml.safe_dump({"hosts": hosts})
    found = structured_records(text, "inventory.yaml")
    assert found is not None
    assert {f["name"]: f["role"] for _, _, f in found[1]} == {
        "web-1": "frontend", "web-2": "frontend", "db-1": "database"}


@pytest.mark.parametrize("text", [
    "Name: Ada\nRole: nurse\n\nName: Bo\nRole: porter\n",  # Key: value notes
    "Event[1]:\n  Log Name: System\n  Level: Error\nEvent[2]:\n  Log Name: System\n",
    "---\ntitle: Notes\n---\n# Heading\n\nSome prose about the week.\n",  # front matter
])
def test_notes_that_happen_to_parse_as_yaml_stay_what_they_were(text):
    assert structured_records(text, "notes.txt") is None


def test_flatten_joins_lists_and_nests_with_dots():
    assert flatten({"a": {"b": 1, "c": [{"d": "x"}, {"d": "y"}]}, "e": True, "f": None}) == {
        "a.b": "1", "a.c.d": "x, y", "e": "true"}


@pytest.mark.parametrize("question", ["How many orders were refunds?",
                                      "how many refund orders came from Truro customers"])
async def test_counting_a_json_export_in_plain_words(tmp_path, monkeypatch, question):
    orders = _orders(4, 80)
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"orders.json": json.dumps(orders, indent=2)})
        result, fake = await ask(runtime, sid, question, "auto", no_model)
    finally:
        runtime.close()
    truro = "truro" in question.lower()
    gold = sum(o["kind"] == "refund" and (not truro or o["customer"]["town"] == "Truro")
               for o in orders)
    assert result.strategy == "count" and fake.requests == []
    assert result.answer.split()[0] == str(gold), result.answer
