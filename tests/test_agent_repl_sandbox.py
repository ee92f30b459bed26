"""Hostile model code in the real pydantic-monty sandbox: refused, and the run goes on."""

from __future__ import annotations

import os
import signal

import pytest

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, build_run, resolve_plan
from rlm_recursive.agent.recursion import RecursionState
from rlm_recursive.agent.repl.execution import ReplExecution
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

MODELS = '[models."coder"]\nprovider = "fake"\nnum_ctx = 32768\ntools = true\nparams_b = 70\n'
TEXT = "alpha beta gamma\n" * 200


@pytest.fixture
async def execution(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data")
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    runtime.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="a.txt",
                               source_type="inline")
    subs: list[ChatRequest] = []

    def sub(request: ChatRequest) -> ChatResult:
        subs.append(request)
        hook = getattr(sub, "hook", None)
        if hook:
            hook()
        return reply("sub answer")

    options = QueryOptions(provider="fake", model="coder", strategy="repl")
    plan, _ = await resolve_plan(runtime.catalog, runtime.profile, options)
    pool = ProviderPool({"fake": FakeProvider(script=sub)})
    rc = build_run(runtime, sid, plan, options, pool).with_settings(
        step_timeout_s=1.0, max_memory_bytes=32 * 1024 * 1024, max_recursion_depth=100,
        max_stdout_chars=4000)
    run = await ReplExecution.create(rc, RecursionState(0, 1), mode="runtime", question=None)
    run.sub = sub
    yield run
    await run.close()
    await pool.aclose()
    runtime.close()


HOSTILE = [
    ("open('/etc/passwd').read()", "PermissionError"),
    ("import os\nprint(os.listdir('/'))", "PermissionError"),
    ("import os\nprint(os.getenv('HOME'))", "RuntimeError"),
    ("import subprocess", "ModuleNotFoundError"),
    ("import socket", "ModuleNotFoundError"),
    ("__import__('os')", "NameError"),
    ("print(().__class__.__bases__[0].__subclasses__())", "AttributeError"),
    ("print(getattr(context[0], '__class__').__init__.__globals__)", "AttributeError"),
    ("print(globals())", "NameError"),
    ("x = 0\nwhile True:\n    x += 1", "TimeoutError"),
    ("blob = 'x' * (10 ** 9)", "MemoryError"),
    ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
]


@pytest.mark.parametrize(("code", "kind"), HOSTILE, ids=[k + str(i) for i, (_, k) in
                                                         enumerate(HOSTILE)])
async def test_hostile_code_is_refused_and_the_next_step_works(execution, code, kind):
    before = await execution.step("keep = [1, 2, 3]\nprint('ok')")
    assert before.record.error is None and before.record.stdout == "ok\n"
    hostile = await execution.step(code)
    assert hostile.record.error is not None, hostile.record.stdout
    assert hostile.record.error["type"] == kind, hostile.record.error
    after = await execution.step("print(len(context), len(context[0]), keep)")
    assert after.record.error is None
    assert after.record.stdout == f"1 {len(TEXT)} [1, 2, 3]\n"


async def test_huge_stdout_is_truncated(execution):
    view = await execution.step("print('A' * 100000)\nsmall = 1")
    assert view.record.error is None and view.stdout_chars == 100001
    assert view.record.stdout.startswith("A" * 4000)
    assert "truncated: 96,001 more characters" in view.record.stdout
    assert len(view.record.stdout) < 4100


async def test_a_worker_crash_mid_step_is_a_clean_step_error(execution):
    await execution.step("kept = {'a': 1}")
    pid = execution.sandbox.worker_pid()
    execution.sub.hook = lambda: os.kill(pid, signal.SIGKILL)
    crashed = await execution.step("r = llm_query('hello')\nprint(r)")
    assert crashed.record.error["type"] == "SandboxCrashed"
    execution.sub.hook = None
    after = await execution.step("print(kept, llm_query('again'))")
    assert after.record.error is None and after.record.stdout == "{'a': 1} sub answer\n"
    assert execution.sandbox.worker_pid() != pid


