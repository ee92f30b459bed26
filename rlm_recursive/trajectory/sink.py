"""The store consumer of a run's events: rows queued on the store's trace writer.

Encoding (and, in metadata mode, dropping the content) happens in the writer thread, so a
recorded call costs the event loop only a queue put.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..store import Store
from ..store.trajectory import event_insert, run_finish, run_insert
from .recorder import Node, Recorder

__all__ = ["StoreSink"]

_RUN_CONTENT = ("question", "answer")


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_defaults=True)
    return str(value)


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=_default)


class StoreSink:
    """Writes the run row, one row per finished node, and the run's ending."""

    def __init__(self, store: Store, recorder: Recorder) -> None:
        self.store = store
        self.recorder = recorder
        self.full = recorder.mode == "full"

    def __call__(self, event: str, node: Any) -> None:
        if event == "run_start":
            row = self._run_fields(dict(self.recorder.run))
            self.store.writer.submit(lambda _conn: ([run_insert(row)], []))
        elif event == "end" and isinstance(node, Node):
            self.store.writer.submit(self._event(node))
        elif event == "run_end":
            fields = self._run_fields(dict(self.recorder.run))
            self.store.writer.submit(
                lambda _conn: ([run_finish(fields["id"], fields)], []))

    def _run_fields(self, run: dict[str, Any]) -> dict[str, Any]:
        if not self.full:
            for key in _RUN_CONTENT:
                run[key] = None
            # A citation's source is a file name: keep ids, offsets and checksums only.
            run["citations"] = [{k: v for k, v in c.items() if k != "source"}
                                for c in run.get("citations") or []] or None
        return run

    def _event(self, node: Node) -> Any:
        run_id, full = self.recorder.run["id"], self.full

        def prepare(_conn: Any) -> tuple[list[Any], list[Any]]:
            input_json, output_json = _dump(node.input), _dump(node.output)
            row = {"run_id": run_id, "id": node.id, "parent_id": node.parent,
                   "seq": node.seq, "kind": node.kind, "depth": node.depth,
                   "name": node.name, "status": node.status, "error_code": node.error_code,
                   "started_at": node.started_at, "duration_ms": round(node.duration_ms, 3),
                   "input_tokens": node.input_tokens, "output_tokens": node.output_tokens,
                   "cost_usd": node.cost_usd,
                   "cache_hit": None if node.cache_hit is None else int(node.cache_hit),
                   "input_chars": len(input_json or ""), "output_chars": len(output_json or ""),
                   "meta": json.dumps(node.meta, default=str),
                   "input": input_json if full else None,
                   "output": output_json if full else None}
            return [event_insert(row)], []

        return prepare

