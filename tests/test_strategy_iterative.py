"""The iterative strategy with the fake model: search, bridge entity, search again, answer."""

from __future__ import annotations

import random
import re

import pytest
from strategy_support import ask, load, small_runtime, texts_of, tool_name

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.strategies.iterative import MAX_HOPS, expected_hops
from rlm_recursive.bench.multihop import make_task
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply, tool_reply


@pytest.fixture(params=[2, 3])
def chain(request, tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    task = make_task(random.Random(request.param), request.param, 40_000)
    sid = load(runtime, task.documents[0][1])
    yield runtime, sid, task
    runtime.close()


def _reader(request: ChatRequest, *, eager: bool = False) -> ChatResult:
    """A 'model' that follows the chain only through what the excerpts show it."""
    prompt = request.messages[-1].content
    if tool_name(request) != "rlm_hop":
        codes = re.findall(r"\d{4}-[A-Z]", prompt.split("Excerpts:", 1)[1].split("[2]")[0])
        return reply(codes[0] if codes else "unknown")
    question = prompt.split("\n", 1)[0]
    project = re.search(r"the (\w+) project\?", question).group(1)
    known = re.findall(r"- (\w+)\n", prompt)
    entity = known[-1] if known else project
    options = request.tools[0].parameters["properties"]["next_lookup"].get("enum", [])
    excerpts = prompt.split("Excerpts:", 1)[1]
    code = re.search(rf"alarm code of the {entity} \w+ is (\d{{4}}-[A-Z])", excerpts)
    if code:
        return tool_reply("rlm_hop", {"fact": entity, "can_answer": True,
                                      "answer": code.group(1), "next_lookup": "NONE"})
    for pattern in (rf"The {entity} project is run by the (\w+) office",
                    rf"The {entity} office is housed in the (\w+) building"):
        found = re.search(pattern, excerpts)
        if found and found.group(1) in options:
            return tool_reply("rlm_hop", {"fact": found.group(1), "can_answer": False,
                                          "answer": "", "next_lookup": found.group(1)})
    if eager:  # a careless model answers with the first code it sees
        first = re.search(r"\d{4}-[A-Z]", excerpts)
        return tool_reply("rlm_hop", {"fact": "", "can_answer": True,
                                      "answer": first.group() if first else "",
                                      "next_lookup": "NONE"})
    return tool_reply("rlm_hop", {"fact": "", "can_answer": False, "answer": "",
                                  "next_lookup": "NONE"})


async def test_the_chain_is_followed_and_every_excerpt_is_cited(chain):
    runtime, sid, task = chain
    result, fake = await ask(runtime, sid, task.question, "iterative", _reader)
    assert task.score(result.answer) == 1.0, result.answer
    hops = [r for r in fake.requests if tool_name(r) == "rlm_hop"]
    assert len(fake.requests) <= MAX_HOPS + 1
    assert len(hops) == expected_hops(task.question)
    text = texts_of(runtime, sid)
    cited = [text[c.doc_id][c.start:c.end] for c in result.citations]
    assert all(verify_citation(runtime.store, sid, c)["valid"] for c in result.citations)
    for request in hops:
        shown = re.findall(r"^\[\d+\] (.*)$", request.messages[-1].content, re.MULTILINE)
        assert shown
        assert all(any(excerpt in span for span in cited) for excerpt in shown)
    # The code itself was read from a cited span.
    assert any(task.gold in span for span in cited)


async def test_an_early_answer_from_a_distractor_is_not_accepted(chain):
    runtime, sid, task = chain
    # Hop 1 shows other offices' codes; the eager model answers one, the runtime goes on.
    result, fake = await ask(runtime, sid, task.question, "iterative",
                             lambda r: _reader(r, eager=True))
    assert task.score(result.answer) == 1.0, result.answer
    assert len(fake.requests) <= MAX_HOPS + 1


def test_expected_hops_follow_the_relative_clauses():
    assert expected_hops("What is the special magic number for ledger-7?") == 1
    assert expected_hops("What is the alarm code of the office that runs the X project?") == 2
