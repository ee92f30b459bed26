"""The map-reduce tree reduce: many partial answers never overflow one reduce prompt."""

from __future__ import annotations

import re

import pytest
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.strategies.map_reduce import REDUCE_SYSTEM
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply

NUM_CTX = 2048
LIMIT = (NUM_CTX - 512) * 3  # the window in characters, the reply's reserve kept


@pytest.fixture
def many_chunks(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch, num_ctx=NUM_CTX)
    # 60 sections, each with one value: every chunk has a (long) partial answer.
    sections = [f"Section {i}: the reading for station S{i:02d} is {1000 + i}. " + "x " * 300
                for i in range(60)]
    yield runtime, load(runtime, "\n".join(sections))
    runtime.close()


def _script(request: ChatRequest) -> ChatResult:
    """Map: list every reading seen, padded long. Reduce: keep the largest reading."""
    prompt = request.messages[-1].content
    size = sum(len(m.content) for m in request.messages)
    assert size <= LIMIT, f"prompt of {size} chars overflows the window"
    readings = [int(v) for v in re.findall(r"\b(1\d{3})\b", prompt)]
    if request.messages[0].content == REDUCE_SYSTEM:
        return reply(f"largest reading {max(readings)}" if readings else "NOT FOUND")
    # Long but not a loop (a repeated phrase would be trimmed after its first copy).
    padding = " ".join(f"note{i}" for i in range(200))
    return reply(f"readings {readings} {padding}" if readings else "NOT FOUND")


async def test_the_reduce_is_a_tree_whose_every_prompt_fits(many_chunks):
    runtime, sid = many_chunks
    result, fake = await ask(runtime, sid, "What is the largest station reading?",
                             "map-reduce", _script, max_sub_calls=500)
    assert result.answer == "largest reading 1059"
    reduces = [r for r in fake.requests if r.messages[0].content == REDUCE_SYSTEM]
    maps = len(fake.requests) - len(reduces)
    # All partial answers together are far larger than one window: one call could not hold
    # them, so there are several reduce calls, in levels, each within the window.
    assert maps * 1600 > LIMIT
    assert 1 < len(reduces) < maps
