"""Loaders: files, folders, globs and inline text; per-source errors; caps; token estimates."""

from __future__ import annotations

import math
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from helpers import error_code, ok

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source, load_sources
from rlm_recursive.policy import PathPolicy
from rlm_recursive.types import sha256_hex


async def _load(runtime: Runtime, session: str, *sources: dict[str, Any]) -> dict[str, Any]:
    return ok(
        await runtime.call("rlm_docs_load", {"session_id": session, "sources": list(sources)})
    )


def _names(out: dict[str, Any]) -> list[str]:
    return [Path(d["source"]).name for d in out["loaded"]]


def _errors(out: dict[str, Any]) -> dict[str, str]:
    return {Path(e["source"]).name: e["error_code"] for e in out["errors"]}


async def _doc_count(runtime: Runtime, session: str) -> int:
    return ok(await runtime.call("rlm_session_info", {"session_id": session}))["document_count"]


@pytest.fixture
def tree(write) -> Path:
    """docs/{a.md, b.txt, sub/c.md, sub/deeper/d.md}."""
    write("docs/a.md", "# A\nalpha\n")
    write("docs/b.txt", "bravo text\n")
    write("docs/sub/c.md", "charlie ü\n")
    write("docs/sub/deeper/d.md", "delta 😀\n")
    return Path("docs")


async def test_file_source(runtime: Runtime, session: str, write, tmp_path: Path) -> None:
    text = "Grüße\r\nzweite Zeile 😀\n"
    write("one.txt", text)
    out = await _load(runtime, session, {"type": "file", "path": "one.txt"})
    assert out["errors"] == []
    (doc,) = out["loaded"]
    assert doc["source"] == str((tmp_path / "one.txt").resolve())
    assert doc["length_chars"] == len(text)
    assert doc["content_hash"] == sha256_hex(text.encode("utf-8"))
    assert out["total_chars"] == len(text)
    assert out["total_tokens_est"] == doc["length_tokens_est"]
    peek = ok(await runtime.call("rlm_docs_peek", {"session_id": session, "doc_id": doc["doc_id"]}))
    assert peek["content"] == text
    assert peek["total_length"] == len(text)


async def test_directory_not_recursive(runtime: Runtime, session: str, tree: Path) -> None:
    out = await _load(runtime, session, {"type": "directory", "path": str(tree)})
    assert _names(out) == ["a.md", "b.txt"]
    assert out["errors"] == []


async def test_directory_recursive(runtime: Runtime, session: str, tree: Path) -> None:
    out = await _load(runtime, session, {"type": "directory", "path": "docs", "recursive": True})
    assert _names(out) == ["a.md", "b.txt", "c.md", "d.md"]
    assert out["total_chars"] == sum(d["length_chars"] for d in out["loaded"])
    assert await _doc_count(runtime, session) == 4


async def test_directory_include_and_exclude(runtime: Runtime, session: str, tree: Path) -> None:
    only_md = await _load(
        runtime,
        session,
        {"type": "directory", "path": "docs", "recursive": True, "include_pattern": "*.md"},
    )
    assert _names(only_md) == ["a.md", "c.md", "d.md"]
    no_sub = await _load(
        runtime,
        session,
        {"type": "directory", "path": "docs", "recursive": True, "exclude_pattern": "sub"},
    )
    assert _names(no_sub) == ["a.md", "b.txt"]
    both = await _load(
        runtime,
        session,
        {
            "type": "directory",
            "path": "docs",
            "recursive": True,
            "include_pattern": "*.md",
            "exclude_pattern": "deeper",
        },
    )
    assert _names(both) == ["a.md", "c.md"]


async def test_glob_source(runtime: Runtime, session: str, tree: Path) -> None:
    out = await _load(runtime, session, {"type": "glob", "path": "docs/**/*.md"})
    assert _names(out) == ["a.md", "c.md", "d.md"]
    assert out["errors"] == []
    flat = await _load(runtime, session, {"type": "glob", "path": "docs/*"})
    # The folder `docs/sub` matches `docs/*` too: a glob loads files and skips folders.
    assert _names(flat) == ["a.md", "b.txt"]
    assert flat["errors"] == []


