"""A REPL run killed mid-execution (SIGKILL, a real process) resumes from its last step."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, build_run, resolve_plan
from rlm_recursive.agent.recursion import RecursionState
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.agent.strategies import repl
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.store.executions import ExecutionStore

MODELS = '[models."coder"]\nprovider = "fake"\nnum_ctx = 32768\ntools = true\nparams_b = 70\n'
TEXT = "red apple\ngreen pear\nred cherry\nyellow lemon\nred plum\n"

CHILD = textwrap.dedent('''
    import asyncio, pathlib, sys
    from rlm_recursive.agent.pool import ProviderPool
    from rlm_recursive.agent.query import QueryOptions, run_query
    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.providers.fake import FakeProvider, reply

    data, sid, marker = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])

    async def script(request):
        if len([m for m in request.messages if m.role == "assistant"]) == 0:
            return reply("```repl\\nreds = [h['text'] for h in context[0].regex('red [a-z]+')]"
                         "\\nprint(len(reds))\\n```")
        marker.write_text("step 1 done")
        await asyncio.sleep(3600)  # killed here, between steps

    async def main():
        runtime = Runtime(data)
        await run_query(runtime, sid, "Which red fruits?", QueryOptions(
            provider="fake", model="coder", strategy="repl"),
            providers=ProviderPool({"fake": FakeProvider(script=script)}))

    asyncio.run(main())
''')


async def test_a_killed_run_resumes_from_its_last_step(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    data = tmp_path / "data"
    runtime = Runtime(data)
    sid = runtime.store.create_session("fruit", SessionConfig())["session_id"]
    runtime.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="f.txt",
                               source_type="inline")
    marker = tmp_path / "marker"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data), sid, str(marker)],
                             env=os.environ.copy())
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child run ended early"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    store = ExecutionStore(runtime.store.sql)
    (row,) = runtime.store.db.execute("SELECT id, status FROM executions").fetchall()
    assert row["status"] == "RUNNING"  # killed: nobody marked it
    assert [s.turn_index for s in store.steps(row["id"])] == [1]

    seen: list[ChatRequest] = []

    def script(request: ChatRequest) -> ChatResult:
        seen.append(request)
        return reply("```repl\nFINAL(', '.join(reds))\n```")

    options = QueryOptions(provider="fake", model="coder", strategy="repl")
    plan, _ = await resolve_plan(runtime.catalog, runtime.profile, options)
    pool = ProviderPool({"fake": FakeProvider(script=script)})
    rc = build_run(runtime, sid, plan, options, pool)
    answer = await repl.resume(rc, RecursionState(0, 1), row["id"])
    assert answer.text == "red apple, red cherry, red plum"  # `reds` came back from step 1
    assert len(rc.citations) == 3  # the spans step 1 read before the kill are still cited
    history = [m.content for m in seen[0].messages]
    assert history[1] == "QUESTION: Which red fruits?"
    assert "reds = [h['text']" in history[2] and "[step 1] stdout:\n3" in history[3]
    record = store.get(row["id"])
    assert record["status"] == "COMPLETED" and record["answer"] == answer.text
    assert [s.turn_index for s in store.steps(row["id"])] == [1, 2]
    await pool.aclose()
    runtime.close()
