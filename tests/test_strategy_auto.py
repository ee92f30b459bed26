"""auto: the question's shape, the corpus and (for small models) a constrained JSON choice."""

from __future__ import annotations

import pytest
from strategy_support import ask, load, small_runtime, tool_name

from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.agent.strategies import choose_strategy, question_shape
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply, tool_reply

LOG = "".join(f"{i} level={'ERROR' if i % 3 else 'INFO'} service=auth\n" for i in range(90))
NOTES = "".join(f"Note {i}: bought a {'plum' if i % 4 else 'lamp'}.\n" for i in range(40))


@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("question", "shape"), [
    ("How many log lines have level ERROR?", ["count"]),
    ("Which category is most frequent: a, b or c?", ["count"]),
    ("What is the alarm code of the office that runs the Halcyon project?", ["iterative"]),
    ("Summarise the main themes of the report.", ["map-reduce"]),
    ("What is the special magic number for ledger-7?", ["search", "iterative"]),
    ("Who wrote the report?", ["search", "iterative"]),
    ("Which office runs the Halcyon project?", ["search", "iterative"]),
])
def test_question_shape(question, shape):
    assert question_shape(question) == shape


def test_capable_models_write_code_or_drive_the_tools(rt):
    # Runtime-planned strategies are for small models; a capable one computes in the REPL.
    big = TierPlan.from_models(rt.catalog, provider=None, model="qwen3:8b").at(0)
    assert choose_strategy("auto", big, "How many lines say ERROR?") == "repl"
    assert choose_strategy("auto", big, "Who signed the lease?") == "agent"


async def test_how_many_counts_when_the_text_marks_it_and_classifies_otherwise(rt):
    def plan_or_labels(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_count_plan":
            return tool_reply("rlm_count_plan", {"filters": [], "pattern": "", "regex": False})
        assert tool_name(request) == "rlm_item_labels"
        keys = request.tools[0].parameters["required"]
        listing = request.messages[-1].content.split("Items:\n", 1)[1].splitlines()
        return tool_reply("rlm_item_labels", {k: "yes" if "plum" in line else "no"
                                              for k, line in zip(keys, listing, strict=True)})

    counted, _ = await ask(rt, load(rt, LOG), "How many log lines have level ERROR?", "auto",
                           plan_or_labels)
    assert counted.strategy == "count" and counted.answer.startswith("60 ")
    judged, _ = await ask(rt, load(rt, NOTES), "How many notes mention a fruit?", "auto",
                          plan_or_labels)
    assert judged.strategy == "classify" and judged.answer.startswith("30 ")


async def test_a_small_model_picks_between_the_shapes_choices(rt):
    sid = load(rt, "The special magic number for ledger-7 is 48213. " + "Filler text. " * 50)
    picked: list[list[str]] = []

    def script(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_strategy":
            picked.append(request.tools[0].parameters["properties"]["strategy"]["enum"])
            return tool_reply("rlm_strategy", {"strategy": "iterative"})
        if tool_name(request) == "rlm_hop":
            return tool_reply("rlm_hop", {"fact": "", "can_answer": True, "answer": "48213",
                                          "next_lookup": "NONE"})
        return reply("48213")

    result, _ = await ask(rt, sid, "What is the special magic number for ledger-7?", "auto",
                          script)
    assert picked == [["search", "iterative"]]
    assert result.strategy == "iterative" and result.answer == "48213"


async def test_an_unusable_pick_falls_back_to_the_heuristic(rt):
    sid = load(rt, "The special magic number for ledger-7 is 48213. " + "Filler text. " * 50)

    def script(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_strategy":
            return reply("I would search.")  # no JSON at all
        return reply("48213")

    result, _ = await ask(rt, sid, "What is the special magic number for ledger-7?", "auto",
                          script)
    assert result.strategy == "search"


async def test_an_explicit_strategy_asks_no_model_to_pick(rt):
    sid = load(rt, LOG)
    result, fake = await ask(rt, sid, "How many log lines have level ERROR?", "count",
                             lambda r: tool_reply("rlm_count_plan", {}))
    assert result.strategy == "count" and len(fake.requests) == 1
