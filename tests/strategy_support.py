"""Shared set-up for the strategy tests: a small fake model and a session of given texts."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, QueryResult, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.providers.base import ChatRequest
from rlm_recursive.providers.fake import FakeProvider, reply

SMALL = ('[models."small"]\nprovider = "fake"\nnum_ctx = {ctx}\ntools = false\n'
         'params_b = 0.1\n')


def small_runtime(tmp_path: Path, monkeypatch: Any, num_ctx: int = 4096) -> Runtime:
    models = tmp_path / "models.toml"
    models.write_text(SMALL.format(ctx=num_ctx))
    monkeypatch.setenv("RLM_MODELS", str(models))
    return Runtime(tmp_path / "store")


def load(runtime: Runtime, *texts: str) -> str:
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    for i, text in enumerate(texts):
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source=f"doc{i}.txt", source_type="inline")
    return sid


def over_layout(tmp_path: Path, monkeypatch: Any, text: str, question: str,
                follow: Callable[..., Any]) -> Any:
    """`follow(store, session, question, layout)` over a session of one text, as the
    runtime calls its look-ups (blocks, references) before any model call."""
    tmp_path.mkdir(exist_ok=True)
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, text)
    docs = runtime.store.documents(sid)
    layout = read_layout([(d.id, runtime.store.text(d)) for d in docs])
    try:
        return follow(runtime.store, sid, question, layout)
    finally:
        runtime.close()


def load_named(runtime: Runtime, files: dict[str, str]) -> str:
    """A session of the given texts under their file names (what names a document)."""
    sid = runtime.store.create_session("s", SessionConfig())["session_id"]
    for name, text in files.items():
        runtime.store.add_document(sid, text.encode(), length_chars=len(text), source=name,
                                   source_type="inline")
    return sid


def csv_text(rows: list[dict[str, str]]) -> str:
    """Rows written by the csv module, as a spreadsheet export would be."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def answers(first: str, reasked: str = "NOT FOUND") -> Callable[[ChatRequest], Any]:
    """A search run's script: the strategy's answer call gets `first`; the grounding re-ask
    gets `reasked`."""
    from rlm_recursive.agent.strategies.search import ANSWER_SYSTEM
    from rlm_recursive.providers.fake import reply

    def script(request: ChatRequest) -> Any:
        return reply(first if request.messages[0].content == ANSWER_SYSTEM else reasked)
    return script


def search_answer(tmp_path: Path, monkeypatch: Any, text: str, question: str,
                  strategy: str = "search") -> QueryResult:
    """One run (the search strategy, unless told) over one text with a model that finds
    nothing: what the runtime reads and grounds by code alone."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, text)
        result, _ = asyncio.run(ask(runtime, sid, question, strategy, answers("Not found.")))
    finally:
        runtime.close()
    return result


def counted_by_code(tmp_path: Path, monkeypatch: Any, files: dict[str, str], question: str
                    ) -> QueryResult:
    """One `auto` run over the named texts with a model that must not be asked: counted by
    code."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, files)
        return asyncio.run(run_query(
            runtime, sid, question, QueryOptions(provider="fake", model="small", strategy="auto"),
            providers=ProviderPool({"fake": FakeProvider(script=no_model)})))
    finally:
        runtime.close()


def no_model(request: ChatRequest) -> Any:
    """The script of a run that must not ask the model (counting by code)."""
    raise AssertionError("counting asks no model")


async def ask(runtime: Runtime, sid: str, question: str, strategy: str,
              script: Callable[[ChatRequest], Any], **options: Any
              ) -> tuple[QueryResult, FakeProvider]:
    fake = FakeProvider(script=script)
    result = await run_query(runtime, sid, question,
                             QueryOptions(provider="fake", model="small", strategy=strategy,
                                          **options),
                             providers=ProviderPool({"fake": fake}))
    return result, fake


def first_excerpt_line(request: ChatRequest) -> Any:
    """A small model's habit: it copies the first line it is shown ("NOT FOUND" when it is
    shown no excerpt, as in grounding's re-ask)."""
    prompt = request.messages[-1].content
    if "[Excerpt 1]" not in prompt:
        return reply("NOT FOUND")
    return reply(prompt.split("[Excerpt 1]\n", 1)[1].split("\n", 1)[0])


def tool_name(request: ChatRequest) -> str | None:
    return request.tools[0].name if request.tools else None


def texts_of(runtime: Runtime, sid: str) -> dict[str, str]:
    return {d.id: runtime.store.text(d) for d in runtime.store.documents(sid)}



async def assert_counted_by_code(tmp_path: Path, monkeypatch: Any, files: dict[str, str],
                                 question: str, expected: int) -> None:
    """`question` over `files`, routed by auto, counted by code (no model call) to
    `expected`, marked exact and grounded."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, files)
        result, _ = await ask(runtime, sid, question, "auto", no_model)
    finally:
        runtime.close()
    assert result.strategy == "count", result.answer
    assert result.answer.split()[0] == str(expected), result.answer
    assert result.exact is True and result.grounded is True


def never_asked(request: ChatRequest) -> None:
    """A model for answers computed by code: any call to it fails the test."""
    raise AssertionError("every answer here is computed: the model was called")
