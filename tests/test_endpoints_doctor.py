"""`doctor` and `/v1/health` show every configured endpoint host; auto-detection finds a live
host in an OLLAMA_HOST list. Real loopback servers (tests/fake_ollama.py)."""

from __future__ import annotations

import httpx
from fake_ollama import agent_script, serve
from http_server import free_port

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.recursion import TierPlan
from rlm_recursive.api import create_app
from rlm_recursive.catalog import load_catalog
from rlm_recursive.ops.endpoints import endpoint_checks
from rlm_recursive.policy import load_profile
from rlm_recursive.providers.auto import detect_provider

MODELS = """
[providers.gpu-pool]
type = "ollama"
hosts = ["{live}", "http://127.0.0.1:{dead}"]
[providers.lab]
type = "openai"
base_url = "http://lab-gpu.invalid:8000/v1"
"""


def _models_file(tmp_path, monkeypatch, live: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(MODELS.format(live=live, dead=free_port()))
    monkeypatch.setenv("RLM_MODELS", str(path))


async def test_doctor_checks_every_host_of_every_group(tmp_path, monkeypatch) -> None:
    with serve(_with_ps(agent_script("x"))) as live:
        _models_file(tmp_path, monkeypatch, live.url)
        catalog = load_catalog()
        checks = await endpoint_checks(catalog, load_profile("unrestricted"))
        local = await endpoint_checks(catalog, load_profile("restricted"))
    by_name = {c.name.split(" ", 1)[1]: c for c in checks if c.name.startswith("gpu-pool")}
    assert by_name[live.url].status == "ok" and "qwen3:8b" in by_name[live.url].detail
    dead = next(c for url, c in by_name.items() if url != live.url)
    assert dead.status == "fail" and dead.detail.startswith("down")
    lab = [c for c in checks if c.name.startswith("lab")]
    assert lab[0].status == "fail" and "lab-gpu.invalid" in lab[0].name  # refused by DNS guard
    # Under restricted, the remote group is refused without being contacted.
    refused = [c for c in local if c.name.startswith("lab")]
    assert refused[0].status == "fail" and "not local" in refused[0].detail
    assert [r.path for r in live.requests].count("/api/tags") == 2  # one per profile run


async def test_health_shows_each_pooled_host(tmp_path, monkeypatch, runtime) -> None:
    with serve(_with_ps(agent_script("x"))) as live:
        dead = f"http://127.0.0.1:{free_port()}"
        monkeypatch.setenv("OLLAMA_HOST", f"{live.url},{dead}")
        pool = ProviderPool(catalog=runtime.catalog)
        provider = pool.get(TierPlan.from_map(runtime.catalog, {"0": "qwen3:8b"}).at(0))
        await provider.pool.refresh()  # type: ignore[attr-defined]
        app = create_app(runtime, providers=pool)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://test") as client:
            body = (await client.get("/v1/health")).json()
        await pool.aclose()
    hosts = {h["host"]: h for h in body["model_hosts"]["ollama"]}
    assert hosts[live.url]["state"] == "up" and hosts[dead]["state"] == "down"
    assert hosts[dead]["retry_in_s"] is not None


async def test_auto_detection_finds_the_live_host_of_a_pool(monkeypatch) -> None:
    with serve(_with_ps(agent_script("x"))) as live:
        monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{free_port()},{live.url}")
        provider, reason = await detect_provider(root_model="qwen3:8b")
    assert provider == "ollama" and live.url in reason


def _with_ps(script):
    def answer(method, path, body):
        if path == "/api/ps":
            return 200, {"models": []}, {}
        return script(method, path, body)

    return answer
