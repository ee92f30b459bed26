"""Secret scanning before export: every seed pattern and a corpus of realistic FAKE keys is
blocked by default and redacted with redact=true; checksums, uuids and ids are not secrets.

The keys are built at run time from a seeded generator: nothing real-looking is committed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from pathlib import Path

import pytest
from helpers import error_code, ok
from test_export import git, make_repo, show, snapshot, tree_files

from rlm_recursive.export.secrets import find_secrets, redact_text, scan_file

RNG = random.Random(20260114)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def pem(label: str) -> str:
    body = "\n".join(base64.b64encode(RNG.randbytes(48)).decode() for _ in range(6))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def jwt() -> str:
    head = b64url({"alg": "HS256", "typ": "JWT"})
    claims = b64url({"sub": rand(10), "iat": RNG.randint(1_600_000_000, 1_800_000_000)})
    return f"{head}.{claims}.{base64.urlsafe_b64encode(RNG.randbytes(32)).decode().rstrip('=')}"


def fake_keys() -> dict[str, str]:
    """>= 30 realistic fake credentials of the families the issue names, labelled."""
    keys: dict[str, str] = {}
    for i in range(3):
        keys[f"aws_id_{i}"] = "AKIA" + rand(16, UPPER)
    keys["aws_sts"] = "ASIA" + rand(16, UPPER)
    for i in range(2):
        keys[f"aws_secret_{i}"] = rand(40, ALNUM + "+/")
    for i in range(3):
        keys[f"github_pat_{i}"] = "ghp_" + rand(36)
    keys["github_oauth"] = "gho_" + rand(36)
    keys["github_user"] = "ghu_" + rand(36)
    keys["github_server"] = "ghs_" + rand(36)
    for i in range(2):
        keys[f"github_fine_{i}"] = "github_pat_" + rand(22) + "_" + rand(59)
    for i in range(3):
        keys[f"anthropic_{i}"] = "sk-ant-api03-" + rand(93, ALNUM + "-_") + "AA"
    for i in range(2):
        keys[f"openai_project_{i}"] = "sk-proj-" + rand(156, ALNUM + "-_")
    for i in range(2):
        keys[f"openai_legacy_{i}"] = "sk-" + rand(20) + "T3BlbkFJ" + rand(20)
    keys["openai_plain"] = "sk-" + rand(48)
    for i in range(2):
        keys[f"slack_bot_{i}"] = (f"xoxb-{rand(11, string.digits)}-{rand(13, string.digits)}-"
                                  f"{rand(24, string.ascii_lowercase + string.digits)}")
    keys["slack_user"] = (f"xoxp-{rand(11, string.digits)}-{rand(11, string.digits)}-"
                          f"{rand(12, string.digits)}-{rand(32, 'abcdef0123456789')}")
    keys["slack_webhook"] = (f"https://hooks.slack.com/services/T{rand(8, UPPER)}/"
                             f"B{rand(10, UPPER)}/{rand(24)}")
    for i in range(2):
        keys[f"stripe_live_{i}"] = "sk_live_" + rand(24)
    keys["stripe_restricted"] = "rk_live_" + rand(24)
    keys["stripe_test"] = "sk_test_" + rand(24)
    for label in ("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"):
        keys[f"pem_{label.split()[0].lower()}"] = pem(label)
    for i in range(3):
        keys[f"jwt_{i}"] = jwt()
    return keys


def seed_samples() -> dict[str, str]:
    """One sample per Appendix C pattern, in the context the pattern expects."""
    return {
        "API Key": f"api_key = \"{rand(24)}\"",
        "Secret/Password": f"password: {rand(14)}",
        "OpenAI API Key": f"sk-{rand(24)}",
        "Anthropic API Key": f"sk-ant-{rand(24)}",
        "GitHub PAT": f"ghp_{rand(36)}",
        "GitHub OAuth": f"gho_{rand(36)}",
        "Private Key": pem("RSA PRIVATE KEY"),
        "Bearer Token": f"Authorization: Bearer {rand(32, ALNUM + '._-')}",
    }


KEYS = fake_keys()
SEEDS = seed_samples()


def _context(label: str, key: str) -> str:
    """How a key shows up in real text (AWS secrets are found by their variable name)."""
    if label.startswith("aws_secret"):
        return f'aws_secret_access_key = "{key}"'
    return f"found in the deploy config: {key}"


def fragments(secret: str) -> list[str]:
    """Pieces of a secret that must not survive: the whole, its random parts, PEM lines."""
    if "-----BEGIN" in secret:
        return [line for line in secret.splitlines() if not line.startswith("-----")]
    if secret.startswith("https://hooks.slack.com"):
        return [secret.rsplit("/", 1)[1]]
    return [secret, secret[-16:], secret[len(secret) // 2 - 8: len(secret) // 2 + 8]]


# -- the scanner alone -------------------------------------------------------------------------


def test_corpus_is_large_enough_and_covers_every_family():
    assert len(KEYS) >= 30
    families = {"aws", "github", "anthropic", "openai", "slack", "stripe", "pem", "jwt"}
    assert families <= {label.split("_")[0] for label in KEYS}
    assert len(SEEDS) == 8  # one per pattern of seed 000 Appendix C


@pytest.mark.parametrize("kind", list(SEEDS))
def test_every_seed_pattern_is_detected_and_redacted(kind):
    text = f"notes before\n{SEEDS[kind]}\nnotes after"
    assert find_secrets(text), kind
    clean, count = redact_text(text)
    assert count >= 1 and "[REDACTED:" in clean
    assert clean.startswith("notes before\n") and clean.endswith("\nnotes after")
    for piece in fragments(SEEDS[kind].split()[-1] if kind != "Private Key" else SEEDS[kind]):
        assert piece.strip('"') not in clean, kind


@pytest.mark.parametrize("label", list(KEYS))
def test_every_fake_key_is_detected_and_fully_redacted(label):
    text = _context(label, KEYS[label])
    assert find_secrets(text), label
    clean, _ = redact_text(text)
    for piece in fragments(KEYS[label]):
        assert piece not in clean, (label, clean)


def test_redaction_keeps_labels_and_json_valid():
    clean, count = redact_text("password = hunter2hunter2 and token: abcdefgh1234")
    assert clean == ("password = [REDACTED:secret_assignment] and token: "
                     "[REDACTED:secret_assignment]") and count == 2
    findings = scan_file("a.json", json.dumps({"note": 'say "hi"\n' + KEYS["jwt_0"]}))
    assert [(f.file, f.line, f.kind) for f in findings] == [("a.json", 1, "json_web_token")]


def test_no_false_positives_on_checksums_uuids_and_ids():
    lines = []
    for i in range(300):
        digest = hashlib.sha256(f"doc {i}".encode()).hexdigest()
        lines += [digest, f"sha256:{digest}", f'"content_hash": "{digest}"', str(uuid.uuid4()),
                  f'"{uuid.uuid4()}"', f"doc_{RNG.randbytes(6).hex()}",
                  f"spn_{RNG.randbytes(6).hex()} art_{RNG.randbytes(6).hex()}",
                  f"ses_{RNG.randbytes(6).hex()}", hashlib.sha1(digest.encode()).hexdigest(),
                  "2026-11-23T05:50:07.123+00:00", "rlm/session/20260114T083210Z-abc12345"]
        # The export's own names: stamp and id prefix vary (about 1 in 500 once passed the
        # entropy limit and refused a clean export).
        stamp = f"2026{RNG.randrange(10**4):04d}T{RNG.randrange(10**6):06d}Z"
        short = RNG.randbytes(4).hex()
        lines += [f"rlm/session/{stamp}-{short}", f".rlm/sessions/{stamp}_{short}/manifest.json",
                  f".rlm/sessions/{stamp}_{short}/artifacts/art_{RNG.randbytes(6).hex()}.json"]
    text = "\n".join(lines)
    assert find_secrets(text) == []
    assert scan_file("manifest.json", json.dumps({"items": lines}, indent=2)) == []


# -- the export, end to end ------------------------------------------------------------------


async def _secret_session(runtime, write) -> tuple[str, str]:
    """A session whose artifacts, traces and document hold every key and seed sample."""
    sid = ok(await runtime.call("rlm_session_create", {"name": "leaky"}))["session_id"]
    everything = {**KEYS, **{f"seed {k}": v for k, v in SEEDS.items()}}
    write("leaky/config.txt", "\n\n".join(_context(k, v) for k, v in everything.items()) + "\n")
    loaded = ok(await runtime.call("rlm_docs_load", {
        "session_id": sid, "sources": [{"type": "file", "path": "leaky/config.txt"}]}))
    for label, key in everything.items():
        ok(await runtime.call("rlm_artifact_store", {
            "session_id": sid, "type": "extraction", "content": {"label": label,
                                                                 "text": _context(label, key)}}))
    return sid, loaded["loaded"][0]["doc_id"]


def _every_secret() -> list[tuple[str, str]]:
    return [(label, piece) for label, key in {**KEYS, **SEEDS}.items()
            for piece in fragments(key if not key.startswith(("api_key", "password", "Author"))
                                   else key.split()[-1].strip('"'))]


async def test_export_is_refused_by_default_and_nothing_is_written(runtime, write, tmp_path):
    repo = make_repo(tmp_path / "repo")
    sid, _ = await _secret_session(runtime, write)
    before = snapshot(repo)
    objects = git(repo, "count-objects", "-v")
    result = await runtime.call("rlm_export_github",
                                {"session_id": sid, "repo": str(repo), "include_docs": True})
    assert error_code(result) == "secrets_found"
    details = result.output["meta"]["details"]
    assert details["count"] >= len(KEYS) + len(SEEDS)
    for location in details["locations"]:
        assert set(location) == {"file", "line", "kind", "confidence"} and location["line"] >= 1
        assert location["file"].startswith(".rlm/sessions/")
    files = {loc["file"].rsplit("/", 2)[-2] for loc in details["locations"]}
    assert {"artifacts", "traces", "docs"} <= files
    # The error never carries a secret, and nothing reached the repository: no ref, no object.
    rendered = json.dumps(result.output)
    for label, piece in _every_secret():
        assert piece not in rendered, label
    assert snapshot(repo) == before
    assert git(repo, "count-objects", "-v") == objects
    assert git(repo, "branch", "--list", "rlm/*") == ""
    info = ok(await runtime.call("rlm_session_info", {"session_id": sid}))
    assert info["status"] == "active"


async def test_redact_exports_zero_secrets(runtime, write, tmp_path):
    repo = make_repo(tmp_path / "repo")
    sid, doc_id = await _secret_session(runtime, write)
    out = ok(await runtime.call("rlm_export_github", {
        "session_id": sid, "repo": str(repo), "include_docs": True, "redact": True}))
    assert out["secrets_found"] >= len(KEYS) + len(SEEDS)
    prefix = out["export_path"]
    exported = {f: show(repo, out["branch"], f) for f in tree_files(repo, out["branch"])
                if f.startswith(prefix)}
    assert {f"{prefix}/docs/{doc_id}.txt", f"{prefix}/traces/trace.jsonl"} <= set(exported)
    blob = "\n".join(exported.values()) + git(repo, "log", "--format=%B", out["branch"])
    for label, piece in _every_secret():
        assert piece not in blob, label
    for name, content in exported.items():
        # Labels such as "seed API Key" name a secret: suspects, reported as warnings.
        assert [f for f in scan_file(name, content) if f.kind != "secret_mention"] == [], name
        if name.endswith(".json"):
            json.loads(content)
        elif name.endswith(".jsonl"):
            [json.loads(line) for line in content.splitlines()]
    assert blob.count("[REDACTED:") >= out["secrets_found"]
    kinds = {k for k in ("aws_access_key", "private_key", "json_web_token", "slack_token",
                         "stripe_key", "anthropic_api_key", "openai_api_key")
             if f"[REDACTED:{k}]" in blob}
    assert len(kinds) == 7, kinds
    # The rest of the session survives redaction.
    manifest = json.loads(exported[f"{prefix}/manifest.json"])
    assert manifest["session"]["name"] == "leaky"
    assert manifest["documents"][0]["doc_id"] == doc_id


async def test_clean_session_with_checksums_exports_without_findings(runtime, write, tmp_path):
    repo = make_repo(tmp_path / "repo")
    sid = ok(await runtime.call("rlm_session_create", {}))["session_id"]
    rows = "\n".join(f"{uuid.uuid4()},{hashlib.sha256(bytes([i])).hexdigest()},doc_{i:012x}"
                     for i in range(200))
    write("table.csv", "id,sha256,doc\n" + rows + "\n")
    loaded = ok(await runtime.call("rlm_docs_load", {
        "session_id": sid, "sources": [{"type": "file", "path": "table.csv"}]}))
    doc = loaded["loaded"][0]
    ok(await runtime.call("rlm_artifact_store", {
        "session_id": sid, "content": {"checksum": f"sha256:{doc['content_hash']}",
                                       "uuid": str(uuid.uuid4()), "doc_id": doc["doc_id"]},
        "doc_id": doc["doc_id"], "start": 0, "end": 40}))
    out = ok(await runtime.call("rlm_export_github", {
        "session_id": sid, "repo": str(repo), "include_docs": True}))
    assert out["secrets_found"] == 0
    assert f"{out['export_path']}/docs/{doc['doc_id']}.txt" in tree_files(repo, out["branch"])


def test_cli_prints_locations_never_secrets(tmp_path: Path, data_dir):
    import asyncio

    from typer.testing import CliRunner

    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.cli.app import app

    repo = make_repo(tmp_path / "repo")

    async def setup() -> str:
        rt = Runtime(data_dir, "unrestricted")
        try:
            sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
            ok(await rt.call("rlm_artifact_store", {"session_id": sid,
                                                    "content": KEYS["anthropic_0"]}))
            return sid
        finally:
            rt.close()

    sid = asyncio.run(setup())
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "export", sid, "--repo",
                                      str(repo)])
    assert result.exit_code == 1
    assert "error[secrets_found]" in result.stderr and "anthropic_api_key" in result.stderr
    assert "/artifacts/art_" in result.stderr
    assert KEYS["anthropic_0"][-16:] not in result.output + result.stderr


def test_cli_refuses_suspects_and_exports_them_with_allow_suspects(tmp_path: Path, data_dir):
    import asyncio

    from typer.testing import CliRunner

    from rlm_recursive.agent.runtime import Runtime
    from rlm_recursive.cli.app import app

    repo = make_repo(tmp_path / "repo")

    async def setup() -> str:
        rt = Runtime(data_dir, "unrestricted")
        try:
            sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
            # No rule knows this value: the line naming a password is a suspect.
            ok(await rt.call("rlm_artifact_store", {
                "session_id": sid, "content": "the admin password is on the blue card"}))
            return sid
        finally:
            rt.close()

    sid = asyncio.run(setup())
    base = ["--data-dir", str(data_dir), "export", sid, "--repo", str(repo)]
    refused = CliRunner().invoke(app, base)
    assert refused.exit_code == 1
    assert "secret_mention (suspect)" in refused.stderr and "allow_suspects" in refused.stderr
    done = CliRunner().invoke(app, [*base, "--allow-suspects"])
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())  # Rich wraps long lines
    assert "possible secrets" in said and "exported unredacted" in said