async def test_glob_without_match_is_a_per_source_error(
    runtime: Runtime, session: str, tree: Path
) -> None:
    out = await _load(
        runtime,
        session,
        {"type": "glob", "path": "docs/*.nothing"},
        {"type": "file", "path": "docs/a.md"},
    )
    assert _names(out) == ["a.md"]
    assert [(e["source"], e["error_code"]) for e in out["errors"]] == [
        ("docs/*.nothing", "file_not_found")
    ]


async def test_inline_source(runtime: Runtime, session: str) -> None:
    text = "inline — text 😀"
    out = await _load(
        runtime,
        session,
        {"type": "inline", "content": text, "name": "note"},
        {"type": "inline", "content": "second"},
    )
    first, second = out["loaded"]
    assert first["source"] == "inline:note"
    assert second["source"].startswith("inline:")
    assert first["length_chars"] == len(text)
    assert first["content_hash"] == sha256_hex(text.encode("utf-8"))
    peek = ok(
        await runtime.call("rlm_docs_peek", {"session_id": session, "doc_id": first["doc_id"]})
    )
    assert peek["content"] == text


async def test_binary_is_a_per_source_error_and_latin1_is_decoded(
    runtime: Runtime, session: str, write
) -> None:
    write("mixed/good.txt", "good text\n")
    write("mixed/image.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write("mixed/latin1.txt", "Le café et la crème brûlée sont prêts à être servis.".encode(
        "latin-1"))
    write("mixed/z_last.txt", "also good\n")
    out = await _load(runtime, session, {"type": "directory", "path": "mixed"})
    assert _names(out) == ["good.txt", "latin1.txt", "z_last.txt"]
    assert _errors(out) == {"image.bin": "unsupported_file"}
    assert all(e["message"] for e in out["errors"])
    latin = next(d for d in out["loaded"] if d["source"].endswith("latin1.txt"))
    assert latin["encoding"] in {"latin_1", "iso8859_1", "cp1252", "iso8859_15"}
    peek = ok(await runtime.call("rlm_docs_peek", {"session_id": session,
                                                   "doc_id": latin["doc_id"]}))
    assert "crème brûlée" in peek["content"]
    assert await _doc_count(runtime, session) == 3


async def test_missing_file_is_a_per_source_error(runtime: Runtime, session: str, write) -> None:
    write("here.txt", "present")
    out = await _load(
        runtime,
        session,
        {"type": "file", "path": "missing.txt"},
        {"type": "directory", "path": "no-such-dir"},
        {"type": "file", "path": "here.txt"},
    )
    assert _names(out) == ["here.txt"]
    assert [e["error_code"] for e in out["errors"]] == ["file_not_found", "file_not_found"]
    assert "missing.txt" in out["errors"][0]["message"]


async def test_denied_path_is_a_per_source_error(runtime: Runtime, session: str, write) -> None:
    write("secrets/.env", "API_KEY=x")
    write("secrets/readme.txt", "fine")
    out = await _load(
        runtime,
        session,
        {"type": "file", "path": "secrets/.env"},
        {"type": "directory", "path": "secrets"},
    )
    assert _names(out) == ["readme.txt"]
    assert {e["error_code"] for e in out["errors"]} == {"path_denied"}


async def test_folder_given_as_file(runtime: Runtime, session: str, tree: Path) -> None:
    out = await _load(runtime, session, {"type": "file", "path": "docs"})
    assert out["loaded"] == []
    assert [e["error_code"] for e in out["errors"]] == ["unsupported_file"]


def _session_with(runtime: Runtime, **limits: int) -> str:
    return runtime.store.create_session("capped", SessionConfig(**limits))["session_id"]


