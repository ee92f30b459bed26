"""The API's grouped per-request work on PostgreSQL (store/hotpath.py): key look-ups that
share statements yet never miss a revocation, over a real server and a real uvicorn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import psycopg
import pytest
from api_support import auth, live_api

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.errors import StoreUnavailable, Unauthorized
from rlm_recursive.store import Store
from rlm_recursive.store.hotpath import AsyncKeyLookup, GroupedCalls, HotPool
from rlm_recursive.store.tenancy import KeyStore

SALT_ENV, SALT = "RLM_API_KEY_SALT", "the deployment's shared key salt, 32+ bytes"


def test_calls_that_arrive_during_a_fetch_wait_for_the_next_one() -> None:
    """A call never joins a statement already sent (it could predate a revocation)."""
    batches: list[list[str]] = []

    async def scenario() -> list[str | None]:
        first_sent, release = asyncio.Event(), asyncio.Event()

        async def fetch(keys: list[str]) -> dict[str, str]:
            batches.append(keys)
            first_sent.set()
            await release.wait()
            return {k: k.upper() for k in keys if k != "unknown"}

        calls = GroupedCalls(fetch)
        early = [asyncio.create_task(calls.get(k)) for k in ("a", "b", "a")]
        await first_sent.wait()
        late = [asyncio.create_task(calls.get(k)) for k in ("c", "unknown", "a")]
        await asyncio.sleep(0)
        release.set()
        return await asyncio.gather(*early, *late)

    assert asyncio.run(scenario()) == ["A", "B", "A", "C", None, "A"]
    assert batches == [["a", "b"], ["c", "unknown", "a"]]  # 6 calls, 2 statements


def test_a_failed_fetch_fails_its_callers_and_the_next_batch_still_runs() -> None:
    attempts: list[list[str]] = []

    async def scenario() -> list[object]:
        async def fetch(keys: list[str]) -> dict[str, str]:
            attempts.append(keys)
            await asyncio.sleep(0.01)
            if len(attempts) == 1:
                raise StoreUnavailable("the server went away")
            return {k: "ok" for k in keys}

        calls = GroupedCalls(fetch)
        first = [asyncio.create_task(calls.get(k)) for k in ("a", "b")]
        await asyncio.sleep(0)
        second = asyncio.create_task(calls.get("c"))
        return await asyncio.gather(*first, second, return_exceptions=True)

    a, b, c = asyncio.run(scenario())
    assert isinstance(a, StoreUnavailable) and isinstance(b, StoreUnavailable)
    assert c == "ok" and attempts == [["a", "b"], ["c"]]


def test_grouped_look_ups_find_live_keys_and_see_a_revocation_at_once(
        data_dir: Path, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SALT_ENV, SALT)
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    store = Store(tmp_path / "data")
    keys = KeyStore(store.sql, store.data_dir)
    (k1, r1), (k2, r2) = keys.create("acme", "a"), keys.create("zenith", "b", ("read",))
    presented = [k1, k2, k1, "rlm_key_not-a-key-anyone-has"] * 10

    async def look_up(lookup: AsyncKeyLookup) -> list[object]:
        rows = await asyncio.gather(*(lookup.row(keys.presented_hash(p)) for p in presented))
        out: list[object] = []
        for row in rows:
            try:
                out.append(KeyStore.live(row).id)
            except Unauthorized:
                out.append("401")
        return out

    async def scenario() -> tuple[list[object], list[object]]:
        pool = HotPool(postgres_url)
        lookup = AsyncKeyLookup(pool)
        try:
            before = await look_up(lookup)
            keys.revoke(r1.id)  # committed: the very next look-up must see it
            return before, await look_up(lookup)
        finally:
            await lookup.aclose()
            await pool.aclose()

    try:
        before, after = asyncio.run(scenario())
    finally:
        store.close()
    assert before == [r1.id, r2.id, r1.id, "401"] * 10
    assert after == ["401", r2.id, "401", "401"] * 10


def test_the_api_on_postgresql_authenticates_through_grouped_look_ups(
        data_dir: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SALT_ENV, SALT)
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    runtime = Runtime(data_dir)
    try:
        keys = KeyStore(runtime.store.sql, data_dir)
        key, record = keys.create("acme", "ci", ("read",))
        with live_api(runtime) as base:
            async def burst() -> list[int]:
                async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                    replies = await asyncio.gather(*(
                        client.get("/v1/sessions", headers=auth(key if i % 3 else "rlm_key_x"))
                        for i in range(60)))
                return [r.status_code for r in replies]

            assert asyncio.run(burst()) == [401 if i % 3 == 0 else 200 for i in range(60)]
            keys.revoke(record.id)
            got = httpx.get(base + "/v1/sessions", headers=auth(key))
            assert got.status_code == 401 and got.json()["error"]["code"] == "unauthorized"
    finally:
        runtime.close()


def test_a_status_poll_on_postgresql_reads_what_the_thread_path_reads(
        data_dir: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """GET /v1/executions/{id} through the grouped look-up: the same record, times as the
    same ISO text, and another tenant's execution is 404 as one that does not exist."""
    monkeypatch.setenv(SALT_ENV, SALT)
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    runtime = Runtime(data_dir)
    try:
        keys = KeyStore(runtime.store.sql, data_dir)
        mine, other = keys.create("acme")[0], keys.create("zenith")[0]
        with live_api(runtime) as base:
            session = httpx.post(base + "/v1/sessions", headers=auth(mine), timeout=30,
                                 json={"docs": [{"text": "The gate code is 4471."}]}).json()
            created = httpx.post(base + f"/v1/sessions/{session['session_id']}/executions/runtime",
                                 headers=auth(mine), timeout=30,
                                 json={"preset": "fully-local"}).json()
            execution_id = created["execution_id"]

            async def polls(key: str) -> list[httpx.Response]:
                async with httpx.AsyncClient(base_url=base, headers=auth(key),
                                             timeout=30) as client:
                    return await asyncio.gather(*(
                        client.get(f"/v1/executions/{execution_id}") for _ in range(20)))

            seen = asyncio.run(polls(mine))
            foreign = asyncio.run(polls(other))
        record = runtime.store.sql.one("SELECT created_at, status FROM executions WHERE id = ?",
                                       (execution_id,))
    finally:
        runtime.close()
    assert {r.status_code for r in seen} == {200}
    bodies = [r.json() for r in seen]
    assert all(b == bodies[0] for b in bodies)
    assert bodies[0]["execution_id"] == execution_id
    assert bodies[0]["created_at"] == record["created_at"]  # ISO text, as on the store thread
    assert bodies[0]["status"] == record["status"]
    assert {r.status_code for r in foreign} == {404}
    assert {r.json()["error"]["code"] for r in foreign} == {"not_found"}


def test_a_connection_the_server_ended_is_replaced_before_a_request_uses_it(
        data_dir: Path, postgres_server: str, postgres_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An admin's pg_terminate_backend (or a failover) ends the hot pool's idle connections:
    the next request still authenticates, on a new one, instead of failing with 503."""
    monkeypatch.setenv(SALT_ENV, SALT)
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    runtime = Runtime(data_dir)
    try:
        key = KeyStore(runtime.store.sql, data_dir).create("acme")[0]
        with live_api(runtime) as base:
            assert httpx.get(base + "/v1/sessions", headers=auth(key)).status_code == 200
            name = postgres_url.rsplit("/", 1)[1]
            with psycopg.connect(postgres_server, autocommit=True) as admin:
                ended = admin.execute(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 10000) FROM "
                    "pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()) t",
                    (name,)).fetchone()
            assert ended is not None and ended[0] >= 1
            replies = [httpx.get(base + "/v1/sessions", headers=auth(key)) for _ in range(3)]
    finally:
        runtime.close()
    assert [r.status_code for r in replies] == [200, 200, 200], replies[0].text
