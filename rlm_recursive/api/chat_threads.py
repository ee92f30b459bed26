"""Chat history (OpenAI's stateless `messages`) to an LCM conversation, and back.

An OpenAI client resends the whole conversation on every turn. After each answer we remember
the history the client will send next (the turn's messages plus our reply, hashed) with the
conversation that holds it; the next turn finds it and continues that conversation, so
earlier turns stay searchable and compactable (LCM) instead of being pasted into the prompt.
A history we never answered (it came from elsewhere, or was edited) becomes a new
conversation holding those messages. Runs in the API's store thread.
"""

from __future__ import annotations

import hashlib
import json

from ..agent.runtime import Runtime
from ..lcm import LcmConfig, lcm_for
from ..store.db import utcnow

__all__ = ["ChatThreads", "Turn"]

Turn = tuple[str, str]
"""(role, text) of one chat message: system, user or assistant."""


def _said(history: list[Turn]) -> list[Turn]:
    """The turns of the conversation: a client's system prompt is not part of it (it may
    change between turns, and the runner has its own)."""
    return [(r, t.strip()) for r, t in history if r in ("user", "assistant")]


def _key(tenant_id: str, session_id: str, history: list[Turn]) -> str:
    body = json.dumps([tenant_id, session_id, _said(history)], ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class ChatThreads:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.sql = runtime.store.sql

    @property
    def enabled(self) -> bool:
        return LcmConfig.load(self.runtime.catalog.lcm).enabled

    def conversation(self, tenant_id: str, session_id: str, history: list[Turn]) -> int | None:
        """The conversation to continue; None when there is no history (the run starts one)
        or LCM is off."""
        said = _said(history)
        if not said or not self.enabled:
            return None
        row = self.sql.one(
            "SELECT conversation_id FROM chat_threads WHERE history_sha256 = ?",
            (_key(tenant_id, session_id, history),))
        if row is not None:
            return int(row["conversation_id"])
        lcm = lcm_for(self.runtime.store)
        title = " ".join(said[0][1].split())[:80]
        cid = lcm.store.create_conversation(session_id, title).conversation_id
        for role, text in said:
            lcm.append(cid, role, text)
        return cid

    def remember(self, tenant_id: str, session_id: str, history: list[Turn],
                 conversation_id: int | None) -> None:
        """`history` (this turn's messages and our reply) leads to `conversation_id`."""
        if conversation_id is None:
            return
        self.sql.execute(
            "INSERT INTO chat_threads (history_sha256, tenant_id, session_id, conversation_id, "
            "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (history_sha256) DO UPDATE SET "
            "tenant_id = excluded.tenant_id, session_id = excluded.session_id, "
            "conversation_id = excluded.conversation_id, created_at = excluded.created_at",
            (_key(tenant_id, session_id, history), tenant_id, session_id, conversation_id,
             utcnow()))
