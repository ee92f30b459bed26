"""Batched trace writes: nothing is lost on close or on a normal interpreter exit, on SQLite
and on PostgreSQL (where the writer takes a pooled connection per batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import store_rows

from rlm_recursive.agent.runtime import Runtime

_SCRIPT = textwrap.dedent("""
    import asyncio, sys
    from rlm_recursive.agent.runtime import Runtime

    async def main():
        rt = Runtime(sys.argv[1], "unrestricted")
        rt.store.writer.interval_s = 60  # nothing would be written before exit on its own
        out = await rt.call("rlm_session_create", {"name": "exit"})
        sid = out.output["session_id"]
        for _ in range(int(sys.argv[2])):
            await rt.call("rlm_session_info", {"session_id": sid})
        print(sid)
        # no rt.close(): a normal exit must still write every queued record

    asyncio.run(main())
""")


def test_no_record_lost_on_normal_exit(database_url: str | None, tmp_path: Path) -> None:
    data = tmp_path / "store"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(data), "250"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    sid = done.stdout.strip()
    ops = [r[0] for r in store_rows(data, "SELECT op FROM traces WHERE session_id = ? ORDER BY id",
                                (sid,))]
    assert ops == ["rlm_session_create"] + ["rlm_session_info"] * 250
    lines = (data / "traces" / f"{sid}.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line)["op"] for line in lines] == ops


async def test_close_writes_what_is_queued_and_calls_do_not_wait(
        database_url: str | None, data_dir: Path) -> None:
    rt = Runtime(data_dir, "unrestricted")
    rt.store.writer.interval_s = 60
    out = await rt.call("rlm_session_create", {})
    sid = out.output["session_id"]
    for _ in range(20):
        await rt.call("rlm_session_info", {"session_id": sid})
    count = "SELECT COUNT(*) FROM traces WHERE session_id = ?"
    # Queued, not yet written: the calls returned without a synchronous insert.
    assert rt.store.sql.one(count, (sid,))[0] == 0
    rt.close()
    assert store_rows(data_dir, count, (sid,))[0][0] == 21


async def test_flush_then_traces_are_private(runtime: Runtime) -> None:
    out = await runtime.call("rlm_session_create", {})
    runtime.store.flush()
    path = runtime.store.data_dir / "traces" / f"{out.output['session_id']}.jsonl"
    assert path.stat().st_mode & 0o077 == 0


async def test_restricted_audit_stays_synchronous(data_dir: Path) -> None:
    rt = Runtime(data_dir, "restricted")
    try:
        rt.store.writer.interval_s = 60
        await rt.call("rlm_session_create", {"name": "audited"})
        # No flush: the audit record is on disk when the call returns.
        lines = (data_dir / "audit.jsonl").read_text("utf-8").splitlines()
        assert json.loads(lines[-1])["tool"] == "rlm_session_create"
        assert rt.store.writer._thread is None  # restricted writes no tool traces at all
    finally:
        rt.close()
