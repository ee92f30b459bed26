"""The live view of a running query: the recursion tree, the current step, tokens, time, budget.

A consumer of the run's event stream (the same one the store records), drawn with Rich
`Live` on a terminal only; `query --json` and a piped stdout never see it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from .. import trajectory
from ..trajectory import Node

__all__ = ["LiveView", "live_progress"]

_SHOWN = 24
"""Most recent calls drawn (with their ancestors): a long run must still fit a screen."""


class LiveView:
    """Keeps the state the events describe; `render()` draws it (called by Live's thread)."""

    def __init__(self, question: str, limits: dict[str, Any]) -> None:
        self.question = question
        self.limits = limits
        self.nodes: dict[str, Node] = {}
        self.index: tuple[int, int] | None = None
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self, event: str, payload: Any) -> None:
        with self._lock:
            if event in ("start", "end") and isinstance(payload, Node):
                self.nodes[payload.id] = payload
            elif event == "progress" and payload.get("task") == "index":
                self.index = (payload["done"], payload["total"])

    def render(self) -> RenderableType:
        with self._lock:
            nodes = list(self.nodes.values())
            index = self.index
        parts: list[RenderableType] = [self._tree(nodes)]
        if index is not None and index[0] < index[1]:
            done, total = index
            parts.append(Group(Text(f"building the search index: {done:,} of {total:,} chars",
                                    style="cyan"), ProgressBar(total=total, completed=done,
                                                                width=50)))
        parts.append(self._status(nodes))
        return Group(*parts)

    def _tree(self, nodes: list[Node]) -> Tree:
        tree = Tree(Text(self.question[:100], style="bold"))
        by_id = {n.id: n for n in nodes}
        keep: set[str] = set()
        for node in sorted(nodes, key=lambda n: n.seq)[-_SHOWN:]:
            current: Node | None = node
            while current is not None and current.id not in keep:
                keep.add(current.id)
                current = by_id.get(current.parent or "")
        hidden = len(nodes) - len(keep)
        if hidden:
            tree.add(Text(f"… {hidden} earlier calls", style="dim"))
        branches: dict[str | None, Tree] = {None: tree}
        for node in sorted((by_id[i] for i in keep), key=lambda n: n.seq):
            parent = branches.get(node.parent, tree)
            branches[node.id] = parent.add(_label(node))
        return tree

    def _status(self, nodes: list[Node]) -> Table:
        running = [n for n in nodes if n.status == "running"]
        current = max(running, key=lambda n: n.seq) if running else None
        tokens_in = sum(n.input_tokens or 0 for n in nodes)
        tokens_out = sum(n.output_tokens or 0 for n in nodes)
        tools = sum(n.kind == "tool" for n in nodes)
        subs = sum(n.kind == "sub" for n in nodes)
        grid = Table.grid(padding=(0, 2))
        grid.add_row(
            Text(f"now: {current.id} {current.kind} {current.name}" if current else "now: —",
                 style="yellow"),
            Text(f"tokens {tokens_in:,} in / {tokens_out:,} out"),
            Text(f"{time.monotonic() - self.started:.1f} s"
                 + (f" / {self.limits['timeout_s']:g} s" if self.limits.get("timeout_s")
                    else "")),
            Text(f"tool calls {tools}/{self.limits.get('max_tool_calls', '?')} · "
                 f"sub-calls {subs}/{self.limits.get('max_sub_calls', '?')}"),
        )
        return grid


def _label(node: Node) -> Text:
    text = Text(f"{node.id} ", style="bold")
    text.append(f"{node.kind} {node.name}")
    if node.status == "running":
        text.append("  …", style="yellow")
    else:
        tokens = (f" · {node.input_tokens}→{node.output_tokens} tok"
                  if node.input_tokens is not None else "")
        text.append(f"  {node.duration_ms:.0f} ms{tokens}", style="dim")
    if node.status == "error":
        text.append(f"  {node.error_code}", style="red")
    return text


@contextmanager
def live_progress(console: Console, question: str,
                  limits: dict[str, Any]) -> Iterator[LiveView | None]:
    """Show the live view while the block runs, on a terminal only (yields None elsewhere)."""
    if not console.is_terminal:
        yield None
        return
    view = LiveView(question, limits)
    with Live(console=console, transient=True, refresh_per_second=8,
              get_renderable=view.render), trajectory.listening(view):
        yield view
