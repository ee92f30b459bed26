"""The live events of each execution this server runs (SSE `/events`, streamed chat).

An execution's feed opens with its RUNNING status, carries the run's steps, sub-calls and
progress (the trajectory recorder's stream), then its answer or error, then its final
status, and closes. Finished feeds are kept for a while, so a watcher that connects just
after the end still gets the whole story in order.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..agent.query import QueryResult
from ..trajectory.feed import EventFeed

__all__ = ["ExecutionFeeds", "grounded"]

_KEEP_FINISHED = 256


def grounded(result: QueryResult) -> bool:
    """Whether the answer is backed by what it cites.

    The core's own verdict (`QueryResult.grounded`) when it gives one; otherwise (grounding
    off) an answer that cites nothing counts as not grounded.
    """
    verdict = getattr(result, "grounded", None)
    return (not result.uncited) if verdict is None else bool(verdict)


class ExecutionFeeds:
    def __init__(self) -> None:
        self._feeds: OrderedDict[str, EventFeed] = OrderedDict()

    def open(self, execution_id: str, status: str = "RUNNING") -> EventFeed:
        feed = self._feeds[execution_id] = EventFeed()
        feed.publish("status", {"status": status, "message": status.lower()})
        return feed

    def get(self, execution_id: str) -> EventFeed | None:
        return self._feeds.get(execution_id)

    def answered(self, execution_id: str, result: QueryResult,
                 citations: list[dict[str, Any]]) -> None:
        feed = self._feeds.get(execution_id)
        if feed is None:
            return
        contexts_only = result.contexts is not None and not result.answer.strip()
        feed.publish("answer", {
            "message": "answered" if grounded(result) else "answered, not grounded",
            "answer": None if contexts_only else result.answer, "citations": citations,
            "grounded": grounded(result), "strategy": result.strategy,
            "model": result.model, "stopped": result.stopped,
            "conversation_id": result.conversation_id, "usage": result.usage,
            "closest": getattr(result, "closest", None) or []})

    def settled(self, execution_id: str, record: dict[str, Any],
                result: dict[str, Any] | None) -> None:
        """The ending of an execution a worker ran, from its stored row and result (the run's
        steps and sub-calls happened in the worker's process: they are not on this feed)."""
        feed = self._feeds.get(execution_id)
        if feed is None:
            return
        if record["error"]:
            self.failed(execution_id, record["error"])
        else:
            result = result or {}
            citations = result.get("citations", [])
            verdict = result.get("grounded")
            is_grounded = bool(citations) if verdict is None else bool(verdict)
            contexts_only = result.get("contexts") is not None and not (record["answer"] or
                                                                        "").strip()
            feed.publish("answer", {
                "message": "answered" if is_grounded else "answered, not grounded",
                "answer": None if contexts_only else record["answer"], "citations": citations,
                "grounded": is_grounded, "strategy": result.get("strategy"),
                "model": result.get("model"), "stopped": result.get("stopped"),
                "conversation_id": result.get("conversation_id"), "usage": record["usage"],
                "closest": result.get("closest") or []})
        self.finish(execution_id, record["status"])

    def failed(self, execution_id: str, error: dict[str, Any]) -> None:
        feed = self._feeds.get(execution_id)
        if feed is not None:
            feed.publish("error", dict(error))

    def finish(self, execution_id: str, status: str) -> None:
        """The final status; the feed closes, and the oldest finished feeds are dropped."""
        feed = self._feeds.get(execution_id)
        if feed is None:
            return
        feed.publish("status", {"status": status, "message": status.lower()})
        feed.close()
        finished = [k for k, f in self._feeds.items() if f.closed]
        for key in finished[: max(0, len(finished) - _KEEP_FINISHED)]:
            del self._feeds[key]
