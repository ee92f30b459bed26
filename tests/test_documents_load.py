"""Loading real documents: the fields a load reports, ignore rules, versions, and pages or
lines on every search hit, chunk, peek and citation."""

from __future__ import annotations

import codecs
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from doc_writers import write_docx, write_image_pdf, write_pdf
from helpers import error_code, ok

from rlm_recursive.agent.citations import Citation, CitationLog
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.ops.verify import load_citations, verify_citations
from rlm_recursive.parsers import PAGE_SEPARATOR
from rlm_recursive.types import SpanRef

PAGES = [f"Page {n} of the handbook. " + "Routine ward text. " * 30 for n in range(1, 7)]
PAGES[3] = "Heparin. The maximum standard heparin infusion rate is 18 units/kg/h. " * 3


async def _load(runtime: Runtime, session: str, *sources: dict[str, Any],
                **extra: Any) -> dict[str, Any]:
    return ok(await runtime.call("rlm_docs_load", {"session_id": session,
                                                   "sources": list(sources), **extra}))


@pytest.fixture
def handbook(tmp_path: Path) -> Path:
    """The issue's hospital folder, in small: every format, a broken and a locked PDF, and
    the clutter a folder load must pass over."""
    root = tmp_path / "handbook"
    root.mkdir()
    write_pdf(root / "protocol.pdf", PAGES, table=(2, [["Drug", "Max"], ["Heparin", "18"]]))
    write_pdf(root / "locked.pdf", ["secret"], password="pw")
    (root / "broken.pdf").write_bytes((root / "protocol.pdf").read_bytes()[:900])
    write_image_pdf(root / "memo-scan.pdf", ["Ward seven closes on Friday"])
    write_docx(root / "visiting.docx", [("h1", "Visiting"), ("p", "Visits end at 20:00.")])
    (root / "ward.html").write_text("<html><body><script>x=1</script><h1>Ward</h1>"
                                    "<p>Quiet after 22:00.</p></body></html>", "utf-8")
    (root / "notes.md").write_text("# Notes\n\nline two\nline three: oxygen\n", "utf-8")
    (root / "doses.csv").write_text("drug,max\nheparin,18\n", "utf-8")
    (root / "old.txt").write_bytes("Le café est prêt à être servi, même à l'hôpital.".encode(
        "cp1252"))
    (root / "wide.txt").write_bytes(codecs.BOM_UTF16_LE + "Übergabe um 7 Uhr".encode(
        "utf-16-le"))
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\x00\x01binary")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", "utf-8")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.js").write_text("x = 1\n", "utf-8")
    (root / "venv").mkdir()
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr\n", "utf-8")
    (root / "build.log").write_text("ignored by .gitignore\n", "utf-8")
    (root / ".gitignore").write_text("*.log\n", "utf-8")
    return root


async def test_a_mixed_folder_loads_every_format_and_says_what_it_did_not(
    runtime: Runtime, session: str, handbook: Path,
) -> None:
    out = await _load(runtime, session, {"type": "directory", "path": str(handbook),
                                         "recursive": True}, ocr=False)
    loaded = {Path(d["source"]).name: d for d in out["loaded"]}
    assert set(loaded) == {"protocol.pdf", "memo-scan.pdf", "visiting.docx", "ward.html",
                           "notes.md", "doses.csv", "old.txt", "wide.txt", ".gitignore"}
    for doc in loaded.values():  # the exact names
        assert {"parser_version", "pages", "encoding", "warnings", "raw_sha256",
                "content_hash"} <= set(doc)
    assert loaded["protocol.pdf"]["pages"] == 6 and loaded["protocol.pdf"]["encoding"] is None
    assert loaded["notes.md"]["pages"] is None
    assert loaded["wide.txt"]["encoding"] == "utf-16-le"
    assert loaded["old.txt"]["encoding"] == "cp1252"
    assert loaded["memo-scan.pdf"]["warnings"] == [
        f"{handbook / 'memo-scan.pdf'} page 1: image only, no text (install OCR: apt-get "
        "install tesseract-ocr and pip install 'rlm-recursive[ocr]')"]
    errors = {Path(e["source"]).name: e for e in out["errors"]}
    assert set(errors) == {"locked.pdf", "broken.pdf"}
    assert all(e["error_code"] == "unsupported_file" for e in errors.values())
    assert "encrypted" in errors["locked.pdf"]["message"]
    assert "damaged" in errors["broken.pdf"]["message"]
    assert out["skipped"] == {"cache": 1, "gitignore": 1, "node_modules": 1,
                              "version_control": 1, "virtualenv": 1}
    assert out["total_pages"] == 7


