"""The store tools through the one registry: outputs, caps, search, artifacts, budget, traces."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import pytest
from helpers import error_code, ok
from pydantic import BaseModel, ConfigDict

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.errors import BudgetExceeded
from rlm_recursive.tools import CORE_TOOLS, Registry, ToolSpec
from rlm_recursive.types import SpanRef, ToolResult, sha256_hex


@pytest.fixture(autouse=True)
def _backend(database_url: str | None) -> str | None:
    """Every test on both store backends: SQLite and PostgreSQL."""
    return database_url


DOCS = {
    "pumps": (
        "Pump station overview.\n\n"
        "The chlorine room keypad code during an emergency is 7316. Only trained staff enter.\n\n"
        "Generators power the north pumps; the south pumps have no backup.\n"
    ),
    "menu": "Cafeteria menu: soup, bread, apples. Ünïcödé dessert 😀 on Fridays.\n" * 3,
    "logs": "2024-01-01 ERROR disk full\n2024-01-02 INFO ok\n2024-01-03 ERROR fan stopped\n",
}


async def _call(runtime: Runtime, tool: str, /, **args: Any) -> ToolResult:
    return await runtime.call(tool, args)


async def _create(runtime: Runtime, **limits: Any) -> str:
    return ok(await _call(runtime, "rlm_session_create", **limits))["session_id"]


async def _load_inline(runtime: Runtime, sid: str, docs: dict[str, str]) -> dict[str, str]:
    sources = [{"type": "inline", "name": name, "content": text} for name, text in docs.items()]
    out = ok(await _call(runtime, "rlm_docs_load", session_id=sid, sources=sources))
    return {d["source"].removeprefix("inline:"): d["doc_id"] for d in out["loaded"]}


@pytest.fixture
async def corpus(runtime: Runtime, session: str) -> dict[str, str]:
    """name -> doc_id for DOCS loaded into `session`."""
    return await _load_inline(runtime, session, DOCS)


# -- sessions --------------------------------------------------------------------------------


async def test_session_create_output(runtime: Runtime) -> None:
    out = ok(
        await _call(
            runtime, "rlm_session_create", name="n", max_tool_calls=42, max_chars_per_peek=500
        )
    )
    assert set(out) == {"session_id", "created_at", "config"}
    assert re.fullmatch(r"ses_[0-9a-f]{12}", out["session_id"])
    assert datetime.fromisoformat(out["created_at"]).tzinfo is not None
    assert out["config"]["max_tool_calls"] == 42
    assert out["config"]["max_chars_per_peek"] == 500
    assert out["config"]["max_chars_per_response"] == 50_000
    assert out["config"]["chunk_cache_enabled"] is True


async def test_session_info_output(runtime: Runtime) -> None:
    sid = await _create(runtime, name="info", max_tool_calls=50)
    first = ok(await _call(runtime, "rlm_session_info", session_id=sid))
    assert first["session_id"] == sid
    assert first["name"] == "info"
    assert first["status"] == "active"
    assert first["closed_at"] is None
    assert first["document_count"] == 0
    assert (first["total_chars"], first["total_tokens_est"]) == (0, 0)
    # The info call itself is the first counted call (create is not counted).
    assert (first["tool_calls_used"], first["tool_calls_remaining"]) == (1, 49)
    assert first["index_built"] is False
    assert first["config"]["max_tool_calls"] == 50

    docs = await _load_inline(runtime, sid, DOCS)
    info = ok(await _call(runtime, "rlm_session_info", session_id=sid))
    assert info["document_count"] == len(docs) == 3
    assert info["total_chars"] == sum(len(t) for t in DOCS.values())
    assert info["total_tokens_est"] == sum(-(-len(t) // 4) for t in DOCS.values())
    assert (info["tool_calls_used"], info["tool_calls_remaining"]) == (3, 47)

    ok(await _call(runtime, "rlm_search_query", session_id=sid, query="pumps"))
    assert ok(await _call(runtime, "rlm_session_info", session_id=sid))["index_built"] is True
    await _load_inline(runtime, sid, {"late": "a later document"})
    assert ok(await _call(runtime, "rlm_session_info", session_id=sid))["index_built"] is False


async def test_session_close_output(runtime: Runtime, session: str, corpus) -> None:
    doc_id = corpus["logs"]
    chunks = ok(
        await _call(
            runtime,
            "rlm_chunk_create",
            session_id=session,
            doc_id=doc_id,
            strategy="lines",
            line_count=1,
        )
    )
    ok(
        await _call(
            runtime,
            "rlm_artifact_store",
            session_id=session,
            span_id=chunks["spans"][0]["span_id"],
            content="disk full",
        )
    )
    out = ok(await _call(runtime, "rlm_session_close", session_id=session))
    assert out["session_id"] == session
    assert out["status"] == "completed"
    assert datetime.fromisoformat(out["closed_at"])
    # load, chunk, store, close: the fixture's create is free, the close itself is counted.
    assert out["summary"] == {"documents": 3, "spans": 3, "artifacts": 1, "tool_calls": 4}
    info = ok(await _call(runtime, "rlm_session_info", session_id=session))
    assert (info["status"], info["closed_at"]) == ("completed", out["closed_at"])


# -- documents -------------------------------------------------------------------------------


async def test_docs_list_pagination(runtime: Runtime, session: str) -> None:
    docs = await _load_inline(
        runtime, session, {f"d{i}": f"document {i} " * (i + 1) for i in range(5)}
    )
    ids = list(docs.values())
    page1 = ok(await _call(runtime, "rlm_docs_list", session_id=session, limit=2))
    assert [d["doc_id"] for d in page1["documents"]] == ids[:2]
    assert (page1["total"], page1["has_more"]) == (5, True)
    page2 = ok(await _call(runtime, "rlm_docs_list", session_id=session, limit=2, offset=2))
    assert [d["doc_id"] for d in page2["documents"]] == ids[2:4]
    assert page2["has_more"] is True
    last = ok(await _call(runtime, "rlm_docs_list", session_id=session, limit=2, offset=4))
    assert [d["doc_id"] for d in last["documents"]] == ids[4:]
    assert last["has_more"] is False
    whole = ok(await _call(runtime, "rlm_docs_list", session_id=session))
    assert whole["has_more"] is False
    first = whole["documents"][0]
    assert first == {
        "doc_id": ids[0],
        "content_hash": sha256_hex(b"document 0 "),
        "source": "inline:d0",
        "length_chars": 11,
        "length_tokens_est": 3,
        "span_count": 0,
        "format": "text",
    }
    ok(await _call(runtime, "rlm_chunk_create", session_id=session, doc_id=ids[4], chunk_size=10))
    after = ok(await _call(runtime, "rlm_docs_list", session_id=session))["documents"]
    assert after[4]["span_count"] == -(-len("document 4 " * 5) // 10)
    assert after[0]["span_count"] == 0


async def test_peek_caps_and_slices(runtime: Runtime) -> None:
    sid = await _create(runtime, max_chars_per_peek=100)
    text = "".join(f"{i:03d}é😀 " for i in range(50))  # 300 chars, multi-byte throughout
    doc_id = (await _load_inline(runtime, sid, {"t": text}))["t"]

    whole = ok(await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id))
    assert whole["truncated"] is True
    assert whole["content"] == text[:100]
    assert len(whole["content"]) == 100
    assert whole["span"] == {"doc_id": doc_id, "start": 0, "end": 100}
    assert whole["total_length"] == len(text)
    assert whole["content_hash"] == sha256_hex(text[:100].encode("utf-8"))

    mid = ok(
        await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id, start=55, end=130)
    )
    assert (mid["content"], mid["truncated"]) == (text[55:130], False)

    tail = ok(await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id, start=250))
    assert (tail["content"], tail["truncated"]) == (text[250:], False)
    past_end = ok(
        await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id, start=290, end=10**6)
    )
    assert past_end["content"] == text[290:]
    assert past_end["span"]["end"] == len(text)

    bad = await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id, start=301)
    assert error_code(bad) == "invalid_args"
    bad = await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id, start=20, end=10)
    assert error_code(bad) == "invalid_args"


async def test_span_get_total_cap(runtime: Runtime) -> None:
    sid = await _create(runtime, max_chars_per_response=100)
    text = "abcdefghij" * 20
    doc_id = (await _load_inline(runtime, sid, {"t": text}))["t"]
    ids: list[str] = []
    offset: int | None = 0
    while offset is not None:  # a 100-char response cap lists one span per call
        page = ok(
            await _call(
                runtime,
                "rlm_chunk_create",
                session_id=sid,
                doc_id=doc_id,
                chunk_size=60,
                offset=offset,
            )
        )
        assert len(page["spans"]) == 1
        ids.extend(s["span_id"] for s in page["spans"])
        offset = page["next_offset"]
    assert len(ids) == 4
    out = ok(await _call(runtime, "rlm_span_get", session_id=sid, span_ids=ids[:3]))
    assert [len(s["content"]) for s in out["spans"]] == [60, 40, 0]
    assert [s["truncated"] for s in out["spans"]] == [False, True, True]
    assert out["total_chars_returned"] == 100
    assert out["spans"][1]["content"] == text[60:100]
    # The span reference is the whole span; only the content is cut.
    assert out["spans"][1]["span"] == {"doc_id": doc_id, "start": 60, "end": 120}


async def test_reads_are_reported_for_citations(runtime: Runtime, session: str, corpus) -> None:
    reads: list[SpanRef] = []

    class Log:
        def add(self, ref: SpanRef) -> None:
            reads.append(ref)

    ctx = runtime.context(session)
    ctx.read_log = Log()
    doc_id = corpus["pumps"]
    await runtime.call("rlm_docs_peek", {"doc_id": doc_id, "start": 5, "end": 25}, ctx)
    found = ok(await runtime.call("rlm_search_query", {"query": "7316", "method": "literal"}, ctx))
    assert reads[0] == SpanRef(doc_id=doc_id, start=5, end=25)
    hit = found["matches"][0]["span"]
    assert reads[1].doc_id == doc_id and reads[1].start <= hit["start"] < hit["end"] <= reads[1].end


# -- search ------------------------------------------------------------------------------


def _assert_match_shape(match: dict[str, Any], texts: dict[str, str]) -> str:
    """Check the fields of one match and return the highlighted text."""
    assert set(match) >= {"doc_id", "span", "score", "context", "highlight_start", "highlight_end"}
    text = texts[match["doc_id"]]
    span = match["span"]
    assert span["doc_id"] == match["doc_id"]
    assert 0 <= span["start"] < span["end"] <= len(text)
    hs, he = match["highlight_start"], match["highlight_end"]
    assert 0 <= hs < he <= len(match["context"])
    highlighted = match["context"][hs:he]
    assert match["context"] in text
    assert highlighted in text[span["start"] : span["end"]]
    assert isinstance(match["score"], float)
    return highlighted


async def test_bm25_search(runtime: Runtime, session: str, corpus) -> None:
    texts = {corpus[name]: DOCS[name] for name in DOCS}
    first = ok(await _call(runtime, "rlm_search_query", session_id=session, query="keypad code"))
    assert first["index_built_this_call"] is True
    assert first["total_matches"] >= len(first["matches"]) >= 1
    best = first["matches"][0]
    assert best["doc_id"] == corpus["pumps"]
    highlighted = _assert_match_shape(best, texts)
    assert "keypad" in highlighted.lower()
    assert "7316" in best["context"]
    scores = [m["score"] for m in first["matches"]]
    assert scores == sorted(scores, reverse=True)

    second = ok(await _call(runtime, "rlm_search_query", session_id=session, query="pumps"))
    assert second["index_built_this_call"] is False
    assert {m["doc_id"] for m in second["matches"]} == {corpus["pumps"]}
    for match in second["matches"]:
        assert "pump" in _assert_match_shape(match, texts).lower()


async def test_bm25_index_picks_up_later_documents(runtime: Runtime, session: str, corpus) -> None:
    none = ok(await _call(runtime, "rlm_search_query", session_id=session, query="zebra"))
    assert (none["matches"], none["total_matches"], none["index_built_this_call"]) == ([], 0, True)
    late = await _load_inline(runtime, session, {"zoo": "The zebra sleeps standing up."})
    found = ok(await _call(runtime, "rlm_search_query", session_id=session, query="zebra"))
    assert found["index_built_this_call"] is True
    assert [m["doc_id"] for m in found["matches"]] == [late["zoo"]]
    again = ok(await _call(runtime, "rlm_search_query", session_id=session, query="zebra"))
    assert again["index_built_this_call"] is False


async def test_bm25_index_persists_across_runtimes(data_dir, write) -> None:
    rt = Runtime(data_dir)
    try:
        sid = await _create(rt)
        await _load_inline(rt, sid, {"a": "persistent walrus"})
        assert ok(await _call(rt, "rlm_search_query", session_id=sid, query="walrus"))[
            "index_built_this_call"
        ]
    finally:
        rt.close()
    rt = Runtime(data_dir)
    try:
        out = ok(await _call(rt, "rlm_search_query", session_id=sid, query="walrus"))
        assert out["index_built_this_call"] is False
        assert len(out["matches"]) == 1
    finally:
        rt.close()


@pytest.mark.parametrize(
    ("method", "query", "expected"),
    [
        ("regex", r"ERROR \w+", ["ERROR disk", "ERROR fan"]),
        ("regex", r"^2024-01-0[23]", ["2024-01-02", "2024-01-03"]),
        ("literal", "error", ["ERROR", "ERROR"]),  # literal search ignores case
        ("literal", "dessert 😀", ["dessert 😀"] * 3),
    ],
)
async def test_regex_and_literal_offsets_exact(
    runtime: Runtime, session: str, corpus, method: str, query: str, expected: list[str]
) -> None:
    texts = {corpus[name]: DOCS[name] for name in DOCS}
    out = ok(
        await _call(
            runtime,
            "rlm_search_query",
            session_id=session,
            query=query,
            method=method,
            context_chars=15,
        )
    )
    assert out["index_built_this_call"] is False
    assert out["total_matches"] == len(expected)
    got = []
    for match in out["matches"]:
        text = texts[match["doc_id"]]
        start, end = match["span"]["start"], match["span"]["end"]
        assert (
            match["context"][match["highlight_start"] : match["highlight_end"]] == text[start:end]
        )
        assert match["context"] == text[max(start - 15, 0) : end + 15]
        assert match["highlight_start"] == start - max(start - 15, 0)
        got.append(text[start:end])
    assert got == expected


async def test_doc_ids_filter(runtime: Runtime, session: str) -> None:
    docs = await _load_inline(
        runtime, session, {"a": "shared harbor word", "b": "the harbor again", "c": "nothing"}
    )
    for method in ("bm25", "regex", "literal"):
        out = ok(
            await _call(
                runtime,
                "rlm_search_query",
                session_id=session,
                query="harbor",
                method=method,
                doc_ids=[docs["b"]],
            )
        )
        assert [m["doc_id"] for m in out["matches"]] == [docs["b"]], method
        everywhere = ok(
            await _call(
                runtime, "rlm_search_query", session_id=session, query="harbor", method=method
            )
        )
        assert {m["doc_id"] for m in everywhere["matches"]} == {docs["a"], docs["b"]}, method
        unknown = await _call(
            runtime,
            "rlm_search_query",
            session_id=session,
            query="harbor",
            method=method,
            doc_ids=["doc_000000000000"],
        )
        assert error_code(unknown) == "not_found", method


async def test_empty_doc_ids_means_no_filter(runtime: Runtime, session: str, corpus) -> None:
    for method in ("bm25", "regex", "literal"):
        unfiltered = ok(
            await _call(
                runtime, "rlm_search_query", session_id=session, query="pumps", method=method
            )
        )
        empty = ok(
            await _call(
                runtime,
                "rlm_search_query",
                session_id=session,
                query="pumps",
                method=method,
                doc_ids=[],
            )
        )
        assert empty["total_matches"] == unfiltered["total_matches"] > 0, method
        assert empty["matches"] == unfiltered["matches"], method


@pytest.mark.parametrize("method", ["bm25", "regex", "literal"])
async def test_tiny_response_cap_still_shows_the_best_match(runtime: Runtime, method) -> None:
    sid = await _create(runtime, max_chars_per_response=100)
    text = ("filler words here. " * 20) + "The keypad code is 7316. " + ("more filler. " * 20)
    doc_id = (await _load_inline(runtime, sid, {"t": text}))["t"]
    query = {"bm25": "keypad", "regex": r"keypad code is \d+", "literal": "keypad"}[method]
    out = ok(
        await _call(
            runtime,
            "rlm_search_query",
            session_id=sid,
            query=query,
            method=method,
            context_chars=500,
        )
    )
    (match,) = out["matches"]
    assert match["doc_id"] == doc_id
    assert 0 < len(match["context"]) <= 100
    assert match["context"] in text
    highlighted = match["context"][match["highlight_start"] : match["highlight_end"]]
    assert highlighted and highlighted in text[match["span"]["start"] : match["span"]["end"]]
    assert "keypad" in match["context"]


async def test_search_limit_and_total(runtime: Runtime, session: str) -> None:
    await _load_inline(runtime, session, {"many": "tick " * 30})
    out = ok(
        await _call(
            runtime,
            "rlm_search_query",
            session_id=session,
            query="tick",
            method="literal",
            limit=4,
        )
    )
    assert len(out["matches"]) == 4
    assert out["total_matches"] == 30


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"query": "(unclosed", "method": "regex"}, "invalid_args"),
        ({"query": "", "method": "literal"}, "invalid_args"),
        ({"query": "!!! ???", "method": "bm25"}, "invalid_args"),
        ({"query": "x", "method": "fuzzy"}, "invalid_args"),
        ({"query": "x", "limit": 0}, "invalid_args"),
    ],
)
async def test_search_invalid_args(
    runtime: Runtime, session: str, corpus, args: dict[str, Any], code: str
) -> None:
    result = await _call(runtime, "rlm_search_query", session_id=session, **args)
    assert error_code(result) == code


# -- not found ------------------------------------------------------------------------------


async def test_unknown_ids_are_not_found(runtime: Runtime, session: str, corpus) -> None:
    other = await _create(runtime)
    foreign_doc = (await _load_inline(runtime, other, {"x": "other session text"}))["x"]
    cases = [
        ("rlm_session_info", {"session_id": "ses_000000000000"}),
        ("rlm_session_close", {"session_id": "ses_000000000000"}),
        ("rlm_docs_list", {"session_id": "ses_000000000000"}),
        ("rlm_docs_peek", {"session_id": session, "doc_id": "doc_000000000000"}),
        ("rlm_docs_peek", {"session_id": session, "doc_id": foreign_doc}),
        ("rlm_span_get", {"session_id": session, "span_ids": ["spn_000000000000"]}),
        ("rlm_artifact_get", {"session_id": session, "artifact_id": "art_000000000000"}),
        ("rlm_artifact_store", {"session_id": session, "span_id": "spn_0", "content": "x"}),
        (
            "rlm_artifact_store",
            {"session_id": session, "doc_id": foreign_doc, "start": 0, "end": 1, "content": 1},
        ),
    ]
    for name, args in cases:
        result = await runtime.call(name, args)
        assert error_code(result) == "not_found", (name, args)
        assert result.output["error"]


# -- artifacts ------------------------------------------------------------------------------


async def test_artifacts_with_span_and_range_provenance(
    runtime: Runtime, session: str, corpus
) -> None:
    doc_id, text = corpus["pumps"], DOCS["pumps"]
    span = ok(
        await _call(
            runtime, "rlm_chunk_create", session_id=session, doc_id=doc_id, strategy="paragraphs"
        )
    )["spans"][1]
    by_span = ok(
        await _call(
            runtime,
            "rlm_artifact_store",
            session_id=session,
            span_id=span["span_id"],
            type="extraction",
            content={"code": "7316", "room": "chlorine"},
            model="m1",
            prompt_hash="abc",
        )
    )
    assert by_span["span_id"] == span["span_id"]
    start, end = text.index("7316"), text.index("7316") + 4
    by_range = ok(
        await _call(
            runtime,
            "rlm_artifact_store",
            session_id=session,
            doc_id=doc_id,
            start=start,
            end=end,
            type="summary",
            content="the code",
        )
    )
    assert by_range["span_id"] and by_range["span_id"] != span["span_id"]
    # The same range again reuses its span.
    again = ok(
        await _call(
            runtime,
            "rlm_artifact_store",
            session_id=session,
            doc_id=doc_id,
            start=start,
            end=end,
            content=["x"],
        )
    )
    assert again["span_id"] == by_range["span_id"]
    read = ok(await _call(runtime, "rlm_span_get", session_id=session, span_ids=[again["span_id"]]))
    assert read["spans"][0]["content"] == "7316"
    assert read["spans"][0]["content_hash"] == sha256_hex(b"7316")

    got = ok(
        await _call(
            runtime, "rlm_artifact_get", session_id=session, artifact_id=by_span["artifact_id"]
        )
    )
    assert got["content"] == {"code": "7316", "room": "chlorine"}
    assert got["type"] == "extraction"
    assert got["span"] == span["span"]
    assert got["provenance"]["tool"] == "rlm_artifact_store"
    assert (got["provenance"]["model"], got["provenance"]["prompt_hash"]) == ("m1", "abc")
    assert datetime.fromisoformat(got["provenance"]["timestamp"])
    ranged = ok(
        await _call(
            runtime, "rlm_artifact_get", session_id=session, artifact_id=by_range["artifact_id"]
        )
    )
    assert ranged["span"] == {"doc_id": doc_id, "start": start, "end": end}
    assert ranged["content"] == "the code"

    free = ok(await _call(runtime, "rlm_artifact_store", session_id=session, content=42))
    assert free["span_id"] is None
    listed = ok(await _call(runtime, "rlm_artifact_list", session_id=session))["artifacts"]
    assert [a["artifact_id"] for a in listed] == [
        by_span["artifact_id"],
        by_range["artifact_id"],
        again["artifact_id"],
        free["artifact_id"],
    ]
    assert [a["type"] for a in listed] == ["extraction", "summary", "custom", "custom"]
    by_type = ok(await _call(runtime, "rlm_artifact_list", session_id=session, type="custom"))
    assert [a["artifact_id"] for a in by_type["artifacts"]] == [
        again["artifact_id"],
        free["artifact_id"],
    ]
    on_range = ok(
        await _call(runtime, "rlm_artifact_list", session_id=session, span_id=by_range["span_id"])
    )
    assert len(on_range["artifacts"]) == 2
    # Another session sees none of them.
    other = await _create(runtime)
    assert ok(await _call(runtime, "rlm_artifact_list", session_id=other))["artifacts"] == []
    hidden = await _call(
        runtime, "rlm_artifact_get", session_id=other, artifact_id=by_span["artifact_id"]
    )
    assert error_code(hidden) == "not_found"


@pytest.mark.parametrize(
    "args",
    [
        {"span_id": "spn_x", "doc_id": "DOC", "start": 0, "end": 1, "content": "x"},
        {"doc_id": "DOC", "start": 0, "content": "x"},
        {"doc_id": "DOC", "start": 5, "end": 2, "content": "x"},
        {"doc_id": "DOC", "start": 0, "end": 10**6, "content": "x"},
        {"doc_id": "DOC", "start": -1, "end": 2, "content": "x"},
        {"type": "summary"},  # no content
    ],
)
async def test_artifact_invalid_args(runtime: Runtime, session: str, corpus, args) -> None:
    args = {k: corpus["logs"] if v == "DOC" else v for k, v in args.items()}
    result = await _call(runtime, "rlm_artifact_store", session_id=session, **args)
    assert error_code(result) == "invalid_args"
    assert ok(await _call(runtime, "rlm_artifact_list", session_id=session))["artifacts"] == []


# -- budget ----------------------------------------------------------------------------------


async def test_budget_exceeded_on_the_fourth_call(runtime: Runtime) -> None:
    sid = await _create(runtime, max_tool_calls=3)
    ctx = runtime.context(sid)
    # Creating more sessions through a context bound to this one spends nothing.
    for _ in range(2):
        ok(await runtime.call("rlm_session_create", {}, ctx))
    for _ in range(3):
        ok(await _call(runtime, "rlm_session_info", session_id=sid))
    with pytest.raises(BudgetExceeded) as raised:
        await _call(runtime, "rlm_docs_list", session_id=sid)
    assert raised.value.code == "budget_exceeded"
    assert raised.value.to_dict()["meta"]["error_code"] == "budget_exceeded"
    with pytest.raises(BudgetExceeded):
        await runtime.call("rlm_docs_list", {}, ctx)
    row = runtime.store.session(sid)
    assert row["tool_calls_used"] == 3
    # Other sessions keep their own budget.
    assert ok(await _call(runtime, "rlm_session_info", session_id=await _create(runtime)))


class _TouchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str


async def _touch(ctx, args) -> ToolResult:
    return ToolResult(output={"ok": True})


async def test_budget_exemption_is_by_exact_name(runtime: Runtime) -> None:
    registry = Registry(
        [*CORE_TOOLS, ToolSpec("rlm_session_create_extra", "x", _TouchArgs, _touch)]
    )
    sid = await _create(runtime, max_tool_calls=2)
    ctx = runtime.context(sid)
    await registry.invoke("rlm_session_create", {}, ctx)
    await registry.invoke("rlm_session_create_extra", {}, ctx)
    await registry.invoke("rlm_session_create_extra", {}, ctx)
    assert runtime.store.session(sid)["tool_calls_used"] == 2
    with pytest.raises(BudgetExceeded):
        await registry.invoke("rlm_session_create_extra", {}, ctx)


# -- argument validation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("rlm_docs_list", {"limit": "many"}),
        ("rlm_docs_list", {"limit": 0}),
        ("rlm_docs_list", {"colour": "blue"}),
        ("rlm_docs_peek", {}),  # doc_id missing
        ("rlm_docs_peek", {"doc_id": ["a"]}),
        ("rlm_docs_peek", {"doc_id": "DOC", "start": -5}),
        ("rlm_span_get", {"span_ids": []}),
        ("rlm_span_get", {"span_ids": "spn_1"}),
        ("rlm_session_create", {"max_tool_calls": 0}),
        ("rlm_session_create", {"session_id": "ses_x"}),
        ("rlm_search_query", {"query": "x", "doc_ids": "doc_1"}),
        ("rlm_search_query", {"query": 5}),
    ],
)
async def test_invalid_args_are_error_results(
    runtime: Runtime, session: str, corpus, name: str, args: dict[str, Any]
) -> None:
    args = {k: corpus["logs"] if v == "DOC" else v for k, v in args.items()}
    used = runtime.store.session(session)["tool_calls_used"]
    result = await runtime.call(name, args, runtime.context(session))
    assert error_code(result) == "invalid_args"
    assert name in result.output["error"]
    # A rejected call is not charged to the budget.
    assert runtime.store.session(session)["tool_calls_used"] == used


async def test_non_object_arguments_and_unknown_tool(runtime: Runtime, session: str) -> None:
    ctx = runtime.context(session)
    for raw in (["x"], "text", None, 3):
        result = await runtime.registry.invoke("rlm_docs_list", raw, ctx)  # type: ignore[arg-type]
        assert error_code(result) == "invalid_args"
    unknown = await runtime.call("rlm_docs_delete", {}, ctx)
    assert error_code(unknown) == "unknown_tool"
    assert "rlm_docs_list" in unknown.output["error"]


async def test_context_binds_the_session(runtime: Runtime, session: str, corpus) -> None:
    bound = runtime.context(session)
    listed = ok(await runtime.call("rlm_docs_list", {}, bound))
    assert listed["total"] == 3
    other = await _create(runtime)
    explicit = ok(await runtime.call("rlm_docs_list", {"session_id": other}, bound))
    assert explicit["total"] == 0
    unbound = await runtime.call("rlm_docs_list", {}, runtime.context())
    assert error_code(unbound) == "invalid_args"


# -- traces ---------------------------------------------------------------------------------


def _trace_lines(runtime: Runtime, sid: str) -> list[dict[str, Any]]:
    runtime.store.flush()  # trace writes are batched on a writer thread
    path = runtime.store.data_dir / "traces" / f"{sid}.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


async def test_trace_one_line_per_call(runtime: Runtime) -> None:
    sid = await _create(runtime, name="traced")
    long_text = "word " * 200
    doc_id = (await _load_inline(runtime, sid, {"long": long_text}))["long"]
    await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id=doc_id)
    await _call(runtime, "rlm_docs_peek", session_id=sid, doc_id="doc_000000000000")
    lines = _trace_lines(runtime, sid)
    assert [r["op"] for r in lines] == [
        "rlm_session_create",
        "rlm_docs_load",
        "rlm_docs_peek",
        "rlm_docs_peek",
    ]
    for record in lines:
        assert set(record) == {"ts", "op", "input", "output", "duration_ms"}
        assert datetime.fromisoformat(record["ts"])
        assert isinstance(record["duration_ms"], int | float) and record["duration_ms"] >= 0
    assert lines[0]["output"]["session_id"] == sid
    assert lines[2]["input"] == {"session_id": sid, "doc_id": doc_id}
    # Content is summarised, not copied whole.
    assert lines[2]["output"]["content"].startswith("word word")
    assert lines[2]["output"]["content"].endswith(f"({len(long_text)} chars)")
    assert lines[3]["output"]["meta"]["error_code"] == "not_found"
    rows = runtime.store.sql.query(
        "SELECT op FROM traces WHERE session_id = ? ORDER BY id", (sid,))
    assert [r[0] for r in rows] == [r["op"] for r in lines]


async def test_trace_records_budget_failure(runtime: Runtime) -> None:
    sid = await _create(runtime, max_tool_calls=1)
    await _call(runtime, "rlm_session_info", session_id=sid)
    with pytest.raises(BudgetExceeded):
        await _call(runtime, "rlm_session_info", session_id=sid)
    last = _trace_lines(runtime, sid)[-1]
    assert last["op"] == "rlm_session_info"
    assert last["output"]["meta"]["error_code"] == "budget_exceeded"


async def test_unknown_session_ids_never_name_trace_files(runtime: Runtime, tmp_path) -> None:
    await _call(runtime, "rlm_session_info", session_id="../../escaped")
    await _call(runtime, "rlm_session_info", session_id="ses_000000000000")
    runtime.store.flush()
    traces = runtime.store.data_dir / "traces"
    assert sorted(p.name for p in traces.iterdir()) == ["_global.jsonl"]
    assert not list(tmp_path.rglob("escaped*"))
    assert len((traces / "_global.jsonl").read_text("utf-8").splitlines()) == 2


async def test_restricted_profile_writes_no_traces(data_dir) -> None:
    rt = Runtime(data_dir, "restricted")
    try:
        sid = await _create(rt)
        await _load_inline(rt, sid, {"a": "text"})
        rt.store.flush()
        assert not (data_dir / "traces").exists()
        assert rt.store.sql.one("SELECT COUNT(*) FROM traces")[0] == 0
    finally:
        rt.close()
