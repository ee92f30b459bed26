"""The REPL survives small models' habits (a real pydantic-monty sandbox, scripted replies):
code wrapped in prose or a ```python fence, `context` rebound, and printing the answer
instead of calling FINAL."""

from __future__ import annotations

import pytest
import test_agent_repl

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.repl.prompt import extract_code
from rlm_recursive.providers.fake import FakeProvider, reply

rt = test_agent_repl.rt
"""Its session: two logs of 1,800 lines."""


@pytest.fixture
def doc(rt):
    """The test_agent_repl session (two logs); the habits are checked on its first one."""
    runtime, sid = rt
    first = runtime.store.documents(sid)[0]
    return runtime, sid, runtime.store.text(first)


async def _run(runtime, sid, replies):
    turns = iter(replies)
    fake = FakeProvider(script=lambda request: reply(next(turns)))
    result = await run_query(runtime, sid, "How many ERROR lines are there?",
                             QueryOptions(provider="fake", model="coder", strategy="repl"),
                             providers=ProviderPool({"fake": fake}))
    return result, fake


@pytest.mark.parametrize(("text", "code"), [
    ("Sure! Here is the code:\n```python\nprint(1)\n```\nThis prints one.", "print(1)\n"),
    ("```\nx = 2\nprint(x)\n```", "x = 2\nprint(x)\n"),
    ("n = len(context)\nprint(n)", "n = len(context)\nprint(n)"),
    ("I think the answer is probably forty-two.", None),
    ("```repl\nprint(3)\n```\n```python\nprint(4)\n```", "print(3)\n"),
])
def test_code_is_found_however_the_model_wraps_it(text, code):
    assert extract_code(text)[0] == code


async def test_code_in_a_python_fence_with_prose_runs(doc):
    runtime, sid, text = doc
    gold = text.count(" ERROR ")
    result, _ = await _run(runtime, sid, [
        "Let me count them.\n```python\nn = context[0].count(' ERROR ')\nFINAL(str(n))\n```"])
    assert result.answer == str(gold)


async def test_rebinding_context_is_undone_and_the_value_kept(doc):
    runtime, sid, text = doc
    gold = text.count(" ERROR ")
    result, fake = await _run(runtime, sid, [
        "```repl\ncontext = context[0][:]\nprint(len(context))\n```",
        # The next step still finds the documents, and the model's text as user_context.
        "```repl\nprint(type(context).__name__, len(user_context))\n"
        "FINAL(str(context[0].count(' ERROR ')))\n```"])
    assert result.answer == str(gold)
    feedback = fake.requests[1].messages[-1].content
    assert "user_context" in feedback


async def test_a_printed_answer_restated_in_prose_is_the_answer(doc):
    runtime, sid, text = doc
    gold = text.count(" ERROR ")
    result, fake = await _run(runtime, sid, [
        "```repl\nprint(context[0].count(' ERROR '))\n```",
        f"The answer is {gold}."])
    assert result.answer == str(gold) and result.stopped == "printed"
    assert len(fake.requests) == 2


async def test_the_same_step_twice_ends_with_what_it_printed(doc):
    runtime, sid, text = doc
    gold = text.count(" ERROR ")
    step = "```repl\nprint(context[0].count(' ERROR '))\n```"
    result, fake = await _run(runtime, sid, [step, step, step])
    assert result.answer == str(gold) and len(fake.requests) == 2


async def test_an_exploratory_print_is_not_taken_for_an_answer(doc):
    runtime, sid, text = doc
    gold = text.count(" ERROR ")
    result, _ = await _run(runtime, sid, [
        "```repl\nprint(len(context))\n```",
        "Now I will count the ERROR lines.",  # prose that does not restate "1"
        "```repl\nFINAL(str(context[0].count(' ERROR ')))\n```"])
    assert result.answer == str(gold)
