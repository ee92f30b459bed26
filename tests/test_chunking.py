"""Chunking: exact offsets for every strategy, the span cache, caps, and coverage properties."""

from __future__ import annotations

import re
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from helpers import error_code, ok
from hypothesis import given, settings
from hypothesis import strategies as st

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.corpus import chunking
from rlm_recursive.corpus.chunking import ChunkStrategy, chunk_ranges
from rlm_recursive.types import sha256_hex

# Multi-byte characters everywhere (2-, 3- and 4-byte UTF-8), CRLF line ends, a blank line with
# spaces, and no trailing newline: byte offsets and character offsets disagree all along.
NON_ASCII_CRLF = (
    "Ünïcödé heading — Überblick\r\n"
    "日本語の行です。二つ目の文。\r\n"
    "\r\n"
    "Emoji 😀 line; Ωmega ≠ omega.\r\n"
    "Zeile mit ß und œ.\r\n"
    "  \r\n"
    "Last paragraph: 🚀 launches at T-09. Fin.\r\n"
    "\r\n"
    "Tail without newline ✓"
)
LF_TEXT = (
    "première ligne\n"
    "deuxième ligne — avec tiret\n"
    "\n"
    "数据 third paragraph 😀\n"
    "fourth line. fifth sentence! sixth?\n"
)


async def _load(runtime: Runtime, session: str, path: Path) -> str:
    out = ok(
        await runtime.call(
            "rlm_docs_load",
            {"session_id": session, "sources": [{"type": "file", "path": path.name}]},
        )
    )
    assert out["errors"] == []
    return out["loaded"][0]["doc_id"]


@pytest.fixture(params=["crlf", "lf"])
async def doc(request, runtime: Runtime, session: str, write) -> tuple[str, str]:
    """(doc_id, text) where text is the file's bytes decoded as UTF-8."""
    raw = NON_ASCII_CRLF if request.param == "crlf" else LF_TEXT
    path = write(f"doc-{request.param}.txt", raw)
    text = path.read_bytes().decode("utf-8")
    assert ("\r\n" in text) == (request.param == "crlf")
    return await _load(runtime, session, path), text


async def _chunk(runtime: Runtime, session: str, doc_id: str, **args: Any) -> dict[str, Any]:
    return ok(
        await runtime.call("rlm_chunk_create", {"session_id": session, "doc_id": doc_id, **args})
    )


async def _check_spans_read_back(
    runtime: Runtime, session: str, doc_id: str, text: str, spans: list[dict[str, Any]]
) -> list[str]:
    """Every span's content via rlm_span_get and rlm_docs_peek equals the Python slice."""
    got = ok(
        await runtime.call(
            "rlm_span_get", {"session_id": session, "span_ids": [s["span_id"] for s in spans]}
        )
    )
    contents = []
    for listed, read in zip(spans, got["spans"], strict=True):
        start, end = listed["span"]["start"], listed["span"]["end"]
        assert listed["span"]["doc_id"] == doc_id
        assert read["span_id"] == listed["span_id"]
        assert read["content"] == text[start:end]
        assert read["truncated"] is False
        assert read["content_hash"] == listed["content_hash"]
        assert listed["content_hash"] == sha256_hex(text[start:end].encode("utf-8"))
        assert listed["length_chars"] == end - start
        assert listed["preview"] == text[start:end][:100]
        peek = ok(
            await runtime.call(
                "rlm_docs_peek",
                {"session_id": session, "doc_id": doc_id, "start": start, "end": end},
            )
        )
        assert peek["content"] == text[start:end]
        assert peek["span"] == {"doc_id": doc_id, "start": start, "end": end}
        contents.append(read["content"])
    assert [s["index"] for s in spans] == list(range(len(spans)))
    return contents


def _assert_covers(text: str, spans: list[dict[str, Any]]) -> None:
    ranges = [(s["span"]["start"], s["span"]["end"]) for s in spans]
    assert ranges[0][0] == 0
    assert ranges[-1][1] == len(text)
    for (s1, e1), (s2, e2) in pairwise(ranges):
        assert s1 < s2 <= e1 < e2


