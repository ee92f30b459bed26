"""The MCP surface: every registry tool under its canonical name, plus `rlm_query`.

Each registry tool is published with the schema its `ToolSpec` renders (`tool_def(spec,
for_model=False)`, so it asks for `session_id`) and runs through `Runtime.call`, where
validation, budgets, caps, traces and the audit record happen once. The SDK's own argument
validation is bypassed for that reason. Every failure reaches the client as the JSON envelope
`{error, meta{error_code, retryable}}` with `isError: true`: the SDK would hide the message of
any exception we let through.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent

from .. import __version__
from ..agent.pool import ProviderPool
from ..agent.runtime import Runtime
from ..errors import RlmError, UnknownTool
from ..policy import new_correlation_id
from ..tools import tool_def
from ..tools.names import check_tool_names
from ..trajectory.feed import EventFeed
from ..types import ToolResult
from .progress import PROGRESS_TOOLS, with_progress
from .query_tool import (
    RLM_QUERY_DESCRIPTION,
    RLM_QUERY_NAME,
    internal_error,
    rlm_query_schema,
    run_rlm_query,
)
from .stdio_guard import SurrogateGuard
from .tenancy import check_tenant, claim_created, request_tenant

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HTTP_PATH",
    "build_server",
    "envelope_result",
    "serve_stdio",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
HTTP_PATH = "/mcp"

INSTRUCTIONS = (
    "Tools over a local document store, for corpora larger than your context or questions "
    "that need counting or aggregation (for a small file, just read it). Create a session "
    "(rlm_session_create), load files or text (rlm_docs_load), list them (rlm_docs_list); "
    "peek at structure (rlm_docs_peek), search (rlm_search_query: bm25, regex, literal), chunk "
    "(rlm_chunk_create) and map one question over many spans (rlm_sub_query_batch), storing "
    "partial results (rlm_artifact_store) and reducing them yourself. Every read carries a span "
    "and a checksum: cite doc_id[start:end] and check with rlm_citation_verify. Each call "
    "spends the session's tool budget (rlm_session_info). rlm_query answers one question "
    "about one file or text in a fresh session. rlm_session_close freezes a session; "
    "rlm_export_github writes it to a review branch of a git repository. Errors come back as "
    "{error, meta: {error_code, retryable}}."
)

# The sub-query tools pick their own model; a client's choice is an override (SDD 4.2).

ToolCall = Callable[[dict[str, Any], Context], Awaitable[CallToolResult]]


class _RawSchemaTool(Tool):
    """An MCPServer tool published with a ready JSON schema; arguments reach `fn` unvalidated."""

    async def run(
        self,
        arguments: dict[str, Any],
        context: Context,
        convert_result: bool = False,
    ) -> CallToolResult:
        return await self.fn(_pre_parse(self.parameters, arguments), context)


def _pre_parse(schema: dict[str, Any], arguments: Any) -> Any:
    """Decode lists and objects a client sent as JSON strings, as the SDK does for its tools."""
    # Some clients (Claude Desktop among them) send `"sources": "[{...}]"`; a property that
    # can never be a string is unambiguous.
    if not isinstance(arguments, dict):
        return arguments
    props = schema.get("properties", {})
    fixed = dict(arguments)
    for key, value in arguments.items():
        if isinstance(value, str) and _structured_only(props.get(key)):
            with contextlib.suppress(ValueError):
                parsed = json.loads(value)
                if isinstance(parsed, list | dict):
                    fixed[key] = parsed
    return fixed


def _structured_only(prop: dict[str, Any] | None) -> bool:
    options = (prop.get("anyOf") or [prop]) if prop else []
    types = {o.get("type") for o in options}
    structured = bool(types & {"array", "object"}) or any("$ref" in o for o in options)
    return structured and "string" not in types


def _tool(name: str, description: str, schema: dict[str, Any], call: ToolCall) -> Tool:
    return _RawSchemaTool(
        fn=call,
        name=name,
        description=description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=ArgModelBase),
        is_async=True,
    )


def envelope_result(output: dict[str, Any], *, is_error: bool) -> CallToolResult:
    """JSON text content (and the same object as structured content)."""
    text = json.dumps(output, ensure_ascii=False, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=output, is_error=is_error
    )


def _error_result(error: RlmError) -> CallToolResult:
    return envelope_result(error.to_dict(), is_error=True)


class _EnvelopeServer(MCPServer):
    """An MCPServer whose unknown-tool answer is our envelope, not the SDK's bare text."""

    def __init__(self, *args: Any, tools: list[Tool], **kwargs: Any) -> None:
        super().__init__(*args, tools=tools, **kwargs)
        self._names = [t.name for t in tools]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        if name not in self._names:
            return _error_result(UnknownTool(
                f"unknown tool {name[:200]!r}; available: {', '.join(self._names)}"))
        return await super().call_tool(name, arguments, context)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, with a guard that answers the requests its parser drops."""
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(
                SurrogateGuard(read_stream, write_stream), write_stream,
                self._lowlevel_server.create_initialization_options())


def build_server(
    runtime: Runtime,
    *,
    providers: ProviderPool | None = None,
    auth: AuthSettings | None = None,
    token_verifier: TokenVerifier | None = None,
    allow_noncanonical_tool_names: bool | None = None,
) -> MCPServer:
    """An MCPServer bound to one runtime: the registry's tools plus `rlm_query`.

    `providers`, when given, is shared by every `rlm_query` (tests inject fakes through it);
    otherwise each query opens and closes its own. `auth` and `token_verifier` go to the SDK
    as they are: its HTTP app then demands a bearer token (stdio ignores them).
    """
    runtime.confine()  # clients name the paths here: allowed roots only, in every profile
    tools = [
        _tool(
            spec.name,
            spec.description,
            tool_def(spec, for_model=False).parameters,
            _registry_call(runtime, spec.name),
        )
        for spec in (runtime.registry.spec(n) for n in runtime.registry.names())
    ]
    tools.append(
        _tool(
            RLM_QUERY_NAME,
            RLM_QUERY_DESCRIPTION,
            rlm_query_schema(),
            _query_call(runtime, providers),
        )
    )
    # Strict by default: a tool name that drifts from the pinned list stops the start-up.
    check_tool_names([t.name for t in tools], allow_noncanonical=allow_noncanonical_tool_names)
    return _EnvelopeServer(
        "rlm-recursive",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        log_level="WARNING",
        auth=auth,
        token_verifier=token_verifier,
    )


def _registry_call(runtime: Runtime, name: str) -> ToolCall:
    async def invoke(arguments: dict[str, Any], correlation_id: str,
                     feed: EventFeed | None = None) -> ToolResult:
        extras = {"progress": feed.loader_progress()} if feed is not None else {}
        return await runtime.call(name, arguments, runtime.context(**extras), correlation_id)

    async def call(arguments: dict[str, Any], context: Context) -> CallToolResult:
        correlation_id = new_correlation_id()
        tenant = request_tenant(context)
        try:
            if tenant is not None:  # served by the API at /mcp: stay inside the key's tenant
                await asyncio.to_thread(check_tenant, runtime.store, tenant, arguments)
            if name in PROGRESS_TOOLS:
                result = await with_progress(
                    context, lambda feed: invoke(arguments, correlation_id, feed))
            else:
                result = await invoke(arguments, correlation_id)
            if tenant is not None and not result.is_error:
                await asyncio.to_thread(claim_created, runtime.store, tenant, name,
                                        result.output)
        except RlmError as exc:  # run errors (budget, timeout, provider, internal) raise
            return _error_result(exc)
        except Exception as exc:  # never let the SDK swallow the message
            return _error_result(internal_error(name, exc, correlation_id))
        return envelope_result(result.output, is_error=result.is_error)

    return call


def _query_call(runtime: Runtime, providers: ProviderPool | None) -> ToolCall:
    async def call(arguments: dict[str, Any], context: Context) -> CallToolResult:
        correlation_id = new_correlation_id()
        tenant = request_tenant(context)
        try:
            if tenant is not None:
                await asyncio.to_thread(check_tenant, runtime.store, tenant, arguments)
            output, is_error = await with_progress(context, lambda feed: run_rlm_query(
                runtime, arguments, correlation_id=correlation_id, providers=providers,
                progress=feed.loader_progress()))
            if tenant is not None:
                await asyncio.to_thread(claim_created, runtime.store, tenant, RLM_QUERY_NAME,
                                        output)
        except Exception as exc:  # the audit log could not be written, or a bug
            error = (
                exc
                if isinstance(exc, RlmError)
                else internal_error(RLM_QUERY_NAME, exc, correlation_id)
            )
            return _error_result(error)
        return envelope_result(output, is_error=is_error)

    return call


def serve_stdio(runtime: Runtime) -> None:
    """Serve over stdin/stdout until the client closes; stdout carries the protocol only."""
    server = build_server(runtime)
    anyio.run(server.run_stdio_async)
