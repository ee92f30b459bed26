"""Shared by the progress, SSE and OpenAI-client tests: a scripted model that follows a
three-hop chain, its notes, and a runtime whose catalog has the `scripted` preset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply, tool_reply

NOTES = ("The Falcon project is run by the Lisbon office. Its budget is reviewed yearly.\n"
         "The Lisbon office is housed in the Harbour building near the river.\n"
         "The alarm code of the Harbour building is 4821-K, changed every spring.\n")
QUESTION = "What is the alarm code of the building that houses the office that runs Falcon?"


def hopper(request: ChatRequest) -> ChatResult:
    """Each hop looks up the next name offered; the final call answers."""
    if request.tools and request.tools[0].name == "rlm_hop":
        offered = request.tools[0].parameters["properties"]["next_lookup"].get("enum", [])
        nxt = next((o for o in offered if o != "NONE"), "NONE")
        return tool_reply("rlm_hop", {"fact": "", "can_answer": False, "answer": "",
                                      "next_lookup": nxt})
    return reply("4821-K")


def scripted_runtime(data_dir: Path, profile: str = "unrestricted") -> Runtime:
    catalog = load_catalog()
    catalog.models["scripted"] = ModelInfo(name="scripted", provider="fake", tools=False,
                                           params_b=0.1, num_ctx=8192)
    catalog.presets["scripted"] = Preset(tiers=[TierSpec(model="scripted")])
    return Runtime(data_dir, profile, catalog=catalog)


def sse_events(lines: list[str]) -> list[dict[str, Any]]:
    """Parse Server-Sent Events as a browser does: fields until a blank line; comments kept
    apart (`comment`), data joined by newlines."""
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in lines:
        if line == "":
            if current:
                events.append(current)
            current = {}
        elif line.startswith(":"):
            events.append({"comment": line[1:].strip()})
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            current[field] = current[field] + "\n" + value if field in current else value
    if current:
        events.append(current)
    for event in events:
        if "data" in event and event["data"] != "[DONE]":
            event["json"] = json.loads(event["data"])
    return events
