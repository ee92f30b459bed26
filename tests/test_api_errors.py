"""The seed's error envelope on every failure path, with X-Request-ID echoed or minted."""

from __future__ import annotations

import time

import httpx
import pytest
from api_support import auth, live_api, new_key

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api.errors import HTTP_STATUS
from rlm_recursive.errors import ERROR_CODES


@pytest.fixture
def served(data_dir, write):
    write("docs/notes.txt", "alpha beta gamma. " * 10)
    write("docs/.env", "SECRET=1")
    write("../outside.txt", "outside the server's root")
    runtime = Runtime(data_dir)
    key = new_key(runtime, "acme")
    with live_api(runtime) as base, httpx.Client(base_url=base, headers=auth(key),
                                                 timeout=30) as client:
        yield runtime, client
    runtime.close()


def _envelope(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"code", "message", "request_id", "details"}
    assert error["code"] == code and error["code"] in ERROR_CODES
    assert error["message"] and isinstance(error["details"], dict)
    assert response.headers["x-request-id"] == error["request_id"]
    return error


def test_every_stable_code_has_one_http_status():
    assert set(HTTP_STATUS) == set(ERROR_CODES)
    assert all(400 <= s < 600 for s in HTTP_STATUS.values())


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "code"), [
    ("GET", "/v1/nowhere", {}, 404, "not_found"),
    ("GET", "/nowhere", {}, 404, "not_found"),
    ("PUT", "/v1/sessions", {"json": {}}, 405, "invalid_args"),
    ("POST", "/v1/sessions", {"json": {"docs": []}}, 422, "invalid_args"),
    ("POST", "/v1/sessions", {"content": b"{not json", "headers": {
        "content-type": "application/json"}}, 422, "invalid_args"),
    ("POST", "/v1/sessions", {"json": {"docs": [{"text": "a", "path": "b"}]}}, 422,
     "invalid_args"),
    ("POST", "/v1/sessions", {"json": {"docs": [{"path": "docs/.env"}]}}, 403, "path_denied"),
    ("POST", "/v1/sessions", {"json": {"docs": [{"path": "/etc/hostname"}]}}, 403,
     "path_denied"),
    ("POST", "/v1/sessions", {"json": {"docs": [{"path": "../outside.txt"}]}}, 403,
     "path_denied"),
    ("POST", "/v1/sessions", {"json": {"docs": [{"path": "docs/missing.txt"}]}}, 422,
     "file_not_found"),
    ("GET", "/v1/sessions/ses_000000000000", {}, 404, "not_found"),
    ("GET", "/v1/executions/exec_000000000000/steps", {}, 404, "not_found"),
    ("POST", "/v1/executions/exec_000000000000/wait", {"json": {"timeout_seconds": -1}}, 422,
     "invalid_args"),
    ("POST", "/v1/citations/verify", {"json": {"ref": {"session_id": "s", "start_char": 0,
                                                       "end_char": 1, "checksum": "x"}}},
     422, "invalid_args"),
])
def test_failures_answer_the_envelope(served, method, path, kwargs, status, code):
    _, client = served
    error = _envelope(client.request(method, path, **kwargs), status, code)
    assert error["request_id"].startswith("req_")
    if code == "invalid_args" and status == 422 and "json" in kwargs:
        assert error["details"]["errors"]


def test_validation_errors_do_not_echo_the_input(served):
    _, client = served
    secret = "TOP-SECRET-DOCUMENT-TEXT"
    got = client.post("/v1/sessions", json={"docs": [{"text": secret, "path": secret}]})
    _envelope(got, 422, "invalid_args")
    assert secret not in got.text


def test_request_ids_are_echoed_or_minted(served):
    _, client = served
    mine = client.get("/v1/nowhere", headers={"X-Request-ID": "trace-42.a"})
    assert _envelope(mine, 404, "not_found")["request_id"] == "trace-42.a"
    ok = client.get("/v1/sessions", headers={"X-Request-ID": "trace-43"})
    assert ok.status_code == 200 and ok.headers["x-request-id"] == "trace-43"
    hostile = client.get("/v1/nowhere", headers={"X-Request-ID": "a b\tc<script>"})
    assert _envelope(hostile, 404, "not_found")["request_id"].startswith("req_")


def test_a_session_still_loading_answers_409(served, write):
    runtime, client = served
    write("docs/big/a.txt", "alpha " * 50)
    made = client.post("/v1/sessions", json={"docs": [{"path": "docs/big", "type":
                                                       "directory"}]})
    assert made.status_code == 201
    sid = made.json()["session_id"]
    deadline = time.monotonic() + 20
    while client.get(f"/v1/sessions/{sid}").json()["status"] == "CREATING":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # Loading from paths runs in the background; until READY an execution is refused (the
    # state is set by hand: a real load may finish before the next request).
    runtime.store.db.execute("UPDATE sessions SET readiness = 'CREATING' WHERE id = ?", (sid,))
    got = client.post(f"/v1/sessions/{sid}/executions", json={"question": "q"})
    error = _envelope(got, 409, "session_not_ready")
    assert error["details"]["session_id"] == sid


def test_an_unexpected_failure_is_an_internal_error_envelope(served, monkeypatch):
    runtime, client = served
    sid = client.post("/v1/sessions", json={"docs": [{"text": "abc"}]}).json()["session_id"]

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(runtime.store, "documents", broken)
    got = client.get(f"/v1/sessions/{sid}")
    _envelope(got, 500, "internal_error")
    assert "disk on fire" not in got.text  # internals are not shown to clients


def test_openapi_and_docs_are_served(served):
    _, client = served
    spec = client.get("/v1/openapi.json")
    assert spec.status_code == 200 and "/v1/sessions/{session_id}/executions" in \
        spec.json()["paths"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/v1/openapi.json" in docs.text
    assert client.get("/v1/health").json()["status"] == "ok"
