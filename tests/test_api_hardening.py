"""Hardening round 3 over a real uvicorn server: no 500 from any body, nothing left behind by
a refused create, a body-size limit, TTLs and orphans swept, and the runtime-mode cap."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from api_support import auth, live_api, new_key

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.api.maintenance import maintain_once
from rlm_recursive.config import MAX_TOOL_CALLS_LIMIT, SessionConfig
from rlm_recursive.providers.fake import FakeProvider

JSON = {"Content-Type": "application/json"}
DOC = {"text": "alpha beta gamma delta. " * 20, "source_name": "a.txt"}


@pytest.fixture
def rt(data_dir):
    runtime = Runtime(data_dir)
    yield runtime
    runtime.close()


@pytest.fixture
def rt_both(database_url, data_dir, monkeypatch):
    """A runtime on each store backend (PostgreSQL keys need the shared salt)."""
    monkeypatch.setenv("RLM_API_KEY_SALT", "the deployment's shared key salt, 32+ bytes")
    runtime = Runtime(data_dir)
    yield runtime
    runtime.close()


def _session_rows(rt: Runtime) -> int:
    return rt.store.sql.one("SELECT COUNT(*) FROM sessions")[0]


def _raw(body: str) -> bytes:
    """A hand-written JSON body: httpx would refuse to encode a lone surrogate itself."""
    return body.encode("ascii")


@pytest.mark.parametrize("body", [
    {"docs": [DOC], "max_tool_calls": MAX_TOOL_CALLS_LIMIT + 1},
    {"docs": [DOC], "max_tool_calls": 10 ** 30},
    {"docs": [DOC], "max_tool_calls": 0},
    {"docs": [DOC], "ttl_minutes": 0},
    {"docs": [{**DOC, "source_name": "x" * 1001}]},
    {"docs": [{"path": "a" * 5000}]},
])
def test_out_of_bounds_fields_are_422_and_create_nothing(rt, body):
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        got = httpx.post(base + "/v1/sessions", headers=headers, json=body)
        assert got.status_code == 422, got.text
        assert got.json()["error"]["code"] == "invalid_args"
        assert _session_rows(rt) == 0


@pytest.mark.parametrize("raw", [
    '{"docs": [{"text": "a\\ud800b"}]}',
    '{"docs": [{"text": "ok", "source_name": "\\udfff"}]}',
    '{"docs": [{"text": "ok"}], "name": "x\\ud83d"}',
    '{"docs": [{"text": "ok", "\\ud800": 1}]}',
])
def test_a_lone_surrogate_is_422_and_no_session_is_left_creating(rt, raw):
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        got = httpx.post(base + "/v1/sessions", headers=JSON | headers, content=_raw(raw))
        assert got.status_code == 422, got.text
        assert got.json()["error"]["code"] == "invalid_args"
        assert "surrogate" in got.json()["error"]["message"]
        assert _session_rows(rt) == 0
        # A valid pair (an emoji written as two escapes) is text, and loads.
        ok = httpx.post(base + "/v1/sessions", headers=JSON | headers,
                        content=_raw('{"docs": [{"text": "smile \\ud83d\\ude00 here"}]}'))
        assert ok.status_code == 201 and ok.json()["status"] == "READY"


def test_a_lone_surrogate_in_an_execution_or_step_is_422(rt):
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        sid = httpx.post(base + "/v1/sessions", headers=headers,
                         json={"docs": [DOC]}).json()["session_id"]
        got = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=JSON | headers,
                         content=_raw('{"question": "why \\udc00?"}'))
        assert got.status_code == 422 and got.json()["error"]["code"] == "invalid_args"
        assert rt.store.db.execute("SELECT COUNT(*) FROM executions").fetchone()[0] == 0


@pytest.mark.parametrize("raw", [
    '{"question": "q", "budgets": {"max_usd": Infinity}}',
    '{"question": "q", "budgets": {"max_total_seconds": NaN}}',
    '{"question": "q", "budgets": {"max_llm_subcalls": 100000000000000000000000}}',
])
def test_non_finite_and_huge_numbers_are_422(rt, raw):
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        sid = httpx.post(base + "/v1/sessions", headers=headers,
                         json={"docs": [DOC]}).json()["session_id"]
        got = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=JSON | headers,
                         content=_raw(raw))
        assert got.status_code == 422, got.text


def test_a_body_over_the_limit_is_413_payload_too_large(rt):
    with live_api(rt, ApiSettings(max_body_bytes=64 * 1024)) as base:
        headers = auth(new_key(rt, "acme"))
        big = {"docs": [{"text": "x" * (64 * 1024)}]}
        got = httpx.post(base + "/v1/sessions", headers=headers, json=big)
        assert got.status_code == 413
        error = got.json()["error"]
        assert error["code"] == "payload_too_large"
        assert error["details"]["limit_bytes"] == 64 * 1024
        assert error["request_id"] == got.headers["x-request-id"]

        def chunks():  # no Content-Length: the limit is counted as the body streams in
            for _ in range(20):
                yield b"x" * 8192

        streamed = httpx.post(base + "/v1/sessions", headers={
            **headers, "Content-Type": "application/json"}, content=chunks())
        assert streamed.status_code == 413
        assert _session_rows(rt) == 0
        # Just under the limit is served.
        fits = {"docs": [{"text": "y" * (60 * 1024)}]}
        assert httpx.post(base + "/v1/sessions", headers=headers,
                          json=fits).status_code == 201


def test_the_default_body_limit_is_16_mib():
    assert ApiSettings().max_body_bytes == 16 * 1024 * 1024


def test_orphans_left_creating_are_failed_by_the_sweep(rt_both):
    rt = rt_both
    app = create_app(rt)
    state = app.state.api
    old = rt.store.create_session("lost", SessionConfig())["session_id"]
    state.tenants.claim_session(old, "acme", "CREATING")
    rt.store.sql.execute("UPDATE sessions SET created_at = '2000-01-01T00:00:00.000+00:00' "
                         "WHERE id = ?", (old,))
    fresh = rt.store.create_session("loading", SessionConfig())["session_id"]
    state.tenants.claim_session(fresh, "acme", "CREATING")
    done = asyncio.run(maintain_once(state))
    assert done["orphans"] == 1
    readiness = dict(rt.store.sql.query("SELECT id, readiness FROM sessions"))
    assert readiness == {old: "FAILED", fresh: "CREATING"}  # a load still in flight stays
    error = json.loads(rt.store.sql.one("SELECT load_error FROM sessions WHERE id = ?",
                                        (old,))[0])
    assert "stopped before the documents loaded" in error["errors"][0]["message"]


def test_a_session_past_its_ttl_is_410_then_expired_and_collected(rt_both):
    rt = rt_both
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        made = httpx.post(base + "/v1/sessions", headers=headers,
                          json={"docs": [DOC], "ttl_minutes": 60})
        view = made.json()
        assert made.status_code == 201 and view["expires_at"] > view["created_at"]
        sid = view["session_id"]
        assert httpx.get(f"{base}/v1/sessions/{sid}", headers=headers).status_code == 200
        rt.store.sql.execute("UPDATE sessions SET expires_at = '2000-01-01T00:00:00.000+00:00' "
                             "WHERE id = ?", (sid,))
        gone = httpx.get(f"{base}/v1/sessions/{sid}", headers=headers)
        assert gone.status_code == 410 and gone.json()["error"]["code"] == "session_expired"
        listed = httpx.get(base + "/v1/sessions", headers=headers).json()["sessions"]
        assert [s["status"] for s in listed] == ["EXPIRED"]
    state = create_app(rt).state.api
    done = asyncio.run(maintain_once(state))
    assert done["expired"] == [sid]
    row = rt.store.sql.one("SELECT readiness, closed_at FROM sessions WHERE id = ?", (sid,))
    assert row["readiness"] == "EXPIRED" and row["closed_at"] is not None


def test_runtime_mode_executions_take_a_slot_of_the_tenants_cap(rt):
    settings = ApiSettings(tenant_concurrent_executions=1)
    with live_api(rt, settings, ProviderPool({"ollama": FakeProvider()})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = c.post("/v1/sessions", json={"docs": [DOC]}).json()["session_id"]
        runtime_body = {"preset": "fully-local"}
        first = c.post(f"/v1/sessions/{sid}/executions/runtime", json=runtime_body)
        assert first.status_code == 201, first.text
        second = c.post(f"/v1/sessions/{sid}/executions/runtime", json=runtime_body)
        assert second.status_code == 429
        assert second.json()["error"]["details"]["limit"] == "tenant_concurrent_executions"
        answerer = c.post(f"/v1/sessions/{sid}/executions",
                          json={"question": "q", "preset": "fully-local"})
        assert answerer.status_code == 429  # one cap for both modes
        eid = first.json()["execution_id"]
        step = c.post(f"/v1/executions/{eid}/steps", json={"code": "FINAL('done')"}).json()
        assert step["final"]["is_final"] is True
        # The final answer ended it: the slot is free, and a cancel frees the next one.
        third = c.post(f"/v1/sessions/{sid}/executions/runtime", json=runtime_body)
        assert third.status_code == 201, third.text
        c.post(f"/v1/executions/{third.json()['execution_id']}/cancel")
        assert c.post(f"/v1/sessions/{sid}/executions/runtime",
                      json=runtime_body).status_code == 201


def test_eight_runtime_executions_with_a_limit_of_one_run_one_at_a_time(rt):
    settings = ApiSettings(tenant_concurrent_executions=1)
    with live_api(rt, settings, ProviderPool({"ollama": FakeProvider()})) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        sid = c.post("/v1/sessions", json={"docs": [DOC]}).json()["session_id"]
        codes = [c.post(f"/v1/sessions/{sid}/executions/runtime",
                        json={"preset": "fully-local"}).status_code for _ in range(8)]
        assert codes == [201] + [429] * 7


@pytest.mark.parametrize("route", ["runtime", "answerer"])
def test_an_unknown_provider_from_a_client_is_422_not_500(rt, route):
    """Found by the fuzz test: an uncatalogued model on provider "" failed model validation."""
    with live_api(rt) as base:
        headers = auth(new_key(rt, "acme"))
        sid = httpx.post(base + "/v1/sessions", headers=headers,
                         json={"docs": [DOC]}).json()["session_id"]
        if route == "runtime":
            got = httpx.post(f"{base}/v1/sessions/{sid}/executions/runtime", headers=headers,
                             json={"model": "0", "provider": ""})
            assert got.status_code == 422, got.text
            assert got.json()["error"]["code"] == "invalid_args"
            assert "unknown provider" in got.json()["error"]["message"]
        else:
            view = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers, json={
                "question": "q", "models": {"provider": "", "root_model": "0"},
                "options": {"synchronous": True}}).json()
            assert view["status"] == "FAILED" and view["error"]["code"] == "invalid_args"
