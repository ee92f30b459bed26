"""The iterative strategy with the fake model: search, bridge entity, search again, answer."""

from __future__ import annotations

import random
import re

import pytest
from strategy_support import ask, load, small_runtime, texts_of, tool_name

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.strategies.iterative import MAX_HOPS, expected_hops, names_bridge
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


async def test_names_a_small_model_picked_are_no_chain_grounding_trusts(tmp_path, monkeypatch):
    # It hops to names in an unrelated log line and copies a word from there: no name it
    # picked is written beside the question's bridge, so the answer is checked against the
    # question's own words, not beside the last name it picked.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, "Kiln notes\n\nThe north kiln is the big one by the door.\n\n",
               '203.0.113.9 - - [09/Mar/2025:08:05:44 +0000] "GET /search?q=sourdough&'
               'type=keyword HTTP/1.1" 200 31044 "-" "Mozilla/5.0 (X11; Linux x86_64) '
               'Firefox/123.0"\n')
    steps = iter([{"fact": "", "can_answer": False, "answer": "", "next_lookup": "Mozilla"},
                  {"fact": "", "can_answer": False, "answer": "", "next_lookup": "Firefox"},
                  {"fact": "a search", "can_answer": True, "answer": "sourdough",
                   "next_lookup": "NONE"}])

    def wanders(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_hop":
            return tool_reply("rlm_hop", next(steps, {"fact": "", "can_answer": False,
                                                      "answer": "", "next_lookup": "NONE"}))
        return reply("sourdough")

    result, _ = await ask(runtime, sid, "What type of thermocouple is in the kiln whose "
                          "default program is the slow bisque?", "iterative", wanders)
    runtime.close()
    assert not result.grounded and "sourdough" not in result.answer


def _hops_then(picks: list[str], answer: str):
    """A model that looks up `picks` in turn, then answers `answer`."""
    steps = iter(picks)

    def script(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_hop":
            return tool_reply("rlm_hop", {"fact": "", "can_answer": False, "answer": "",
                                          "next_lookup": next(steps, "NONE")})
        return reply(answer)
    return script


_GARAGE = ("Depot notes\n\n"
           "The Wren van is kept at the Eastgate depot since the spring.\n"
           "The Eastgate depot is managed by Ruth Okonkwo, who took over in May.\n"
           "Ruth Okonkwo can be reached on extension 6130 most mornings.\n\n"
           "Canteen rota\n\n"
           "Idris Vale covers the canteen on Fridays; his extension is 6188.\n")
_VAN = "What extension do I ring for the manager of the depot that keeps the Wren van?"


async def test_a_chain_each_name_beside_the_last_keeps_its_answer(tmp_path, monkeypatch):
    # Wren -> Eastgate -> Ruth Okonkwo: each picked name is written beside the one before,
    # so the answer is grounded beside the last of them.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _GARAGE)
    result, _ = await ask(runtime, sid, _VAN, "iterative",
                          _hops_then(["Eastgate", "Ruth Okonkwo"], "6130"))
    runtime.close()
    assert result.grounded and result.answer == "6130"


async def test_a_picked_name_not_beside_the_last_one_breaks_the_chain(tmp_path, monkeypatch):
    # Wren -> Eastgate, then a jump to Idris Vale, who is written nowhere near Eastgate: his
    # extension is not grounded beside him, it must answer the question's own words.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _GARAGE)
    result, _ = await ask(runtime, sid, _VAN, "iterative",
                          _hops_then(["Eastgate", "Idris Vale"], "6188"))
    runtime.close()
    assert "6188" not in result.answer


_SHOW_BOOK = ("Allotment society show tips, collected for the spring newsletter\n\n"
              "--------------------------------------------------------------\n"
              "11. CHARLOTTE POTATOES                                (Declan Moss)\n"
              "Difficulty: easy\n\n"
              "Chit them on a cool windowsill from February. Earth up twice.\n\n"
              "--------------------------------------------------------------\n"
              "12. SWEET PEAS                                  (Ilse Varga)\n"
              "Difficulty: easy\n\n"
              "Pinch out at four pairs of leaves. Feed weekly with comfrey tea.\n\n"
              "--------------------------------------------------------------\n"
              "13. RUNNER BEANS                                (Declan Moss)\n"
              "Difficulty: easy\n\n"
              "Dig a trench in autumn and fill it with kitchen scraps. Declan waters\n"
              "them with a seaweed feed from Calderbrook Nurseries every ten days.\n\n"
              "--------------------------------------------------------------\n"
              "14. ONIONS                                      (Ilse Varga)\n"
              "Difficulty: easy\n\n"
              "Sets go in late March. Ilse feeds hers with pelleted chicken manure.\n"
              + "".join(f"\n--------------------------------------------------------------\n"
                        f"{n}. {crop.upper()}                               ({who})\n"
                        f"Difficulty: fair\n\nSow {crop} thinly and keep them watered.\n"
                        for n, crop, who in ((15, "Leeks", "Rhoda Penhale"),
                                             (16, "Parsnips", "Amos Trethewey"),
                                             (17, "Carrots", "Rhoda Penhale"),
                                             (18, "Beetroot", "Amos Trethewey"))))
_BEANS = "which feed does the man who gave the Charlotte potatoes tip put on his beans"


async def test_a_things_answer_is_never_the_name_the_chain_went_through(tmp_path, monkeypatch):
    # The model answers with the contributor the bridge led to (a person, for "which feed"):
    # that is no answer, re-asked or not.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _SHOW_BOOK)
    result, _ = await ask(runtime, sid, _BEANS, "iterative",
                          _hops_then(["Declan Moss"], "Declan Moss"))
    runtime.close()
    assert "Declan" not in result.answer and result.grounded is not True


async def test_the_bridge_name_a_model_answers_for_a_thing_is_dropped(tmp_path, monkeypatch):
    # Wren -> Eastgate -> Ruth Okonkwo, and the model answers the person for "which van":
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _GARAGE)
    result, _ = await ask(runtime, sid, "Which van does the manager of the depot that keeps "
                          "the Wren van drive?", "iterative",
                          _hops_then(["Eastgate", "Ruth Okonkwo"], "Ruth Okonkwo"))
    runtime.close()
    assert "Ruth" not in result.answer


def test_an_answer_that_is_a_name_the_chain_went_through_is_told():
    assert names_bridge("Declan Moss", ["Declan Moss"])
    assert names_bridge("Declan.", ["Eastgate", "Declan Moss"])
    assert not names_bridge("a seaweed feed from Declan Moss", ["Declan Moss"])
    assert not names_bridge("Dec", ["Declan Moss"]) and not names_bridge("", ["Declan Moss"])


async def test_the_bridges_name_is_no_answer_even_when_the_chain_breaks(tmp_path, monkeypatch):
    # The model picked no hop and answers with the contributor the bridge leads to (grounded
    # beside the question's own words before): no answer to "which vegetable".
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _SHOW_BOOK)
    result, _ = await ask(runtime, sid, "which vegetable does the man who gave the Charlotte "
                          "potatoes tip also write about", "iterative",
                          _hops_then([], "Declan Moss"))
    runtime.close()
    assert "Declan" not in result.answer and result.grounded is not True
