"""REPL defects of round 3, through the registry with the real pydantic-monty sandbox: steps
land in their session's trace, and a value that is not JSON is never dropped in silence."""

from __future__ import annotations

import json


async def _execution(runtime) -> tuple[str, str]:
    sid = (await runtime.call("rlm_session_create", {"name": "repl"})).output["session_id"]
    loaded = await runtime.call("rlm_docs_load", {"session_id": sid, "sources": [
        {"type": "inline", "content": "alpha beta gamma", "name": "a.txt"}]})
    assert not loaded.is_error
    made = await runtime.call("rlm_execution_create",
                              {"session_id": sid, "preset": "fully-local"})
    assert not made.is_error, made.output
    return sid, made.output["execution_id"]


async def test_repl_steps_are_traced_in_their_sessions_file(call, runtime, data_dir):
    sid, eid = await _execution(runtime)
    for code in ("n = len(context)\nprint(n)", "FINAL('one')"):
        step = await call("rlm_step_run", execution_id=eid, code=code)
        assert not step.is_error, step.output
    await call("rlm_execution_get", execution_id=eid)
    runtime.store.flush()
    ops = [json.loads(line)["op"] for line in
           (data_dir / "traces" / f"{sid}.jsonl").read_text("utf-8").splitlines()]
    assert ops.count("rlm_step_run") == 2 and "rlm_execution_get" in ops
    global_file = data_dir / "traces" / "_global.jsonl"
    assert not global_file.exists() or "rlm_step_run" not in global_file.read_text("utf-8")
    rows = runtime.store.db.execute(
        "SELECT COUNT(*) FROM traces WHERE session_id = ? AND op = 'rlm_step_run'",
        (sid,)).fetchone()[0]
    assert rows == 2


async def test_a_value_that_is_not_json_is_kept_out_with_a_warning(call, runtime):
    _, eid = await _execution(runtime)
    first = await call("rlm_step_run", execution_id=eid,
                       code="state['good'] = [1, 2]\nprint('ok')")
    assert first.output["warnings"] == []
    second = await call("rlm_step_run", execution_id=eid,
                        code="pair = {1, 2}\nstate['bad'] = {1, 2}")
    warnings = second.output["warnings"]
    assert any(w.startswith("pair is a set") for w in warnings), warnings
    assert any(w.startswith("state holds a value that is not JSON") for w in warnings)
    # The last JSON state is kept, not dropped: `good` is still there.
    assert second.output["state"].get("good") == [1, 2]
    third = await call("rlm_step_run", execution_id=eid, code="print(state['good'])")
    assert third.output["stdout"] == "[1, 2]\n"
