"""`rlm_query`: one question over one file or one text, answered in a fresh session (SDD 1.Z).

The text never reaches the audit log: the one record per call carries sizes, the model, the
cost and the error code only. Success is `{data, meta}` with no `error` key; failure is
`{error, meta{error_code, retryable}}`, and a failed run returns no partial answer.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..agent.pool import ProviderPool
from ..agent.query import QueryOptions, QueryResult, run_query
from ..agent.runtime import Runtime
from ..agent.strategies import Strategy
from ..corpus.loaders import LoadProgress
from ..errors import InternalError, InvalidArgs, RlmError
from ..lcm import lcm_for
from ..policy import audited
from ..types import MODEL_TIERS_HELP

__all__ = [
    "RLM_QUERY_DESCRIPTION",
    "RLM_QUERY_NAME",
    "RlmQueryArgs",
    "rlm_query_schema",
    "run_rlm_query",
]

RLM_QUERY_NAME = "rlm_query"
RLM_QUERY_DESCRIPTION = (
    "Answer a question about one file (`path`, read under the server's path policy) or one "
    "text (`context`); give exactly one of them. The text is loaded into a fresh session and "
    "a local or configured model answers with citations (spans with sha256 checksums). Returns "
    "{data: {answer, session_id, budget_summary, citations}, meta} or {error, meta: "
    "{error_code, retryable}}. Use the returned session_id with rlm_docs_peek or "
    "rlm_citation_verify to check the answer. Pass the returned conversation_id to ask a "
    "follow-up: earlier questions and answers are remembered (lcm_grep/lcm_expand search "
    "them)."
)

_SOURCES = ("path", "context")


class RlmQueryArgs(BaseModel):
    """The `rlm_query` input (SDD 4.2), plus the runtime's preset, strategy and provider."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(
        min_length=1, max_length=5000, description="Analysis task/question (max 5000 chars)"
    )
    path: str | None = Field(
        None,
        description="File to analyze, relative to the server's "
        "working folder and subject to its path policy",
    )
    context: str | None = Field(None, description="Raw text to analyze")
    budget_usd: float = Field(1.0, ge=0.01, description="Per-call cost cap in US dollars")
    model: str | None = Field(
        None,
        description="Model override for the root (subject to the "
        "egress policy; denied unless the profile allows overrides)",
    )
    max_bytes: int | None = Field(
        None,
        ge=1,
        description="Maximum bytes to read from path "
        "(default and ceiling: the profile's query cap, 262144)",
    )
    timeout_s: int = Field(300, ge=1, le=3600, description="Hard timeout for the whole query")
    max_turns: int = Field(5, ge=1, le=10, description="Cap on the model's reasoning turns")
    language: str | None = Field(None, description="Language hint, e.g. python")
    preset: str | None = Field(
        None, description="A preset from models.toml, e.g. embedded, fully-local, quality-first"
    )
    strategy: Strategy = Field(
        "auto",
        description="agent: the model drives the tools; search: BM25 passages; "
        "map-reduce: every chunk; repl: the model writes Python over the text in a sandbox "
        "(counting, filtering, many sub-calls); iterative: chained look-ups; count: exact "
        "counting by pattern; classify: a per-item judgement summed in code; auto: by model "
        "size and question",
    )
    provider: Literal["auto", "ollama", "openai", "claude", "embedded"] = Field(
        "auto", description="auto: Ollama if it answers, else the embedded model; openai: "
        "the OpenAI-compatible server at OPENAI_BASE_URL"
    )
    model_tiers: dict[str, str] | None = Field(
        None, description=MODEL_TIERS_HELP + " Subject to the egress policy, as model is."
    )
    conversation_id: int | None = Field(
        None, ge=1, le=2**63 - 1, description="Continue this conversation (a previous answer's "
        "conversation_id); the text joins that conversation's session"
    )
    grounding: bool = Field(
        True, description="Check the answer against the spans it cites: when it fails, re-ask "
        "once, quote the best sentence, else answer 'not found' (meta.grounded false, "
        "meta.closest the nearest passages); false returns the model's answer unchecked"
    )

    @model_validator(mode="before")
    @classmethod
    def _exactly_one_source(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given = [k for k in _SOURCES if data.get(k) is not None]
            if len(given) != 1:
                found = " and ".join(given) if given else "neither"
                raise ValueError(f"give exactly one of path or context (got {found})")
        return data


def rlm_query_schema() -> dict[str, Any]:
    """The input schema: pydantic's rendering, optional fields not nullable.

    No top-level `oneOf`/`anyOf`/`allOf`/`not`/`enum`: the Anthropic API refuses such a tool
    schema and Claude Code then drops the tool. "Exactly one of path / context" lives in the
    description and in `RlmQueryArgs`'s validator, which answers `invalid_args`.
    """
    schema = RlmQueryArgs.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)  # the class docstring is for readers of this code
    for prop in schema["properties"].values():
        prop.pop("title", None)
        options = prop.get("anyOf")
        if options and {"type": "null"} in options and len(options) == 2:
            prop.pop("anyOf")
            prop.update(next(o for o in options if o != {"type": "null"}))
            if prop.get("default", ...) is None:
                prop.pop("default")
    return schema


class _Coded(RlmError):
    """An error another layer reported as an envelope, re-raised with its own code."""

    def __init__(self, message: str, code: str, retryable: bool = False) -> None:
        super().__init__(message, retryable=retryable)
        self.code = code  # type: ignore[misc]


