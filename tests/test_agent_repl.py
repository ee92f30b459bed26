"""The repl strategy end to end: scripted models that write code, a real pydantic-monty
sandbox, real SQLite; answers, spans and citations are checked against the corpus."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.store.executions import ExecutionStore

MODELS = ('[models."coder"]\nprovider = "fake"\nnum_ctx = 32768\ntools = true\n'
          'params_b = 70\n')
SERVICES = ["auth", "billing", "search", "mail"]


def make_logs(seed: int, lines: int) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        level = rng.choice(["INFO", "INFO", "WARN", "ERROR"])
        service = rng.choice(SERVICES)
        out.append(f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d} {level} svc={service} "
                   f"request {rng.randrange(10**6)} took {rng.randrange(900)}ms")
    return "\n".join(out) + "\n"


@pytest.fixture
def rt(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("logs", SessionConfig())["session_id"]
    for i in range(2):
        text = make_logs(i, 1800)  # ~2 x 100K chars
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source=f"app{i}.log", source_type="inline")
    yield runtime, sid
    runtime.close()


def code_reply(code: str) -> ChatResult:
    return reply(f"```repl\n{code}\n```")


def root_script(steps: list[str], sub=None):
    """Root turns reply with the next code step; sub-calls go to `sub`."""
    turns = iter(steps)

    async def script(request: ChatRequest) -> ChatResult:
        if "Python sandbox" in request.messages[0].content:
            return code_reply(next(turns))
        return await sub(request)

    return script


COUNT_STEPS = [
    # Step 1: exact counting with regex and len over every document.
    "hits = []\n"
    "for doc in context:\n"
    "    hits = hits + doc.regex(r'(?m)^.* ERROR svc=billing .*$')\n"
    "n = len(hits)\n"
    "print(n, len(context), len(context[0]))",
    "FINAL_VAR('n')",
]


async def test_counting_with_regex_and_len_is_exact_and_cited(rt):
    runtime, sid = rt
    fake = FakeProvider(script=root_script(COUNT_STEPS))
    result = await run_query(runtime, sid, "How many log lines are ERROR from billing?",
                             QueryOptions(provider="fake", model="coder", strategy="repl"),
                             providers=ProviderPool({"fake": fake}))
    docs = runtime.store.documents(sid)
    texts = [runtime.store.text(d) for d in docs]
    expected = [m for t in texts for m in re.finditer(r"(?m)^.* ERROR svc=billing .*$", t)]
    assert result.answer == str(len(expected)) and len(expected) > 50
    assert result.strategy == "repl" and result.stopped == "answer"
    # The second root request saw the first step's stdout and the changed variables.
    feedback = fake.requests[1].messages[-1].content
    assert f"{len(expected)} 2 {len(texts[0])}" in feedback
    assert "hits: list" in feedback and "n: int" in feedback
    # Every matched line is cited, and every citation verifies against the store.
    assert result.citations
    for c in result.citations:
        assert verify_citation(runtime.store, sid, c)["valid"]
        assert c.checksum.startswith("sha256:") and c.doc_index is not None
    for doc, text in zip(docs, texts, strict=True):
        for m in re.finditer(r"(?m)^.* ERROR svc=billing .*$", text):
            assert any(c.doc_id == doc.id and c.start <= m.start() and m.end() <= c.end
                       for c in result.citations)
    # The execution and its steps are persisted.
    store = ExecutionStore(runtime.store.sql)
    record = store.get(result.execution_id)
    assert record["status"] == "COMPLETED" and record["answer"] == result.answer
    steps = store.steps(result.execution_id)
    assert [s.turn_index for s in steps] == [1, 2]
    assert steps[0].state["variables"]["n"] == len(expected)
    assert len(steps[0].span_log) == len(expected)
    assert steps[0].checksum.startswith("sha256:") and steps[1].final["answer"] == result.answer


async def test_llm_query_batched_over_200_chunks_keeps_the_concurrency_bound(rt):
    runtime, sid = rt
    in_flight, peak, seen = 0, 0, []

    async def sub(request: ChatRequest) -> ChatResult:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.002)
        in_flight -= 1
        chunk = request.messages[-1].content
        seen.append(chunk)
        # A sub-model that can only count what it was shown.
        return reply(str(len(re.findall(r" ERROR svc=mail ", chunk))))

    steps = [
        "chunks = []\n"
        "for doc in context:\n"
        "    size = len(doc) // 100 + 1\n"
        "    for a in range(0, len(doc), size):\n"
        "        chunks.append(doc[a:a + size])\n"
        "print(len(chunks))",
        "answers = llm_query_batched(['Count the ERROR lines of svc=mail in:\\n' + c "
        "for c in chunks])\n"
        "total = sum(int(a) for a in answers)\n"
        "print(len(answers), total)",
        "FINAL(str(total))",
    ]
    fake = FakeProvider(script=root_script(steps, sub))
    result = await run_query(runtime, sid, "How many ERROR lines from mail?",
                             QueryOptions(provider="fake", model="coder", strategy="repl",
                                          max_sub_calls=500, concurrency=6),
                             providers=ProviderPool({"fake": fake}))
    texts = [runtime.store.text(d) for d in runtime.store.documents(sid)]
    chunked = sum(len(re.findall(r" ERROR svc=mail ", c.split("\n", 1)[1])) for c in seen)
    assert len(seen) == 200
    assert result.answer == str(chunked)
    # Lines cut at chunk borders may be missed by a chunk-local count, never double counted.
    assert 0.9 * sum(t.count(" ERROR svc=mail ") for t in texts) <= chunked
    assert peak == 6  # the run's concurrency: the bound was reached and never exceeded
    assert result.usage["sub_calls"] == 200
    assert len(result.recursion["call_trace"]) == 200
    assert all(c["depth"] == 1 for c in result.recursion["call_trace"])
    # Reading the chunks cited the whole of both documents.
    assert {(c.start, c.end) for c in result.citations} == {(0, len(t)) for t in texts}


async def test_a_rerun_is_served_from_the_persistent_sub_call_cache(rt):
    runtime, sid = rt
    calls = []

    async def sub(request: ChatRequest) -> ChatResult:
        calls.append(request)
        return reply("yes")

    steps = ["a = llm_query('Is the sky blue? ' + context[0][0:50])\nFINAL(a)"]
    options = QueryOptions(provider="fake", model="coder", strategy="repl", grounding=False)
    for _ in range(2):
        fake = FakeProvider(script=root_script(list(steps), sub))
        result = await run_query(runtime, sid, "q", options,
                                 providers=ProviderPool({"fake": fake}))
        assert result.answer == "yes"
    assert len(calls) == 1  # the second run's sub-call came from SQLite, not the model


async def test_a_reply_without_a_repl_block_gets_a_corrective_message(rt):
    runtime, sid = rt
    replies = iter([reply("Let me think about it."), code_reply("FINAL(str(len(context)))")])
    fake = FakeProvider(script=lambda r: next(replies))
    result = await run_query(runtime, sid, "How many documents?",
                             QueryOptions(provider="fake", model="coder", strategy="repl",
                                          grounding=False),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "2"
    assert "no ```repl code block" in fake.requests[1].messages[-1].content


async def test_model_code_errors_come_back_with_a_traceback_and_the_run_goes_on(rt):
    runtime, sid = rt
    steps = ["x = {'a': 1}\nprint(x['missing'])", "FINAL(str(x['a']))"]
    fake = FakeProvider(script=root_script(steps))
    result = await run_query(runtime, sid, "q",
                             QueryOptions(provider="fake", model="coder", strategy="repl",
                                          grounding=False),
                             providers=ProviderPool({"fake": fake}))
    assert result.answer == "1"
    feedback = fake.requests[1].messages[-1].content
    assert "error: KeyError" in feedback and "Traceback" in feedback
    assert "x: dict" in feedback  # bound before the error, and kept


async def test_contexts_output_mode_returns_the_tagged_spans(rt):
    runtime, sid = rt
    steps = ["h = context[1].find('ERROR svc=auth', max_hits=2)\n"
             "for x in h:\n"
             "    context[1].slice(x['start_char'], x['end_char'] + 20, tag='context:auth')\n"
             "context[0].slice(0, 10, tag='other')\n"
             "FINAL('done')"]
    fake = FakeProvider(script=root_script(steps))
    result = await run_query(runtime, sid, "Auth errors?",
                             QueryOptions(provider="fake", model="coder", strategy="repl",
                                          output_mode="CONTEXTS"),
                             providers=ProviderPool({"fake": fake}))
    assert result.contexts is not None and len(result.contexts) == 2
    doc = runtime.store.documents(sid)[1]
    text = runtime.store.text(doc)
    for ctx in result.contexts:
        assert ctx["tag"] == "context:auth" and ctx["doc_id"] == doc.id
        assert ctx["text"] == text[ctx["start_char"]:ctx["end_char"]]
        assert ctx["text"].startswith("ERROR svc=auth")


@pytest.mark.parametrize(("max_sub_calls", "status", "code"), [
    (500, "FAILED", "provider_error"), (3, "BUDGET_EXCEEDED", "budget_exceeded")])
async def test_provider_and_budget_failures_end_the_run_with_a_code(rt, max_sub_calls, status,
                                                                    code):
    from rlm_recursive.errors import ProviderError, RlmError

    runtime, sid = rt

    async def sub(request: ChatRequest) -> ChatResult:
        if max_sub_calls > 100:
            raise ProviderError("the sub-model's server went away")
        return reply("fine")

    steps = ["try:\n    r = llm_query_batched(['a', 'b', 'c', 'd', 'e'])\n"
             "except Exception as e:\n    print('swallowed', e)\n", "FINAL('never')"]
    fake = FakeProvider(script=root_script(steps, sub))
    with pytest.raises(RlmError) as err:
        await run_query(runtime, sid, "q", QueryOptions(
            provider="fake", model="coder", strategy="repl", max_sub_calls=max_sub_calls),
            providers=ProviderPool({"fake": fake}))
    assert err.value.code == code
    (row,) = runtime.store.db.execute("SELECT id, status, error, answer FROM executions")
    assert row["status"] == status and row["answer"] is None
    assert code in row["error"]
    assert len(fake.requests) <= 1 + 5  # the run stopped at the first step


async def test_a_sub_call_above_max_depth_gets_the_tools(rt):
    runtime, sid = rt
    subs: list[ChatRequest] = []

    async def sub(request: ChatRequest) -> ChatResult:
        subs.append(request)
        return reply("from a sub-agent")

    steps = ["FINAL(llm_query('Summarise the billing errors'))"]
    fake = FakeProvider(script=root_script(steps, sub))
    result = await run_query(runtime, sid, "q", QueryOptions(
        provider="fake", model="coder", strategy="repl", max_depth=2, grounding=False),
        providers=ProviderPool({"fake": fake}))
    assert result.answer == "from a sub-agent"
    (request,) = subs  # depth 1 < max_depth 2: an agent loop with the RLM tools
    assert {"rlm_search_query", "rlm_final_answer"} <= {t.name for t in request.tools}
    assert result.recursion["call_trace"][0]["depth"] == 1
