"""MCP `notifications/progress` reach the official `mcp` client: rlm_query's hops and model
calls (in memory, with a scripted model), and a folder load and first search over a real
stdio subprocess."""

from __future__ import annotations

import json
import os
import sys

from mcp import Client, StdioServerParameters
from serve_support import NOTES, QUESTION, hopper, scripted_runtime

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.errors import Timeout
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.fake import FakeProvider


class Progress:
    """The client's progress callback: every (progress, total, message) in arrival order."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))

    @property
    def messages(self) -> list[str]:
        return [m or "" for _, _, m in self.seen]


async def test_rlm_query_reports_hops_and_model_calls_in_order(data_dir):
    runtime = scripted_runtime(data_dir)
    server = build_server(runtime, providers=ProviderPool({"fake": FakeProvider(script=hopper)}))
    progress = Progress()
    try:
        async with Client(server) as client:
            result = await client.call_tool("rlm_query", {
                "task": QUESTION, "context": NOTES, "preset": "scripted",
                "strategy": "iterative"}, progress_callback=progress)
    finally:
        runtime.close()
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text)["data"]["answer"] == "4821-K"
    messages = progress.messages
    hops = [m for m in messages if m.startswith("hop ")]
    assert hops[0] == f"hop 1/3: searching {QUESTION[:60]!r}", messages
    assert hops[1] == "hop 2/3: searching 'Lisbon'", messages
    assert hops[2] == "hop 3/3: searching 'Harbour'", messages
    # Each hop's model call follows its search, and the final answer's call comes last.
    asks = [i for i, m in enumerate(messages) if m.startswith("asking fake/scripted")]
    starts = [messages.index(h) for h in hops]
    assert len(asks) == 4 and all(s < a for s, a in zip(starts, asks, strict=False)), messages
    assert asks[-1] > starts[-1]
    values = [p for p, _, _ in progress.seen]
    assert values == sorted(values) and len(set(values)) == len(values)


async def test_a_query_without_a_progress_token_still_answers(data_dir):
    runtime = scripted_runtime(data_dir)
    server = build_server(runtime, providers=ProviderPool({"fake": FakeProvider(script=hopper)}))
    try:
        async with Client(server) as client:
            result = await client.call_tool("rlm_query", {
                "task": QUESTION, "context": NOTES, "preset": "scripted",
                "strategy": "iterative"})
    finally:
        runtime.close()
    assert json.loads(result.content[0].text)["data"]["answer"] == "4821-K"


async def test_a_folder_load_and_first_search_report_progress_over_stdio(tmp_path):
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    for i in range(6):
        (work / "docs" / f"part-{i}.txt").write_text(NOTES * 200, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), "serve"],
        cwd=str(work), env=env)
    loading, searching = Progress(), Progress()
    async with Client(params, read_timeout_seconds=120) as client:
        made = await client.call_tool("rlm_session_create", {"name": "progress"})
        sid = json.loads(made.content[0].text)["session_id"]
        loaded = await client.call_tool("rlm_docs_load", {
            "session_id": sid, "sources": [{"type": "directory", "path": "docs"}]},
            progress_callback=loading)
        found = await client.call_tool("rlm_search_query", {
            "session_id": sid, "query": "alarm code Harbour"}, progress_callback=searching)
        quiet = Progress()
        await client.call_tool("rlm_session_info", {"session_id": sid},
                               progress_callback=quiet)
    assert json.loads(loaded.content[0].text)["loaded"]
    assert json.loads(found.content[0].text)["matches"]
    # Thinned to a few a second, but the final count always arrives.
    assert loading.messages and loading.messages[-1].startswith("loaded 6 files"), loading.seen
    total = len(NOTES * 200) * 6
    assert searching.messages[-1] == f"indexing: {total:,} of {total:,} chars", searching.seen
    assert quiet.seen == []


async def test_a_run_error_under_progress_keeps_its_code(data_dir, monkeypatch):
    """A run error raised inside the progress reporter reaches the client as itself (not as
    an internal error wrapped by the task group)."""
    runtime = scripted_runtime(data_dir)

    def too_slow(*args, **kwargs):
        raise Timeout("the index build took too long")

    monkeypatch.setattr("rlm_recursive.tools.search.search_session", too_slow)
    try:
        async with Client(build_server(runtime)) as client:
            made = await client.call_tool("rlm_session_create", {})
            sid = json.loads(made.content[0].text)["session_id"]
            found = await client.call_tool("rlm_search_query", {"session_id": sid,
                                                                "query": "alarm"},
                                           progress_callback=Progress())
    finally:
        runtime.close()
    assert found.is_error
    assert json.loads(found.content[0].text)["meta"]["error_code"] == "timeout"
