"""A record looked up by what the question says of it, its asked field read (real parsers,
SQLite and tantivy; fake provider). A pretty-printed JSON array and a multi-document YAML
name a thing in one field and give its settings lines away: no one line holds both, so the
line-based extraction finds nothing; the record does. A field whose name is not the thing
asked, a sibling the question does not name, or two records that fit as well, is no
answer."""

from __future__ import annotations

import json

import pytest
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Memo {i}: the stairwell lights were checked and the lift was serviced.\n\n"
                 for i in range(50))
PRINTERS = json.dumps([
    {"name": "North wing printer", "model": "Kyocera M3645", "network": {"ip": "192.0.2.14",
                                                                        "vlan": "40"},
     "toner": "TK-3160", "floor": "2"},
    {"name": "South wing printer", "model": "Brother L6900", "network": {"ip": "192.0.2.15",
                                                                        "vlan": "40"},
     "toner": "TN-3512", "floor": "1"},
    {"name": "Post room plotter", "model": "HP T650", "network": {"ip": "192.0.2.31",
                                                                 "vlan": "41"},
     "toner": "HP 712", "floor": "0"},
], indent=2)
POOLS = ("# connection pools, staging\n"
         "---\nkind: Pool\nmetadata:\n  name: billing-db\nspec:\n  minConnections: 4\n"
         "  maxConnections: 40\n  idleTimeoutSeconds: 300\n"
         "---\nkind: Pool\nmetadata:\n  name: audit-db\nspec:\n  minConnections: 2\n"
         "  maxConnections: 12\n  idleTimeoutSeconds: 600\n")


def _records(name: str, text: str):
    return read_layout([("d", text)], {"d": name}).records


@pytest.mark.parametrize(("name", "text", "question", "key", "value"), [
    ("printers.json", PRINTERS, "What's the IP address of the north wing printer?",
     "network.ip", "192.0.2.14"),
    ("printers.json", PRINTERS, "toner cartridge for the post room plotter", "toner", "HP 712"),
    ("pools.yaml", POOLS, "max connections the billing db pool may open", "spec.maxConnections",
     "40"),
])
def test_the_record_the_question_names_gives_its_asked_field(name, text, question, key, value):
    found = lookup(question, _records(name, text))
    assert found is not None
    record, field = found
    assert field == key and record.fields[field] == value


@pytest.mark.parametrize(("name", "text", "question"), [
    ("printers.json", PRINTERS, "What's the IP address of the wing printer?"),  # two fit
    ("printers.json", PRINTERS, "What's the IP address of the east wing printer?"),  # none
    ("printers.json", PRINTERS, "What's the serial number of the north wing printer?"),
    ("pools.yaml", POOLS, "max connections the reporting db pool may open"),
    ("printers.json", PRINTERS, "Who looks after the north wing printer?"),  # names no field
])
def test_no_record_or_no_field_fits_and_nothing_is_looked_up(name, text, question):
    assert lookup(question, _records(name, text)) is None


@pytest.fixture
def small_rt(tmp_path, monkeypatch):
    return small_runtime(tmp_path, monkeypatch, num_ctx=8192)


def _wrong_line(request):
    """A small model's habit: a value from another record."""
    return reply("192.0.2.31" if "Passages" not in request.messages[-1].content
                 else "NOT FOUND")


async def test_a_small_model_gets_the_looked_up_field_grounded_in_its_record(small_rt):
    sid = load(small_rt, FILLER, PRINTERS)
    result, _ = await ask(small_rt, sid, "What's the IP address of the north wing printer?",
                          "search", _wrong_line)
    assert "192.0.2.14" in result.answer and "192.0.2.31" not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"


async def test_a_printer_the_documents_never_name_is_not_found(small_rt):
    sid = load(small_rt, FILLER, PRINTERS)
    result, _ = await ask(small_rt, sid, "What's the IP address of the east wing printer?",
                          "search", _wrong_line)
    assert result.answer == NOT_FOUND and result.grounded is False


def test_a_field_the_question_gives_names_the_record_not_the_answer() -> None:


    rows = "ticket,owner,status\nT-1001,Mina,open\nT-1002,Joss,closed\n"
    layout = read_layout([("t", rows)], {"t": "tickets.csv"})
    # "ticket T-1002" names the row by its ticket field; that field is not what is asked.
    found = lookup("Under what name is ticket T-1002?", layout.records, layout.titles)
    assert found is None or found[1] != "ticket"
