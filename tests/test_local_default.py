"""Local-only by default (seed 001): a cloud model needs the operator's opt-in, and the error
says how. The CLI operator opts in by naming the model; MCP and HTTP clients never do."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from api_support import auth, live_api, new_key
from mcp import Client
from typer.testing import CliRunner

from rlm_recursive.agent.query import QueryOptions, run_egress
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.errors import EgressDenied
from rlm_recursive.mcp_server import build_server
from rlm_recursive.policy import EgressPolicy, load_profile

REMOTE_OLLAMA = "http://gpu-box.invalid:11434"


@pytest.fixture
def rt(data_dir: Path):
    runtime = Runtime(data_dir)  # no profile named, no RLM_PROFILE: the default
    yield runtime
    runtime.close()


def test_the_default_profile_is_local_only():
    profile = load_profile(env={})
    assert profile.name == "local" and profile.local_only
    # Paths as before: the operator may still read anywhere from the CLI.
    assert profile.read_anywhere and profile.allow_absolute_paths
    assert not load_profile("unrestricted", env={}).local_only
    assert load_profile(env={"RLM_PROFILE": "unrestricted"}).name == "unrestricted"


@pytest.mark.parametrize(("provider", "endpoint", "model"), [
    ("claude", None, "claude-sonnet-4-5"),
    ("ollama", REMOTE_OLLAMA, "qwen3:8b"),
    ("ollama", None, "gpt-oss:120b-cloud"),
])
def test_a_cloud_model_is_refused_with_the_way_to_opt_in(provider, endpoint, model):
    policy = EgressPolicy(load_profile(env={}), env={})
    with pytest.raises(EgressDenied) as info:
        policy.check(provider, endpoint=endpoint, model=model)
    assert "--profile unrestricted" in info.value.message
    assert "RLM_PROFILE=unrestricted" in info.value.message
    policy.check("ollama", endpoint="http://127.0.0.1:11434", model="qwen3:8b")
    policy.check("embedded", endpoint=None, model="smollm2-135m")


def test_only_the_operators_typed_choice_opts_in(rt):
    claude = "claude-sonnet-4-5"
    typed = run_egress(rt, QueryOptions(provider="claude", operator_opt_in=True))
    typed.check("claude", endpoint=None, model=claude)
    for options in (QueryOptions(provider="claude"),  # no opt-in
                    QueryOptions(provider="claude", operator_opt_in=True,
                                 client_override=True)):  # a client's choice never is one
        with pytest.raises(EgressDenied):
            run_egress(rt, options).check("claude", endpoint=None, model=claude)


def test_a_restricted_profile_is_never_opened_by_a_typed_choice(data_dir):
    runtime = Runtime(data_dir, "restricted")
    try:
        with pytest.raises(EgressDenied):
            run_egress(runtime, QueryOptions(provider="claude", operator_opt_in=True)).check(
                "claude", endpoint=None, model="claude-sonnet-4-5")
    finally:
        runtime.close()


def test_cli_without_a_typed_model_refuses_a_remote_host_and_says_how(
        tmp_path, monkeypatch):
    (tmp_path / "doc.txt").write_text("The keypad code is 7316.\n")
    monkeypatch.setenv("OLLAMA_HOST", REMOTE_OLLAMA)
    refused = CliRunner().invoke(app, ["query", "What is the code?", "doc.txt"])
    assert refused.exit_code == 1
    assert "error[egress_denied]" in refused.stderr
    assert "--profile unrestricted" in refused.stderr
    # Typing the model is the opt-in: egress passes, and the (unreachable) host is tried.
    typed = CliRunner().invoke(app, ["query", "What is the code?", "doc.txt",
                                     "--model", "qwen3:8b", "--strategy", "search"])
    assert "egress_denied" not in typed.stderr
    assert "error[provider_error]" in typed.stderr or "error[model_not_found]" in typed.stderr


async def test_an_mcp_client_never_opts_in_for_the_operator(rt):
    server = build_server(rt)
    async with Client(server) as client:
        result = await client.call_tool("rlm_query", {
            "task": "What is the code?", "context": "The code is 7316.",
            "provider": "claude"})
    body = json.loads(result.content[0].text)
    assert result.is_error and body["meta"]["error_code"] == "egress_denied"
    assert "--profile unrestricted" in body["error"]


def test_an_http_client_never_opts_in_for_the_operator(rt):
    with live_api(rt) as base, httpx.Client(base_url=base, headers=auth(
            new_key(rt, "acme")), timeout=30) as c:
        sid = c.post("/v1/sessions", json={"docs": [{"text": "The code is 7316."}]}
                     ).json()["session_id"]
        view = c.post(f"/v1/sessions/{sid}/executions", json={
            "question": "What is the code?", "preset": "quality-first",
            "options": {"synchronous": True}}).json()
        assert view["status"] == "FAILED"
        assert view["error"]["code"] == "egress_denied"
