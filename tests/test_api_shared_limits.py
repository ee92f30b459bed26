"""Rate limits and execution caps of the HTTP API on both backends, and across real `api`
processes sharing one PostgreSQL (`store/counters.py` wired in `api/state.py`)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from api_support import api_process, auth, live_api, new_key

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.api.maintenance import maintain_once
from rlm_recursive.api.server import background_server
from rlm_recursive.errors import StoreUnavailable
from rlm_recursive.providers.fake import FakeProvider
from rlm_recursive.store.counters import ExecutionSlots

ROOT = Path(__file__).resolve().parents[1]
DOC = {"text": "The quarterly report is due on Friday. Alice owns the budget."}
RUNTIME = {"preset": "fully-local"}
SALT_ENV, SALT = "RLM_API_KEY_SALT", "the deployment's shared key salt, 32+ bytes"
"""API keys on a shared database need a salt every process shares (store/tenancy.py)."""


@pytest.fixture
def rt(data_dir: Path, database_url: str | None, monkeypatch: pytest.MonkeyPatch
       ) -> Iterator[Runtime]:
    monkeypatch.setenv(SALT_ENV, SALT)
    runtime = Runtime(data_dir, "local")
    try:
        yield runtime
    finally:
        runtime.close()


def _limit(response: httpx.Response) -> str:
    assert response.status_code == 429, response.text
    return response.json()["error"]["details"]["limit"]


def test_rate_limits_and_the_execution_cap_hold_on_either_backend(rt: Runtime) -> None:
    settings = ApiSettings(key_requests_per_minute=6, tenant_requests_per_minute=9,
                           tenant_concurrent_executions=1)
    with live_api(rt, settings, ProviderPool({"ollama": FakeProvider()})) as base, \
            httpx.Client(base_url=base, timeout=30) as client:
        first, second = auth(new_key(rt, "acme")), auth(new_key(rt, "acme"))
        sid = client.post("/v1/sessions", headers=first, json={"docs": [DOC]}).json()[
            "session_id"]
        made = client.post(f"/v1/sessions/{sid}/executions/runtime", headers=first,
                           json=RUNTIME)
        assert made.status_code == 201, made.text
        assert _limit(client.post(f"/v1/sessions/{sid}/executions/runtime", headers=first,
                                  json=RUNTIME)) == "tenant_concurrent_executions"
        eid = made.json()["execution_id"]
        done = client.post(f"/v1/executions/{eid}/steps", headers=first,
                           json={"code": "FINAL('done')"})
        assert done.json()["final"]["is_final"] is True  # the final answer frees the slot
        for _ in range(2):  # the key's 5th and 6th request
            assert client.get("/v1/sessions", headers=first).status_code == 200
        assert _limit(client.get("/v1/sessions", headers=first)) == "key_requests_per_minute"
        for _ in range(3):  # the tenant's 7th to 9th request
            assert client.get("/v1/sessions", headers=second).status_code == 200
        assert _limit(client.get("/v1/sessions", headers=second)) == (
            "tenant_requests_per_minute")
        over = client.get("/v1/sessions", headers=second)
        assert over.headers["retry-after"] and int(over.headers["retry-after"]) <= 60
        assert client.get("/v1/sessions", headers=auth(new_key(rt, "other"))).status_code == 200


def test_a_runtime_execution_ended_on_another_server_frees_its_slot_at_maintenance(
    rt: Runtime,
) -> None:
    settings = ApiSettings(tenant_concurrent_executions=1)
    pool = ProviderPool({"ollama": FakeProvider()})
    app_a = create_app(rt, settings, pool)
    with background_server(app_a) as base_a, live_api(rt, settings, pool) as base_b:
        headers = auth(new_key(rt, "acme"))
        sid = httpx.post(base_a + "/v1/sessions", headers=headers,
                         json={"docs": [DOC]}).json()["session_id"]
        eid = httpx.post(f"{base_a}/v1/sessions/{sid}/executions/runtime", headers=headers,
                         json=RUNTIME).json()["execution_id"]
        # Its final step reaches server B, which does not hold its slot: A still does.
        step = httpx.post(f"{base_b}/v1/executions/{eid}/steps", headers=headers,
                          json={"code": "FINAL('done')"}, timeout=30)
        assert step.json()["final"]["is_final"] is True
        assert _limit(httpx.post(f"{base_a}/v1/sessions/{sid}/executions/runtime",
                                 headers=headers, json=RUNTIME)) == (
            "tenant_concurrent_executions")
        assert asyncio.run(maintain_once(app_a.state.api))["released_slots"] == [eid]
        again = httpx.post(f"{base_a}/v1/sessions/{sid}/executions/runtime", headers=headers,
                           json=RUNTIME)
        assert again.status_code == 201, again.text


def _cli(env: dict[str, str], data_dir: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                           *args], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _wait_for_no_advisory_locks(url: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    with psycopg.connect(url, autocommit=True) as conn:
        while conn.execute("SELECT count(*) FROM pg_locks l JOIN pg_database d ON "
                           "d.oid = l.database WHERE l.locktype = 'advisory' AND "
                           "d.datname = current_database()").fetchone()[0]:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_two_api_processes_on_one_postgresql_share_rate_limits_and_execution_caps(
    tmp_path: Path, data_dir: Path, postgres_url: str,
) -> None:
    env = {**os.environ, SALT_ENV: SALT, "PYTHONPATH": str(ROOT), "RLM_DATABASE_URL": postgres_url}
    # One data dir for both: sessions and keys are not on PostgreSQL yet (docs/scale-out.md).
    limits = ("--requests-per-minute", "20", "--concurrent-executions", "2")
    with api_process(env, data_dir, tmp_path, *limits) as (a, _), \
            api_process(env, data_dir, tmp_path, *limits) as (b, server_b):
        keys = [auth(_cli(env, data_dir, "keys", "create", "--tenant", "acme"))
                for _ in range(3)]
        # Per key 20 a minute, whichever process answers: 10 requests each, then refused.
        codes = [httpx.get((a, b)[i % 2] + "/v1/sessions", headers=keys[0]).status_code
                 for i in range(21)]
        assert codes == [200] * 20 + [429]
        assert _limit(httpx.get(a + "/v1/sessions", headers=keys[0])) == (
            "key_requests_per_minute")
        # Per tenant 40: the second key brings the tenant to 40, and the third is refused.
        assert all(httpx.get((b, a)[i % 2] + "/v1/sessions", headers=keys[1]).status_code
                   == 200 for i in range(20))
        assert _limit(httpx.get(b + "/v1/sessions", headers=keys[2])) == (
            "tenant_requests_per_minute")

        # The cap of 2 running executions holds across both processes.
        team = auth(_cli(env, data_dir, "keys", "create", "--tenant", "team"))
        sid = httpx.post(a + "/v1/sessions", headers=team, json={"docs": [DOC]}).json()[
            "session_id"]

        def start(base: str) -> httpx.Response:
            return httpx.post(f"{base}/v1/sessions/{sid}/executions/runtime", headers=team,
                              json=RUNTIME, timeout=30)

        on_a, on_b = start(a), start(b)
        assert on_a.status_code == on_b.status_code == 201
        assert _limit(start(a)) == _limit(start(b)) == "tenant_concurrent_executions"
        eid = on_a.json()["execution_id"]
        final = httpx.post(f"{a}/v1/executions/{eid}/steps", headers=team,
                           json={"code": "FINAL('done')"}, timeout=30).json()
        assert final["final"]["is_final"] is True  # A's slot is free: B may take it
        assert start(b).status_code == 201
        assert _limit(start(a)) == "tenant_concurrent_executions"
        # B dies without a word: its two slots die with its connection, and A takes both.
        server_b.send_signal(signal.SIGKILL)
        server_b.wait(timeout=10)
        _wait_for_no_advisory_locks(postgres_url)  # its backends end when they see it gone
        assert start(a).status_code == 201 and start(a).status_code == 201
        assert _limit(start(a)) == "tenant_concurrent_executions"


@contextmanager
def _outage(server: str, url: str) -> Iterator[None]:
    """The database refuses connections and drops the ones it has, then comes back."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE "
                      "datname = %s", (name,))
        try:
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def test_a_database_outage_is_503_store_unavailable_and_then_recovers(
    data_dir: Path, postgres_server: str, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.setenv(SALT_ENV, SALT)
    runtime = Runtime(data_dir, "local")
    try:
        with live_api(runtime, ApiSettings(), ProviderPool({"ollama": FakeProvider()})) as base:
            headers = auth(new_key(runtime, "acme"))
            assert httpx.get(base + "/v1/sessions", headers=headers).status_code == 200
            with _outage(postgres_server, postgres_url):
                down = httpx.get(base + "/v1/sessions", headers=headers, timeout=60)
                assert down.status_code == 503, down.text
                assert down.json()["error"]["code"] == "store_unavailable"
                assert down.headers["retry-after"] == "2"
            deadline = time.monotonic() + 30
            while (back := httpx.get(base + "/v1/sessions", headers=headers,
                                     timeout=60)).status_code == 503:
                assert time.monotonic() < deadline
                time.sleep(0.5)
            assert back.status_code == 200
    finally:
        runtime.close()


def test_execution_slots_in_an_outage_raise_store_unavailable_then_start_over(
    postgres_server: str, postgres_url: str,
) -> None:
    slots = ExecutionSlots(postgres_url)
    try:
        assert slots.try_acquire("acme", 1)
        with _outage(postgres_server, postgres_url), pytest.raises(StoreUnavailable) as caught:
            slots.try_acquire("acme", 2)  # slot 1 is asked of the server
        assert caught.value.details["retry_after_s"] == 2
        # The held slot died with the connection: the next call reconnects and takes it.
        assert slots.try_acquire("acme", 1) and slots.held("acme") == 1
        assert not slots.try_acquire("acme", 1)
    finally:
        slots.close()
