"""A constrained JSON reply from the model, through the tool-call path every provider has:
llama.cpp forces it with a grammar (embedded), Ollama with `format` when the model has no
native tools. The runtime-planned strategies use it for every decision they ask a model for."""

from __future__ import annotations

import json
from typing import Any

from ...errors import ModelError
from ...providers.base import Message
from ...types import ToolDef
from ..context import RunContext
from ..model_call import call_model
from ..recursion import Tier

__all__ = ["ask_json", "enum_or_text"]


def enum_or_text(choices: list[str], max_length: int = 80) -> dict[str, Any]:
    """A string property limited to `choices` (deduplicated), or free text when there are none."""
    unique = list(dict.fromkeys(c for c in choices if c))
    if not unique:
        return {"type": "string", "maxLength": max_length}
    return {"type": "string", "enum": unique}


async def ask_json(
    rc: RunContext, tier: Tier, system: str, user: str, name: str, schema: dict[str, Any],
    *, description: str = "Give your reply.", cacheable: bool = False,
) -> dict[str, Any] | None:
    """The model's reply as a dict matching `schema`, or None when it gave none.

    A reply that is no usable JSON is the model's failure, not ours: the caller falls back
    to its heuristic. Provider and run errors (budget, egress, timeouts) still end the run.
    """
    tool = ToolDef(name=name, description=description, parameters=schema)
    messages = [Message(role="system", content=system), Message(role="user", content=user)]
    try:
        result = await call_model(rc, tier, messages, [tool], cacheable=cacheable)
    except ModelError:  # e.g. a prompt the window refuses: the heuristic still answers
        return None
    for call in result.tool_calls:
        if call.name == name:
            return call.arguments
    try:  # a native-tools model may answer with the JSON as text instead of a call
        data = json.loads(result.text)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and isinstance(data.get("arguments"), dict):
        return data["arguments"]
    return data if isinstance(data, dict) else None
