"""Keys and tenants over a real uvicorn server: 401 for a missing, malformed or revoked key;
another tenant's ids answer 404 on every route that takes an id (never 403)."""

from __future__ import annotations

import re

import httpx
import pytest
from api_support import auth, live_api, new_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.providers.fake import FakeProvider, reply
from rlm_recursive.store.tenancy import KeyStore

DOC = "alpha beta gamma delta. " * 20

# A valid body (or query) for each templated route, so only the id decides the answer. A new
# route with an id must be added here: the property test fails until it is.
CALLS = {
    ("GET", "/v1/sessions/{session_id}"): {},
    ("DELETE", "/v1/sessions/{session_id}"): {},
    ("GET", "/v1/sessions/{session_id}/spans"): {"params": {"doc_index": 0, "end": 5}},
    ("POST", "/v1/sessions/{session_id}/executions"): {"json": {"question": "q",
                                                                "preset": "fully-local"}},
    ("POST", "/v1/sessions/{session_id}/executions/runtime"): {"json": {}},
    ("GET", "/v1/executions/{execution_id}"): {},
    ("GET", "/v1/executions/{execution_id}/steps"): {},
    ("POST", "/v1/executions/{execution_id}/steps"): {"json": {"code": "print(1)"}},
    ("POST", "/v1/executions/{execution_id}/wait"): {"json": {"timeout_seconds": 0}},
    ("POST", "/v1/executions/{execution_id}/cancel"): {},
    ("POST", "/v1/executions/{execution_id}/tools/resolve"): {"json": {"tool_requests": {
        "search": [{"key": "k", "query": "alpha"}]}}},
    ("GET", "/v1/executions/{execution_id}/events"): {},
    ("GET", "/v1/models/{model_id}"): {},  # the model of a session: rlm/<session_id>
}


@pytest.fixture
def server(data_dir):
    runtime = Runtime(data_dir)
    fake = FakeProvider(script=lambda request: reply("gamma"))
    with live_api(runtime, providers=ProviderPool({"ollama": fake})) as base:
        yield runtime, base
    runtime.close()


def _owned_ids(client: httpx.Client) -> dict[str, str]:
    """A READY session, a finished answerer execution and a runtime execution of `client`."""
    made = client.post("/v1/sessions", json={"docs": [{"text": DOC, "source_name": "a"}]})
    assert made.status_code == 201, made.text
    sid = made.json()["session_id"]
    started = client.post(f"/v1/sessions/{sid}/executions", json={
        "question": "which letter?", "preset": "fully-local",
        "options": {"strategy": "search", "synchronous": True}})
    assert started.status_code == 200 and started.json()["status"] == "COMPLETED", started.text
    runtime_mode = client.post(f"/v1/sessions/{sid}/executions/runtime",
                               json={"preset": "fully-local"})
    assert runtime_mode.status_code == 201, runtime_mode.text
    return {"session_id": sid, "answerer": started.json()["execution_id"],
            "runtime": runtime_mode.json()["execution_id"]}


def _templated_routes(client: httpx.Client) -> set[tuple[str, str]]:
    spec = client.get("/v1/openapi.json").json()
    return {(method.upper(), path) for path, item in spec["paths"].items() if "{" in path
            for method in item}


def _call(client: httpx.Client, method: str, path: str, ids: dict[str, str],
          execution: str) -> httpx.Response:
    url = path.replace("{session_id}", ids["session_id"]).replace("{execution_id}",
                                                                   ids[execution])
    url = url.replace("{model_id}", f"rlm/{ids['session_id']}")
    return client.request(method, url, **CALLS[(method, path)])


