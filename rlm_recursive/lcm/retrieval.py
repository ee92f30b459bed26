"""RetrievalEngine: describe an id, grep history, expand a summary back to its sources."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from ..corpus.scan import regex_search
from ..errors import InvalidArgs, NotFound
from .records import MessageRecord, SummaryRecord
from .store import ConversationStore
from .tokens import TokenEstimator

__all__ = ["Answerer", "RetrievalEngine", "message_ref", "parse_message_ref"]

Mode = Literal["regex", "full_text"]
Scope = Literal["messages", "summaries", "both"]
Answerer = Callable[[str, str], Awaitable[str]]
"""`(question, expanded text) -> distilled answer`: a bounded sub-model call."""


def message_ref(message_id: int) -> str:
    return f"msg_{message_id}"


def parse_message_ref(ref: str) -> int | None:
    if ref.startswith("msg_") and ref[4:].isdigit():
        return int(ref[4:])
    return None


def _message_out(m: MessageRecord) -> dict[str, Any]:
    return {"id": m.ref, "seq": m.seq, "role": m.role, "content": m.content,
            "tokens": m.token_count}


def _snippet(text: str, start: int, end: int, width: int = 80) -> str:
    lo, hi = max(start - width, 0), min(end + width, len(text))
    return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")


class RetrievalEngine:
    """The look-back operations behind lcm_describe, lcm_grep and lcm_expand."""

    def __init__(self, store: ConversationStore, estimator: TokenEstimator,
                 max_expand_tokens: int = 4000) -> None:
        self.store = store
        self.estimator = estimator
        self.max_expand_tokens = max_expand_tokens

    def _summary(self, summary_id: str) -> SummaryRecord:
        summary = self.store.get_summary(summary_id)
        if summary is None:
            raise NotFound(f"unknown summary {summary_id!r}; lcm_grep finds summary ids",
                           kind="summary")
        return summary

    def source_messages(self, summary_id: str) -> list[MessageRecord]:
        """Every canonical message under a summary, in conversation order."""
        found: dict[int, MessageRecord] = {}
        pending = [summary_id]
        while pending:
            current = pending.pop()
            for m in self.store.get_summary_messages(current):
                found[m.message_id] = m
            pending.extend(c.summary_id for c in self.store.get_summary_children(current))
        return sorted(found.values(), key=lambda m: m.seq)

    def describe(self, ref: str) -> dict[str, Any]:
        """Kind, time, size and lineage of a summary id, a file id or a message id."""
        if ref.startswith("file_"):
            record = self.store.get_file(ref)
            if record is None:
                raise NotFound(f"unknown file {ref!r}", kind="file")
            return {"id": ref, "kind": "file", "created_at": record.created_at,
                    "file_name": record.file_name, "mime_type": record.mime_type,
                    "byte_size": record.byte_size, "storage_uri": record.storage_uri,
                    "exploration_summary": record.exploration_summary}
        if (mid := parse_message_ref(ref)) is not None:
            rows = self.store.query("SELECT conversation_id FROM messages WHERE message_id = ?",
                                    (mid,))
            if not rows:
                raise NotFound(f"unknown message {ref!r}", kind="message")
            message = self.store.messages(rows[0][0], [mid])[0]
            covering = self.store.query("SELECT summary_id FROM summary_messages WHERE "
                                        "message_id = ?", (mid,))
            return {"id": ref, "kind": "message", **_message_out(message),
                    "created_at": message.created_at,
                    "summarised_by": [r[0] for r in covering]}
        summary = self._summary(ref)
        sources = self.source_messages(ref)
        return {
            "id": ref, "kind": "summary", "summary_kind": summary.kind,
            "created_at": summary.created_at, "tokens": summary.token_count,
            "children": [c.summary_id for c in self.store.get_summary_children(ref)],
            "parent": self.store.get_summary_parent(ref),
            "source_messages": {"count": len(sources),
                                "first": sources[0].ref if sources else None,
                                "last": sources[-1].ref if sources else None,
                                "seq_range": [sources[0].seq, sources[-1].seq] if sources
                                else None},
            "file_ids": summary.file_ids,
        }

    def grep(self, conversation_id: int, query: str, *, mode: Mode = "full_text",
             scope: Scope = "both", limit: int = 10) -> dict[str, Any]:
        """Matches with snippets and source ids, best first (full_text) or oldest first."""
        if limit < 1:
            raise InvalidArgs("limit must be at least 1")
        if not query.strip():
            raise InvalidArgs("the grep query is empty")
        matches: list[dict[str, Any]] = []
        if scope in ("messages", "both"):
            matches += self._grep_messages(conversation_id, query, mode, limit)
        if scope in ("summaries", "both"):
            matches += self._grep_summaries(conversation_id, query, mode, limit)
        return {"query": query, "mode": mode, "scope": scope, "matches": matches[:limit],
                "truncated": len(matches) > limit}

    def _grep_messages(self, cid: int, query: str, mode: Mode, limit: int
                       ) -> list[dict[str, Any]]:
        if mode == "full_text":
            found = self.store.search_messages(cid, query, limit)
        else:
            by_id = {str(m.message_id): m for m in self.store.messages(cid)}
            hits, _ = regex_search(((k, m.content) for k, m in by_id.items()), query, limit,
                                   ignore_case=True)
            found = [(by_id[h.doc_id], _snippet(by_id[h.doc_id].content, h.start, h.end))
                     for h in hits]
        out = []
        for m, snip in found:
            covering = self.store.query("SELECT summary_id FROM summary_messages WHERE "
                                        "message_id = ?", (m.message_id,))
            out.append({"kind": "message", "id": m.ref, "seq": m.seq, "role": m.role,
                        "snippet": snip, "summarised_by": [r[0] for r in covering]})
        return out

    def _grep_summaries(self, cid: int, query: str, mode: Mode, limit: int
                        ) -> list[dict[str, Any]]:
        if mode == "full_text":
            found = self.store.search_summaries(cid, query, limit)
        else:
            by_id = {s.summary_id: s for s in self.store.summaries(cid)}
            hits, _ = regex_search(((k, s.content) for k, s in by_id.items()), query, limit,
                                   ignore_case=True)
            found = [(by_id[h.doc_id], _snippet(by_id[h.doc_id].content, h.start, h.end))
                     for h in hits]
        out = []
        for s, snip in found:
            sources = self.source_messages(s.summary_id)
            refs = [m.ref for m in sources]
            # A condensed summary may cover hundreds of messages: the ends and a count.
            shown = refs if len(refs) <= 8 else [*refs[:4], f"… {len(refs) - 8} more",
                                                 *refs[-4:]]
            out.append({"kind": "summary", "id": s.summary_id, "summary_kind": s.kind,
                        "snippet": snip, "source_ids": shown, "source_count": len(refs)})
        return out

    def expand(self, summary_id: str, *, depth: int = 1, include_raw: bool = True,
               token_cap: int | None = None) -> dict[str, Any]:
        """Child summaries down to `depth` and, with include_raw, their canonical messages,
        oldest first, stopping at `token_cap` (then `truncated` is true)."""
        if depth < 1:
            raise InvalidArgs("depth must be at least 1")
        cap = min(token_cap or self.max_expand_tokens, self.max_expand_tokens)
        root = self._summary(summary_id)
        levels: list[list[SummaryRecord]] = [[root]]
        for _ in range(depth):
            nxt = [c for s in levels[-1] for c in self.store.get_summary_children(s.summary_id)]
            if not nxt:
                break
            levels.append(nxt)
        used, truncated = 0, False
        children: list[dict[str, Any]] = []
        for level in levels[1:]:
            for s in level:
                if used + s.token_count > cap:
                    truncated = True
                    break
                used += s.token_count
                children.append({"id": s.summary_id, "kind": s.kind, "content": s.content,
                                 "tokens": s.token_count})
        messages: list[dict[str, Any]] = []
        if include_raw and not truncated:
            visited = [s.summary_id for level in levels for s in level]
            raw = sorted({m.message_id: m for sid in visited
                          for m in self.store.get_summary_messages(sid)}.values(),
                         key=lambda m: m.seq)
            for m in raw:
                if used + m.token_count > cap:
                    truncated = True
                    break
                used += m.token_count
                messages.append(_message_out(m))
        more = [c["id"] for c in children if self.store.get_summary_children(c["id"])]
        return {"summary_id": summary_id, "kind": root.kind, "summary": root.content,
                "children": children, "messages": messages, "estimated_tokens": used,
                "truncated": truncated, "expand_next": more}

    async def ask(self, summary_ids: list[str], question: str, answer: Answerer, *,
                  depth: int = 2, token_cap: int | None = None) -> dict[str, Any]:
        """Sub-agent expansion: expand within the cap, let a sub-model distil the answer.

        The caller gets the answer and the ids it rests on, never the raw expansion.
        """
        parts, cited, truncated = [], [], False
        remaining = min(token_cap or self.max_expand_tokens, self.max_expand_tokens)
        for sid in summary_ids:
            if remaining <= 0:
                truncated = True
                break
            expanded = self.expand(sid, depth=depth, include_raw=True, token_cap=remaining)
            remaining -= expanded["estimated_tokens"]
            truncated = truncated or expanded["truncated"]
            cited.append(sid)
            for m in expanded["messages"]:
                parts.append(f"[{m['id']}] {m['role']}: {m['content']}")
                cited.append(m["id"])
            if not expanded["messages"]:
                parts += [f"[{c['id']}] {c['content']}" for c in expanded["children"]]
                parts.append(f"[{sid}] {expanded['summary']}")
        text = "\n\n".join(parts)
        distilled = (await answer(question, text)).strip()
        return {"answer": distilled, "cited_ids": cited, "truncated": truncated}
