"""Grounding with the fake model: every answer is backed by the spans it cites, or "not found".

The corpus is written in varied styles (prose, a `Key: value` record, log lines), and the
fake model answers the way small models do: right, invented, echoed, or about the entity
beside the one asked for.
"""

from __future__ import annotations

import pytest
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.agent.strategies import search as search_strategy
from rlm_recursive.agent.strategies.search import ANSWER_SYSTEM
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Paragraph {i} talks about the weather in the valley and nothing else.\n\n"
                 for i in range(40))
ARCHIVES = (
    FILLER
    + "The Harwick archive keeps its door code at 4471-22; staff change it each spring.\n"
    + "The Belmont archive keeps its door code at 9310-57, set by the night porter.\n\n"
    + "Patient: Olsen\nWard: 7\nHeparin rate: 1,250 units/h\n\n"
    + FILLER
)
LOG = "\n".join(f"2024-03-0{d} 10:0{d}:00 INFO [mailer] queue drained in {d * 7} ms"
                for d in range(1, 8))


@pytest.fixture(autouse=True)
def model_answers(monkeypatch):
    """These tests ground what a model answered: the search strategy's own extraction (which
    copies the answer without asking the model; tests/test_extractive.py) is turned off."""
    monkeypatch.setattr(search_strategy, "extract", lambda *args: None)


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, ARCHIVES, LOG)
    yield runtime, sid
    runtime.close()


def _answers(first: str, reasked: str = "NOT FOUND"):
    """The strategy's answer call gets `first`; the grounding re-ask gets `reasked`."""
    def script(request: ChatRequest) -> ChatResult:
        system = request.messages[0].content
        if system == ANSWER_SYSTEM:
            return reply(first)
        assert system.startswith("Answer the question by quoting"), system
        return reply(reasked)
    return script


def _reasks(fake) -> list[ChatRequest]:
    return [r for r in fake.requests if r.messages[0].content != ANSWER_SYSTEM]


async def test_an_answer_backed_by_its_sentence_passes_unchanged(corpus):
    runtime, sid = corpus
    result, fake = await ask(runtime, sid, "What is the door code of the Belmont archive?",
                             "search", _answers("The door code is 9310-57."))
    assert result.answer == "The door code is 9310-57."
    assert result.grounded is True and result.grounding == {"method": "checked"}
    assert result.closest == [] and not _reasks(fake)
    assert all(verify_citation(runtime.store, sid, c)["valid"] for c in result.citations)


async def test_values_match_across_case_and_thousands_separators_in_a_record(corpus):
    runtime, sid = corpus
    # "1250" against "1,250" and "OLSEN" against "Olsen", in a `Key: value` record whose
    # name line is not the value's line.
    result, _ = await ask(runtime, sid, "What is the heparin rate for patient Olsen?",
                          "search", _answers("1250 UNITS/H for OLSEN"))
    assert result.grounded is True and result.grounding["method"] == "checked"


async def test_an_invented_answer_is_asked_again_and_the_quote_is_kept(corpus):
    runtime, sid = corpus
    quote = "The Belmont archive keeps its door code at 9310-57"
    result, fake = await ask(runtime, sid, "What is the door code of the Belmont archive?",
                             "search", _answers("It is 1234, a treasure trove of knowledge.",
                                                quote))
    assert result.answer == quote and result.grounded is True
    assert result.grounding["method"] == "reasked"
    assert result.grounding["failed"]["missing_values"] == ["1234"]
    assert result.grounding["original_answer"].startswith("It is 1234")
    (reask,) = _reasks(fake)
    # The re-ask shows the cited passages that match the question, and asks for a quote.
    assert "9310-57" in reask.messages[-1].content and "quot" in reask.messages[0].content


async def test_when_the_reask_fails_too_the_best_sentence_is_quoted(corpus):
    runtime, sid = corpus
    result, fake = await ask(runtime, sid, "What is the door code of the Belmont archive?",
                             "search", _answers("The code is 5555.", "Probably 5555."))
    assert result.grounded is True and result.grounding["method"] == "extractive"
    assert result.answer == ("The Belmont archive keeps its door code at 9310-57, set by the "
                             "night porter.")
    assert len(_reasks(fake)) == 1  # re-asked once, never more


async def test_a_value_beside_another_entity_is_not_an_answer(corpus):
    runtime, sid = corpus
    # The model copies Harwick's code for a Belmont question (its sentence is in the excerpt).
    result, _ = await ask(runtime, sid, "What is the door code of the Belmont archive?",
                          "search", _answers("4471-22", "4471-22"))
    assert result.grounding["failed"]["missing_entities"] == ["belmont"]
    # The fallback quotes Belmont's own sentence, never the neighbour's.
    assert result.grounding["method"] == "extractive"
    assert "9310-57" in result.answer and "4471-22" not in result.answer