async def test_per_file_cap(runtime: Runtime, write) -> None:
    sid = _session_with(runtime, max_file_bytes=10)
    write("d/small.txt", "0123456789")  # exactly the cap
    write("d/big.txt", "0123456789X")
    out = await _load(
        runtime,
        sid,
        {"type": "directory", "path": "d"},
        {"type": "file", "path": "d/big.txt"},
        {"type": "glob", "path": "d/*.txt"},
    )
    assert _names(out) == ["small.txt", "small.txt"]
    assert [(Path(e["source"]).name, e["error_code"]) for e in out["errors"]] == [
        ("big.txt", "file_too_large"),
        ("big.txt", "file_too_large"),
        ("big.txt", "file_too_large"),
    ]


async def test_per_load_cap(runtime: Runtime, write) -> None:
    sid = _session_with(runtime, max_load_bytes=25)
    for name in ("a.txt", "b.txt", "c.txt"):
        write(f"d/{name}", "x" * 10)
    out = await _load(runtime, sid, {"type": "directory", "path": "d"})
    assert _names(out) == ["a.txt", "b.txt"]
    assert _errors(out) == {"c.txt": "file_too_large"}
    # The cap is per load call, and counts inline text too.
    again = await _load(
        runtime,
        sid,
        {"type": "inline", "content": "y" * 20, "name": "fits"},
        {"type": "inline", "content": "z" * 6, "name": "over"},
    )
    assert [d["source"] for d in again["loaded"]] == ["inline:fits"]
    assert [(e["source"], e["error_code"]) for e in again["errors"]] == [
        ("inline:over", "file_too_large")
    ]


async def test_profile_cap_is_not_raised_by_the_session(runtime: Runtime, write) -> None:
    # The session allows 64 MiB per file, the path policy (profile) 10 bytes: the lower wins.
    store = runtime.store
    sid = store.create_session(None, SessionConfig())["session_id"]
    write("d/ok.txt", "0123456789")
    write("d/big.txt", "0123456789X")
    policy = PathPolicy(allowed_roots=[Path.cwd()], max_bytes=10)
    report = load_sources(
        store,
        sid,
        [
            Source(type="file", path="d/big.txt"),
            Source(type="directory", path="d"),
            Source(type="glob", path="d/*.txt"),
        ],
        policy,
        store.session_config(sid),
    ).to_dict()
    assert [Path(d["source"]).name for d in report["loaded"]] == ["ok.txt", "ok.txt"]
    assert [e["error_code"] for e in report["errors"]] == ["file_too_large"] * 3


@pytest.mark.parametrize("text", ["", "a", "abcd", "abcde", "日本語", "x" * 4001, "😀" * 9])
async def test_tokens_estimate_is_ceil_chars_over_four(
    runtime: Runtime, session: str, write, text: str
) -> None:
    write("t.txt", text)
    out = await _load(
        runtime, session, {"type": "file", "path": "t.txt"}, {"type": "inline", "content": text}
    )
    for doc in out["loaded"]:
        assert doc["length_chars"] == len(text)
        assert doc["length_tokens_est"] == math.ceil(len(text) / 4)
    assert out["total_tokens_est"] == 2 * math.ceil(len(text) / 4)


async def test_count_hint_overrides_the_estimate(runtime: Runtime, session: str, write) -> None:
    write("h.txt", "some words here")
    out = await _load(
        runtime,
        session,
        {"type": "file", "path": "h.txt", "token_count_hint": 123},
        {"type": "inline", "content": "abc", "token_count_hint": 0},
        {"type": "directory", "path": ".", "include_pattern": "h.txt", "token_count_hint": 7},
    )
    assert [d["length_tokens_est"] for d in out["loaded"]] == [123, 0, 7]
    info = ok(await runtime.call("rlm_session_info", {"session_id": session}))
    assert info["total_tokens_est"] == 130