async def test_a_worker_killed_between_steps_is_restarted_with_the_json_state(execution):
    await execution.step("kept = {'a': [1, 2]}\ndef helper():\n    return 5")
    os.kill(execution.sandbox.worker_pid(), signal.SIGKILL)
    view = await execution.step("print(kept)")
    assert view.record.error is None and view.record.stdout == "{'a': [1, 2]}\n"
    lost = await execution.step("helper()")  # functions are not JSON: gone with the worker
    assert lost.record.error["type"] == "NameError"


async def test_host_function_misuse_is_an_exception_the_code_can_catch(execution):
    view = await execution.step(
        "try:\n    llm_query(42)\nexcept ValueError as e:\n    print('caught', e)\n"
        "try:\n    search('x', method='nope')\nexcept ValueError as e:\n    print('bad method')\n"
        "try:\n    no_such_function(1)\nexcept Exception as e:\n    print(type(e).__name__)")
    assert view.record.error is None
    assert view.record.stdout.splitlines() == [
        "caught llm_query needs a non-empty prompt string", "bad method", "NameError"]


async def test_search_from_code_logs_its_spans(execution):
    view = await execution.step("hits = search('gamma', k=3, method='literal')\n"
                                "print(len(hits), hits[0]['snippet'])")
    assert view.record.stdout == "3 gamma\n"
    assert [s["tag"] for s in view.record.span_log] == ["search"] * 3
    assert all(TEXT[s["start_char"]:s["end_char"]] == "gamma" for s in view.record.span_log)


async def test_final_var_of_a_missing_variable_is_a_step_error(execution):
    view = await execution.step("FINAL_VAR('nothing_here')")
    assert view.record.final is None and view.record.error["type"] == "NameError"
    ok = await execution.step("answer = 42\nFINAL_VAR('answer')")
    assert ok.record.final == {"is_final": True, "answer": "42", "variable": "answer"}


async def test_clobbered_sandbox_internals_restart_the_sandbox(execution):
    await execution.step("kept = 'still here'")
    view = await execution.step("_spans = None\n_describe = None\nx = context[0][0:5]")
    assert view.record.error["type"] == "AttributeError"  # its own views broke, not the run
    after = await execution.step("print(kept, context[0][0:5])")
    assert after.record.stdout == "still here alpha\n"
    assert after.record.span_log == [{"doc_index": 0, "start_char": 0, "end_char": 5,
                                      "tag": None}]


async def test_forged_span_log_entries_are_dropped(execution):
    view = await execution.step("_spans.append([7, 0, 5, None])\n_spans.append([0, 5, 2, None])\n"
                                "_spans.append([0, 0, 10 ** 9, None])\nx = context[0][6:10]")
    assert view.record.span_log == [{"doc_index": 0, "start_char": 6, "end_char": 10,
                                     "tag": None}]


async def test_a_too_large_variable_stays_live_but_is_not_persisted(execution):
    view = await execution.step("big = 'y' * 600000\nsmall = 'z'")
    assert view.changed == {"big": "str (too large to persist)", "small": "str"}
    assert "big" not in view.record.state["variables"]
    again = await execution.step("print(len(big))")
    assert again.record.stdout == "600000\n"


def test_reply_parsing_and_assigned_names():
    from rlm_recursive.agent.repl.prompt import extract_code
    from rlm_recursive.agent.repl.sandbox import assigned_names

    assert extract_code("Sure.\n```repl\nx = 1\n```\nand\n```repl\ny = 2\n```") == ("x = 1\n", 2)
    # Small models wrap code in a ```python fence (issue 20): it runs when no repl block does.
    assert extract_code("```python\nx = 1\n```") == ("x = 1\n", 1)
    assert extract_code("No code here, just words.") == (None, 0)
    code = ("import re as rx\nfrom json import dumps\na, (b, c) = 1, (2, 3)\nfor i in []: pass\n"
            "def f(): z = 1\nclass K: pass\nif (w := 5): pass\nr = await g()")
    assert sorted(assigned_names(code)) == sorted(
        ["rx", "dumps", "a", "b", "c", "i", "f", "z", "K", "w", "r"])
    assert assigned_names("x = (") == []
