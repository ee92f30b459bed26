"""The REPL's step history lives in the run's conversation (LCM): steps are kept losslessly
and every turn's prompt is assembled to fit the window, where a plain history overflows."""

from __future__ import annotations

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.lcm import LcmConfig, lcm_for
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

# A small window: twelve steps of ~1,000-char output cannot all stay in it.
MODELS = ('[models."coder"]\nprovider = "fake"\nnum_ctx = 4096\ntools = true\n'
          'params_b = 70\n')
STEPS = 12


def _script(requests: list[int], summaries: list[ChatRequest]):
    turn = iter(range(STEPS + 1))

    async def script(request: ChatRequest) -> ChatResult:
        if "Python sandbox" not in request.messages[0].content:
            summaries.append(request)  # the compaction's summariser, on the deepest tier
            return reply("Earlier steps printed markers and pump text.")
        requests.append(sum(len(m.content) for m in request.messages))
        step = next(turn)
        if step == STEPS:
            return reply("```repl\nFINAL('done after twelve steps')\n```")
        # Each step prints a marker and ~1,000 chars read from the corpus.
        return reply(f"```repl\nprint('marker-{step}', context[0][0:1000])\n```")

    return script


async def test_repl_steps_join_the_conversation_and_every_prompt_fits(tmp_path, monkeypatch):
    models = tmp_path / "models.toml"
    models.write_text(MODELS)
    monkeypatch.setenv("RLM_MODELS", str(models))
    runtime = Runtime(tmp_path / "data")
    try:
        sid = runtime.store.create_session("s", SessionConfig())["session_id"]
        text = "Pump P-101 runs on generator power. " * 400
        runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                   source="pumps.txt", source_type="inline")
        sizes: list[int] = []
        summaries: list[ChatRequest] = []
        fake = FakeProvider(script=_script(sizes, summaries))
        result = await run_query(runtime, sid, "Which pumps run on generator power?",
                                 # A placeholder answer: this test is about the window.
                                 QueryOptions(model="coder", strategy="repl",
                                              max_iterations=STEPS + 2, grounding=False),
                                 providers=ProviderPool({"fake": fake}))
        assert result.answer == "done after twelve steps"
        assert result.conversation_id is not None
        lcm = lcm_for(runtime.store, LcmConfig.load(runtime.catalog.lcm))
        try:
            # Every step's output is in the conversation, word for word, compacted or not.
            for step in range(STEPS):
                found = lcm.retrieval.grep(result.conversation_id, f"marker-{step}",
                                           mode="full_text", scope="messages", limit=5)
                assert found["matches"], step
            items = lcm.store.get_context_items(result.conversation_id, with_content=False)
            assert any(i.item_type == "summary" for i in items)
            assert summaries, "older steps were summarised by the model tier"
        finally:
            lcm.close()
    finally:
        runtime.close()
    # Twelve steps of ~1,100 chars each would be ~13K chars by the end; the window is
    # 4,096 tokens (about 9K chars after the reply reserve): the prompts stayed inside it.
    assert len(sizes) == STEPS + 1
    assert max(sizes) < 3 * (4096 - 1024)
