"""The count strategy with the fake model: the plan comes from the question's words, code
counts it all, and no model is asked."""

from __future__ import annotations

import random

import pytest
from strategy_support import ask, load, small_runtime, texts_of

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.strategies.count import SAMPLE
from rlm_recursive.providers.fake import reply

QUESTION = "How many log lines have level ERROR from the billing service?"


def _logs(seed: int, n: int) -> tuple[list[str], int, dict[str, int]]:
    rng = random.Random(seed)
    docs, gold, per_service = [], 0, {"billing": 0, "auth": 0, "search": 0}
    for _ in range(2):
        lines = []
        for i in range(n):
            level, service = rng.choice(["INFO", "ERROR", "WARN"]), rng.choice(
                ["billing", "auth", "search"])
            # The message names ERROR and billing too: a trap for a plain word count.
            lines.append(f'{i:05d} level={level} service={service} '
                         f'msg="ERROR budget sent to billing"')
            gold += (level, service) == ("ERROR", "billing")
            per_service[service] += level == "ERROR"
        docs.append("\n".join(lines) + "\n")
    return docs, gold, per_service


@pytest.fixture
def logs(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    docs, gold, per_service = _logs(5, 1500)
    yield runtime, load(runtime, *docs), gold, per_service
    runtime.close()


def _no_model(request):
    raise AssertionError("counting asks no model")


async def test_code_counts_every_match_and_cites_a_sample(logs):
    runtime, sid, gold, _ = logs
    result, fake = await ask(runtime, sid, QUESTION, "count", _no_model)
    assert result.answer.split()[0] == str(gold)
    assert "counted exactly by code" in result.answer
    assert "level=ERROR" in result.answer and "service=billing" in result.answer
    assert fake.requests == [] and result.usage["model_calls"] == 0
    texts = texts_of(runtime, sid)
    assert 0 < len(result.citations) <= SAMPLE
    for citation in result.citations:
        assert verify_citation(runtime.store, sid, citation)["valid"]
        line = texts[citation.doc_id][citation.start:citation.end]
        assert "level=ERROR" in line and "service=billing" in line


@pytest.mark.parametrize("question", [
    "How many errors did billing log?",
    "how many ERROR lines are from the billing service",
    "Count the errors from billing.",
    "What is the number of error entries for the Billing service?",
])
async def test_plain_wordings_count_the_same(logs, question):
    runtime, sid, gold, _ = logs
    result, _ = await ask(runtime, sid, question, "count", _no_model)
    assert result.answer.split()[0] == str(gold), result.answer


async def test_most_frequent_is_ranked_in_code(logs):
    runtime, sid, _, per_service = logs
    result, _ = await ask(runtime, sid,
                          "Which service has the most ERROR lines: billing, auth or search?",
                          "count", _no_model)
    top = max(per_service, key=per_service.__getitem__)
    assert result.answer.split()[0] == top
    for service, count in per_service.items():
        assert f"{service}: {count}" in result.answer
    assert len(result.citations) == 3  # one sample line per compared value


async def test_a_question_naming_nothing_the_text_marks_is_refused(logs):
    runtime, sid, _, _ = logs
    result, _ = await ask(runtime, sid, "How many lines describe a network outage?", "count",
                          lambda r: reply("12"))
    assert result.answer.startswith("Not counted")
    assert "counted exactly" not in result.answer
    assert "network" in result.answer and "outage" in result.answer


async def test_the_computed_record_says_whether_the_plan_is_grounded(tmp_path, monkeypatch):
    from rlm_recursive.agent.routing import session_layout  # noqa: F401 (module loads)
    from rlm_recursive.agent.strategies import count as count_strategy

    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, "".join(f"{i} level={'ERROR' if i % 2 else 'INFO'} service=auth\n"
                                    for i in range(20)))
        seen = {}
        original = count_strategy.run

        async def spy(rc, state, question):
            answer = await original(rc, state, question)
            seen[question] = answer.extra["computed"]
            return answer

        monkeypatch.setattr(count_strategy, "run", spy)
        for question in ("How many ERROR lines are there?", "How many lines mention a cat?",
                         "How many WARN lines are from auth?"):
            await ask(runtime, sid, question, "count", _no_model)
    finally:
        runtime.close()
    assert seen["How many ERROR lines are there?"] == {
        "method": "count", "plan": "level=ERROR", "matched": 10, "grounded": True,
        "partial": False, "exact": True}
    assert seen["How many lines mention a cat?"]["grounded"] is False
    # WARN is no value of the corpus: the plan is service=auth only, and that is not what
    # the question asked; the unknown word refuses the count.
    assert seen["How many WARN lines are from auth?"]["grounded"] is False
