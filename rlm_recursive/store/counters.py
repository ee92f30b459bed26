"""Limits shared by every process on one store: request counters and execution slots.

`limits` 5 keeps its counters in memory, Redis, Memcached or MongoDB; a team whose processes
share a PostgreSQL database (and no Redis) needs them there.

- `SqlCounterStorage` is a `limits` storage over a `Connector` for the fixed-window strategy:
  `incr` is one atomic upsert (`… ON CONFLICT DO UPDATE … RETURNING hits`), so concurrent
  processes never lose a hit. The SQL is portable, but only PostgreSQL has the table
  (`migrations_postgresql/0002`): one SQLite process counts in memory, as before.
- `Slots` caps how many executions of a tenant run at once. `MemorySlots` counts in this
  process (the embedded default); `ExecutionSlots` counts across processes: slot `i` of a
  tenant is a session-level advisory lock held on this process's own connection, so a
  process that dies frees its slots with its connection (no lease to expire).
  `open_slots(url)` picks one; `acquire_slot` waits for a free slot (the queue's workers).

The PostgreSQL calls block: callers on an event loop run them in a thread (`api/state.py`).
Every driver error comes out as `StoreUnavailable` (503, retryable), never a 500.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Protocol

from limits.storage import Storage

from ..errors import StoreUnavailable
from .connector import Connector, advisory_key, database_errors, redact_url
from .hotpath import GroupCommit, HotPool, store_unavailable

__all__ = ["AsyncCounters", "ExecutionSlots", "MemorySlots", "Slots", "SqlCounterStorage",
           "acquire_slot", "open_slots"]

_SLOT_NAMESPACE = "rlm-recursive:execution-slot:"


def _upsert(counts: list[tuple[str, int, int]], now: float) -> tuple[str, tuple[Any, ...]]:
    """The one statement that adds to counters, starting a window over when it ended."""
    rows = ", ".join(["(?, ?, ?)"] * len(counts))
    values = [v for key, expiry, amount in counts for v in (key, amount, now + expiry)]
    return (f"INSERT INTO rate_counters (key, hits, expires_at) VALUES {rows} "
            "ON CONFLICT (key) DO UPDATE SET "
            "hits = CASE WHEN rate_counters.expires_at <= ? THEN excluded.hits "
            "ELSE rate_counters.hits + excluded.hits END, "
            "expires_at = CASE WHEN rate_counters.expires_at <= ? "
            "THEN excluded.expires_at ELSE rate_counters.expires_at END "
            "RETURNING key, hits, expires_at", (*values, now, now))


_GIVE_BACK = "UPDATE rate_counters SET hits = hits - ? WHERE key = ? AND expires_at = ?"


def _in_order(counts: list[tuple[str, int, int]], rows: Any) -> list[tuple[int, float]]:
    by_key = {row[0]: (int(row[1]), float(row[2])) for row in rows}
    return [by_key[key] for key, _, _ in counts]


class SqlCounterStorage(Storage):
    """Fixed-window counters in the store's `rate_counters` table (unix-second expiries)."""

    STORAGE_SCHEME = None  # built over a connector, never from a `limits` storage URI

    def __init__(self, connector: Connector, clock: Any = time.time) -> None:
        super().__init__()
        self.connector = connector
        self._clock = clock

    @property
    def base_exceptions(self) -> tuple[type[Exception], ...]:
        return database_errors()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self.incr_all([(key, expiry, amount)])[0][0]

    def incr_all(self, counts: list[tuple[str, int, int]]) -> list[tuple[int, float]]:
        """Add to several counters (key, expiry seconds, amount) in one statement, one round
        trip: their (hits, window end) in the order given. Keys must differ; callers pass
        them in one fixed order (per key, then per tenant), so two never lock rows crosswise.
        """
        sql, params = _upsert(counts, self._clock())
        with store_unavailable("counting a request"):
            # Autocommit: one statement is its own transaction (no BEGIN/COMMIT trips).
            return _in_order(counts, self.connector.query(sql, params))

    def give_back(self, key: str, amount: int, window_ends: float) -> None:
        """Take back hits counted in the window that ends at `window_ends` (not in a later
        one): a request refused by another limit must not spend this one."""
        with store_unavailable("correcting a request counter"):
            self.connector.execute(_GIVE_BACK, (amount, key, window_ends))

    def get(self, key: str) -> int:
        with store_unavailable("reading a request counter"):
            rows = self.connector.query("SELECT hits FROM rate_counters WHERE key = ? "
                                        "AND expires_at > ?", (key, self._clock()))
        return int(rows[0][0]) if rows else 0

    def get_expiry(self, key: str) -> float:
        now = self._clock()
        with store_unavailable("reading a request counter"):
            rows = self.connector.query("SELECT expires_at FROM rate_counters WHERE key = ? "
                                        "AND expires_at > ?", (key, now))
        return float(rows[0][0]) if rows else now

    def check(self) -> bool:
        try:
            self.connector.query("SELECT 1")
        except (*self.base_exceptions, StoreUnavailable):
            return False
        return True

    def reset(self) -> int | None:
        with store_unavailable("resetting request counters"), self.connector.transaction() as db:
            return int(db.execute("DELETE FROM rate_counters").rowcount)

    def clear(self, key: str) -> None:
        with store_unavailable("clearing a request counter"), self.connector.transaction() as db:
            db.execute("DELETE FROM rate_counters WHERE key = ?", (key,))


