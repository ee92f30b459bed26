"""The count strategy with the fake model: the model proposes a pattern, code counts it all."""

from __future__ import annotations

import random

import pytest
from strategy_support import ask, load, small_runtime, texts_of, tool_name

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.strategies.count import SAMPLE
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import tool_reply

QUESTION = "How many log lines have level ERROR from the billing service?"


def _logs(seed: int, n: int) -> tuple[list[str], int, dict[str, int]]:
    rng = random.Random(seed)
    docs, gold, per_service = [], 0, {"billing": 0, "auth": 0, "search": 0}
    for _ in range(2):
        lines = []
        for i in range(n):
            level, service = rng.choice(["INFO", "ERROR", "WARN"]), rng.choice(
                ["billing", "auth", "search"])
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


def _plan(filters: list[dict[str, str]], pattern: str = ""):
    def script(request: ChatRequest) -> ChatResult:
        assert tool_name(request) == "rlm_count_plan"
        return tool_reply("rlm_count_plan", {"filters": filters, "pattern": pattern,
                                             "regex": False})
    return script


async def test_code_counts_every_match_and_cites_a_sample(logs):
    runtime, sid, gold, _ = logs
    # The model names one filter and no number: the count can only come from code.
    result, fake = await ask(runtime, sid, QUESTION, "count",
                             _plan([{"field": "level", "value": "ERROR"}]))
    assert result.answer.split()[0] == str(gold)
    assert "level=ERROR" in result.answer and "service=billing" in result.answer
    assert len(fake.requests) == 1
    schema = fake.requests[0].tools[0].parameters
    assert "ERROR" in str(schema) and "billing" in str(schema)  # the corpus' own values
    texts = texts_of(runtime, sid)
    assert 0 < len(result.citations) <= SAMPLE
    for citation in result.citations:
        assert verify_citation(runtime.store, sid, citation)["valid"]
        line = texts[citation.doc_id][citation.start:citation.end]
        assert "level=ERROR" in line and "service=billing" in line


async def test_a_filter_the_question_does_not_say_is_dropped(logs):
    runtime, sid, gold, _ = logs
    result, _ = await ask(runtime, sid, QUESTION, "count",
                          _plan([{"field": "level", "value": "WARN"}], pattern="budget"))
    assert result.answer.split()[0] == str(gold)
    assert "WARN" not in result.answer


async def test_no_usable_reply_still_counts_from_the_grounded_question(logs):
    runtime, sid, gold, _ = logs
    result, _ = await ask(runtime, sid, QUESTION, "count",
                          lambda request: tool_reply("rlm_count_plan", {}))
    assert result.answer.split()[0] == str(gold)


async def test_most_frequent_is_ranked_in_code(logs):
    runtime, sid, _, per_service = logs
    result, _ = await ask(runtime, sid,
                          "Which service has the most ERROR lines: billing, auth or search?",
                          "count", _plan([{"field": "level", "value": "ERROR"}]))
    top = max(per_service, key=per_service.__getitem__)
    assert result.answer.split()[0] == top
    for service, count in per_service.items():
        assert f"{service}: {count}" in result.answer
    assert len(result.citations) == 3  # one sample line per compared value
