"""IntegrityChecker: the seed's four invariants, as a report and a non-destructive plan.

1. Every summary links to at least one source (and every link points at a real row).
2. Every context item points at an existing row of its own conversation.
3. No duplicate ordinals per (conversation, ordinal) and per (message, ordinal).
4. Canonical messages and parts are never deleted: message seqs run 1..message_count without
   gaps and part ordinals run 0..n-1, so a deleted row leaves a visible hole.

The checks are plain SQL over the seed's tables, in the dialect SQLite and PostgreSQL share,
and never trust the backend's constraints: a damaged or hand-edited database is exactly what
they are for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..store.db import utcnow
from .store import ConversationStore

__all__ = ["IntegrityChecker", "IntegrityReport", "Violation"]


@dataclass(frozen=True)
class Violation:
    invariant: int
    kind: str
    detail: str
    ids: list[str] = field(default_factory=list)


@dataclass
class IntegrityReport:
    conversation_id: int | None
    checked_at: str
    violations: list[Violation]

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {"conversation_id": self.conversation_id, "checked_at": self.checked_at,
                "ok": self.ok, "violations": [asdict(v) for v in self.violations]}


# (invariant, kind, SQL selecting (conversation_id, id, detail)); `{c}` filters a conversation.
_CHECKS: list[tuple[int, str, str]] = [
    (1, "summary_without_source",
     "SELECT s.conversation_id, s.summary_id, 'no summary_messages or summary_parents row' "
     "FROM summaries s WHERE {c} NOT EXISTS (SELECT 1 FROM summary_messages sm WHERE "
     "sm.summary_id = s.summary_id) AND NOT EXISTS (SELECT 1 FROM summary_parents sp "
     "WHERE sp.summary_id = s.summary_id)"),
    (1, "lineage_to_missing_message",
     "SELECT s.conversation_id, s.summary_id, 'links missing message msg_' || sm.message_id "
     "FROM summary_messages sm JOIN summaries s USING (summary_id) WHERE {c} NOT EXISTS "
     "(SELECT 1 FROM messages m WHERE m.message_id = sm.message_id)"),
    (1, "lineage_to_missing_summary",
     "SELECT s.conversation_id, s.summary_id, 'links missing summary ' || sp.parent_summary_id "
     "FROM summary_parents sp JOIN summaries s USING (summary_id) WHERE {c} NOT EXISTS "
     "(SELECT 1 FROM summaries p WHERE p.summary_id = sp.parent_summary_id)"),
    (2, "dangling_context_item",
     "SELECT ci.conversation_id, 'ctx_' || ci.conversation_id || '_' || ci.ordinal, "
     "'points at ' || COALESCE(ci.summary_id, 'msg_' || ci.message_id) || ', which is missing "
     "or in another conversation' FROM context_items ci WHERE {c} ("
     "(ci.item_type = 'message' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.message_id "
     "= ci.message_id AND m.conversation_id = ci.conversation_id)) OR "
     "(ci.item_type = 'summary' AND NOT EXISTS (SELECT 1 FROM summaries s WHERE s.summary_id "
     "= ci.summary_id AND s.conversation_id = ci.conversation_id)))"),
    (3, "duplicate_context_ordinal",
     "SELECT ci.conversation_id, 'ctx_' || ci.conversation_id || '_' || ci.ordinal, "
     "COUNT(*) || ' context items share ordinal ' || ci.ordinal FROM context_items ci "
     "WHERE {c} TRUE GROUP BY ci.conversation_id, ci.ordinal HAVING COUNT(*) > 1"),
    (3, "duplicate_part_ordinal",
     "SELECT m.conversation_id, 'msg_' || p.message_id, COUNT(*) || ' parts share ordinal ' "
     "|| p.ordinal FROM message_parts p JOIN messages m USING (message_id) WHERE {c} TRUE "
     "GROUP BY m.conversation_id, p.message_id, p.ordinal HAVING COUNT(*) > 1"),
    (4, "canonical_message_missing",
     "SELECT c.conversation_id, 'conv_' || c.conversation_id, c.message_count || ' appended, "
     "' || (SELECT COUNT(DISTINCT seq) FROM messages m WHERE m.conversation_id = "
     "c.conversation_id) || ' present' FROM conversations c WHERE {c} c.message_count != "
     "(SELECT COUNT(DISTINCT seq) FROM messages m WHERE m.conversation_id = c.conversation_id "
     "AND m.seq BETWEEN 1 AND c.message_count)"),
    (4, "canonical_part_missing",
     "SELECT m.conversation_id, 'msg_' || m.message_id, 'part ordinals have a gap' "
     "FROM messages m JOIN message_parts p USING (message_id) WHERE {c} TRUE "
     "GROUP BY m.message_id HAVING MAX(p.ordinal) + 1 != COUNT(DISTINCT p.ordinal)"),
]

_REPAIRS = {
    "summary_without_source": "keep the summary; re-link it from the compaction part that "
                              "created it (its metadata lists the sources), else retire it "
                              "from the context by restoring the raw messages it replaced",
    "lineage_to_missing_message": "restore the canonical message from a backup; the summary "
                                  "text stays readable meanwhile",
    "lineage_to_missing_summary": "restore the missing summary from a backup, or re-link the "
                                  "condensed summary to the messages it covers",
    "dangling_context_item": "replace the context item with the canonical messages its "
                             "lineage covers (append-only: nothing is deleted)",
    "duplicate_context_ordinal": "renumber the conversation's context items in (ordinal, "
                                 "created_at) order into a fresh sequence",
    "duplicate_part_ordinal": "renumber the message's parts in (ordinal, part_id) order",
    "canonical_message_missing": "restore the missing messages from a backup; never "
                                 "renumber (seqs are cited)",
    "canonical_part_missing": "restore the missing parts from a backup",
}


class IntegrityChecker:
    """Runs the checks; `plan_repairs` says what to do, it never changes data (v1)."""

    def __init__(self, store: ConversationStore) -> None:
        self.store = store

    def run(self, conversation_id: int | None = None) -> IntegrityReport:
        violations = []
        for invariant, kind, sql in _CHECKS:
            where = (f"{_owner_alias(kind)}.conversation_id = ? AND "
                     if conversation_id is not None else "")
            params = (conversation_id,) if conversation_id is not None else ()
            for row in self.store.query(sql.format(c=where), params):
                violations.append(Violation(invariant, kind, str(row[2]), [str(row[1])]))
        return IntegrityReport(conversation_id, utcnow(), violations)

    def plan_repairs(self, report: IntegrityReport) -> dict[str, Any]:
        """One proposed, non-destructive action per violation."""
        actions = [{"invariant": v.invariant, "kind": v.kind, "ids": v.ids,
                    "action": _REPAIRS[v.kind], "destructive": False}
                   for v in report.violations]
        return {"conversation_id": report.conversation_id, "actions": actions,
                "automatic": False}


def _owner_alias(kind: str) -> str:
    """The table alias whose conversation_id scopes each check."""
    if kind.startswith(("summary_", "lineage_")):
        return "s"
    if kind in ("dangling_context_item", "duplicate_context_ordinal"):
        return "ci"
    if kind == "canonical_message_missing":
        return "c"
    return "m"
