"""The app factory: routers, the error envelope, request ids, metrics and the audit record."""

from __future__ import annotations

import gc
import inspect
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.applications import Starlette
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..agent.pool import ProviderPool
from ..agent.runtime import Runtime
from ..errors import InternalError, InvalidArgs, NotFound, RlmError
from .bodyguard import BodyGuard
from .errors import error_response, request_id_from
from .maintenance import maintained
from .mcp_mount import mcp_route
from .queued import queued_loads
from .routes import citations, events, executions, openai, sessions, system
from .routes import runtime as runtime_mode
from .runner import ExecutionRunner
from .state import ApiSettings, ApiState

__all__ = ["create_app"]


def create_app(runtime: Runtime, settings: ApiSettings | None = None,
               providers: ProviderPool | None = None, mcp_app: Starlette | None = None,
               ) -> FastAPI:
    """The /v1 API over `runtime`; `providers` overrides the model backends (tests, benches).

    `mcp_app` (the MCP server's streamable HTTP app) is served at /mcp for admin keys.
    """
    state = ApiState(runtime, settings or ApiSettings(), providers)
    runner = ExecutionRunner(state)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with maintained(state, runner):
                _freeze_startup_objects()
                if mcp_app is None:
                    yield
                else:
                    async with mcp_app.router.lifespan_context(mcp_app):
                        yield
        finally:
            await runner.aclose()
            await state.aclose()

    app = FastAPI(title="rlm-recursive", version=__version__, lifespan=lifespan,
                  openapi_url="/v1/openapi.json", docs_url="/docs", redoc_url=None,
                  **_telemetry_switch())
    app.state.api = state
    app.state.runner = runner
    # With the shared store, long or bulk loads go to the workers (`queue/loads.py`).
    app.state.loads = queued_loads(state)
    for module in (sessions, executions, runtime_mode, citations, system, events, openai):
        app.include_router(module.router)
    if mcp_app is not None:
        app.router.routes.append(mcp_route(mcp_app, state))
    _handlers(app)
    app.add_middleware(BodyGuard, max_bytes=state.settings.max_body_bytes)
    app.add_middleware(_Around, state=state)  # added last: outermost, so it sees the 413s
    return app


def _telemetry_switch() -> dict[str, Any]:
    """FastAPI's own OpenTelemetry, on only when this process has it set up at start.

    FastAPI (0.160 and later) asks OpenTelemetry on every request whether a tracer, meter or
    logger provider has been set up since: three look-ups and environment reads, a twentieth
    of a small request's CPU. A server that nobody instruments decides once. Instrumented
    servers (`opentelemetry-instrument rlm-recursive api`, or providers set up before the
    app is built, or FASTAPI_OTEL_AUTO_CONFIGURE=true) keep FastAPI's default.
    """
    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}  # an older FastAPI: it has no such check
    if os.environ.get("FASTAPI_OTEL_AUTO_CONFIGURE", "").lower() == "true":
        return {}
    from opentelemetry import _logs, metrics, trace

    proxies = (trace.get_tracer_provider(), metrics.get_meter_provider(),
               _logs.get_logger_provider())
    if any(not type(p).__name__.lstrip("_").startswith("Proxy") for p in proxies):
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


def _freeze_startup_objects() -> None:
    """Move everything built at startup out of the collector's sight (`gc.freeze`).

    The app, its routes, the imported modules and their pydantic models are hundreds of
    thousands of objects that live as long as the process. Without this, every full
    collection walks them all: 100-260 ms with the event loop stopped, measured under load
    (benchmarks/api_load.py), which was the p99. Objects made after startup are collected
    as before.
    """
    gc.collect()
    gc.freeze()


def _rid(request: Request) -> str:
    return getattr(request.state, "request_id", None) or request_id_from(None)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(RlmError)
    async def rlm_error(request: Request, exc: RlmError) -> JSONResponse:
        return error_response(exc, _rid(request))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # The offending input is not echoed back: it may be a whole document.
        errors = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")}
                  for e in exc.errors()]
        return error_response(InvalidArgs("the request does not match the schema",
                                          errors=jsonable_encoder(errors)), _rid(request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            error: RlmError = NotFound(f"no route {request.method} {request.url.path}")
        elif exc.status_code >= 500:
            error = InternalError(str(exc.detail))
        else:  # 405 and other client errors are a malformed call
            error = InvalidArgs(str(exc.detail))
        return error_response(error, _rid(request), status=exc.status_code)


class _Around:
    """Request id in and out, metrics, and one content-free audit record per request.

    Plain ASGI rather than `@app.middleware("http")`: that wrapper streams every response
    through an extra task, a third of the cost of a small request.
    """

    def __init__(self, app: ASGIApp, state: ApiState) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(Headers(scope=scope).get("x-request-id"))
        scope.setdefault("state", {}).update(request_id=request_id, audit={})
        start = time.perf_counter()
        sent: dict[str, Any] = {}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Request-ID"] = request_id
                sent.update(status=message["status"], code=headers.get("x-rlm-error-code"))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:  # a bug: still the envelope, never a bare 500 page
            if sent:
                raise
            response = error_response(InternalError(type(exc).__name__), request_id)
            await response(scope, receive, send_with_id)
        elapsed = time.perf_counter() - start
        endpoint = getattr(scope.get("route"), "path", None) or "/*"
        status = sent.get("status", 500)
        metrics = self.state.metrics
        metrics.requests.labels(endpoint=endpoint, status=str(status)).inc()
        metrics.latency.labels(endpoint=endpoint).observe(elapsed)
        await _audit(self.state, scope, status, sent.get("code"), endpoint, elapsed)


async def _audit(state: ApiState, scope: Scope, status: int, code: str | None, endpoint: str,
                 elapsed: float) -> None:
    """Queued after the response went out (the client never waits on it), written in a batch
    with the other requests' records (policy/auditbatch.py)."""
    values = scope["state"]
    principal = values.get("principal")
    extra: dict[str, Any] = values["audit"]
    state.audit.record(
        correlation_id=values["request_id"], tool="http_api",
        duration_ms=elapsed * 1000.0, model_used=extra.get("model"), cost=extra.get("cost"),
        error_code=code if status >= 400 else None,
        tenant_id=principal.tenant_id if principal else None,
        key_id=principal.key_id if principal else None,
        route=f"{scope['method']} {endpoint}", status=status,
        execution_id=extra.get("execution_id"), tokens=extra.get("tokens"))
