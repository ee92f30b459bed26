"""The trajectory of a run: the recorded tree, `trace --json/--html`, `runs`, restricted, off."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply, tool_reply

MARKER = "ZEBRA-PLANTED-7781"
MODELS = """
[models."qwen-fake-root"]
provider = "fake"
num_ctx = 16384
[models."qwen-fake-leaf"]
provider = "fake"
num_ctx = 16384
tools = false
[presets.fake-tiers]
tiers = [{ model = "qwen-fake-root" }, { model = "qwen-fake-leaf" }]
"""
TEXT = f"Alpha section. The vault code is 5521 ({MARKER}). " * 20


def script(request: ChatRequest) -> ChatResult:
    """Search, then delegate the hit to a sub-model, then answer with what came back."""
    results = [json.loads(m.content) for m in request.messages if m.role == "tool"]
    if not request.tools:  # the leaf: a plain completion over its span
        return reply(f"5521 seen in {MARKER}", tokens=(40, 6))
    if not results:
        return tool_reply("rlm_search_query", {"query": f"vault code {MARKER}"})
    if len(results) == 1:
        match = results[0]["matches"][0]
        return tool_reply("rlm_sub_query", {"query": f"code? {MARKER}",
                                            "doc_id": match["doc_id"]})
    return tool_reply("rlm_final_answer", {"answer": f"The code is 5521. {MARKER}"})


def _runtime(tmp_path: Path, monkeypatch, profile: str, extra: str = "") -> Runtime:
    models = tmp_path / "models.toml"
    models.write_text(MODELS + extra)
    monkeypatch.setenv("RLM_MODELS", str(models))
    return Runtime(tmp_path / "data", profile)


async def _run(rt: Runtime) -> tuple[str, object]:
    sid = rt.store.create_session("t", SessionConfig())["session_id"]
    rt.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="vault.txt",
                          source_type="inline")
    options = QueryOptions(preset="fake-tiers", max_depth=1, strategy="agent")
    result = await run_query(rt, sid, f"What is the vault code? {MARKER}", options,
                             providers=ProviderPool({"fake": FakeProvider(script=script)}))
    return sid, result


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.nodes: list[dict[str, str]] = []
        self.urls: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "details" and "node" in (attrs.get("class") or ""):
            self.nodes.append(attrs)
        for key in ("src", "href", "action", "data", "poster"):
            if attrs.get(key):
                self.urls.append(attrs[key])
        if tag == "a":
            self.links.append(attrs.get("href", ""))
        if tag in ("link", "iframe", "object", "embed", "img"):
            self.urls.append(f"<{tag}>")

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def _no_external(html: str, page: _Page) -> None:
    assert not [u for u in page.urls if re.match(r"\s*(https?:)?//", u)], page.urls
    assert "<link" not in html and "<img" not in html
    assert "@import" not in html and "url(" not in html
    assert not re.search(r"<script[^>]+src=", html)


def test_full_trajectory_tree_and_html(database_url, tmp_path, monkeypatch):
    rt = _runtime(tmp_path, monkeypatch, "unrestricted")
    try:
        sid, result = asyncio.run(_run(rt))
    finally:
        rt.close()
    assert result.run_id and result.answer.startswith("The code is 5521")
    out = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"), "trace",
                                   result.run_id, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    run, events = data["run"], {e["id"]: e for e in data["events"]}
    assert run["status"] == "ok" and run["strategy"] == "agent" and run["session_id"] == sid
    assert run["question"].startswith("What is the vault code")
    # root: m1 → t1 search; m2 → t2 sub_query → s1 (depth 1) → m3 (leaf); m4 final answer
    assert [e["kind"] for e in data["events"] if e["kind"] == "model"] == ["model"] * 4
    assert events["t1"]["name"] == "rlm_search_query" and events["t1"]["parent_id"] == "m1"
    assert events["t2"]["name"] == "rlm_sub_query" and events["t2"]["parent_id"] == "m2"
    assert events["s1"]["parent_id"] == "t2" and events["s1"]["depth"] == 1
    assert events["m3"]["parent_id"] == "s1" and events["m3"]["depth"] == 1
    assert events["m3"]["name"] == "fake/qwen-fake-leaf"
    assert (events["m3"]["input_tokens"], events["m3"]["output_tokens"]) == (40, 6)
    assert events["m1"]["parent_id"] is None and events["m4"]["parent_id"] is None
    assert events["m1"]["input"][0]["role"] == "system"
    assert events["m1"]["output"]["tool_calls"][0]["name"] == "rlm_search_query"
    assert events["t1"]["output"]["matches"] and events["s1"]["output"]["response"]
    assert all(e["duration_ms"] >= 0 for e in events.values())
    assert run["usage"]["model_calls"] == 4 and run["limits"]["max_tool_calls"] == 200

    html_path = tmp_path / "report.html"
    out = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"), "trace",
                                   result.run_id, "--html", str(html_path)])
    assert out.exit_code == 0, out.output
    html = html_path.read_text("utf-8")
    page = _parse(html)
    _no_external(html, page)
    assert {f"node-{i}" for i in events} <= page.ids
    assert len(page.nodes) == len(events)
    assert {"answer", "tree", "budget", "citations", "cite-1"} <= page.ids
    assert "#cite-1" in page.links
    text = "".join(page.text)
    assert "The vault code is 5521" in text  # the cited text itself
    # each citation names its file and the line it starts on (issue 19)
    cited = run["citations"][0]
    assert f"{cited['source']}, line {cited['line']} [{cited['start']}:{cited['end']}]" in text
    assert "rlm_search_query" in text and "fake/qwen-fake-leaf" in text
    assert "40 → 6 tok" in text


def test_restricted_trajectory_holds_no_content(tmp_path, monkeypatch):
    rt = _runtime(tmp_path, monkeypatch, "restricted")
    try:
        _, result = asyncio.run(_run(rt))
    finally:
        rt.close()
    assert MARKER in result.answer  # the run itself saw the marker everywhere
    db = sqlite3.connect(tmp_path / "data" / "rlm.db")
    runs = db.execute("SELECT * FROM runs").fetchall()
    events = db.execute("SELECT * FROM run_events").fetchall()
    assert len(runs) == 1 and len(events) >= 6
    assert MARKER not in repr(runs) + repr(events)
    assert db.execute("SELECT COUNT(*) FROM run_events WHERE input IS NOT NULL OR output "
                      "IS NOT NULL").fetchone()[0] == 0
    sizes = db.execute("SELECT input_chars, output_chars FROM run_events WHERE id = 'm1'"
                       ).fetchone()
    assert sizes[0] > 0 and sizes[1] > 0  # sizes, ids and timings are still there
    for args in (["trace", result.run_id, "--json"], ["runs"], ["runs", "--json"]):
        out = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"),
                                       "--profile", "restricted", *args])
        assert out.exit_code == 0, out.output
        assert MARKER not in out.output
    html_path = tmp_path / "r.html"
    CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"), "--profile", "restricted",
                             "trace", result.run_id, "--html", str(html_path)])
    html = html_path.read_text("utf-8")
    assert MARKER not in html and "vault" not in html
    page = _parse(html)
    _no_external(html, page)
    assert "content not recorded" in html and len(page.nodes) == len(events)


def test_traces_false_records_nothing(database_url, tmp_path, monkeypatch):
    rt = _runtime(tmp_path, monkeypatch, "unrestricted",
                  "\n[profiles.unrestricted]\ntraces = false\n")
    try:
        _, result = asyncio.run(_run(rt))
        rt.store.flush()
        assert result.run_id is None
        assert rt.store.sql.one("SELECT COUNT(*) FROM run_events")[0] == 0
        assert rt.store.sql.one("SELECT COUNT(*) FROM runs")[0] == 0
    finally:
        rt.close()


def test_runs_lists_recent_runs_and_unknown_run_is_not_found(database_url, tmp_path, monkeypatch):
    rt = _runtime(tmp_path, monkeypatch, "unrestricted")
    try:
        sid, first = asyncio.run(_run(rt))
        _, second = asyncio.run(_run(rt))
    finally:
        rt.close()
    base = ["--data-dir", str(tmp_path / "data")]
    listed = json.loads(CliRunner().invoke(app, [*base, "runs", "--json"]).stdout)
    assert [r["id"] for r in listed] == [second.run_id, first.run_id]
    assert listed[0]["strategy"] == "agent" and listed[0]["status"] == "ok"
    only = json.loads(CliRunner().invoke(app, [*base, "runs", "-s", sid, "--json"]).stdout)
    assert [r["id"] for r in only] == [first.run_id]
    table = CliRunner().invoke(app, [*base, "runs"], env={"COLUMNS": "160"})
    assert first.run_id in table.output and second.run_id in table.output
    assert "What is the vault" in table.output
    missing = CliRunner().invoke(app, [*base, "trace", "run_000000000000"])
    assert missing.exit_code == 1 and "error[not_found]" in missing.output


@pytest.mark.parametrize("failing", [True])
def test_a_failed_run_is_recorded_with_its_code(database_url, tmp_path, monkeypatch, failing):
    rt = _runtime(tmp_path, monkeypatch, "unrestricted")
    try:
        sid = rt.store.create_session("t", SessionConfig())["session_id"]
        rt.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="vault.txt",
                              source_type="inline")  # a run over nothing stops before the model
        with pytest.raises(Exception) as caught:
            asyncio.run(run_query(
                rt, sid, "q?", QueryOptions(preset="fake-tiers", strategy="agent"),
                providers=ProviderPool({"fake": FakeProvider([])})))
        rt.store.flush()
        row = rt.store.sql.one("SELECT status, error_code FROM runs")
        events = rt.store.sql.query("SELECT kind, status, error_code FROM run_events")
    finally:
        rt.close()
    assert tuple(row) == ("error", caught.value.code)
    assert [tuple(e) for e in events] == [("model", "error", caught.value.code)]
