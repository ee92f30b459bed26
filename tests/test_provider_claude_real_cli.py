"""The real bundled Claude Code CLI, driven by the real SDK, against a scripted Messages API.

It runs in a private network namespace (`unshare -rn`) whose only interface is loopback, so
nothing can leave the machine whatever the CLI tries; `ANTHROPIC_BASE_URL` points it at the
scripted API on 127.0.0.1, which answers every request 401 as the real API does for a bad key.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sdk = pytest.importorskip("claude_agent_sdk")

_BUNDLED = Path(sdk.__file__).parent / "_bundled" / "claude"


def _netns_available() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, check=False)
    return probe.returncode == 0


_SCRIPT = r'''
import asyncio, json, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
seen = []

class API(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        import hashlib
        seen.append({"path": self.path, "prompt_in_body": b"SECRETSPAN-7316" in body,
                     "sha": hashlib.sha256(body).hexdigest()[:12], "len": len(body),
                     "t": time.monotonic()})
        data = json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                      "message": "invalid x-api-key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), API)
threading.Thread(target=server.serve_forever, daemon=True).start()
import os
os.environ["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}"

from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message
from rlm_recursive.providers.claude_sdk import ClaudeSDKProvider

async def main():
    request = ChatRequest(model="claude-haiku-4-5", options=ChatOptions(timeout_s=30),
                          messages=[Message(role="user", content="Quote SECRETSPAN-7316.")])
    started = time.monotonic()
    out = {}
    try:
        await ClaudeSDKProvider().chat(request)
    except Exception as exc:
        out = {"type": type(exc).__name__, "code": getattr(exc, "code", None),
               "retryable": getattr(exc, "retryable", None), "message": str(exc)}
    out["elapsed"] = time.monotonic() - started
    await asyncio.sleep(1.0)  # a late extra request (the "title" one) would land here
    out["requests"] = seen
    print(json.dumps(out))

asyncio.run(main())
'''


@pytest.mark.slow  # starts the ~380 MB bundled CLI: a few seconds
@pytest.mark.skipif(not _BUNDLED.exists(), reason="no bundled claude CLI in this wheel")
@pytest.mark.skipif(not _netns_available(), reason="needs unshare -rn (a loopback-only netns)")
def test_a_bad_key_fails_within_seconds_through_the_real_cli(tmp_path: Path) -> None:
    env = {"PATH": "/usr/sbin:/usr/bin:/bin", "HOME": str(tmp_path),
           "ANTHROPIC_API_KEY": "sk-ant-api03-bogus", "PYTHONPATH": ":".join(sys.path)}
    proc = subprocess.run(["unshare", "-rn", sys.executable, "-c", _SCRIPT], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["code"] == "provider_error" and out["retryable"] is False, out
    assert "ANTHROPIC_API_KEY" in out["message"]
    assert out["elapsed"] < 10, out  # not the CLI's ~190 s of retries
    # Only the query itself reached the API: no extra "title" request repeating the prompt.
    # (The SDK gives the CLI up to 5 s to exit after stdin closes, and it may retry the same
    # refused request meanwhile: same body, same endpoint.)
    requests = out["requests"]
    assert requests and all(r["path"].startswith("/v1/messages") for r in requests)
    assert len({r["sha"] for r in requests}) == 1, requests
