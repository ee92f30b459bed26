"""Egress policy: local-only providers on loopback, model prefixes, model override."""

from __future__ import annotations

import pytest

from rlm_recursive.errors import EgressDenied
from rlm_recursive.policy import EgressPolicy, Profile, is_loopback_url, load_profile


@pytest.fixture
def restricted() -> EgressPolicy:
    return EgressPolicy(load_profile("restricted", env={}), env={})


@pytest.fixture
def unrestricted() -> EgressPolicy:
    return EgressPolicy(load_profile("unrestricted", env={}), env={})


def test_restricted_denies_claude(restricted):
    with pytest.raises(EgressDenied, match="only local models"):
        restricted.check("claude", endpoint=None, model="claude-sonnet-4-5")


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://gpu-box.invalid:11434",
        "http://localhost.evil.com",
        "http://localhost.evil.com:11434",
        "http://127.0.0.1.nip.io:11434",
        "http://127.0.0.1@evil.com:11434",
        "http://evil.com#@127.0.0.1",
        "http://0.0.0.0:11434",
        "http://2130706433:11434",
        "http://127.1:11434",
        "ftp://127.0.0.1:11434",
        "http://127.0.0.1:notaport",
        "gpu-box.invalid:11434",
    ],
)
def test_restricted_denies_remote_ollama(restricted, endpoint):
    with pytest.raises(EgressDenied, match="not loopback") as info:
        restricted.check("ollama", endpoint=endpoint, model="qwen3:8b")
    assert info.value.code == "egress_denied"


def test_denial_never_echoes_endpoint_credentials(restricted):
    with pytest.raises(EgressDenied) as info:
        restricted.check("ollama", endpoint="http://user:hunter2@gpu-box.invalid:11434", model="m")
    assert "hunter2" not in str(info.value)
    assert "hunter2" not in str(info.value.to_dict())


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:11434",
        "http://localhost:11434",
        "http://[::1]:11434",
        "http://LOCALHOST:11434",
        "http://127.8.9.10:11434",
        "https://127.0.0.1",
        "http://[::ffff:127.0.0.1]:11434",
        "127.0.0.1:11434",
    ],
)
def test_restricted_allows_loopback_ollama(restricted, endpoint):
    restricted.check("ollama", endpoint=endpoint, model="qwen3:8b")


def test_restricted_allows_in_process_providers(restricted):
    restricted.check("embedded", endpoint=None, model="smollm2")
    restricted.check("fake", endpoint=None, model="scripted")


def test_restricted_denies_unknown_provider(restricted):
    with pytest.raises(EgressDenied):
        restricted.check("mystery", endpoint="http://127.0.0.1:8080", model="gpt")


def test_restricted_allows_openai_compatible_servers_only_on_local_hosts(restricted):
    restricted.check("openai", endpoint="http://127.0.0.1:8080/v1", model="qwen")
    for endpoint in ("http://gpu1.invalid:8000/v1", "http://localhost.invalid/v1", None):
        with pytest.raises(EgressDenied, match="not loopback") as err:
            restricted.check("openai", endpoint=endpoint, model="qwen")
        assert "gpu1.invalid" in str(err.value) or endpoint != "http://gpu1.invalid:8000/v1"


def test_restricted_denies_ollama_cloud_models_even_on_loopback(restricted):
    for model in ("gpt-oss:120b-cloud", "glm-4.6:cloud"):
        with pytest.raises(EgressDenied, match="cloud model"):
            restricted.check("ollama", endpoint="http://127.0.0.1:11434", model=model)


def test_ollama_endpoint_none_uses_client_default_and_env():
    profile = load_profile("restricted", env={})
    EgressPolicy(profile, env={}).check("ollama", endpoint=None, model="qwen3:8b")
    remote = EgressPolicy(profile, env={"OLLAMA_HOST": "http://gpu-box:11434"})
    with pytest.raises(EgressDenied, match="gpu-box"):
        remote.check("ollama", endpoint=None, model="qwen3:8b")


def test_model_prefix_rule():
    profile = load_profile(
        "restricted", {"allowed_model_prefixes": ["qwen3:", "embedded/"]}, env={}
    )
    policy = EgressPolicy(profile, env={})
    policy.check("ollama", endpoint="http://127.0.0.1:11434", model="qwen3:8b")
    policy.check("embedded", endpoint=None, model="smollm2-135m")
    with pytest.raises(EgressDenied, match="allowed_model_prefixes"):
        policy.check("ollama", endpoint="http://127.0.0.1:11434", model="llama3.2:3b")


def test_model_override_rule(restricted, unrestricted):
    with pytest.raises(EgressDenied, match="allow_model_override"):
        restricted.check("fake", endpoint=None, model="x", model_overridden=True)
    # Confirmed default (SDD): off even in unrestricted until the operator enables it.
    with pytest.raises(EgressDenied, match="allow_model_override"):
        unrestricted.check("claude", endpoint=None, model="x", model_overridden=True)
    enabled = EgressPolicy(load_profile("unrestricted", {"allow_model_override": True}, env={}))
    enabled.check("claude", endpoint=None, model="claude-opus-4", model_overridden=True)


def test_unrestricted_allows_claude_and_remote_ollama(unrestricted):
    unrestricted.check("claude", endpoint=None, model="claude-sonnet-4-5")
    unrestricted.check("ollama", endpoint="http://gpu-box.invalid:11434", model="qwen3:8b")


def test_is_loopback_url_directly():
    assert is_loopback_url("http://127.0.0.1:11434")
    assert not is_loopback_url("http://localhost.")
    assert not is_loopback_url("")
    assert not is_loopback_url("http://[fe80::1%25eth0]:11434")
    assert Profile(name="bare").local_only  # a bare profile is restricted-like
