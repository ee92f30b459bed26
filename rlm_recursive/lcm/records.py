"""The LCM record types (seed 002, "Core Types"), shared by the store and the services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

__all__ = [
    "PART_COLUMNS",
    "PART_TYPES",
    "CompactionBatch",
    "ContextItem",
    "ConversationRecord",
    "FileRecord",
    "MessageRecord",
    "SummaryRecord",
]

Role = Literal["system", "user", "assistant", "tool"]
SummaryKind = Literal["leaf", "condensed"]

PART_TYPES = ("text", "reasoning", "tool", "patch", "file", "subtask", "compaction",
              "step_start", "step_finish", "snapshot", "agent", "retry")
PART_COLUMNS = (
    "text_content", "is_ignored", "is_synthetic", "tool_call_id", "tool_name", "tool_status",
    "tool_input", "tool_output", "tool_error", "tool_title", "patch_hash", "patch_files",
    "file_mime", "file_name", "file_url", "subtask_prompt", "subtask_desc", "subtask_agent",
    "step_reason", "step_cost", "step_tokens_in", "step_tokens_out", "snapshot_hash",
    "compaction_auto", "metadata")
"""The optional columns of `message_parts` (JSON-valued ones are given as Python values)."""


@dataclass(frozen=True)
class ConversationRecord:
    conversation_id: int
    session_id: str
    title: str | None
    message_count: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class MessageRecord:
    message_id: int
    conversation_id: int
    seq: int
    role: Role
    content: str
    token_count: int
    created_at: str

    @property
    def ref(self) -> str:
        """The id a model cites: `msg_<id>`."""
        return f"msg_{self.message_id}"


@dataclass(frozen=True)
class SummaryRecord:
    summary_id: str
    conversation_id: int
    kind: SummaryKind
    content: str
    token_count: int
    created_at: str
    file_ids: list[str] = field(default_factory=list)


class ContextItem(NamedTuple):
    """One active context entry with what the assembler needs of its target row.

    A named tuple: a turn builds one per active item, and tuples build several times faster
    than dataclasses (the 1,000-message assembly budget is 5 ms).
    """

    ordinal: int
    item_type: Literal["message", "summary"]
    message_id: int | None
    summary_id: str | None
    content: str
    token_count: int
    role: str | None = None
    seq: int | None = None
    kind: str | None = None

    @property
    def ref(self) -> str:
        return self.summary_id if self.summary_id else f"msg_{self.message_id}"


@dataclass(frozen=True)
class FileRecord:
    file_id: str
    conversation_id: int
    file_name: str | None
    mime_type: str | None
    byte_size: int
    storage_uri: str
    exploration_summary: str | None
    created_at: str


@dataclass
class CompactionBatch:
    """One summary and everything written with it, in one transaction."""

    conversation_id: int
    kind: SummaryKind
    content: str
    token_count: int
    ordinals: list[int]
    """The adjacent context items the summary replaces (checked unchanged at commit)."""
    message_ids: list[int] = field(default_factory=list)
    parent_ids: list[str] = field(default_factory=list)
    compaction: dict[str, Any] = field(default_factory=dict)
    """Metadata of the `compaction` part recording this run."""
    auto: bool = False
