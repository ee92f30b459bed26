"""The OpenAI-compatible provider against a real server on loopback: llama-cpp-python's
(`llama-cpp-python[server]`, the `local` extra) serving the embedded SmolLM2 GGUF.

Where this llama.cpp build crashes on batched decoding (providers/llama_probe.py), the server
decodes token by token, as the embedded provider does; elsewhere its defaults run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from http_server import free_port, stop_process

from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatOptions, ChatRequest, Message
from rlm_recursive.providers.embedded import default_model_path
from rlm_recursive.providers.llama_probe import batched_decode_works
from rlm_recursive.providers.openai import OpenAIProvider
from rlm_recursive.types import ToolDef

pytestmark = pytest.mark.slow
ALIAS = "smollm2-served"
PICK = ToolDef(name="rlm_pick", description="Pick a colour.", parameters={
    "type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "blue"]}},
    "required": ["colour"]})


def _decode_args() -> list[str]:
    import llama_cpp

    if batched_decode_works(default_model_path(), Path(llama_cpp.__file__).parent):
        return []
    return ["--n_batch", "1", "--n_ubatch", "1"]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server]")
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()),
             "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
             "--n_ctx", "4096", "--n_threads", "1", "--verbose", "false",
             *_decode_args()],
            stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env)
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited: {Path(log).read_text()[-2000:]}")
                try:  # an HTTP answer, not a bare connect: a connect can meet itself
                    if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).is_success:
                        break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        pytest.fail("llama_cpp.server did not listen within 120 s")
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            stop_process(proc, 15)


def _request(tools=(), **options) -> ChatRequest:
    return ChatRequest(model=ALIAS, tools=list(tools),
                       messages=[Message(role="user", content="Name a colour: red or blue?")],
                       options=ChatOptions(max_tokens=40, seed=1, **options))


async def test_plain_streamed_and_constrained_calls_on_a_real_server(server) -> None:
    provider = OpenAIProvider(server)
    streaming = OpenAIProvider(server, stream=True)
    try:
        plain = await provider.chat(_request())
        streamed = await streaming.chat(_request())
        # No native tools for this model: the constrained path. llama-cpp-python's server
        # refuses `json_schema` (422), so the provider steps down to `json_object` + schema.
        picked = await provider.chat(_request([PICK], native_tools=False))
        assert (await provider.models()).keys() == {ALIAS}
        window = await provider.context_window(ALIAS)
    finally:
        await provider.aclose()
        await streaming.aclose()
    assert plain.text.strip() and plain.usage.output_tokens > 0
    assert streamed.text == plain.text  # same seed, same tokens, assembled from the chunks
    assert picked.tool_calls[0].name == "rlm_pick"
    assert picked.tool_calls[0].arguments["colour"] in ("red", "blue")
    assert provider._schema_mode[ALIAS] == "json_object"
    assert window == 8192  # this server reports no window: the default


async def test_a_whole_query_through_the_openai_provider(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    runtime = Runtime(tmp_path / "data", profile="restricted")  # loopback: allowed
    sid = runtime.store.create_session("served", SessionConfig())["session_id"]
    text = ("Shipping log. The parcel for Lisbon left on Tuesday with tracking code "
            "LX-2291. ") + "Routine entry. " * 30
    runtime.store.add_document(sid, text.encode(), length_chars=len(text), source="log.txt",
                               source_type="inline")
    models = runtime.catalog.model_copy(update={"models": {
        **runtime.catalog.models, ALIAS: runtime.catalog.models["smollm2-135m"].model_copy(
            update={"name": ALIAS, "provider": "openai", "num_ctx": 4096})}})
    runtime.catalog = models
    try:
        result = await run_query(runtime, sid, "What is the tracking code of the Lisbon parcel?",
                                 QueryOptions(provider="openai", model=ALIAS, strategy="search",
                                              max_depth=0, timeout_s=240))
    finally:
        runtime.close()
    assert result.provider == "openai" and result.model == ALIAS
    assert result.answer.strip()
