"""Shared limits (store/counters.py) on a real PostgreSQL: request counters and execution
slots. Each "process" is its own connector or connection."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from limits import RateLimitItemPerMinute
from limits.strategies import FixedWindowRateLimiter

from rlm_recursive.errors import StoreUnavailable
from rlm_recursive.store.connector import open_connector
from rlm_recursive.store.counters import (
    AsyncCounters,
    ExecutionSlots,
    SqlCounterStorage,
    acquire_slot,
    open_slots,
)


class Clock:
    """Time the test moves on, so a window's end is checked without sleeping a minute."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_two_processes_share_one_fixed_window(tmp_path: Path, postgres_url: str) -> None:
    clock = Clock()
    connectors = [open_connector(tmp_path / "rlm.db", postgres_url) for _ in range(2)]
    limiters = [FixedWindowRateLimiter(SqlCounterStorage(c, clock)) for c in connectors]
    five = RateLimitItemPerMinute(5)
    assert [limiters[i % 2].hit(five, "tenant", "team-a") for i in range(6)] == [True] * 5 + [
        False]
    assert not limiters[0].hit(five, "tenant", "team-a")
    assert limiters[1].hit(five, "tenant", "team-b")  # another tenant has its own window
    stats = limiters[1].get_window_stats(five, "tenant", "team-a")
    assert stats.remaining == 0 and stats.reset_time == pytest.approx(clock.now + 60)
    clock.now += 61  # the window ended: it starts over at the next hit, in both processes
    assert limiters[1].hit(five, "tenant", "team-a")
    assert limiters[0].get_window_stats(five, "tenant", "team-a").remaining == 4
    for connector in connectors:
        connector.close()


