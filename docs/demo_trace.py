#!/usr/bin/env python
"""Write a demo run's HTML report (for the README screenshot), with the scripted fake provider.

    python docs/demo_trace.py /tmp/demo-data /tmp/report.html
    chromium --headless --no-sandbox --disable-gpu --screenshot=docs/trace-report.png \
        --window-size=1280,900 file:///tmp/report.html
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply, tool_reply
from rlm_recursive.trajectory.report import load_trajectory, render_html

MODELS = """
[models."qwen3:8b"]
provider = "fake"
[models."qwen3:1.7b"]
provider = "fake"
tools = false
[presets.demo]
tiers = [{ model = "qwen3:8b" }, { model = "qwen3:1.7b" }]
"""
MANUAL = ("Chlorine room procedures.\n\nOnly trained staff may enter. During an emergency the "
          "keypad code for the chlorine room is 7316. Evacuate towards the north stairs.\n\n"
          + "Routine checks are logged every shift. " * 40)


def script(request: ChatRequest) -> ChatResult:
    results = [json.loads(m.content) for m in request.messages if m.role == "tool"]
    if not request.tools:
        return reply("The keypad code for the chlorine room is 7316.", tokens=(612, 14))
    if not results:
        return tool_reply("rlm_search_query", {"query": "chlorine room keypad code"})
    if len(results) == 1:
        return tool_reply("rlm_sub_query", {"query": "What is the chlorine room keypad code?",
                                            "doc_id": results[0]["matches"][0]["doc_id"],
                                            "end": 400})
    return tool_reply("rlm_final_answer",
                      {"answer": "The chlorine room keypad code is 7316 (emergency access)."})


async def main(data: Path, out: Path) -> None:
    models = data / "models.toml"
    data.mkdir(parents=True, exist_ok=True)
    models.write_text(MODELS)
    import os

    os.environ["RLM_MODELS"] = str(models)
    rt = Runtime(data, "unrestricted")
    try:
        sid = rt.store.create_session("demo", SessionConfig())["session_id"]
        rt.store.add_document(sid, MANUAL.encode(), length_chars=len(MANUAL),
                              source="manuals/chlorine.md", source_type="file")
        result = await run_query(
            rt, sid, "What is the keypad code for the chlorine room?",
            QueryOptions(preset="demo", strategy="agent", max_depth=1),
            providers=ProviderPool({"fake": FakeProvider(script=script)}))
        out.write_text(render_html(load_trajectory(rt.store, result.run_id or "")), "utf-8")
    finally:
        rt.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
