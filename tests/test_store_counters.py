"""Shared limits (store/counters.py) on a real PostgreSQL: request counters and execution
slots. Each "process" is its own connector or connection."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest
from limits import RateLimitItemPerMinute
from limits.strategies import FixedWindowRateLimiter

from rlm_recursive.store.connector import open_connector
from rlm_recursive.store.counters import ExecutionSlots, SqlCounterStorage


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
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                      "application_name = 'rlm-recursive' AND pid <> pg_backend_pid() AND "
                      "datname = current_database() AND pid = ANY(%s)",
                      ([first._conn.info.backend_pid],))
    assert second.try_acquire("team-a", 2) and second.held("team-a") == 2
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