def test_concurrent_hits_from_two_processes_are_all_counted(
    tmp_path: Path, postgres_url: str,
) -> None:
    connectors = [open_connector(tmp_path / "rlm.db", postgres_url) for _ in range(2)]
    storages = [SqlCounterStorage(c) for c in connectors]
    start = threading.Barrier(4)

    def hammer(storage: SqlCounterStorage) -> None:
        start.wait()
        for _ in range(50):
            storage.incr("shared", 60)

    threads = [threading.Thread(target=hammer, args=(storages[i % 2],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert storages[0].get("shared") == storages[1].get("shared") == 200
    storages[1].clear("shared")
    assert storages[0].get("shared") == 0 and storages[0].check()
    for connector in connectors:
        connector.close()


def test_execution_slots_cap_a_tenant_across_processes_and_die_with_their_holder(
    postgres_url: str,
) -> None:
    first, second = ExecutionSlots(postgres_url), ExecutionSlots(postgres_url)
    assert first.try_acquire("team-a", 2) and first.try_acquire("team-a", 2)
    assert not first.try_acquire("team-a", 2) and not second.try_acquire("team-a", 2)
    assert second.try_acquire("team-b", 2)  # caps are per tenant
    first.release("team-a")
    assert second.try_acquire("team-a", 2) and not first.try_acquire("team-a", 2)
    # The first process dies (its connection ends): its remaining slot is free at once.
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE "
            "application_name = 'rlm-recursive' AND pid <> pg_backend_pid() AND "
            "datname = current_database() AND pid = ANY(%s)",
            ([first._conn.info.backend_pid],)).fetchall()
    assert len(ended) == 1  # the holder's backend was found (and told to end)
    # The backend frees its locks as it exits; on a loaded box that can trail the call's
    # return, so the slot is polled for rather than expected at the same instant.
    deadline = time.monotonic() + 20
    while not second.try_acquire("team-a", 2):
        assert time.monotonic() < deadline, "the dead holder's slot was never freed"
        time.sleep(0.05)
    assert second.held("team-a") == 2
    assert not first.try_acquire("team-a", 2)  # it reconnects, and the cap still holds
    assert first.held("team-a") == 0
    first.close()
    second.close()


def test_several_counters_are_counted_in_one_statement_in_the_order_given(
    tmp_path: Path, postgres_url: str,
) -> None:
    clock = Clock()
    connector = open_connector(tmp_path / "rlm.db", postgres_url)
    storage = SqlCounterStorage(connector, clock)
    assert storage.incr_all([("key", 60, 1), ("tenant", 60, 1)]) == [
        (1, clock.now + 60), (1, clock.now + 60)]
    clock.now += 30
    storage.incr("tenant", 60, 5)
    assert storage.incr_all([("tenant", 60, 1), ("key", 60, 1)]) == [
        (7, clock.now + 30), (2, clock.now + 30)]
    ended = clock.now + 30
    clock.now += 31  # both windows ended: each starts over
    assert storage.incr_all([("key", 60, 1), ("tenant", 60, 1)]) == [
        (1, clock.now + 60), (1, clock.now + 60)]
    storage.incr("tenant", 60, 2)
    storage.give_back("tenant", 1, ended)  # a hit of the last window: not taken from this one
    assert storage.get("tenant") == 3
    storage.give_back("tenant", 1, clock.now + 60)
    assert storage.get("tenant") == 2
    connector.close()


@pytest.mark.parametrize("shared", [False, True], ids=["memory", "postgresql"])
def test_acquire_slot_waits_for_a_slot_freed_elsewhere_and_gives_up_at_its_timeout(
    shared: bool, request: pytest.FixtureRequest,
) -> None:
    url = request.getfixturevalue("postgres_url") if shared else None
    holder = open_slots(url)
    waiter = open_slots(url) if shared else holder  # another process, or this one
    assert holder.try_acquire("team-a", 1)

    async def wait() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        timed_out = await acquire_slot(waiter, "team-a", 1, timeout_s=0.3, poll_s=0.05)
        assert loop.time() - began >= 0.3
        loop.call_later(0.2, holder.release, "team-a")
        got = await acquire_slot(waiter, "team-a", 1, timeout_s=10, poll_s=0.05)
        return timed_out, got

    assert asyncio.run(wait()) == (False, True)
    assert waiter.held("team-a") == 1 and not holder.try_acquire("team-a", 1)
    for slots in {id(holder): holder, id(waiter): waiter}.values():
        slots.close()


def test_concurrent_hits_are_grouped_yet_each_gets_its_exact_count(postgres_url: str) -> None:
    """Two processes' AsyncCounters, 60 concurrent callers each: every caller gets its own
    ordinal (no two the same, none lost), though they share a few statements."""

    async def hammer() -> list[list[tuple[int, float]]]:
        counters = [AsyncCounters(postgres_url) for _ in range(2)]
        calls = [counters[i % 2].incr_all([("key", 60, 1), ("tenant", 60, 2)])
                 for i in range(120)]
        try:
            return await asyncio.gather(*calls)
        finally:
            for c in counters:
                await c.aclose()

    open_connector(Path("unused.db"), postgres_url).close()  # migrates, as the store does
    results = asyncio.run(hammer())
    assert sorted(r[0][0] for r in results) == list(range(1, 121))
    assert sorted(r[1][0] for r in results) == list(range(2, 241, 2))
    assert len({r[0][1] for r in results}) == 1  # one window
    with psycopg.connect(postgres_url) as conn:  # counting waits for no WAL flush
        assert conn.execute("SELECT relpersistence FROM pg_class WHERE relname = "
                            "'rate_counters'").fetchone() == ("u",)


def test_grouped_hits_on_an_unreachable_database_all_fail_as_store_unavailable(
    postgres_url: str,
) -> None:
    missing = postgres_url.rsplit("/", 1)[0] + "/no_such_database"

    async def hits() -> list[Any]:
        counters = AsyncCounters(missing, timeout_s=2)
        try:
            return await asyncio.gather(*(counters.incr_all([("key", 60, 1)])
                                          for _ in range(5)), return_exceptions=True)
        finally:
            await counters.aclose()

    failures = asyncio.run(hits())
    assert [type(f) for f in failures] == [StoreUnavailable] * 5