async def test_no_ignore_walks_everything(runtime: Runtime, session: str,
                                          handbook: Path) -> None:
    out = await _load(runtime, session, {"type": "directory", "path": str(handbook),
                                         "recursive": True, "ignore_rules": False}, ocr=False)
    names = {Path(d["source"]).name for d in out["loaded"]}
    assert {"HEAD", "index.js", "pyvenv.cfg", "build.log"} <= names
    assert out["skipped"] == {}
    assert "x.cpython-311.pyc" in {Path(e["source"]).name for e in out["errors"]}


async def test_nested_gitignore_and_negation(runtime: Runtime, session: str,
                                             tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "sub" / "out").mkdir(parents=True)
    (root / ".gitignore").write_text("*.tmp\nout/\n", "utf-8")
    (root / "sub" / ".gitignore").write_text("!keep.tmp\n", "utf-8")
    for name in ("a.tmp", "sub/keep.tmp", "sub/drop.tmp", "sub/out/x.txt", "sub/y.txt"):
        (root / name).write_text(name, "utf-8")
    out = await _load(runtime, session, {"type": "directory", "path": str(root),
                                         "recursive": True})
    names = sorted(Path(d["source"]).relative_to(root).as_posix() for d in out["loaded"])
    assert names == [".gitignore", "sub/.gitignore", "sub/keep.tmp", "sub/y.txt"]
    assert out["skipped"] == {"gitignore": 3}


async def test_globs_follow_the_same_ignore_rules(runtime: Runtime, session: str,
                                                  tmp_path: Path) -> None:
    (tmp_path / "src" / "__pycache__").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("x = 1\n", "utf-8")
    (tmp_path / "src" / "__pycache__" / "a.py").write_text("stale\n", "utf-8")
    out = await _load(runtime, session, {"type": "glob", "path": "src/**/*.py"})
    assert [Path(d["source"]).name for d in out["loaded"]] == ["a.py"]
    assert out["skipped"] == {"cache": 1}


async def _pdf_session(runtime: Runtime, session: str, tmp_path: Path) -> dict[str, Any]:
    path = write_pdf(tmp_path / "handbook.pdf", PAGES)
    return (await _load(runtime, session, {"type": "file", "path": str(path)}))["loaded"][0]


async def test_search_hits_lie_on_one_page_and_carry_it(runtime: Runtime, session: str,
                                                        tmp_path: Path) -> None:
    doc = await _pdf_session(runtime, session, tmp_path)
    info = runtime.store.parses.info(doc["doc_id"])
    for method, query in (("bm25", "heparin infusion rate"), ("literal", "units/kg/h"),
                          ("bm25", "routine ward text")):
        out = ok(await runtime.call("rlm_search_query", {
            "session_id": session, "query": query, "method": method, "limit": 20}))
        assert out["matches"]
        for match in out["matches"]:
            assert match["source"].endswith("handbook.pdf") and "line" not in match
            start, end = info.page_range(match["page"])
            # a page's last passage may hold the page separator, never the next page's text
            assert start <= match["span"]["start"] <= match["span"]["end"] <= end + len(
                PAGE_SEPARATOR)
        if query != "routine ward text":
            assert {m["page"] for m in out["matches"]} == {4}


