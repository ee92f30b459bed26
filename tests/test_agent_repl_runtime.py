"""Runtime mode over MCP (in memory): the client drives REPL steps with rlm_step_run; the
queue_llm / YIELD protocol; resume of a live execution from SQLite in a new process."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.config import SessionConfig
from rlm_recursive.mcp_server import build_server
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

TEXT = ("Invoice 1001 was paid on time.\nInvoice 1002 is overdue by 30 days.\n"
        "Invoice 1003 was paid on time.\nInvoice 1004 is overdue by 12 days.\n")


def _catalog():
    catalog = load_catalog()
    catalog.models["scripted"] = ModelInfo(name="scripted", provider="fake", tools=False,
                                           params_b=0.1, num_ctx=8192)
    catalog.presets["scripted"] = Preset(tiers=[TierSpec(model="scripted")])
    return catalog


@pytest.fixture
def rt(data_dir: Path):
    runtime = Runtime(data_dir, "unrestricted", catalog=_catalog())
    sid = runtime.store.create_session("inv", SessionConfig())["session_id"]
    runtime.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="inv.txt",
                               source_type="inline")
    yield runtime, sid
    runtime.close()


def _body(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def test_queue_llm_and_yield_through_the_runtime_tools(rt):
    runtime, sid = rt
    prompts: list[str] = []

    def sub(request: ChatRequest) -> ChatResult:
        prompts.append(request.messages[-1].content)
        days = re.findall(r"by (\d+) days", request.messages[-1].content)
        return reply(str(max(int(d) for d in days)))

    runtime.executions.providers = ProviderPool({"fake": FakeProvider(script=sub)})
    async with Client(build_server(runtime)) as client:
        created = _body(await client.call_tool("rlm_execution_create",
                                               {"session_id": sid, "preset": "scripted"}))
        eid = created["execution_id"]
        assert created["status"] == "RUNNING" and created["documents"] == 1

        first = _body(await client.call_tool("rlm_step_run", {"execution_id": eid, "code": (
            "```repl\n"
            "lines = [h['text'] for h in context[0].regex(r'(?m)^.*overdue.*$')]\n"
            "state['work'] = {'overdue': len(lines)}\n"
            "tool.queue_llm('worst', 'Largest number of days overdue?\\n' + '\\n'.join(lines))\n"
            "tool.YIELD('waiting for worst')\n"
            "print('not reached')\n```")}))
        assert first["success"] and first["stdout"] == ""
        assert first["final"] == {"is_final": False, "answer": None}
        assert [r["key"] for r in first["tool_requests"]["llm"]] == ["worst"]
        assert first["state"]["work"] == {"overdue": 2}
        assert first["state_summary"]["lines"] == "list"
        assert len(first["span_log"]) == 2 and prompts == []  # queued, not yet resolved

        second = _body(await client.call_tool("rlm_step_run", {"execution_id": eid, "code": (
            "r = state['_tool_results']['llm']['worst']['text']\n"
            "print(state['_tool_status']['worst'], r)\n"
            "FINAL(r + ' days')")}))
        assert second["stdout"] == "resolved 30\n"
        assert second["final"]["is_final"] and second["final"]["answer"] == "30 days"
        assert len(prompts) == 1 and "Invoice 1002 is overdue by 30 days." in prompts[0]

        record = _body(await client.call_tool("rlm_execution_get", {"execution_id": eid}))
        assert record["status"] == "COMPLETED" and record["answer"] == "30 days"
        assert [s["turn_index"] for s in record["steps"]] == [1, 2]
        assert record["steps"][0]["tool_requests"]["llm"][0]["prompt"].startswith("Largest")

        ended = await client.call_tool("rlm_step_run", {"execution_id": eid, "code": "1"})
        assert ended.is_error and "has ended" in ended.content[0].text


async def test_client_resolved_results_and_resume_in_a_new_runtime(rt, data_dir):
    runtime, sid = rt
    async with Client(build_server(runtime)) as client:
        eid = _body(await client.call_tool("rlm_execution_create",
                                           {"session_id": sid, "preset": "scripted"}))[
            "execution_id"]
        _body(await client.call_tool("rlm_step_run", {"execution_id": eid, "code": (
            "paid = context[0].count('paid on time')\n"
            "tool.queue_llm('k', 'anything')\ntool.YIELD()")}))
    # A new process (a new runtime over the same data dir) picks the execution up.
    again = Runtime(data_dir, "unrestricted", catalog=_catalog())
    try:
        async with Client(build_server(again)) as client:
            step = _body(await client.call_tool("rlm_step_run", {
                "execution_id": eid, "resolve_tools": False,
                "tool_results_json": json.dumps({"k": "from the client"}),
                "code": "print(paid, state['_tool_results']['llm']['k']['text'])"}))
            assert step["turn_index"] == 2 and step["stdout"] == "2 from the client\n"
    finally:
        await again.executions.aclose()
        again.close()