def _lines(text: str) -> list[str]:
    """Lines with their `\n` (a `\r` stays with its line); the last may lack one."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return lines + ([parts[-1]] if parts[-1] else [])


async def test_fixed_offsets_exact(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    out = await _chunk(runtime, session, doc_id, strategy="fixed", chunk_size=7)
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    assert contents == [text[i : i + 7] for i in range(0, len(text), 7)]
    assert out["total_spans"] == len(contents)
    assert out["cached"] is False
    assert out["truncated"] is False


async def test_fixed_with_overlap(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    out = await _chunk(runtime, session, doc_id, strategy="fixed", chunk_size=10, overlap=3)
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    _assert_covers(text, out["spans"])
    for prev, nxt in pairwise(contents):
        assert prev[-3:] == nxt[:3]
    assert all(len(c) == 10 for c in contents[:-1])


async def test_lines_offsets_exact(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    lines = _lines(text)
    out = await _chunk(runtime, session, doc_id, strategy="lines", line_count=2)
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    assert contents == ["".join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
    if "\r\n" in text:
        assert all(c.endswith("\r\n") for c in contents[:-1])


async def test_lines_with_overlap(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    lines = _lines(text)
    out = await _chunk(runtime, session, doc_id, strategy="lines", line_count=3, overlap=1)
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    _assert_covers(text, out["spans"])
    expected = ["".join(lines[i : i + 3]) for i in range(0, len(lines) - 1, 2)]
    assert contents == expected


async def test_delimiter_literal_offsets_exact(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    delimiter = "。" if "。" in text else "—"
    out = await _chunk(runtime, session, doc_id, strategy="delimiter", delimiter=delimiter)
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    pieces = text.split(delimiter)
    expected = [p + delimiter for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    assert contents == expected
    assert len(contents) >= 2


async def test_delimiter_regex_offsets_exact(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    pattern = r"[.!?。]\s*"
    out = await _chunk(
        runtime, session, doc_id, strategy="delimiter", delimiter=pattern, regex=True
    )
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    assert "".join(contents) == text
    assert len(contents) >= 3
    for content in contents[:-1]:
        first = re.search(pattern, content)
        assert first is not None and first.end() == len(content), content


async def test_delimiter_regex_is_not_literal(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    out = await _chunk(runtime, session, doc_id, strategy="delimiter", delimiter=r"[.!?。]\s*")
    # Without regex=True the pattern is searched literally and never occurs.
    assert out["total_spans"] == 1
    assert out["spans"][0]["span"] == {"doc_id": doc_id, "start": 0, "end": len(text)}


async def test_paragraphs_offsets_exact(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    out = await _chunk(runtime, session, doc_id, strategy="paragraphs")
    contents = await _check_spans_read_back(runtime, session, doc_id, text, out["spans"])
    assert "".join(contents) == text
    breaks = re.compile(r"\r?\n(?:[ \t]*\r?\n)+")
    expected_count = len(breaks.findall(text.rstrip("\r\n"))) + 1
    assert len(contents) == expected_count
    for content in contents[:-1]:
        found = list(breaks.finditer(content))
        assert len(found) == 1 and found[0].end() == len(content), content
    assert contents[-1].rstrip("\r\n\t ")


async def test_paragraphs_overlap_repeats_previous_paragraph(
    runtime: Runtime, session: str, doc
) -> None:
    doc_id, text = doc
    plain = (await _chunk(runtime, session, doc_id, strategy="paragraphs"))["spans"]
    overlapped = (await _chunk(runtime, session, doc_id, strategy="paragraphs", overlap=1))["spans"]
    await _check_spans_read_back(runtime, session, doc_id, text, overlapped)
    assert len(overlapped) == len(plain)
    for i, span in enumerate(overlapped):
        previous = plain[max(i - 1, 0)]["span"]
        assert span["span"]["start"] == previous["start"]
        assert span["span"]["end"] == plain[i]["span"]["end"]


async def test_same_call_is_cached_with_same_span_ids(runtime: Runtime, session: str, doc) -> None:
    doc_id, _ = doc
    args = {"strategy": "lines", "line_count": 2}
    first = await _chunk(runtime, session, doc_id, **args)
    second = await _chunk(runtime, session, doc_id, **args)
    assert first["cached"] is False
    assert second["cached"] is True
    assert [s["span_id"] for s in second["spans"]] == [s["span_id"] for s in first["spans"]]
    assert second["spans"] == first["spans"]
    other = await _chunk(runtime, session, doc_id, strategy="lines", line_count=3)
    assert other["cached"] is False
    assert not {s["span_id"] for s in other["spans"]} & {s["span_id"] for s in first["spans"]}


async def test_max_chunks_limits_listing_but_not_the_cache(
    runtime: Runtime, session: str, doc
) -> None:
    doc_id, _ = doc
    full = await _chunk(runtime, session, doc_id, strategy="fixed", chunk_size=5)
    assert full["total_spans"] > 3
    limited = await _chunk(runtime, session, doc_id, strategy="fixed", chunk_size=5, max_chunks=3)
    assert len(limited["spans"]) == 3
    assert limited["total_spans"] == full["total_spans"]
    assert limited["cached"] is True  # max_chunks is not part of the cache key
    assert limited["truncated"] is True
    assert limited["spans"] == full["spans"][:3]


async def test_cache_disabled_rechunks_and_old_spans_stay_valid(runtime: Runtime, write) -> None:
    sid = ok(await runtime.call("rlm_session_create", {"chunk_cache_enabled": False}))["session_id"]
    path = write("c.txt", LF_TEXT)
    doc_id = await _load(runtime, sid, path)
    first = await _chunk(runtime, sid, doc_id, strategy="fixed", chunk_size=9)
    old_span = first["spans"][0]["span_id"]
    ok(
        await runtime.call(
            "rlm_artifact_store", {"session_id": sid, "span_id": old_span, "content": "note"}
        )
    )
    second = await _chunk(runtime, sid, doc_id, strategy="fixed", chunk_size=9)
    assert second["cached"] is False
    assert second["total_spans"] == first["total_spans"]
    assert old_span not in {s["span_id"] for s in second["spans"]}
    # The span id handed out before (and cited by an artifact) still reads back.
    got = ok(await runtime.call("rlm_span_get", {"session_id": sid, "span_ids": [old_span]}))
    assert got["spans"][0]["content"] == LF_TEXT[:9]


async def test_listing_respects_response_cap_and_pages(runtime: Runtime, write) -> None:
    sid = ok(await runtime.call("rlm_session_create", {"max_chars_per_response": 1000}))[
        "session_id"
    ]
    text = "".join(f"{i:04d}" + "é" * 96 for i in range(30))
    doc_id = await _load(runtime, sid, write("long.txt", text))
    first = await _chunk(runtime, sid, doc_id, strategy="fixed", chunk_size=100)
    assert first["total_spans"] == 30
    assert 0 < len(first["spans"]) < 30
    assert first["truncated"] is True
    assert first["next_offset"] == len(first["spans"])
    listed, offset = list(first["spans"]), first["next_offset"]
    while offset is not None:
        page = await _chunk(runtime, sid, doc_id, strategy="fixed", chunk_size=100, offset=offset)
        assert page["cached"] is True
        assert page["spans"][0]["index"] == offset
        listed += page["spans"]
        offset = page["next_offset"]
    assert page["truncated"] is False
    assert [s["index"] for s in listed] == list(range(30))
    assert [s["preview"][:4] for s in listed] == [f"{i:04d}" for i in range(30)]
    await _check_spans_read_back(runtime, sid, doc_id, text, listed[:3])


async def test_paging_stops_at_max_chunks(runtime: Runtime, session: str, doc) -> None:
    doc_id, text = doc
    page = await _chunk(
        runtime, session, doc_id, strategy="fixed", chunk_size=3, max_chunks=5, offset=3
    )
    assert [s["index"] for s in page["spans"]] == [3, 4]
    assert page["next_offset"] is None
    assert page["total_spans"] == -(-len(text) // 3)


async def test_empty_document_has_no_spans(runtime: Runtime, session: str) -> None:
    out = ok(
        await runtime.call(
            "rlm_docs_load",
            {"session_id": session, "sources": [{"type": "inline", "content": "", "name": "e"}]},
        )
    )
    doc_id = out["loaded"][0]["doc_id"]
    first = await _chunk(runtime, session, doc_id, strategy="paragraphs")
    again = await _chunk(runtime, session, doc_id, strategy="paragraphs")
    assert (first["total_spans"], first["cached"]) == (0, False)
    assert (again["total_spans"], again["cached"]) == (0, True)


@pytest.mark.parametrize(
    "args",
    [
        {"strategy": "fixed"},  # no chunk_size
        {"strategy": "fixed", "chunk_size": 5, "overlap": 5},
        {"strategy": "fixed", "chunk_size": 5, "overlap": 9},
        {"strategy": "fixed", "chunk_size": 0},
        {"strategy": "lines"},  # no line_count
        {"strategy": "lines", "line_count": 2, "overlap": 2},
        {"strategy": "delimiter"},  # no delimiter
        {"strategy": "delimiter", "delimiter": ""},
        {"strategy": "delimiter", "delimiter": "a*", "regex": True},  # matches empty
        {"strategy": "delimiter", "delimiter": "(?:)", "regex": True},
        {"strategy": "delimiter", "delimiter": "(", "regex": True},  # does not compile
        {"strategy": "words", "chunk_size": 5},
        {"strategy": "fixed", "chunk_size": 5, "max_chunks": 0},
        {"strategy": "fixed", "chunk_size": 5, "overlap": -1},
        {"strategy": "fixed", "chunk_size": 5, "shape": "round"},
        {"strategy": "fixed", "chunk_size": 5, "offset": -1},
    ],
)
async def test_invalid_strategy_args(runtime: Runtime, session: str, write, args) -> None:
    doc_id = await _load(runtime, session, write("x.txt", "a. b. c.\n\nd"))
    result = await runtime.call(
        "rlm_chunk_create", {"session_id": session, "doc_id": doc_id, **args}
    )
    assert error_code(result) == "invalid_args"
    # Nothing was cached for the bad call, and a good one still works.
    good = await _chunk(runtime, session, doc_id, strategy="fixed", chunk_size=4)
    assert good["total_spans"] == 3


async def test_catastrophic_delimiter_regex_cannot_hang(
    runtime: Runtime, session: str, write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chunking, "_DELIMITER_TIMEOUT_S", 0.2)
    doc_id = await _load(runtime, session, write("redos.txt", "a" * 40 + "!"))
    started = time.monotonic()
    result = await runtime.call(
        "rlm_chunk_create",
        {
            "session_id": session,
            "doc_id": doc_id,
            "strategy": "delimiter",
            "delimiter": "(a|a)+b",
            "regex": True,
        },
    )
    assert error_code(result) == "invalid_args"
    assert "took over" in result.output["error"]
    assert time.monotonic() - started < 30  # unbounded backtracking would take hours
    good = await _chunk(runtime, session, doc_id, strategy="delimiter", delimiter="!")
    assert good["total_spans"] == 1


async def test_chunk_unknown_doc(runtime: Runtime, session: str) -> None:
    result = await runtime.call(
        "rlm_chunk_create",
        {"session_id": session, "doc_id": "doc_000000000000", "strategy": "fixed", "chunk_size": 3},
    )
    assert error_code(result) == "not_found"


# -- properties of chunk_ranges ------------------------------------------------------------

_TEXT = st.text(alphabet=st.sampled_from(list("ab é😀\n\r.")), min_size=0, max_size=120)


def _check_cover(text: str, ranges: list[tuple[int, int]]) -> None:
    if not text:
        assert ranges == []
        return
    assert ranges[0][0] == 0
    assert ranges[-1][1] == len(text)
    for start, end in ranges:
        assert 0 <= start < end <= len(text)
    for (s1, e1), (s2, e2) in pairwise(ranges):
        assert s1 < s2 <= e1 < e2  # no gap, progress at both ends


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, size=st.integers(1, 25), data=st.data())
def test_fixed_ranges_cover_and_overlap_exactly(text: str, size: int, data) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    ranges = chunk_ranges(text, ChunkStrategy(type="fixed", chunk_size=size, overlap=overlap))
    _check_cover(text, ranges)
    for start, end in ranges[:-1]:
        assert end - start == size
    if ranges:
        assert ranges[-1][1] - ranges[-1][0] <= size
    for (_, e1), (s2, _) in pairwise(ranges):
        assert e1 - s2 == overlap


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n" and i + 1 < len(text)]


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, count=st.integers(1, 6), data=st.data())
def test_lines_ranges_cover_and_overlap_by_lines(text: str, count: int, data) -> None:
    overlap = data.draw(st.integers(0, count - 1))
    ranges = chunk_ranges(text, ChunkStrategy(type="lines", line_count=count, overlap=overlap))
    _check_cover(text, ranges)
    starts = _line_starts(text) if text else []
    boundaries = set(starts) | {len(text)}

    def lines_in(start: int, end: int) -> int:
        return sum(1 for s in starts if start <= s < end)

    for start, end in ranges:
        assert start in boundaries and end in boundaries
        assert 1 <= lines_in(start, end) <= count
    for start, end in ranges[:-1]:
        assert lines_in(start, end) == count
    for (_, e1), (s2, _) in pairwise(ranges):
        assert lines_in(s2, e1) == overlap


@settings(max_examples=100, deadline=None)
@given(
    text=_TEXT,
    strategy=st.sampled_from(
        [
            {"type": "paragraphs"},
            {"type": "delimiter", "delimiter": "."},
            {"type": "delimiter", "delimiter": "a+", "regex": True},
            {"type": "delimiter", "delimiter": r"\r?\n", "regex": True},
        ]
    ),
    overlap=st.integers(0, 3),
)
def test_segment_ranges_cover_and_repeat_earlier_segments(
    text: str, strategy: dict[str, Any], overlap: int
) -> None:
    segments = chunk_ranges(text, ChunkStrategy(**strategy))
    _check_cover(text, segments)
    ranges = chunk_ranges(text, ChunkStrategy(**strategy, overlap=overlap))
    assert len(ranges) == len(segments)
    for i, (start, end) in enumerate(ranges):
        assert start == segments[max(i - overlap, 0)][0]
        assert end == segments[i][1]


def test_max_chunks_does_not_change_the_cache_key() -> None:
    base = ChunkStrategy(type="fixed", chunk_size=10)
    assert base.cache_key() == ChunkStrategy(type="fixed", chunk_size=10, max_chunks=2).cache_key()
    assert base.cache_key() != ChunkStrategy(type="fixed", chunk_size=11).cache_key()
