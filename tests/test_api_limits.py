"""Rate limits, concurrent executions and daily budgets per tenant: 429 with Retry-After."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from api_support import auth, live_api, new_key

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings
from rlm_recursive.providers.fake import FakeProvider, reply

DOC = {"docs": [{"text": "alpha beta gamma delta. " * 20, "source_name": "a"}]}


@pytest.fixture
def runtime(data_dir):
    rt = Runtime(data_dir)
    yield rt
    rt.close()


def test_over_the_key_limit_answers_429_with_retry_after(runtime):
    settings = ApiSettings(key_requests_per_minute=3, tenant_requests_per_minute=100)
    with live_api(runtime, settings) as base:
        first, second = auth(new_key(runtime, "acme")), auth(new_key(runtime, "acme"))
        codes = [httpx.get(base + "/v1/sessions", headers=first).status_code for _ in range(3)]
        assert codes == [200, 200, 200]
        over = httpx.get(base + "/v1/sessions", headers=first)
        assert over.status_code == 429
        assert 1 <= int(over.headers["retry-after"]) <= 60
        error = over.json()["error"]
        assert error["code"] == "rate_limited"
        assert error["details"]["limit"] == "key_requests_per_minute"
        # The limit is per key: another key of the same tenant still gets through.
        assert httpx.get(base + "/v1/sessions", headers=second).status_code == 200


def test_over_the_tenant_limit_answers_429_for_all_its_keys(runtime):
    settings = ApiSettings(key_requests_per_minute=100, tenant_requests_per_minute=4)
    with live_api(runtime, settings) as base:
        keys = [auth(new_key(runtime, "acme")) for _ in range(2)]
        other = auth(new_key(runtime, "globex"))
        for i in range(4):
            assert httpx.get(base + "/v1/sessions", headers=keys[i % 2]).status_code == 200
        for headers in keys:
            over = httpx.get(base + "/v1/sessions", headers=headers)
            assert over.status_code == 429 and over.headers["retry-after"]
            assert over.json()["error"]["details"]["limit"] == "tenant_requests_per_minute"
        assert httpx.get(base + "/v1/sessions", headers=other).status_code == 200


def test_concurrent_executions_per_tenant_are_capped(runtime):
    release = asyncio.Event()

    async def slow(request):
        await release.wait()
        return reply("done")

    fake = FakeProvider(script=slow)
    settings = ApiSettings(tenant_concurrent_executions=1)
    with live_api(runtime, settings, ProviderPool({"ollama": fake})) as base:
        headers = auth(new_key(runtime, "acme"))
        sid = httpx.post(base + "/v1/sessions", headers=headers, json=DOC).json()["session_id"]
        # A question the text has words for: search reaches the (waiting) model.
        body = {"question": "What follows gamma?", "preset": "fully-local",
                "options": {"strategy": "search"}}
        first = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers, json=body)
        assert first.status_code == 202
        second = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers, json=body)
        assert second.status_code == 429 and second.headers["retry-after"] == "1"
        assert second.json()["error"]["details"]["limit"] == "tenant_concurrent_executions"
        other = auth(new_key(runtime, "globex"))
        osid = httpx.post(base + "/v1/sessions", headers=other, json=DOC).json()["session_id"]
        assert httpx.post(f"{base}/v1/sessions/{osid}/executions", headers=other,
                          json=body).status_code == 202
        eid = first.json()["execution_id"]
        cancelled = httpx.post(f"{base}/v1/executions/{eid}/cancel", headers=headers)
        assert cancelled.json()["status"] == "FAILED"
        # The slot is free again once the first one ended.
        assert httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers,
                          json=body).status_code == 202
        # Shutting the server down cancels what still waits on `release`.


def test_a_spent_daily_token_budget_refuses_new_executions(runtime):
    fake = FakeProvider(script=lambda request: reply("gamma", tokens=(60, 40)))
    settings = ApiSettings(daily_tokens=150)
    with live_api(runtime, settings, ProviderPool({"ollama": fake})) as base:
        headers = auth(new_key(runtime, "acme"))
        sid = httpx.post(base + "/v1/sessions", headers=headers, json=DOC).json()["session_id"]
        body = {"question": "Which word follows gamma?", "preset": "fully-local",
                # A placeholder answer: the budget, not the answer, is under test.
                "options": {"strategy": "search", "synchronous": True, "grounding": False}}
        for _ in range(2):  # 100 tokens each: the second starts with 50 left
            run = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers, json=body)
            assert run.status_code == 200 and run.json()["status"] == "COMPLETED", run.text
        over = httpx.post(f"{base}/v1/sessions/{sid}/executions", headers=headers, json=body)
        assert over.status_code == 429, over.text
        assert over.json()["error"]["code"] == "budget_exceeded"
        assert over.json()["error"]["details"]["limit"] == "daily_tokens"
        assert 0 < int(over.headers["retry-after"]) <= 86400
        other = auth(new_key(runtime, "globex"))
        osid = httpx.post(base + "/v1/sessions", headers=other, json=DOC).json()["session_id"]
        assert httpx.post(f"{base}/v1/sessions/{osid}/executions", headers=other,
                          json=body).status_code == 200
