"""The API's per-request reads and writes on PostgreSQL, on the event loop, grouped.

Every request to the API authenticates its key and counts itself against the rate limits.
Done one by one, each is a thread hop and a round trip of psycopg's Python (about a fifth of
a millisecond each: most of a small request's CPU). Here both go through psycopg's async
pool on the loop, and calls that arrive while a statement is in flight wait for the next
one, which serves them all (group commit): fifty concurrent requests cost a few statements.

A call never joins a statement already sent: it could have been sent before a key was
revoked, and a revoked key answers 401 from the moment the revocation is committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ..errors import StoreUnavailable
from .connector import database_errors, redact_url

__all__ = ["AsyncExecutionLookup", "AsyncKeyLookup", "GroupCommit", "GroupedCalls", "HotPool",
           "store_unavailable"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
A = TypeVar("A")
R = TypeVar("R")


@contextmanager
def store_unavailable(what: str) -> Iterator[None]:
    """A driver error (server down, connection lost, pool exhausted) is `store_unavailable`."""
    try:
        yield
    except database_errors() as exc:
        raise StoreUnavailable(f"the shared database failed while {what}: "
                               f"{type(exc).__name__}: {exc}", retry_after_s=2) from exc


async def _configure(conn: Any) -> None:
    from .postgres import configure_types

    configure_types(conn)


async def _check_if_dropped(conn: Any) -> None:
    """A connection the server ended is replaced before use (as postgres.py's sync pools do,
    without a round trip per checkout)."""
    from psycopg_pool import AsyncConnectionPool

    from .postgres import maybe_dropped

    if maybe_dropped(conn):
        await AsyncConnectionPool.check_connection(conn)


class HotPool:
    """psycopg's async pool for the hot path, opened on first use (autocommit)."""

    def __init__(self, url: str, *, timeout_s: float = 10.0, max_size: int = 3) -> None:
        self._url, self._timeout_s, self._max_size = url, timeout_s, max_size
        self._pool: Any = None
        self._opening = asyncio.Lock()

    async def connection(self) -> Any:
        """`async with await pool.connection() as conn:`."""
        from psycopg_pool import AsyncConnectionPool

        async with self._opening:
            if self._pool is None:
                pool = AsyncConnectionPool(
                    self._url, min_size=1, max_size=self._max_size, open=False,
                    timeout=self._timeout_s, name="rlm-recursive-hot", configure=_configure,
                    check=_check_if_dropped,
                    kwargs={"autocommit": True, "application_name": "rlm-recursive",
                            "connect_timeout": max(2, int(self._timeout_s))})
                try:
                    with store_unavailable(f"connecting to {redact_url(self._url)}"):
                        await pool.open(wait=True, timeout=self._timeout_s)
                except BaseException:
                    await pool.close()  # else it keeps trying to connect in the background
                    raise
                self._pool = pool
        return self._pool.connection()

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


class GroupCommit(Generic[A, R]):
    """Calls that arrive while `serve` is in flight wait for its next turn, which serves
    them all at once: `serve(args) -> results`, one result per call, in the calls' order.
    A failed turn fails every call in it; the next turn still runs."""

    def __init__(self, serve: Callable[[list[A]], Awaitable[list[R]]]) -> None:
        self._serve = serve
        self._waiting: list[tuple[A, asyncio.Future[R]]] = []
        self._running: asyncio.Task[None] | None = None

    async def call(self, arg: A) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((arg, future))
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                results = await self._serve([arg for arg, _ in batch])
            except Exception as exc:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    async def aclose(self) -> None:
        if self._running is not None:
            await asyncio.gather(self._running, return_exceptions=True)


class GroupedCalls(Generic[K, V]):
    """Look-ups by key, grouped: `fetch(distinct keys) -> {key: value}`; a key it does not
    return gets None."""

    def __init__(self, fetch: Callable[[list[K]], Awaitable[dict[K, V]]]) -> None:
        self._fetch = fetch
        self._group: GroupCommit[K, V | None] = GroupCommit(self._serve)

    async def get(self, key: K) -> V | None:
        return await self._group.call(key)

    async def _serve(self, keys: list[K]) -> list[V | None]:
        found = await self._fetch(list(dict.fromkeys(keys)))
        return [found.get(key) for key in keys]

    async def aclose(self) -> None:
        await self._group.aclose()


class AsyncKeyLookup:
    """API-key rows by their hash, grouped (`KeyStore.live` turns a row into a key)."""

    def __init__(self, pool: HotPool) -> None:
        self._pool = pool
        self._calls: GroupedCalls[str, Any] = GroupedCalls(self._fetch)

    async def row(self, key_hash: str) -> Any:
        return await self._calls.get(key_hash)

    async def _fetch(self, hashes: list[str]) -> dict[str, Any]:
        from .postgres import named_row

        with store_unavailable("authenticating an API key"):
            async with await self._pool.connection() as conn:
                cursor = conn.cursor(row_factory=named_row)
                await cursor.execute("SELECT * FROM api_keys WHERE key_hash = ANY(%s)",
                                     (hashes,))
                return {row["key_hash"]: row for row in await cursor.fetchall()}

    async def aclose(self) -> None:
        await self._calls.aclose()


class AsyncExecutionLookup:
    """Execution rows by (tenant, execution id), grouped: the clients' status polls.
    `tenancy.owned_execution_record` turns a row (or None) into the record."""

    def __init__(self, pool: HotPool) -> None:
        self._pool = pool
        self._calls: GroupedCalls[tuple[str, str], Any] = GroupedCalls(self._fetch)

    async def row(self, tenant_id: str, execution_id: str) -> Any:
        return await self._calls.get((tenant_id, execution_id))

    async def _fetch(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        from .postgres import named_row
        from .tenancy import OWNED_EXECUTION_SELECT

        with store_unavailable("reading an execution"):
            async with await self._pool.connection() as conn:
                cursor = conn.cursor(row_factory=named_row)
                await cursor.execute(f"SELECT {OWNED_EXECUTION_SELECT} WHERE e.id = ANY(%s)",
                                     ([execution_id for _, execution_id in keys],))
                return {(row["tenant_id"], row["id"]): row for row in await cursor.fetchall()}

    async def aclose(self) -> None:
        await self._calls.aclose()
