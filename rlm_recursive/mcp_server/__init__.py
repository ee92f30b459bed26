"""The MCP surface: the tool registry and `rlm_query` served over stdio or streamable HTTP."""

from .http import (
    RemoteBindRefused,
    check_bind_host,
    check_origin,
    new_token,
    normalise_host,
    serve_http,
    transport_security,
)
from .query_tool import RLM_QUERY_NAME, RlmQueryArgs, rlm_query_schema, run_rlm_query
from .server import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    HTTP_PATH,
    build_server,
    envelope_result,
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
    "check_origin",
    "envelope_result",
    "new_token",
    "normalise_host",
    "rlm_query_schema",
    "run_rlm_query",
    "serve_http",
    "serve_stdio",
    "transport_security",
]
