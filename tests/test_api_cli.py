"""`rlm-recursive keys …` and `rlm-recursive api` as real processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from rlm_recursive.api.server import wait_healthy

ROOT = Path(__file__).resolve().parents[1]


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                           *args], capture_output=True, text=True, env=env, timeout=60)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_keys_create_list_revoke(data_dir):
    made = _cli(data_dir, "keys", "create", "--tenant", "acme", "--name", "ci", "--scope",
                "read")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("rlm_key_") and "shown only now" in made.stderr
    listed = json.loads(_cli(data_dir, "keys", "list", "--json").stdout)
    assert len(listed) == 1 and listed[0]["tenant_id"] == "acme"
    assert listed[0]["scopes"] == ["read"] and listed[0]["revoked_at"] is None
    assert key not in json.dumps(listed)
    revoked = _cli(data_dir, "keys", "revoke", listed[0]["id"])
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert json.loads(_cli(data_dir, "keys", "list", "--json").stdout)[0]["revoked_at"]
    missing = _cli(data_dir, "keys", "revoke", "key_000000000000")
    assert missing.returncode == 1 and "error[not_found]" in missing.stderr


def test_api_refuses_a_remote_host_without_allow_remote(data_dir):
    got = _cli(data_dir, "api", "--host", "gpu-box.invalid")
    said = " ".join(got.stderr.split())  # Rich wraps lines
    assert got.returncode == 1 and "refusing to serve on 'gpu-box.invalid'" in said


def test_api_serves_keys_made_by_the_cli_and_honours_revocation(data_dir, tmp_path):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir), "api", "--port",
         str(port), "--max-body-bytes", "65536"], cwd=tmp_path, env=env,
        stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, server)
        key = _cli(data_dir, "keys", "create", "--tenant", "acme").stdout.strip()
        headers = {"Authorization": f"Bearer {key}"}
        made = httpx.post(base + "/v1/sessions", headers=headers,
                          json={"docs": [{"text": "hello team"}]})
        assert made.status_code == 201 and made.json()["status"] == "READY"
        too_big = httpx.post(base + "/v1/sessions", headers=headers,
                             json={"docs": [{"text": "x" * 70_000}]})
        assert too_big.status_code == 413
        assert too_big.json()["error"]["code"] == "payload_too_large"
        key_id = json.loads(_cli(data_dir, "keys", "list", "--json").stdout)[0]["id"]
        _cli(data_dir, "keys", "revoke", key_id)
        assert httpx.get(base + "/v1/sessions", headers=headers).status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=15)
    assert "HTTP API at http://127.0.0.1:" in server.stderr.read()
