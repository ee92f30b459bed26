"""MCP `notifications/progress` for long calls: `rlm_query`, loads and first searches.

The run's events (the trajectory recorder's stream, see `trajectory.feed`) are sent as they
happen, each with a one-line message ("hop 2/3: searching 'office Lisbon'"). The SDK sends
nothing when the request carries no `progressToken`, so a client that did not ask sees no
traffic. A client that went away mid-call does not fail the call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from mcp.server.mcpserver import Context

from .. import trajectory
from ..trajectory.feed import EventFeed

__all__ = ["PROGRESS_TOOLS", "with_progress"]

T = TypeVar("T")

PROGRESS_TOOLS = frozenset({"rlm_docs_load", "rlm_search_query"})
"""Registry tools that can take long and say how far they are (files loaded, characters
indexed); rlm_query always reports."""


async def with_progress(context: Context, work: Callable[[EventFeed], Awaitable[T]]) -> T:
    """Run `work(feed)` with its events reported to the client as progress notifications."""
    feed = EventFeed()
    result: list[T] = []
    failed: list[Exception] = []

    async def send() -> None:
        async for event in feed.follow():
            # Progress must increase: the event's sequence number does.
            with contextlib.suppress(Exception):
                await context.report_progress(event.seq, None, event.message)

    async def run() -> None:
        try:
            with trajectory.listening(feed):
                result.append(await work(feed))
        except Exception as exc:  # raised as itself below, not inside an ExceptionGroup
            failed.append(exc)
        finally:
            feed.close()

    async with anyio.create_task_group() as group:
        group.start_soon(send)
        await run()
    if failed:
        raise failed[0]
    return result[0]
