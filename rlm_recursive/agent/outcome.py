"""What an answerer execution stores as its result, wherever it ran (the API process or a
queue worker): citations as SpanRefs (seed 003 §9.1), CONTEXTS items (§16.3.1), the plan."""

from __future__ import annotations

from typing import Any

from .query import QueryResult

__all__ = ["spanref", "stored_result"]


def spanref(tenant_id: str, citation: dict[str, Any]) -> dict[str, Any]:
    """A citation in the seed's SpanRef shape (003 §9.1), with its source name."""
    return {"tenant_id": tenant_id, "session_id": citation.get("session_id"),
            "doc_id": citation["doc_id"], "doc_index": citation.get("doc_index"),
            "start_char": citation.get("start_char", citation.get("start")),
            "end_char": citation.get("end_char", citation.get("end")),
            "checksum": citation["checksum"],
            "source_name": citation.get("source") or citation.get("source_name"),
            # Where it lies (issue 19): the file as loaded, its page (PDF) or line.
            "source": citation.get("source") or citation.get("source_name"),
            **{k: citation[k] for k in ("page", "line") if citation.get(k) is not None}}


def stored_result(tenant_id: str, result: QueryResult) -> dict[str, Any]:
    """The execution's `result` column: everything beyond the answer a reader shows."""
    citations = [spanref(tenant_id, c.model_dump()) for c in result.citations]
    contexts = None
    if result.contexts is not None:
        contexts = [_context(tenant_id, i, c) for i, c in enumerate(result.contexts)]
    return {"citations": citations, "contexts": contexts, "strategy": result.strategy,
            "provider": result.provider, "model": result.model, "plan": result.plan,
            "stopped": result.stopped, "repl_execution_id": result.execution_id,
            "grounded": result.grounded, "grounding": result.grounding,
            "closest": result.closest, "exact": result.exact,
            "conversation_id": result.conversation_id}


def _context(tenant_id: str, index: int, item: dict[str, Any]) -> dict[str, Any]:
    """A CONTEXTS item in the seed's shape (003 §16.3.1)."""
    text = item.get("text", "")
    return {"sequence_index": index, "turn_index": item.get("turn_index"),
            "span_index": item.get("span_index"), "tag": item.get("tag"), "text": text,
            "text_char_length": len(text), "source_name": item.get("source_name"),
            "ref": spanref(tenant_id, {**item, "start": item.get("start_char"),
                                       "end": item.get("end_char")})}
