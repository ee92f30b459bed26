"""The restricted profile keeps the shared store on local hosts: documents and conversations
are written to `RLM_DATABASE_URL` and `RLM_BLOB_URL`, so a remote one is egress."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlm_recursive import errors
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.policy.egress import EgressPolicy
from rlm_recursive.policy.profiles import load_profile


def _policy(profile: str, env: dict[str, str], **overrides: object) -> EgressPolicy:
    return EgressPolicy(load_profile(profile, overrides or None), env=env)


@pytest.mark.parametrize("url", [
    "postgresql://rlm:pw@db.invalid:5432/rlm",
    "postgres://rlm@127.0.0.1,db.invalid:5433/rlm",  # one remote host of a list is enough
    "postgresql://rlm@[::1]/rlm?host=db.invalid",
    "postgresql://rlm@localhost/rlm?hostaddr=203.0.113.9",
])
def test_restricted_refuses_a_remote_database_host(url: str) -> None:
    with pytest.raises(errors.EgressDenied) as caught:
        _policy("restricted", {"RLM_DATABASE_URL": url}).check_store()
    assert "RLM_DATABASE_URL" in str(caught.value)
    assert "pw" not in str(caught.value)  # the password is never echoed
    assert caught.value.to_dict()["meta"]["error_code"] == "egress_denied"


@pytest.mark.parametrize("url", [
    "postgresql://rlm:pw@127.0.0.1:5432/rlm",
    "postgresql://rlm@[::1]:5433/rlm",
    "postgresql://rlm@localhost/rlm",
    "postgresql:///rlm?host=/var/run/postgresql",  # a Unix socket: no network at all
    "postgresql://rlm@/rlm",
])
def test_restricted_accepts_a_local_database(url: str) -> None:
    _policy("restricted", {"RLM_DATABASE_URL": url}).check_store()


def test_local_hosts_lets_the_hospital_name_its_own_database_server() -> None:
    env = {"RLM_DATABASE_URL": "postgresql://rlm@db.ward.invalid/rlm"}
    with pytest.raises(errors.EgressDenied):
        _policy("restricted", env).check_store()
    _policy("restricted", env, local_hosts=["db.ward.invalid"]).check_store()


def test_blobs_on_s3_need_a_local_endpoint_under_restricted() -> None:
    with pytest.raises(errors.EgressDenied, match=r"s3\.amazonaws\.com"):
        _policy("restricted", {"RLM_BLOB_URL": "s3://scans/rlm"}).check_store()
    with pytest.raises(errors.EgressDenied, match=r"minio\.invalid"):
        _policy("restricted", {"RLM_BLOB_URL": "s3://scans/rlm",
                               "AWS_ENDPOINT_URL": "https://minio.invalid:9000"}).check_store()
    _policy("restricted", {"RLM_BLOB_URL": "s3://scans/rlm",
                           "AWS_ENDPOINT_URL": "http://127.0.0.1:9000"}).check_store()
    _policy("restricted", {"RLM_BLOB_URL": "file:///srv/shared/blobs"}).check_store()


def test_other_profiles_trust_the_operator_s_store_urls() -> None:
    env = {"RLM_DATABASE_URL": "postgresql://rlm@db.invalid/rlm", "RLM_BLOB_URL": "s3://b/p"}
    for profile in ("local", "unrestricted"):
        _policy(profile, env).check_store()
    with pytest.raises(errors.EgressDenied):  # an operator can turn it on for any profile
        _policy("local", env, local_store=True).check_store()


def test_a_restricted_runtime_refuses_before_connecting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RLM_DATABASE_URL", "postgresql://rlm@db.invalid:5432/rlm")
    with pytest.raises(errors.EgressDenied):
        Runtime(data_dir=tmp_path / "data", profile="restricted")
    assert not (tmp_path / "data").exists()  # nothing was opened, locally or remotely
