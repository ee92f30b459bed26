"""The MCP surface: the tool registry and `rlm_query` served over stdio or streamable HTTP."""

from .query_tool import RLM_QUERY_NAME, RlmQueryArgs, rlm_query_schema, run_rlm_query
from .server import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    HTTP_PATH,
    RemoteBindRefused,
    build_server,
    check_bind_host,
    envelope_result,
    serve_http,
    serve_stdio,
)

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HTTP_PATH",
    "RLM_QUERY_NAME",
    "RemoteBindRefused",
    "RlmQueryArgs",
    "build_server",
    "check_bind_host",
    "envelope_result",
    "rlm_query_schema",
    "run_rlm_query",
    "serve_http",
    "serve_stdio",
]
