"""A pool of model hosts: OLLAMA_HOST lists, routing, failover on real loopback servers."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import httpx
import pytest
import respx
from fake_ollama import agent_script, serve, tags_body

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import EgressDenied
from rlm_recursive.providers.hostpool import HostPool
from rlm_recursive.providers.hosts import ollama_hosts

NEEDLE = "The keypad code for the north door is 4417."


def test_a_host_list_in_ollama_host_no_longer_breaks_the_import() -> None:
    env = {**os.environ, "OLLAMA_HOST": "127.0.0.1:11434,127.0.0.1:11435"}
    code = ("import rlm_recursive.providers.ollama as o, os; "
            "print(o.ollama_host(), os.environ['OLLAMA_HOST'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    # Our settings see the first host; the variable itself is left as the user set it.
    assert out.stdout.split() == ["http://127.0.0.1:11434", "127.0.0.1:11434,127.0.0.1:11435"]


def test_ollama_hosts_reads_a_list_normalised_and_deduplicated(monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", " 127.0.0.1 , :11500,http://127.0.0.1:11434,")
    assert ollama_hosts() == ["http://127.0.0.1:11434", "http://127.0.0.1:11500"]


def _pool(**states) -> HostPool:
    pool = HostPool("ollama", list(states), max_concurrency=2)
    for host in pool.hosts:
        models, loaded, outstanding = states[host.url]
        host.models, host.loaded, host.outstanding = set(models), set(loaded), outstanding
    return pool


def test_routing_only_to_hosts_with_the_model_loaded_first_then_least_busy() -> None:
    pool = _pool(a=({"qwen3:8b"}, set(), 0), b=({"qwen3:8b"}, {"qwen3:8b"}, 1),
                 c=({"gemma3:1b"}, set(), 0))
    assert pool.pick("qwen3:8b").url == "b"  # loaded wins over idle
    pool.hosts[1].outstanding = 2  # b is at its bound
    assert pool.pick("qwen3:8b").url == "a"
    assert pool.pick("gemma3:1b").url == "c"  # only c has it
    pool.hosts[0].outstanding = 2
    assert pool.pick("qwen3:8b") is None  # every host with the model is full


def test_ties_are_broken_at_random_so_processes_spread() -> None:
    pool = _pool(a=({"m:latest"}, set(), 0), b=({"m:latest"}, set(), 0))
    assert {pool.pick("m").url for _ in range(200)} == {"a", "b"}


def test_a_down_host_is_skipped_until_its_backoff_ends() -> None:
    pool = _pool(a=({"m:latest"}, set(), 0), b=({"m:latest"}, set(), 0))
    pool.mark_down(pool.hosts[0], "refused")
    assert {pool.pick("m").url for _ in range(50)} == {"b"}
    pool.mark_down(pool.hosts[0], "refused again")  # backoff doubles
    assert pool.hosts[0].retry_at - time.monotonic() > 0.5
    pool.hosts[0].retry_at = time.monotonic() - 1
    pool.hosts[1].outstanding = 2
    assert pool.pick("m").url == "a"  # a trial once the backoff is over


def _ollama_host(script):
    """An Ollama-shaped host that also answers `/api/ps` (the models it has loaded)."""

    def with_ps(method, path, body):
        if path == "/api/ps":
            return 200, {"models": []}, {}
        return script(method, path, body)

    return serve(with_ps)


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    def make(hosts: str, profile: str | None = None):
        monkeypatch.setenv("OLLAMA_HOST", hosts)
        runtime = Runtime(tmp_path / "data", profile=profile)
        sid = runtime.store.create_session("pool", SessionConfig())["session_id"]
        text = "Building notes. " * 40 + NEEDLE + " More notes." * 20
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source="notes.txt", source_type="inline")
        return runtime, sid

    return make


async def test_two_hosts_one_killed_mid_run_every_query_still_answers(corpus) -> None:
    answer = "The code is 4417."
    killed = threading.Event()
    script_b = agent_script(answer)
    with _ollama_host(script_b) as b:
        a_calls: list[str] = []

        def script_a(method, path, body):
            if path == "/api/ps":  # a has the model loaded: affinity sends work here first
                return 200, tags_body("qwen3:8b"), {}
            if path == "/api/chat":
                a_calls.append(path)
                if len(a_calls) == 3:  # killed in the middle of the second query
                    killed.set()
                    threading.Thread(target=a.stop).start()
                    raise ConnectionAbortedError("host killed mid-request")
            return agent_script(answer)(method, path, body)

        with serve(script_a) as a:
            runtime, sid = corpus(f"{a.url},{b.url}")
            pool = ProviderPool()
            options = QueryOptions(provider="ollama", model="qwen3:8b", strategy="agent",
                                   max_depth=0)
            answers = []
            for _ in range(4):
                result = await run_query(runtime, sid, "What is the keypad code?", options,
                                         providers=pool)
                answers.append(result.answer)
            states = {s["host"]: s for s in pool.host_states()["ollama"]}
            await pool.aclose()
            runtime.close()
    assert killed.is_set()
    assert answers == [answer] * 4
    assert len(a_calls) == 3  # nothing reached a after it died
    assert states[a.url]["state"] == "down" and states[b.url]["state"] == "up"
    assert states[b.url]["answered"] >= 5
    assert "RemoteProtocolError" in states[a.url]["last_error"] or \
        "unreachable" in states[a.url]["last_error"]


async def test_restricted_refuses_a_pool_with_one_remote_entry_before_any_request(corpus):
    with _ollama_host(agent_script("x")) as local:
        runtime, sid = corpus(f"{local.url},http://gpu-2.invalid:11434", profile="restricted")
        with pytest.raises(EgressDenied, match=r"gpu-2\.invalid") as err:
            await run_query(runtime, sid, "q?", QueryOptions(provider="ollama",
                                                               model="qwen3:8b"))
        runtime.close()
    assert err.value.code == "egress_denied"
    assert local.requests == []  # nothing was sent to the local entry either


def test_cli_refuses_a_pool_with_a_remote_entry_before_loading_anything(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from rlm_recursive.cli.app import app

    (tmp_path / "notes.txt").write_text(NEEDLE)
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11434,http://gpu-3.invalid:11434")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"), "--profile",
                                      "restricted", "query", "code?", "notes.txt", "--tier",
                                      "0=qwen3:8b", "--json"])
    assert result.exit_code != 0
    assert "gpu-3.invalid" in result.output and "egress_denied" in result.output
    runtime = Runtime(tmp_path / "data")
    assert runtime.store.list_sessions() == []  # nothing was loaded
    runtime.close()


@respx.mock
async def test_openai_pool_routes_to_the_host_serving_the_model_and_fails_over(monkeypatch):
    from openai_bodies import vllm_chat, vllm_models

    from rlm_recursive.providers.base import ChatRequest, Message
    from rlm_recursive.providers.groups import EndpointGroup, build_provider

    a, b, c = (f"http://127.0.0.1:{port}/v1" for port in (8001, 8002, 8003))
    respx.get(f"{a}/models").respond(json=vllm_models("Qwen/Qwen3-8B"))
    respx.get(f"{b}/models").respond(json=vllm_models("Qwen/Qwen3-8B"))
    respx.get(f"{c}/models").respond(json=vllm_models("other/model"))
    dead = respx.post(f"{a}/chat/completions").mock(side_effect=httpx.ConnectError("refused"))
    live = respx.post(f"{b}/chat/completions").respond(json=vllm_chat("Qwen/Qwen3-8B", "ok"))
    never = respx.post(f"{c}/chat/completions").respond(json=vllm_chat("other/model", "no"))
    provider = build_provider(EndpointGroup(name="vllm", kind="openai", hosts=(a, b, c)))
    request = ChatRequest(model="Qwen/Qwen3-8B", messages=[Message(role="user", content="q")])
    answers = [(await provider.chat(request)).text for _ in range(6)]
    await provider.aclose()
    assert answers == ["ok"] * 6
    assert dead.call_count <= 1 and live.call_count == 6 and never.call_count == 0
