"""What one API server holds: the runtime, the store worker, limits, metrics, live tasks.

Limits: without `RLM_DATABASE_URL` they count in this process's memory (a moving window, and
slots counted here), checked inline. With it, every API process on the database shares them:
a fixed window in PostgreSQL (`store/counters.py`'s `AsyncCounters`: one statement per
request, on the event loop through psycopg's async pool) and advisory-lock execution slots
(blocking calls, on a small thread pool of their own: not the store thread, so they never
queue behind a slow load).
"""

from __future__ import annotations

import asyncio
import functools
import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import BaseModel, ConfigDict, Field

from ..agent.pool import ProviderPool
from ..agent.repl.service import ExecutionService
from ..agent.runtime import Runtime
from ..errors import BudgetExceeded, RateLimited, StoreUnavailable
from ..policy import PathPolicy
from ..policy.auditbatch import AuditWriter
from ..store.connector import database_url
from ..store.counters import AsyncCounters, open_slots
from ..store.executions import ExecutionStore
from ..store.hotpath import AsyncExecutionLookup, AsyncKeyLookup, HotPool
from ..store.tenancy import ApiKey, KeyStore, TenantStore, owned_execution_record
from .bodyguard import DEFAULT_MAX_BODY_BYTES
from .metrics import Metrics

__all__ = ["MAX_TTL_MINUTES", "ApiSettings", "ApiState"]

MAX_TTL_MINUTES = 366 * 24 * 60

T = TypeVar("T")


class ApiSettings(BaseModel):
    """Limits of one server (defaults suit a small team on one GPU box)."""

    model_config = ConfigDict(extra="forbid")

    key_requests_per_minute: int = Field(600, ge=1)
    tenant_requests_per_minute: int = Field(1200, ge=1)
    tenant_concurrent_executions: int = Field(4, ge=1)
    daily_sub_calls: int | None = Field(None, ge=0)
    daily_tokens: int | None = Field(None, ge=0)
    daily_usd: float | None = Field(None, ge=0)
    inline_sync_bytes: int = Field(1_000_000, ge=0)
    """Inline-only sessions up to this size load before POST /v1/sessions answers."""
    max_body_bytes: int = Field(DEFAULT_MAX_BODY_BYTES, ge=1024)
    """A larger request body is refused with 413 payload_too_large (inline documents too)."""
    session_ttl_minutes: int = Field(7 * 24 * 60, ge=1, le=MAX_TTL_MINUTES)
    """A session's time to live when the client gives no `ttl_minutes`."""
    maintenance_interval_s: float = Field(600, gt=0)
    """How often the server expires sessions, fails dead runs, sweeps orphans and runs gc."""
    orphan_after_s: float = Field(3600, gt=0)
    """A session still CREATING after this long lost its load (its server stopped)."""


STORE_THREADS_SHARED = 6
"""Store threads of an API process on PostgreSQL (the process's pool holds 16 connections)."""