async def test_chunks_are_cut_at_page_breaks(runtime: Runtime, session: str,
                                             tmp_path: Path) -> None:
    doc = await _pdf_session(runtime, session, tmp_path)
    out = ok(await runtime.call("rlm_chunk_create", {
        "session_id": session, "doc_id": doc["doc_id"], "chunk_size": 5000}))
    info = runtime.store.parses.info(doc["doc_id"])
    assert [s["page"] for s in out["spans"]] == [1, 2, 3, 4, 5, 6]
    for span in out["spans"]:
        start, end = info.page_range(span["page"])
        assert start <= span["span"]["start"] and span["span"]["end"] <= end + len(
            PAGE_SEPARATOR)


async def test_peek_by_page_and_citations_carry_the_page(runtime: Runtime, session: str,
                                                         tmp_path: Path) -> None:
    doc = await _pdf_session(runtime, session, tmp_path)
    out = ok(await runtime.call("rlm_docs_peek", {"session_id": session,
                                                  "doc_id": doc["doc_id"], "page": 4}))
    assert out["page"] == 4 and out["content"].startswith("Heparin. The maximum")
    assert "Page 3" not in out["content"] and "Page 5" not in out["content"]
    log = CitationLog()
    log.add(SpanRef(**out["span"]))
    [citation] = log.citations(runtime.store, session)
    assert citation.page == 4 and citation.line is None
    assert citation.source == doc["source"]
    dumped = citation.model_dump()
    assert dumped["page"] == 4 and "line" not in dumped
    # verify takes exactly what query --json prints
    checks = verify_citations(runtime.store, load_citations(json.dumps(
        {"session_id": session, "citations": [dumped]}))[0])
    assert [c.status for c in checks] == ["valid"]
    bad = await runtime.call(
        "rlm_docs_peek", {"session_id": session, "doc_id": doc["doc_id"], "page": 9})
    assert error_code(bad) == "invalid_args"


async def test_text_citations_and_hits_carry_the_line(runtime: Runtime, session: str,
                                                      write) -> None:
    write("app.py", "import os\n\n\ndef main():\n    return os.getcwd()\n")
    doc = (await _load(runtime, session, {"type": "file", "path": "app.py"}))["loaded"][0]
    out = ok(await runtime.call("rlm_search_query", {
        "session_id": session, "query": "getcwd", "method": "literal"}))
    assert out["matches"][0]["line"] == 5 and "page" not in out["matches"][0]
    log = CitationLog()
    log.add(SpanRef(doc_id=doc["doc_id"], start=out["matches"][0]["span"]["start"],
                    end=out["matches"][0]["span"]["end"]))
    [citation] = log.citations(runtime.store, session)
    assert (citation.line, citation.page) == (5, None)


def test_citation_page_and_line_are_declared_integers() -> None:
    base = {"doc_id": "doc_1", "start": 0, "end": 1, "checksum": "sha256:" + "0" * 64}
    assert Citation.model_validate({**base, "page": 3}).page == 3
    for bad in ({"page": "three"}, {"line": 0}, {"column": 1}):
        with pytest.raises(ValueError):
            Citation.model_validate({**base, **bad})
    schema = Citation.model_json_schema()["properties"]
    assert {"type": "integer", "minimum": 1} in schema["page"]["anyOf"]


async def test_a_changed_file_is_a_new_version_beside_the_old(
    runtime: Runtime, session: str, write,
) -> None:
    path = write("policy.txt", "Visits end at 20:00.\n")
    first = (await _load(runtime, session, {"type": "file", "path": "policy.txt"}))["loaded"][0]
    same = (await _load(runtime, session, {"type": "file", "path": "policy.txt"}))["loaded"][0]
    path.write_text("Visits end at 21:00.\n", "utf-8")
    second = (await _load(runtime, session, {"type": "file", "path": "policy.txt"}))["loaded"][0]
    assert (first["version"], same["version"], second["version"]) == (1, 1, 2)
    assert second["previous_doc_id"] == same["doc_id"]
    old = ok(await runtime.call("rlm_docs_peek", {"session_id": session,
                                                  "doc_id": first["doc_id"]}))
    assert old["content"] == "Visits end at 20:00.\n"
    assert runtime.store.parses.meta(second["doc_id"])["raw_sha256"] == second["raw_sha256"]


