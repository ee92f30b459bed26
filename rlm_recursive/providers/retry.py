"""One retry loop for every HTTP provider: transient failures again, with backoff."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_base

__all__ = ["with_retries"]

_T = TypeVar("_T")


async def with_retries(
    fn: Callable[[], Awaitable[_T]], *, transient: Callable[[BaseException], bool],
    attempts: int, wait: wait_base,
) -> _T:
    """`fn()`, retried while `transient(error)` holds, `attempts` times at most; the last
    failure is raised as it was."""
    retrying = AsyncRetrying(retry=retry_if_exception(transient),
                             stop=stop_after_attempt(attempts), wait=wait, reraise=True)
    async for attempt in retrying:
        with attempt:
            return await fn()
    raise AssertionError("unreachable: tenacity reraises the last failure")