class ApiState:
    """Shared by every request of one app."""

    def __init__(self, runtime: Runtime, settings: ApiSettings,
                 providers: ProviderPool | None = None) -> None:
        self.runtime = runtime
        self.settings = settings
        self.providers = providers or ProviderPool()
        self.keys = KeyStore(runtime.store.sql, runtime.store.data_dir)
        self.tenants = TenantStore(runtime.store)
        self.executions = ExecutionService(runtime, self.providers)
        # Paths from HTTP clients are always confined, whatever the profile says.
        self.paths = PathPolicy.for_clients(runtime.profile)
        # The store's work runs on these threads, never on the event loop. SQLite: one thread
        # does all of this server's SQLite, tantivy and file work (one writer). PostgreSQL:
        # every call is a network round trip on a pooled connection, and one thread would
        # queue every request behind the others' round trips (p50 237 ms at 50 clients).
        workers = 1 if runtime.store.dialect == "sqlite" else STORE_THREADS_SHARED
        self._worker = ThreadPoolExecutor(max_workers=workers,
                                          thread_name_prefix="rlm-api-store")
        self.metrics = Metrics()
        self.audit = AuditWriter(runtime.audit)
        """Each request's audit record, written after its response, in batches."""
        self._per_key = RateLimitItemPerMinute(settings.key_requests_per_minute)
        self._per_tenant = RateLimitItemPerMinute(settings.tenant_requests_per_minute)
        url = database_url()
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._hot = None if url is None else HotPool(url)
        self._shared = None if self._hot is None else AsyncCounters(url, pool=self._hot)
        """With a database: fixed-window counters every API process shares (its table is
        migrated by the store, which opened the same database)."""
        self._key_rows = None if self._hot is None else AsyncKeyLookup(self._hot)
        self._execution_rows = None if self._hot is None else AsyncExecutionLookup(self._hot)
        """With a database: key and execution look-ups grouped on the loop
        (`store/hotpath.py`)."""
        self.slots = open_slots(url)
        """This process's view of the tenants' running-execution slots (`store/counters.py`)."""
        self._slots_pool = None if url is None else ThreadPoolExecutor(
            max_workers=4, thread_name_prefix="rlm-api-slots")
        """With a database: threads for the slots' blocking calls (not the store's, so a
        slot is never waited for behind a slow load)."""
        self.runtime_slots: dict[str, tuple[str, str]] = {}
        """Runtime-mode executions holding a slot: execution id -> (tenant, session)."""
        self._touched: dict[str, float] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.loads: set[asyncio.Task[None]] = set()

    async def db(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run blocking store work on the store thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker, functools.partial(fn, *args, **kwargs))

    async def authenticate(self, presented: str | None) -> ApiKey:
        """The live key for a presented bearer token, or Unauthorized. SQLite: on the store
        thread. PostgreSQL: grouped with the other requests' look-ups, on the loop."""
        if self._key_rows is None:
            return await self.db(self.keys.authenticate, presented)
        return self.keys.live(await self._key_rows.row(self.keys.presented_hash(presented)))

    async def owned_execution(self, tenant_id: str, execution_id: str) -> dict[str, Any]:
        """The tenant's execution record, or NotFound (as `TenantStore.owned_execution`)."""
        if self._execution_rows is None:
            return await self.db(self.tenants.owned_execution, tenant_id, execution_id)
        row = await self._execution_rows.row(tenant_id, execution_id)
        return owned_execution_record(row, execution_id)

    def should_touch(self, key_id: str) -> bool:
        """last_used_at is written at most once a minute per key (not a write per request)."""
        now = time.monotonic()
        if now - self._touched.get(key_id, -math.inf) < 60:
            return False
        self._touched[key_id] = now
        return True

    # limits
    async def _limits(self, fn: Callable[..., T], /, *args: Any) -> T:
        """In memory: inline (microseconds). Shared: a database call, on the slot threads."""
        if self._slots_pool is None:
            return fn(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._slots_pool, functools.partial(fn, *args))

    async def hit(self, key_id: str, tenant_id: str) -> None:
        """Count one request against the key's and the tenant's per-minute limits."""
        checks = ((self._per_key, "key", key_id), (self._per_tenant, "tenant", tenant_id))
        if self._shared is None:
            self._hit_in_memory(checks)
            return
        # Both counters in one statement (one round trip, on the loop). As in memory, a
        # request the key's limit refuses is not counted against its tenant: a runaway key
        # must not lock out the tenant's other keys.
        counts = [(item.key_for(scope, ident), item.get_expiry(), 1)
                  for item, scope, ident in checks]
        counted = await self._shared.incr_all(counts)
        for (item, scope, _), (hits, ends) in zip(checks, counted, strict=True):
            if hits > item.amount:
                if scope == "key":
                    await self._shared.give_back(counts[1][0], 1, counted[1][1])
                _refuse(item.amount, scope, ends)

    def _hit_in_memory(self, checks: Any) -> None:
        for item, scope, ident in checks:
            if not self._limiter.hit(item, scope, ident):
                _refuse(item.amount, scope,
                        self._limiter.get_window_stats(item, scope, ident).reset_time)

    async def acquire_execution(self, tenant_id: str) -> None:
        """Take one of the tenant's running-execution slots (across processes when shared)."""
        cap = self.settings.tenant_concurrent_executions
        if not await self._limits(self.slots.try_acquire, tenant_id, cap):
            raise RateLimited(f"the tenant already runs {cap} executions at once",
                              retry_after_s=1, limit="tenant_concurrent_executions")

    async def release_execution(self, tenant_id: str) -> None:
        if self._slots_pool is None:
            self.slots.release(tenant_id)
            return
        try:  # shielded: a run cancelled again while it ends still gives its slot back
            await asyncio.shield(self._limits(self.slots.release, tenant_id))
        except StoreUnavailable as exc:
            # The slots' connection is gone, and its advisory locks with it: none is held.
            print(f"rlm-recursive: releasing an execution slot: {exc.message}",
                  file=sys.stderr)

    async def release_ended_runtime(self) -> list[str]:
        """Free the slots of runtime-mode executions that ended in another process (a step
        or cancel that reached another API server); maintenance calls this."""
        store = ExecutionStore(self.runtime.store.sql)
        ended = []
        for execution_id in list(self.runtime_slots):
            if await self.db(store.status, execution_id) not in ("RUNNING", "QUEUED"):
                await self.release_runtime(execution_id)
                ended.append(execution_id)
        return ended

    async def release_runtime(self, execution_id: str) -> None:
        """A runtime-mode execution ended (final answer, error, cancel, deleted session)."""
        held = self.runtime_slots.pop(execution_id, None)
        if held is not None:
            await self.release_execution(held[0])

    async def release_runtime_session(self, session_id: str) -> None:
        for execution_id, (_, session) in list(self.runtime_slots.items()):
            if session == session_id:
                await self.release_runtime(execution_id)

    def check_budget(self, usage: dict[str, float]) -> dict[str, float | None]:
        """Raise when a daily cap is spent; else what is left of each (None: no cap)."""
        s = self.settings
        caps = {"sub_calls": s.daily_sub_calls, "tokens": s.daily_tokens, "usd": s.daily_usd}
        left: dict[str, float | None] = {}
        for name, cap in caps.items():
            if cap is None:
                left[name] = None
                continue
            left[name] = cap - usage[name]
            if left[name] <= 0:
                raise BudgetExceeded(f"the tenant's daily {name} budget ({cap}) is spent",
                                     limit=f"daily_{name}", retry_after_s=_to_midnight())
        return left

    async def aclose(self) -> None:
        for task in [*self.tasks.values(), *self.loads]:
            task.cancel()
        await asyncio.gather(*self.tasks.values(), *self.loads, return_exceptions=True)
        await self.executions.aclose()  # closes the pool it was given too
        await asyncio.to_thread(self.audit.close)
        self._worker.shutdown(wait=True)
        if self._slots_pool is not None:
            self._slots_pool.shutdown(wait=True)
        self.slots.close()  # shared slots: their advisory locks go with the connection
        if self._shared is not None:
            await self._shared.aclose()
        for lookup in (self._key_rows, self._execution_rows):
            if lookup is not None:
                await lookup.aclose()
        if self._hot is not None:
            await self._hot.aclose()


def _refuse(amount: int, scope: str, window_ends: float) -> None:
    retry = max(1, math.ceil(window_ends - time.time()))
    raise RateLimited(f"over the {scope}'s limit of {amount} requests a minute",
                      retry_after_s=retry, limit=f"{scope}_requests_per_minute")


def _to_midnight() -> int:
    now = datetime.now(UTC)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return math.ceil((midnight - now).total_seconds())
