"""Fuzz the HTTP API against its own OpenAPI schema (schemathesis, valid and invalid bodies,
over a real uvicorn server on loopback): no body may get a 500.

Path ids are a real session and execution of the key's tenant half the time (else the fuzzer
only meets 404s); models are fakes (answers in microseconds, no network). Bounded: a few
dozen examples per operation, well under a minute here. The totals are printed (run with -s)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from api_support import auth, new_key
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation.modes import GenerationMode

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.api import ApiSettings, create_app
from rlm_recursive.api.server import background_server
from rlm_recursive.errors import ERROR_CODES
from rlm_recursive.providers.fake import FakeProvider, reply

EXAMPLES = int(os.environ.get("RLM_FUZZ_EXAMPLES", "60"))
SEEN: Counter[str] = Counter()


class _Served:
    def __init__(self, base: str, headers: dict[str, str], ids: dict[str, str]) -> None:
        self.base, self.headers, self.ids = base, headers, ids


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Served]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    runtime = Runtime(folder / "data", "local")
    fake = FakeProvider(script=lambda request: reply("FINAL('fuzzed')"))
    pool = ProviderPool({"ollama": fake, "embedded": fake, "claude": fake})
    settings_ = ApiSettings(key_requests_per_minute=10**6, tenant_requests_per_minute=10**6,
                            tenant_concurrent_executions=10**3, max_body_bytes=1 << 20)
    try:
        with background_server(create_app(runtime, settings_, pool)) as base:
            import httpx

            headers = auth(new_key(runtime, "fuzz", ("read", "run")))
            sid = httpx.post(base + "/v1/sessions", headers=headers, json={
                "docs": [{"text": "alpha beta gamma delta " * 50}]}).json()["session_id"]
            eid = httpx.post(f"{base}/v1/sessions/{sid}/executions/runtime", headers=headers,
                             json={"preset": "fully-local"}).json()["execution_id"]
            yield _Served(base, headers, {"session_id": sid, "execution_id": eid})
    finally:
        runtime.close()
        print(f"\nAPI fuzz: {sum(SEEN.values())} requests; by status: "
              f"{dict(sorted(SEEN.items()))}; 500s: {SEEN.get('500', 0)}")


def _operations(base: str) -> list[Any]:
    schema = schemathesis.openapi.from_url(base + "/v1/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid", "invalid"])
def test_no_body_gets_a_500(served: _Served, mode: GenerationMode) -> None:
    operations = _operations(served.base)
    assert len(operations) >= 15  # every route of the schema is fuzzed

    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def call(case: Any) -> None:
            params = case.path_parameters or {}
            for name in list(params):
                # Half the cases aim at real ids (decided by the case, so reruns agree).
                if name in served.ids and len(repr(case.body)) % 2 == 0:
                    params[name] = served.ids[name]
            response = case.call(base_url=served.base, headers=served.headers, timeout=60)
            SEEN[str(response.status_code)] += 1
            assert response.status_code != 500, (case.method, case.path, response.text[:500])
            if response.status_code >= 400:
                body = response.json()
                assert body["error"]["code"] in ERROR_CODES, body

        try:
            call()
        except Unsatisfiable:  # nothing invalid to send (a GET with no parameters)
            assert mode is GenerationMode.NEGATIVE, operation.label