class AsyncCounters:
    """Shared request counters for the API's hot path, on the event loop (psycopg's async
    pool: no thread hop per request).

    Group commit: calls that arrive while a statement is in flight wait for the next one,
    which adds all their hits at once (the amounts summed per counter, rows in key order so
    no two processes lock them crosswise). The statement returns each counter's total, and
    each caller gets its own exact ordinal in arrival order, as if counted one by one. Fifty
    concurrent requests cost one or two round trips, not fifty queued on one hot row.
    A dropped connection fails its batch with `store_unavailable`; the pool discards it.
    """

    def __init__(self, url: str, *, timeout_s: float = 10.0, clock: Any = time.time,
                 pool: HotPool | None = None) -> None:
        self._clock = clock
        self._pool = pool or HotPool(url, timeout_s=timeout_s, max_size=2)
        self._owns_pool = pool is None
        self._group: GroupCommit[list[tuple[str, int, int]], list[tuple[int, float]]] = (
            GroupCommit(self._count))

    async def incr_all(self, counts: list[tuple[str, int, int]]) -> list[tuple[int, float]]:
        """Add to counters (key, expiry seconds, amount; keys distinct): each one's (hits
        including this call's, window end), in the order given."""
        return await self._group.call(counts)

    async def _count(self, batch: list[list[tuple[str, int, int]]]
                     ) -> list[list[tuple[int, float]]]:
        """One statement for a batch of calls; each call's own ordinals, in arrival order."""
        summed: dict[str, tuple[int, int]] = {}
        for counts in batch:
            for key, expiry, amount in counts:
                summed[key] = (expiry, summed.get(key, (0, 0))[1] + amount)
        rows = [(key, expiry, amount) for key, (expiry, amount) in sorted(summed.items())]
        counted = await self._upsert(rows)
        totals = {row[0]: total for row, total in zip(rows, counted, strict=True)}
        left = {key: hits for key, (hits, _) in totals.items()}
        results: list[list[tuple[int, float]]] = []
        for counts in reversed(batch):  # the last to arrive got the last hits
            mine = []
            for key, _, amount in counts:
                mine.append((left[key], totals[key][1]))
                left[key] -= amount
            results.append(mine)
        return results[::-1]

    async def _upsert(self, rows: list[tuple[str, int, int]]) -> list[tuple[int, float]]:
        from .postgres import to_pg

        sql, params = _upsert(rows, self._clock())
        with store_unavailable("counting a request"):
            async with await self._pool.connection() as conn:
                cursor = await conn.execute(to_pg(sql), params)
                return _in_order(rows, await cursor.fetchall())

    async def give_back(self, key: str, amount: int, window_ends: float) -> None:
        from .postgres import to_pg

        with store_unavailable("correcting a request counter"):
            async with await self._pool.connection() as conn:
                await conn.execute(to_pg(_GIVE_BACK), (amount, key, window_ends))

    async def aclose(self) -> None:
        await self._group.aclose()
        if self._owns_pool:
            await self._pool.aclose()