async def run_rlm_query(
    runtime: Runtime,
    arguments: dict[str, Any],
    *,
    correlation_id: str,
    providers: ProviderPool | None = None,
    progress: Callable[[LoadProgress, str], None] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Run one `rlm_query` call; returns `(envelope, is_error)` and writes one audit record.

    `progress(counts, label)` hears each loaded file (MCP progress notifications).
    """
    async with audited(runtime.audit, RLM_QUERY_NAME, correlation_id) as record:
        try:
            args = _parse(arguments)
            document, source = await asyncio.to_thread(_read_source, runtime, args)
            record.bytes_read = source["bytes_read"]
            session_id = await _load(runtime, document,
                                     _conversation_session(runtime, args.conversation_id),
                                     progress)
            question = args.task
            if args.language:
                question += f"\n\n(The text is {args.language}.)"
            result = await run_query(
                runtime, session_id, question, _options(args), providers, audit=record
            )
        except RlmError as exc:
            record.error_code = exc.code
            return exc.to_dict(), True
        except Exception as exc:  # a bug of ours: a coded error the operator can trace
            error = internal_error(RLM_QUERY_NAME, exc, correlation_id)
            record.error_code = error.code
            return error.to_dict(), True
        return _success(result, source), False


def internal_error(tool: str, exc: BaseException, correlation_id: str) -> InternalError:
    """Log a bug to stderr by type and place (its message may quote content); a coded error."""
    frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
    print(
        f"rlm-recursive: {tool} {correlation_id} failed: {type(exc).__name__}{where}",
        file=sys.stderr,
    )
    return InternalError(
        f"{tool} failed unexpectedly ({type(exc).__name__}); see the server log for "
        f"correlation id {correlation_id}",
        retryable=True,
        correlation_id=correlation_id,
    )


def _parse(arguments: dict[str, Any]) -> RlmQueryArgs:
    if not isinstance(arguments, dict):
        raise InvalidArgs("rlm_query: arguments must be a JSON object")
    try:
        return RlmQueryArgs.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: "
            f"{err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors(include_url=False)
        )
        raise InvalidArgs(f"rlm_query: invalid arguments: {problems}") from None


def _read_source(runtime: Runtime, args: RlmQueryArgs) -> tuple[dict[str, Any], dict[str, Any]]:
    """What to load (an inline text, or the file itself) and `meta.source`; a file over the
    cap is refused, never cut."""
    if args.context is not None:
        size = len(args.context.encode("utf-8"))
        return ({"type": "inline", "content": args.context, "name": "context"},
                {"type": "context", "bytes_read": size, "truncated": False})
    cap = runtime.profile.query_max_bytes(args.max_bytes)
    canonical = runtime.policy.resolve(args.path or "", expect="file", max_bytes=cap)
    size = canonical.stat().st_size
    # Loaded as a file, by the client's own path (the load checks it again under the same
    # policy): the parsers keep a PDF's pages and a text's lines, so citations carry them.
    return ({"type": "file", "path": args.path or ""},
            {"type": "path", "path": args.path, "bytes_read": size, "truncated": False})


def _conversation_session(runtime: Runtime, conversation_id: int | None) -> str | None:
    """The session a continued conversation lives in (its texts stay readable there)."""
    if conversation_id is None:
        return None
    return lcm_for(runtime.store).store.conversation(conversation_id).session_id


async def _load(runtime: Runtime, document: dict[str, Any], session_id: str | None = None,
                progress: Callable[[LoadProgress, str], None] | None = None) -> str:
    """One source (`rlm_docs_load`'s shape) in `session_id`, or in a fresh session; its id."""
    ctx = runtime.context(**({"progress": progress} if progress is not None else {}))
    if session_id is None:
        created = await runtime.registry.invoke("rlm_session_create",
                                                {"name": RLM_QUERY_NAME}, ctx)
        _raise_if_error(created.output, created.is_error)
        session_id = created.output["session_id"]
    loaded = await runtime.registry.invoke(
        "rlm_docs_load", {"session_id": session_id, "sources": [document]}, ctx)
    _raise_if_error(loaded.output, loaded.is_error)
    for problem in loaded.output.get("errors", []):
        raise _Coded(problem["message"], problem["error_code"])
    return session_id


def _raise_if_error(output: dict[str, Any], is_error: bool) -> None:
    if is_error:
        meta = output.get("meta", {})
        raise _Coded(
            output.get("error", "failed"),
            meta.get("error_code", "internal_error"),
            bool(meta.get("retryable")),
        )


def _options(args: RlmQueryArgs) -> QueryOptions:
    return QueryOptions(
        preset=args.preset,
        provider=args.provider,
        model=args.model,
        model_tiers=args.model_tiers,
        strategy=args.strategy,
        timeout_s=float(args.timeout_s),
        budget_usd=args.budget_usd,
        max_iterations=args.max_turns,
        conversation_id=args.conversation_id,
        grounding=args.grounding,
        client_override=True,
    )


def _success(result: QueryResult, source: dict[str, Any]) -> dict[str, Any]:
    usage = result.usage
    return {
        "data": {
            "answer": result.answer,
            "session_id": result.session_id,
            "conversation_id": result.conversation_id,
            "budget_summary": {"total_cost_usd": usage.get("cost_usd") or 0.0, **usage},
            "citations": [c.model_dump() for c in result.citations],
        },
        "meta": {
            "source": source,
            "model_used": result.model,
            "provider": result.provider,
            "strategy": result.strategy,
            "stopped": result.stopped,
            # The answer rests on nothing the run read: no citation backs it.
            "uncited": result.uncited,
            # Backed by the cited spans (true), "not found" or ungrounded (false), or not
            # checked (null: grounding off); the closest passages never join the answer.
            "grounded": result.grounded,
            "grounding": result.grounding,
            "closest": result.closest,
            "trace_included": False,
            **({"execution_id": result.execution_id} if result.execution_id else {}),
        },
    }
