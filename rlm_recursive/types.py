"""Small value types shared by every layer."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr

__all__ = ["MODEL_TIERS_HELP", "SpanRef", "ToolDef", "ToolResult", "has_lone_surrogate",
           "location_label", "sha256_hex", "text_checksum"]

MODEL_TIERS_HELP = (
    'Which model answers at each depth: {"0": "qwen3:8b", "1": "ollama/qwen3:1.7b"}. Keys are '
    "depths 0, 1, … without gaps; the last covers every deeper depth. A value is a model from "
    "models.toml or PROVIDER/MODEL (PROVIDER: ollama, openai, claude, embedded or a "
    "[providers.NAME] group). Wins over model, recursive_model and preset.")
"""Option B of the tiering plan, described once for the CLI, MCP and HTTP surfaces."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(value: Any) -> bool:
    """True if a string, or any string or key inside decoded JSON, holds a surrogate half.

    Python keeps a lone UTF-16 surrogate (JSON `"\\ud800"`, or a non-UTF-8 byte of a command
    line, decoded with surrogateescape) in a str that no encoder accepts, so it fails far
    from where it came in. `json.loads` joins a valid pair into one character, so any
    surrogate left is a lone one. Iterative: input nested 100,000 deep must not overflow.
    """
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return False


class SpanRef(BaseModel):
    """A character range `[start, end)` of one document."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    start: int
    end: int


class ToolResult(BaseModel):
    """What a tool handler returns: a JSON-able payload, plus the spans it showed the caller."""

    output: dict[str, Any]
    read_spans: list[SpanRef] = []
    is_error: bool = False
    bytes_read: int | None = None
    """For the audit record: bytes taken in when that is not the spans shown (a load)."""
    model_used: str | None = None
    """For the audit record: the model a tool called (sub-queries)."""
    cost_usd: float | None = None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_checksum(text: str) -> str:
    """Citation checksum: "sha256:" + sha256 of the NFC-normalised UTF-8 text."""
    return "sha256:" + sha256_hex(unicodedata.normalize("NFC", text).encode("utf-8"))


def location_label(item: Mapping[str, Any]) -> str:
    """Where a citation or hit lies, for people: "handbook.pdf, page 4" or "app.py, line 12"
    (the source as loaded, else the doc id), as every text surface prints it."""
    where = str(item.get("source") or item.get("source_name") or item.get("doc_id"))
    if item.get("page") is not None:
        return f"{where}, page {item['page']}"
    if item.get("line") is not None:
        return f"{where}, line {item['line']}"
    return where


class ToolDef(BaseModel):
    """A provider-neutral tool definition: what a model is shown (flat JSON-schema parameters)."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]
    _chars: int = PrivateAttr(0)

    def model_post_init(self, context: Any, /) -> None:
        self._chars = len(json.dumps(self.parameters)) + len(self.description) + len(self.name)

    @property
    def chars(self) -> int:
        """Its size in a prompt, measured once (the loop checks every prompt against a window)."""
        return self._chars
