"""A run's events for remote watchers: MCP progress notifications and the API's SSE stream.

`EventFeed` is a recorder listener (the same event stream the store and the terminal's live
view consume). It turns each event into a small JSON-able dict with a one-line message
(`narrate`), keeps them in order, and lets any number of asyncio readers replay and follow
them. Listeners run where the event happens, the event loop or a worker thread (a tool's
index build), so appending is guarded by a lock and readers are woken through the loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from ..corpus.loaders import LoadProgress
from .recorder import Node

__all__ = ["EventFeed", "FeedEvent", "narrate"]

_SHOWN_CHARS = 60
"""A query or question is cut to this many characters in a progress message."""
_MIN_PROGRESS_GAP_S = 0.25
"""Load and index progress (one event per document) is thinned to about four a second."""
_KIND_TYPE = {"model": "step", "tool": "step", "repl": "step", "sub": "sub_call"}


@dataclass(frozen=True)
class FeedEvent:
    seq: int
    """1, 2, 3, … in the order the events happened (SSE `id`, MCP `progress`)."""
    type: str
    """status, step, sub_call, progress, answer or error."""
    data: dict[str, Any]

    @property
    def message(self) -> str:
        return str(self.data.get("message", ""))


def _short(text: Any) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[: _SHOWN_CHARS - 1] + "…"


def _tool_message(node: Node) -> str:
    args = node.input if isinstance(node.input, dict) else {}
    if node.name == "rlm_search_query":
        return f"searching {_short(args.get('query'))!r}"
    if node.name == "rlm_docs_peek":
        return f"reading {args.get('doc_id')} [{args.get('start', 0)}:{args.get('end', -1)}]"
    if node.name == "rlm_sub_query_batch":
        return f"sub-queries over {len(args.get('spans') or args.get('items') or [])} spans"
    return f"calling {node.name}"


def _node_message(node: Node) -> str:
    if node.kind == "model":
        return f"asking {node.name} (depth {node.depth})"
    if node.kind == "tool":
        return _tool_message(node)
    if node.kind == "repl":
        return f"running REPL {node.name}"
    query = node.input.get("query") if isinstance(node.input, dict) else None
    return f"sub-call {node.name} at depth {node.depth}: {_short(query)!r}"


def narrate(event: str, payload: Any) -> tuple[str, dict[str, Any]] | None:
    """A recorder event as (type, data) for a watcher, or None for what it need not see.

    Only the start of a call is news to someone waiting; its end is reported for sub-calls
    (their status and duration) and for failures.
    """
    if isinstance(payload, Node):
        node = payload
        failed = event == "end" and node.status == "error"
        if event == "end" and node.kind != "sub" and not failed:
            return None
        message = _node_message(node)
        if event == "end":
            message += f": failed ({node.error_code})" if failed else (
                f": done in {node.duration_ms:.0f} ms")
        data = {"message": message, "phase": event, "id": node.id, "kind": node.kind,
                "name": node.name, "depth": node.depth, "status": node.status}
        if event == "end":
            data.update(duration_ms=round(node.duration_ms, 1), error_code=node.error_code)
        return _KIND_TYPE[node.kind], data
    if event == "progress" and isinstance(payload, dict):
        message = payload.get("message")
        if not message:
            done, total = payload.get("done", 0), payload.get("total", 0)
            what = "indexing" if payload.get("task") == "index" else payload.get("task")
            message = f"{what}: {done:,} of {total:,}" + (
                " chars" if payload.get("task") == "index" else "")
        return "progress", {**payload, "message": message}
    return None


class EventFeed:
    """One run's events, in order: appended from any thread, read by asyncio tasks."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._lock = threading.Lock()
        self._events: list[FeedEvent] = []
        self._closed = False
        self._changed = asyncio.Event()
        self._last_progress = 0.0
        self._held: dict[str, Any] | None = None

    def __call__(self, event: str, payload: Any) -> None:
        """The recorder listener."""
        told = narrate(event, payload)
        if told is not None:
            self.publish(*told)

    def publish(self, type_: str, data: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:
                return
            if type_ == "progress" and data.get("task") in ("index", "load"):
                total = data.get("total")
                now, last = time.monotonic(), total is not None and data.get("done", 0) >= total
                if not last and now - self._last_progress < _MIN_PROGRESS_GAP_S:
                    self._held = data  # shown later, unless a newer count replaces it
                    return
                self._last_progress = now
            self._flush_held()
            self._append(type_, data)
        self._wake()

    def _append(self, type_: str, data: dict[str, Any]) -> None:
        self._events.append(FeedEvent(len(self._events) + 1, type_, data))

    def _flush_held(self) -> None:
        """The newest thinned-out count goes out before anything that follows it."""
        if self._held is not None:
            self._append("progress", self._held)
            self._held = None

    def loader_progress(self) -> Callable[[LoadProgress, str], None]:
        """A `load_sources` progress callback: one event per file (thinned), with the load's
        running counts of files, pages and raw bytes (`corpus.loaders.LoadProgress`)."""

        def loaded(counts: LoadProgress, label: str) -> None:
            self.publish("progress", {
                "task": "load", "done": counts.files, "total": None, "pages": counts.pages,
                "bytes": counts.bytes,
                "message": f"loaded {counts.files} files ({counts.pages:,} pages, "
                           f"{counts.bytes:,} bytes), latest {label}"})

        return loaded

    def close(self) -> None:
        """No more events; readers finish once they have read every event."""
        with self._lock:
            self._flush_held()
            self._closed = True
        self._wake()

    @property
    def closed(self) -> bool:
        return self._closed

    def events(self) -> list[FeedEvent]:
        with self._lock:
            return list(self._events)

    def _wake(self) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._changed.set()
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._changed.set)

    async def follow(self, after: int = 0) -> AsyncIterator[FeedEvent]:
        """Every event after `after` (a seq), then each new one, until the feed closes."""
        seen = after
        while True:
            self._changed.clear()
            with self._lock:
                fresh, closed = self._events[seen:], self._closed
            for event in fresh:
                yield event
            seen += len(fresh)
            if closed and not fresh:
                return
            if not fresh:
                await self._changed.wait()