def test_every_route_with_an_id_answers_404_for_another_tenant(server):
    runtime, base = server
    with httpx.Client(base_url=base, headers=auth(new_key(runtime, "acme")), timeout=30) as a, \
            httpx.Client(base_url=base, headers=auth(new_key(runtime, "globex")),
                         timeout=30) as b:
        ids = _owned_ids(a)
        routes = _templated_routes(a)
        assert routes == set(CALLS), "a route with an id has no entry in CALLS"
        for method, path in sorted(routes):
            executions = ["answerer", "runtime"] if "{execution_id}" in path else ["answerer"]
            for execution in executions:
                got = _call(b, method, path, ids, execution)
                assert got.status_code == 404, (method, path, got.text)
                error = got.json()["error"]
                assert error["code"] == "not_found" and error["request_id"]
                assert got.headers["x-request-id"] == error["request_id"]
        # The citation of one tenant cannot be checked (or read) by another.
        ref = a.get(f"/v1/sessions/{ids['session_id']}/spans",
                    params={"doc_index": 0, "end": 5}).json()["ref"]
        assert b.post("/v1/citations/verify", json={"ref": ref}).status_code == 404
        assert a.post("/v1/citations/verify", json={"ref": ref}).json()["valid"] is True
        # Nothing of tenant A is listed for B; A still sees everything B was refused.
        assert b.get("/v1/sessions").json()["sessions"] == []
        assert a.get(f"/v1/sessions/{ids['session_id']}").status_code == 200
        assert a.get(f"/v1/executions/{ids['answerer']}").json()["status"] == "COMPLETED"


def test_unknown_ids_and_foreign_ids_are_indistinguishable(server):
    runtime, base = server
    with httpx.Client(base_url=base, headers=auth(new_key(runtime, "acme")), timeout=30) as a, \
            httpx.Client(base_url=base, headers=auth(new_key(runtime, "globex")),
                         timeout=30) as b:
        ids = _owned_ids(a)

        @settings(max_examples=25, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(st.sampled_from(sorted(CALLS)),
               st.from_regex(r"(ses|exec)_[0-9a-f]{12}", fullmatch=True))
        def check(route: tuple[str, str], random_id: str) -> None:
            method, path = route
            foreign = _call(b, method, path, ids, "answerer")
            unknown = _call(b, method, path, {"session_id": random_id,
                                              "answerer": random_id}, "answerer")
            assert foreign.status_code == unknown.status_code == 404
            shape = [re.sub(r"'[^']*'", "ID", r.json()["error"]["message"])
                     for r in (foreign, unknown)]
            assert shape[0] == shape[1]

        check()


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer not-a-key", "Basic abc",
                                    "Bearer rlm_key_" + "x" * 43, "rlm_key_abc"])
def test_missing_or_malformed_keys_answer_401(server, header):
    _, base = server
    headers = {"Authorization": header} if header else {}
    for method, path in [("GET", "/v1/sessions"), ("POST", "/v1/sessions"),
                         ("GET", "/v1/executions/exec_000000000000")]:
        got = httpx.request(method, base + path, headers=headers, json={}, timeout=10)
        assert got.status_code == 401, (header, path, got.text)
        assert got.json()["error"]["code"] == "unauthorized"


def test_a_revoked_key_answers_401_at_once(server):
    runtime, base = server
    keys = KeyStore(runtime.store.sql, runtime.store.data_dir)
    key, record = keys.create("acme", "ci", ("read",))
    assert httpx.get(base + "/v1/sessions", headers=auth(key)).status_code == 200
    keys.revoke(record.id)
    got = httpx.get(base + "/v1/sessions", headers=auth(key))
    assert got.status_code == 401 and got.json()["error"]["code"] == "unauthorized"
    listed = {k.id: k for k in keys.list("acme")}
    assert listed[record.id].last_used_at is not None and listed[record.id].revoked_at


def test_a_key_without_the_scope_is_refused_with_403(server):
    runtime, base = server
    reader = auth(new_key(runtime, "acme", ("read",)))
    got = httpx.post(base + "/v1/sessions", headers=reader,
                     json={"docs": [{"text": "x"}]})
    assert got.status_code == 403 and got.json()["error"]["code"] == "forbidden"
    assert httpx.get(base + "/v1/sessions", headers=reader).status_code == 200


def test_only_a_salted_hash_of_a_key_is_stored(server):
    runtime, _ = server
    key = new_key(runtime, "acme")
    dump = "\n".join(runtime.store.db.iterdump())
    assert key not in dump and key[len("rlm_key_"):] not in dump
    assert len(key) >= len("rlm_key_") + 43  # 32 random bytes, base64url
    salt = runtime.store.data_dir / "api_key_salt"
    assert salt.stat().st_mode & 0o777 == 0o600 and len(salt.read_bytes()) == 32