async def test_progress_reports_each_file(runtime: Runtime, session: str, tree: Path) -> None:
    seen: list[tuple[Any, str]] = []
    ctx = runtime.context(session, progress=lambda counts, label: seen.append((counts, label)))
    result = await runtime.call(
        "rlm_docs_load",
        {"sources": [{"type": "directory", "path": "docs", "recursive": True}]},
        ctx,
    )
    loaded = ok(result)["loaded"]
    # Running totals: files one by one, bytes of the raw files read so far.
    assert [label for _, label in seen] == [d["source"] for d in loaded]
    assert [counts.files for counts, _ in seen] == list(range(1, len(loaded) + 1))
    sizes = [Path(d["source"]).stat().st_size for d in loaded]
    assert [counts.bytes for counts, _ in seen] == list(accumulate(sizes))


@pytest.mark.parametrize(
    "sources",
    [
        [],
        [{"type": "inline"}],  # no content
        [{"type": "file"}],  # no path
        [{"type": "url", "path": "x"}],
        [{"type": "file", "path": "a", "color": "red"}],
        [{"type": "inline", "content": "x", "token_count_hint": -1}],
        "not a list",
    ],
)
async def test_invalid_sources(runtime: Runtime, session: str, sources: Any) -> None:
    result = await runtime.call("rlm_docs_load", {"session_id": session, "sources": sources})
    assert error_code(result) == "invalid_args"
    assert await _doc_count(runtime, session) == 0


async def test_load_into_unknown_session(runtime: Runtime) -> None:
    result = await runtime.call(
        "rlm_docs_load",
        {"session_id": "ses_000000000000", "sources": [{"type": "inline", "content": "x"}]},
    )
    assert error_code(result) == "not_found"


async def test_store_stays_usable_after_every_bad_input(
    runtime: Runtime, session: str, write
) -> None:
    write("bad/nul.bin", b"abc\x00def")
    write("bad/latin.txt", b"\xff\xfe\xfa")
    write("good.txt", "still works")
    bad_calls: list[Any] = [
        [{"type": "file", "path": "nope.txt"}],
        [{"type": "directory", "path": "bad"}],
        [{"type": "glob", "path": "nothing/*.md"}],
        [{"type": "inline", "content": "lone \ud800 surrogate"}],
        [{"type": "file", "path": "/dev/null"}],
        [{"type": "file", "path": "../../no-such-folder/x.txt"}],
        [{"type": "inline"}],
    ]
    for sources in bad_calls:
        result = await runtime.call("rlm_docs_load", {"session_id": session, "sources": sources})
        if not result.is_error:
            assert result.output["loaded"] == [], sources
            assert result.output["errors"], sources
        assert await _doc_count(runtime, session) == 0
    out = await _load(runtime, session, {"type": "file", "path": "good.txt"})
    assert _names(out) == ["good.txt"]
    assert await _doc_count(runtime, session) == 1
    search = ok(await runtime.call("rlm_search_query", {"session_id": session, "query": "works"}))
    assert [m["doc_id"] for m in search["matches"]] == [out["loaded"][0]["doc_id"]]


async def test_inline_lone_surrogate_is_unsupported(runtime: Runtime, session: str) -> None:
    out = await _load(
        runtime,
        session,
        {"type": "inline", "content": "bad \udcff", "name": "bad"},
        {"type": "inline", "content": "good", "name": "good"},
    )
    assert [d["source"] for d in out["loaded"]] == ["inline:good"]
    assert [(e["source"], e["error_code"]) for e in out["errors"]] == [
        ("inline:bad", "unsupported_file")
    ]


async def test_cwd_root_named_like_a_secret_can_be_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "tokenizer-project"
    project.mkdir()
    (project / "notes.txt").write_text("plain notes", encoding="utf-8")
    monkeypatch.chdir(project)
    rt = Runtime(tmp_path / "data2", "unrestricted")
    try:
        sid = ok(await rt.call("rlm_session_create", {}))["session_id"]
        out = await _load(rt, sid, {"type": "directory", "path": "."})
        assert _names(out) == ["notes.txt"]
    finally:
        rt.close()
