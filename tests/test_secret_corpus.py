"""The secret corpus: 81 formats × random draws must leak nothing, in the scanner alone, in
JSON values, in every exported file and in `git log -p --all` of the export branch; and every
cut of a secret by a peek or search window hides the part the window holds.

Counts of formats × draws tried and leaked at scale: benchmarks/secret_corpus.py.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

from helpers import error_code, ok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from secret_formats import DEV, HELD_OUT, pieces
from test_export import make_repo, tree_files

from rlm_recursive.export.secrets import redact_file, redact_text

FORMATS = DEV + HELD_OUT
_MARK = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def _leaks(secret: str, text: str) -> list[str]:
    return [p for p in pieces(secret) if p in text]


def test_the_corpus_has_at_least_fifty_formats():
    assert len(DEV) >= 50 and len(HELD_OUT) >= 20
    assert len({name for name, _ in FORMATS}) == len(FORMATS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64))
def test_every_format_is_fully_redacted_in_text_and_in_json(seed):
    rng = random.Random(seed)
    for name, make in FORMATS:
        text, secret = make(rng)
        clean, count = redact_text(f"notes before\n{text}\nnotes after")
        assert count >= 1 and not _leaks(secret, clean), (name, text, clean)
        line = json.dumps({"op": "rlm_artifact_store", "input": {"content": {"note": text}}},
                          ensure_ascii=False)
        clean, _ = redact_file("traces/trace.jsonl", line)
        assert not _leaks(secret, clean), (name, clean)
        json.loads(clean)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


async def _leaky_session(runtime, write, rng: random.Random) -> tuple[str, list[str]]:
    """Every format in a document, an inline document, artifacts, traces and session config."""
    drawn = [(name, *make(rng)) for name, make in FORMATS]
    secrets = [secret for _, _, secret in drawn]
    name_text, name_secret = DEV[0][1](rng)
    hint_text, hint_secret = DEV[14][1](rng)
    secrets += [name_secret, hint_secret]
    sid = ok(await runtime.call("rlm_session_create", {
        "name": f"deploy notes {name_text}",
        "model_hints": {"root_model": f"llama3 {hint_text}"}}))["session_id"]
    body = "\n\n".join(f"## {name}\n{text}" for name, text, _ in drawn) + "\n"
    write("leaky/notes.md", body)
    half = len(drawn) // 2
    inline = "\n".join(text for _, text, _ in drawn[half:])
    ok(await runtime.call("rlm_docs_load", {"session_id": sid, "sources": [
        {"type": "file", "path": "leaky/notes.md"},
        {"type": "inline", "name": "pasted", "content": inline}]}))
    docs = ok(await runtime.call("rlm_docs_list", {"session_id": sid}))["documents"]
    for name, text, _ in drawn:
        ok(await runtime.call("rlm_artifact_store", {
            "session_id": sid, "type": "extraction", "content": {"format": name, "note": text}}))
    for doc in docs:  # peeks and searches put excerpts into the traces
        for start in range(0, doc["length_chars"], 150):
            ok(await runtime.call("rlm_docs_peek", {"session_id": sid, "doc_id": doc["doc_id"],
                                                    "start": start, "end": start + 150}))
    for word in ("password", "token", "secret", "key", "Authorization"):
        ok(await runtime.call("rlm_search_query", {"session_id": sid, "query": word,
                                                   "method": "literal", "limit": 50}))
    return sid, secrets


async def test_exported_files_and_git_history_hold_no_secret(runtime, write, tmp_path):
    repo = make_repo(tmp_path / "repo")
    leaked, tried = [], 0
    for draw in range(2):
        sid, secrets = await _leaky_session(runtime, write, random.Random(1000 + draw))
        refused = await runtime.call("rlm_export_github", {
            "session_id": sid, "repo": str(repo), "include_docs": True})
        assert error_code(refused) == "secrets_found"
        for include_docs in (True, False):
            out = ok(await runtime.call("rlm_export_github", {
                "session_id": sid, "repo": str(repo), "include_docs": include_docs,
                "redact": True, "path": f".rlm/draw{draw}{include_docs}",
                "branch": f"rlm/test/draw{draw}-{include_docs}"}))
            files = [f for f in tree_files(repo, out["branch"]) if f.startswith(".rlm/")]
            assert any(f.endswith("traces/trace.jsonl") for f in files)
            exported = "\n".join(_git(repo, "show", f"{out['branch']}:{f}") for f in files)
            for secret in secrets:
                tried += 1
                leaked += [(draw, include_docs, p) for p in _leaks(secret, exported)]
    history = _git(repo, "log", "-p", "--all")
    for secret in secrets:
        leaked += [("history", p) for p in _leaks(secret, history)]
    assert tried == 2 * 2 * (len(FORMATS) + 2)
    assert leaked == []


def _visible_positions(excerpt: str, start: int, doc: str) -> set[int]:
    """Document offsets of the characters an exported excerpt still shows."""
    excerpt = re.sub(r"… \(\d+ chars\)$", "", excerpt)  # a trace summary's cut mark
    shown, pos = set(), start
    for index, part in enumerate(_MARK.split(excerpt)):
        if not part:
            continue
        at = start if index == 0 else doc.find(part, pos)
        assert doc[at:at + len(part)] == part, (excerpt, start)
        shown.update(range(at, at + len(part)))
        pos = at + len(part)
    return shown


async def test_every_cut_of_a_secret_by_a_window_hides_its_part(runtime, write, tmp_path):
    session = ok(await runtime.call("rlm_session_create", {"max_tool_calls": 5000}))[
        "session_id"]
    rng = random.Random(7)
    planted: list[tuple[int, int]] = []
    doc = ""
    chosen = [f for f in DEV if f[0] in {"github-pat", "google-api-key", "gitlab-pat",
                                          "telegram-bot-token", "hex-signing-secret-env",
                                          "password-two-words", "postgres-url", "jwt"}]
    for number, (_, make) in enumerate(chosen):
        text, secret = make(rng)
        doc += f"before{number} filler filler\n"
        at = len(doc) + text.index(secret)
        planted.append((at, at + len(secret)))
        doc += f"{text}\nafter{number} filler filler\n"
    write("cut.txt", doc)
    loaded = ok(await runtime.call("rlm_docs_load", {
        "session_id": session, "sources": [{"type": "file", "path": "cut.txt"}]}))
    doc_id = loaded["loaded"][0]["doc_id"]
    windows = 0
    for number, (start, end) in enumerate(planted):
        for cut in range(start + 1, end):
            for lo, hi in ((max(cut - 60, 0), cut), (cut, cut + 60)):
                ok(await runtime.call("rlm_docs_peek", {"session_id": session,
                                                        "doc_id": doc_id, "start": lo,
                                                        "end": hi}))
                windows += 1
        for cut in range(start + 1, end, 3):  # search windows: context stops at the cut
            before = doc.index(f"before{number}")
            word_end = before + len(f"before{number}")
            if cut - word_end <= 150:
                ok(await runtime.call("rlm_search_query", {
                    "session_id": session, "query": f"before{number}", "method": "literal",
                    "context_chars": cut - word_end}))
                windows += 1
            after = doc.index(f"after{number}")
            if after - cut <= 150:
                ok(await runtime.call("rlm_search_query", {
                    "session_id": session, "query": f"after{number}", "method": "literal",
                    "context_chars": after - cut}))
                windows += 1
    repo = make_repo(tmp_path / "repo")
    refused = await runtime.call("rlm_export_github", {"session_id": session, "repo": str(repo),
                                                       "include_docs": True})
    assert error_code(refused) == "secrets_found"
    out = ok(await runtime.call("rlm_export_github", {
        "session_id": session, "repo": str(repo), "include_docs": True, "redact": True}))
    trace = _git(repo, "show", f"{out['branch']}:{out['export_path']}/traces/trace.jsonl")
    secret_positions = {p for s, e in planted for p in range(s, e)}
    checked = shown_secret = 0
    for line in trace.splitlines():
        record = json.loads(line)
        excerpts = []
        if record["op"] == "rlm_docs_peek":
            excerpts.append((record["output"]["content"], record["output"]["span"]["start"]))
        elif record["op"] == "rlm_search_query":
            excerpts += [(m["context"], m["context_span"]["start"])
                         for m in record["output"]["matches"]]
        for excerpt, start in excerpts:
            checked += 1
            shown_secret += len(_visible_positions(excerpt, start, doc) & secret_positions)
    assert windows >= 600 and checked >= windows
    assert shown_secret == 0


async def test_default_export_carries_no_document_text(runtime, session, write, tmp_path):
    sentence = "The north valve was replaced on the third of March by the night crew."
    write("plain.txt", f"{sentence}\n" * 3)
    ok(await runtime.call("rlm_docs_load", {"session_id": session, "sources": [
        {"type": "file", "path": "plain.txt"},
        {"type": "inline", "name": "memo", "content": "Inline memo: " + sentence}]}))
    doc_id = ok(await runtime.call("rlm_docs_list", {"session_id": session}))[
        "documents"][0]["doc_id"]
    ok(await runtime.call("rlm_docs_peek", {"session_id": session, "doc_id": doc_id,
                                            "start": 0, "end": 40}))
    ok(await runtime.call("rlm_search_query", {"session_id": session, "query": "valve",
                                               "method": "literal"}))
    repo = make_repo(tmp_path / "repo")
    out = ok(await runtime.call("rlm_export_github", {"session_id": session, "repo": str(repo)}))
    files = [f for f in tree_files(repo, out["branch"]) if f.startswith(out["export_path"])]
    exported = "\n".join(_git(repo, "show", f"{out['branch']}:{f}") for f in files)
    assert "document text omitted" in exported
    for piece in (sentence[:30], sentence[20:50], "north valve"):
        assert piece not in exported
    out = ok(await runtime.call("rlm_export_github", {
        "session_id": session, "repo": str(repo), "include_docs": True,
        "branch": "rlm/test/with-docs", "path": ".rlm/with-docs"}))
    trace = _git(repo, "show", f"{out['branch']}:.rlm/with-docs/traces/trace.jsonl")
    assert "north valve" in trace


async def test_a_session_with_only_unclassified_secrets_never_exports_silently(
        runtime, session, tmp_path):
    # No rule knows this value: the line that names a password is a suspect.
    ok(await runtime.call("rlm_artifact_store", {
        "session_id": session, "content": "vault password kept in the blue binder: "
                                          "plumtreeorchard"}))
    repo = make_repo(tmp_path / "repo")
    refused = await runtime.call("rlm_export_github", {"session_id": session,
                                                       "repo": str(repo)})
    assert error_code(refused) == "secrets_found"
    details = refused.output["meta"]["details"]
    assert details["suspects_only"] is True
    assert {loc["confidence"] for loc in details["locations"]} == {"suspect"}
    out = ok(await runtime.call("rlm_export_github", {"session_id": session, "repo": str(repo),
                                                      "allow_suspects": True}))
    assert any("possible secrets" in w and "exported unredacted" in w for w in out["warnings"])
    out = ok(await runtime.call("rlm_export_github", {
        "session_id": session, "repo": str(repo), "redact": True,
        "branch": "rlm/test/redacted", "path": ".rlm/redacted"}))
    assert any("review them" in w for w in out["warnings"])


def test_redaction_is_idempotent_and_keeps_checksums_and_ids():
    digest = "ab" * 32
    text = (f'checksum sha256:{digest} doc_0123456789ab "content_hash": "{digest}"\n'
            f'password = "[REDACTED:secret_assignment]"')
    assert redact_text(text) == (text, 0)
    content = json.dumps({"content_hash": digest, "checksum": f"sha256:{digest}",
                          "doc_id": "doc_0123456789ab"})
    assert redact_file("manifest.json", content) == (content, 0)
    # Hex next to a secret word is a secret, whatever its shape.
    assert redact_text(f"webhook signing key {digest}")[1] == 1