async def test_an_entity_the_documents_never_name_is_not_found(corpus):
    runtime, sid = corpus
    result, _ = await ask(runtime, sid, "What is the door code of the Carlisle archive?",
                          "search", _answers("9310-57", "9310-57"))
    assert result.answer == NOT_FOUND and result.grounded is False
    assert result.grounding["method"] == "not_found"
    assert result.grounding["failed"]["missing_entities"] == ["carlisle"]
    # The closest passages come beside the answer, with where they are, never inside it.
    assert result.closest and all("archive" in p["text"].lower() for p in result.closest)
    for passage in result.closest:
        text = runtime.store.text(runtime.store.document(sid, passage["doc_id"]))
        assert text[passage["start"]:passage["end"]].strip() == passage["text"]


async def test_an_answer_that_echoes_the_question_is_ungrounded(corpus):
    runtime, sid = corpus
    question = "What is the door code of the Harwick archive?"
    result, _ = await ask(runtime, sid, question, "search",
                          _answers(f"Question: {question} The answer is:", "NOT FOUND"))
    assert result.grounding["failed"] == {"echo": True}
    # Echo fails; the extractive fallback still finds Harwick's own sentence.
    assert result.grounding["method"] == "extractive" and "4471-22" in result.answer


async def test_a_question_nothing_matches_never_reaches_the_model(corpus):
    runtime, sid = corpus
    result, fake = await ask(runtime, sid, "zyxwv qqqpl?", "search", _answers("42"))
    assert fake.requests == []  # the model is not asked to answer from nothing
    assert result.answer == NOT_FOUND and result.grounded is False
    assert result.grounding["method"] == "not_found"


async def test_grounding_off_returns_the_answer_unchecked(corpus):
    runtime, sid = corpus
    result, fake = await ask(runtime, sid, "What is the door code of the Carlisle archive?",
                             "search", _answers("9310-57"), grounding=False)
    assert result.answer == "9310-57" and result.grounded is None
    assert result.grounding is None and not _reasks(fake)


@pytest.mark.parametrize(("question", "grounded"), [
    ("How many lines mention mailer?", True),   # a plan from the question that matched
    ("How many lines mention zebra?", False),   # matched nothing: not grounded
])
async def test_computed_answers_are_grounded_by_their_plan(corpus, question, grounded):
    runtime, sid = corpus

    def plan(request: ChatRequest) -> ChatResult:
        word = question.split("mention ")[1].rstrip("?")
        from rlm_recursive.providers.fake import tool_reply
        return tool_reply("rlm_count_plan", {"filters": [], "pattern": word, "regex": False})

    result, _ = await ask(runtime, sid, question, "count", plan)
    assert result.grounded is grounded and result.grounding["method"] == "computed"
    assert ("computed" in result.grounding.get("failed", {})) is not grounded
    if grounded:
        assert result.answer.startswith("7 — counted exactly by code")


async def test_what_the_person_said_earlier_in_the_conversation_backs_an_answer(corpus):
    runtime, sid = corpus

    def script(request: ChatRequest) -> ChatResult:
        said = " ".join(m.content for m in request.messages)
        return reply("Your locker code is 5150." if "5150" in said else "Noted.")

    first, _ = await ask(runtime, sid, "Please remember: my locker code is 5150.", "search",
                         script)
    second, _ = await ask(runtime, sid, "What was my locker code?", "search", script,
                          conversation_id=first.conversation_id)
    assert second.answer == "Your locker code is 5150."
    assert second.grounded is True and second.grounding["method"] == "checked"
    # The model's own earlier replies are not evidence: only what the person said.
    third, _ = await ask(runtime, sid, "What was my locker code?", "search",
                         lambda request: reply("Your locker code is 7777."),
                         conversation_id=first.conversation_id)
    assert third.grounded is False and third.answer == NOT_FOUND


async def test_the_trace_keeps_the_grounding_outcome_without_content(corpus):
    from rlm_recursive.store.trajectory import load_run

    runtime, sid = corpus
    result, _ = await ask(runtime, sid, "What is the door code of the Carlisle archive?",
                          "search", _answers("9310-57", "9310-57"))
    assert result.run_id is not None
    run = load_run(runtime.store.sql, result.run_id)
    assert run["grounding"] == {"grounded": False, "method": "not_found",
                                "failed": ["missing_entities"]}