class Slots(Protocol):
    """A tenant's running-execution slots. Blocking and thread-safe: call off the loop."""

    def try_acquire(self, tenant_id: str, cap: int) -> bool:
        """Take one of the tenant's `cap` slots; False when all are held."""
        ...

    def release(self, tenant_id: str) -> None:
        """Give back one slot this process holds (a no-op when it holds none)."""
        ...

    def held(self, tenant_id: str) -> int:
        """Slots this process holds for the tenant."""
        ...

    def close(self) -> None: ...


class MemorySlots:
    """Slots counted in this process: one server on one machine (the embedded default)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}

    def try_acquire(self, tenant_id: str, cap: int) -> bool:
        with self._lock:
            running = self._running.get(tenant_id, 0)
            if running >= cap:
                return False
            self._running[tenant_id] = running + 1
            return True

    def release(self, tenant_id: str) -> None:
        with self._lock:
            self._running[tenant_id] = max(0, self._running.get(tenant_id, 0) - 1)

    def held(self, tenant_id: str) -> int:
        with self._lock:
            return self._running.get(tenant_id, 0)

    def close(self) -> None:
        with self._lock:
            self._running.clear()


class ExecutionSlots:
    """Per-tenant running-execution slots as PostgreSQL advisory locks (one connection).

    `try_acquire` takes the first free slot below the cap, or answers False when all are
    held, by this process or any other. `release` frees one slot this process holds.
    """

    def __init__(self, url: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self._lock = threading.Lock()
        self._held: dict[str, list[int]] = {}
        self._conn = self._connect()

    def _connect(self) -> Any:
        with store_unavailable(f"connecting to {redact_url(self._url)} for execution slots"):
            return self._psycopg.connect(self._url, autocommit=True, connect_timeout=5,
                                         application_name="rlm-recursive")

    def _key(self, tenant_id: str, slot: int) -> int:
        return advisory_key(_SLOT_NAMESPACE + tenant_id, slot)

    def try_acquire(self, tenant_id: str, cap: int) -> bool:
        with self._lock:
            for slot in range(cap):
                # A session's advisory locks stack: never ask again for a slot we hold.
                if slot in self._held.get(tenant_id, ()):
                    continue
                if self._execute("SELECT pg_try_advisory_lock(%s)", self._key(tenant_id, slot)):
                    self._held.setdefault(tenant_id, []).append(slot)  # after a reconnect too
                    return True
            return False

    def release(self, tenant_id: str) -> None:
        with self._lock:
            held = self._held.get(tenant_id)
            if not held:
                return
            self._execute("SELECT pg_advisory_unlock(%s)", self._key(tenant_id, held.pop()))

    def held(self, tenant_id: str) -> int:
        with self._lock:
            return len(self._held.get(tenant_id, []))

    def _execute(self, sql: str, key: int) -> bool:
        with store_unavailable("taking or freeing an execution slot"):
            try:
                return bool(self._conn.execute(sql, (key,)).fetchone()[0])
            except self._psycopg.OperationalError:
                # The connection died, and every slot it held with it: start over on a new
                # one (once; a second failure means the server is down).
                self._held.clear()
                self._conn.close()
                self._conn = self._connect()
                return bool(self._conn.execute(sql, (key,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._held.clear()
            self._conn.close()


def open_slots(url: str | None) -> Slots:
    """Slots shared through PostgreSQL at `url`, or this process's own when None."""
    return MemorySlots() if url is None else ExecutionSlots(url)


async def acquire_slot(slots: Slots, tenant_id: str, cap: int, *,
                       timeout_s: float | None = None, poll_s: float = 0.25) -> bool:
    """Wait for one of the tenant's slots (polling off the loop); False after `timeout_s`."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout_s is None else loop.time() + timeout_s
    while not await asyncio.to_thread(slots.try_acquire, tenant_id, cap):
        if deadline is not None and loop.time() >= deadline:
            return False
        await asyncio.sleep(poll_s)
    return True