async def test_parse_meta_is_kept_beside_the_blob(runtime: Runtime, session: str,
                                                  tmp_path: Path) -> None:
    doc = await _pdf_session(runtime, session, tmp_path)
    meta = runtime.store.parses.meta(doc["doc_id"])
    text = runtime.store.text(runtime.store.document(session, doc["doc_id"]))
    assert meta["parser_version"] == doc["parser_version"]
    assert [p["page_num"] for p in meta["pages"]] == [1, 2, 3, 4, 5, 6]
    assert meta["offsets"]["byte_length"] == len(text.encode("utf-8"))
    assert meta["page_separator"] == "\f\n"


async def test_many_files_parse_in_the_process_pool_in_order(
    runtime: Runtime, session: str, tmp_path: Path,
) -> None:
    root = tmp_path / "many"
    root.mkdir()
    write_pdf(root / "a000.pdf", ["first page", "second page"])
    for i in range(1, 40):  # over the pool threshold
        (root / f"a{i:03d}.txt").write_text(f"file {i}\n", "utf-8")
    out = await _load(runtime, session, {"type": "directory", "path": str(root)})
    names = [Path(d["source"]).name for d in out["loaded"]]
    assert names == sorted(names) and len(names) == 40
    assert out["loaded"][0]["pages"] == 2 and out["total_pages"] == 2


async def test_a_citation_read_across_pages_is_one_citation_per_page(
    runtime: Runtime, session: str, tmp_path: Path,
) -> None:
    doc = await _pdf_session(runtime, session, tmp_path)
    info = runtime.store.parses.info(doc["doc_id"])
    start, end = info.page_range(3)[0] + 5, info.page_range(5)[0] + 5
    log = CitationLog()
    log.add(SpanRef(doc_id=doc["doc_id"], start=start, end=end))
    cited = log.citations(runtime.store, session)
    assert [c.page for c in cited] == [3, 4, 5]
    assert (cited[0].start, cited[-1].end) == (start, end)
    assert all(a.end == b.start for a, b in pairwise(cited))
    assert [c.status for c in verify_citations(runtime.store, cited)] == ["valid"] * 3


async def test_a_file_name_that_is_not_utf8_loads_under_an_escaped_label(
        runtime: Runtime, session: str, tmp_path: Path) -> None:
    """Linux names are bytes: a Latin-1 `café.txt` beside UTF-8 ones once failed the whole
    folder load with an internal error (surrogates reached the store)."""
    folder = tmp_path / "legacy"
    folder.mkdir()
    (folder / "plain.txt").write_text("The gate code is 4471.\n")
    latin1_name = bytes(folder) + b"/caf\xe9 notes.txt"
    with open(latin1_name, "wb") as handle:
        handle.write(b"The ward for the night shift is 7B.\n")
    report = await _load(runtime, session, {"type": "directory", "path": str(folder)})
    assert report["errors"] == []
    names = sorted(d["source"] for d in report["loaded"])
    assert names[0].endswith("caf\\xe9 notes.txt") and names[1].endswith("plain.txt")
    json.dumps(report, ensure_ascii=False).encode("utf-8")  # printable as it is

    hits = ok(await runtime.call("rlm_search_query", {"session_id": session,
                                                       "query": "night shift"}))
    assert hits["matches"][0]["source"].endswith("caf\\xe9 notes.txt")
    # Loading the folder again recognises the same file under the same label.
    again = await _load(runtime, session, {"type": "directory", "path": str(folder)})
    assert sorted(d["source"] for d in again["loaded"]) == names
