"""The live view: fed by the run's event stream; never on stdout when it is not a terminal."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from test_trace_report import MODELS, TEXT, script
from typer.testing import CliRunner

from rlm_recursive import trajectory
from rlm_recursive.agent import pool
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.cli.app import app
from rlm_recursive.cli.live import LiveView, live_progress
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.fake import FakeProvider


@pytest.fixture
def fake_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = tmp_path / "models.toml"
    models.write_text(MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    # The CLI builds its own pool: give it the scripted provider for the "fake" tiers.
    monkeypatch.setattr(pool, "_create", lambda tier, *_: FakeProvider(script=script))


def test_query_off_a_terminal_prints_only_the_answer(tmp_path, fake_models):
    (tmp_path / "vault.txt").write_text(TEXT)
    args = ["query", "What is the vault code?", "vault.txt", "--preset", "fake-tiers",
            "--strategy", "agent"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("The code is 5521.")
    assert "\x1b" not in out  # no cursor movement, no colour: nothing live was drawn
    assert "tokens" not in out and "now:" not in out and "building the search index" not in out
    assert " · run run_" in out

    as_json = CliRunner().invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout)["run_id"].startswith("run_")


def test_the_live_view_consumes_the_run_events(tmp_path, fake_models):
    rt = Runtime(tmp_path / "data", "unrestricted")
    view = LiveView("What is the vault code?", {"max_tool_calls": 200, "max_sub_calls": 64})
    seen: list[str] = []
    try:
        sid = rt.store.create_session("l", SessionConfig())["session_id"]
        rt.store.add_document(sid, TEXT.encode(), length_chars=len(TEXT), source="v.txt",
                              source_type="inline")

        async def go():
            with trajectory.listening(view, lambda event, _payload: seen.append(event)):
                return await run_query(rt, sid, "What is the vault code?",
                                       QueryOptions(preset="fake-tiers", strategy="agent"),
                                       providers=ProviderPool({"fake": FakeProvider(
                                           script=script)}))

        result = asyncio.run(go())
    finally:
        rt.close()
    assert seen[0] == "run_start" and seen[-1] == "run_end" and "progress" in seen
    assert view.index == (len(TEXT), len(TEXT))  # the first search built the index
    console = Console(record=True, width=140, file=io.StringIO())
    console.print(view.render())
    drawn = console.export_text()
    assert "t1 tool rlm_search_query" in drawn and "s1 sub q1" in drawn
    assert "m3 model fake/qwen-fake-leaf" in drawn and "40→6 tok" in drawn
    assert "tokens 70 in / 21 out" in drawn and "tool calls 2/200" in drawn
    assert result.run_id


def test_live_progress_draws_only_on_a_terminal():
    piped = Console(file=io.StringIO())
    with live_progress(piped, "q", {}) as view:
        assert view is None
    assert piped.file.getvalue() == ""
    tty = Console(file=io.StringIO(), force_terminal=True, width=100)
    with live_progress(tty, "the question", {}) as view:
        assert view is not None and trajectory.recorder.current_listeners() == (view,)
    assert "the question" in tty.file.getvalue()
