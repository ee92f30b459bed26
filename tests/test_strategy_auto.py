"""auto: the question's structure, checked against the session's corpus, with no model call."""

from __future__ import annotations

import pytest
from strategy_support import ask, load, small_runtime, tool_name

from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.routing import route
from rlm_recursive.agent.strategies import choose_strategy
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply, tool_reply

LOG = "".join(f"{i} level={'ERROR' if i % 3 else 'INFO'} service=auth\n" for i in range(90))
NOTES = "".join(f"Note {i}: bought a {'plum' if i % 4 else 'lamp'}.\n" for i in range(40))


@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("question", "expected"), [
    ("How many log lines have level ERROR?", "count"),
    ("What is the alarm code of the office that runs the Halcyon project?", "iterative"),
    ("Summarise the main themes of the report.", "map-reduce"),
    ("What is the special magic number for ledger-7?", "search"),
    ("What is the account number of Acme Ltd?", "search"),
    ("What is the total on invoice 7?", "search"),
    ("What is the sum insured?", "search"),
])
def test_the_wording_alone_routes_by_structure(question, expected):
    assert route(question, None)[0] == expected


def test_capable_models_write_code_or_drive_the_tools(rt):
    # Runtime-planned strategies are for small models; a capable one computes in the REPL.
    big = TierPlan.from_models(rt.catalog, provider=None, model="qwen3:8b").at(0)
    assert choose_strategy("auto", big, "How many lines say ERROR?") == "repl"
    assert choose_strategy("auto", big, "Who signed the lease?") == "agent"
    # "number" naming a value is no count, for capable models either.
    assert choose_strategy("auto", big, "What is the account number of Acme?") == "agent"


def _judge(request: ChatRequest) -> ChatResult:
    assert tool_name(request) == "rlm_item_labels"
    keys = request.tools[0].parameters["required"]
    listing = request.messages[-1].content.split("Items:\n", 1)[1].splitlines()
    return tool_reply("rlm_item_labels", {k: "yes" if "plum" in line else "no"
                                          for k, line in zip(keys, listing, strict=True)})


async def test_how_many_counts_when_the_text_marks_it_and_classifies_otherwise(rt):
    counted, fake = await ask(rt, load(rt, LOG), "How many log lines have level ERROR?", "auto",
                              _judge)
    assert counted.strategy == "count" and counted.answer.startswith("60 ")
    assert fake.requests == []  # routing and counting asked no model
    judged, _ = await ask(rt, load(rt, NOTES), "How many notes mention a fruit?", "auto",
                          _judge)
    assert judged.strategy == "classify" and judged.answer.startswith("30 ")


async def test_a_number_the_text_states_is_looked_up_not_counted(rt):
    sid = load(rt, "The Oak ward has 24 beds. The Birch ward has 18 beds.\n" * 3)
    result, fake = await ask(rt, sid, "How many beds does the Oak ward have?", "auto",
                             lambda r: reply("24"))
    assert result.strategy == "search"
    assert len(fake.requests) == 1


async def test_a_single_fact_goes_to_search_with_no_model_pick(rt):
    sid = load(rt, "The special magic number for ledger-7 is 48213. " + "Filler text. " * 50)
    result, fake = await ask(rt, sid, "What is the special magic number for ledger-7?", "auto",
                             lambda r: reply("48213"))
    assert result.strategy == "search" and result.answer == "48213"
    assert all(not r.tools for r in fake.requests)  # no constrained strategy choice


async def test_an_explicit_strategy_is_kept(rt):
    sid = load(rt, LOG)
    result, fake = await ask(rt, sid, "How many log lines have level ERROR?", "count",
                             lambda r: tool_reply("rlm_count_plan", {}))
    assert result.strategy == "count" and fake.requests == []
