"""The app factory: routers, the error envelope, request ids, metrics and the audit record."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..agent.pool import ProviderPool
from ..agent.runtime import Runtime
from ..errors import InternalError, InvalidArgs, NotFound, RlmError
from .errors import error_response, request_id_from
from .routes import citations, executions, sessions, system
from .routes import runtime as runtime_mode
from .runner import ExecutionRunner
from .state import ApiSettings, ApiState

__all__ = ["create_app"]


def create_app(runtime: Runtime, settings: ApiSettings | None = None,
               providers: ProviderPool | None = None) -> FastAPI:
    """The /v1 API over `runtime`; `providers` overrides the model backends (tests, benches)."""
    state = ApiState(runtime, settings or ApiSettings(), providers)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await state.aclose()

    app = FastAPI(title="rlm-recursive", version=__version__, lifespan=lifespan,
                  openapi_url="/v1/openapi.json", docs_url="/docs", redoc_url=None)
    app.state.api = state
    app.state.runner = ExecutionRunner(state)
    for module in (sessions, executions, runtime_mode, citations, system):
        app.include_router(module.router)
    _handlers(app)
    app.middleware("http")(_around(state))
    return app


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


Call = Callable[[Request], Awaitable[Response]]


def _around(state: ApiState) -> Callable[[Request, Call], Awaitable[Response]]:
    """Request id in and out, metrics, and one content-free audit record per request."""

    async def middleware(request: Request, call_next: Call) -> Response:
        request_id = request_id_from(request.headers.get("x-request-id"))
        request.state.request_id = request_id
        request.state.audit = {}
        start = time.perf_counter()
        try:
            response = await call_next(request)
        except Exception as exc:  # a bug: still the envelope, never a bare 500 page
            response = error_response(InternalError(f"{type(exc).__name__}"), request_id)
        response.headers["X-Request-ID"] = request_id
        elapsed = time.perf_counter() - start
        route = request.scope.get("route")
        endpoint = getattr(route, "path", None) or "/*"
        state.metrics.requests.labels(endpoint=endpoint, status=str(response.status_code)).inc()
        state.metrics.latency.labels(endpoint=endpoint).observe(elapsed)
        await _audit(state, request, response, endpoint, elapsed)
        return response

    return middleware


async def _audit(state: ApiState, request: Request, response: Response, endpoint: str,
                 elapsed: float) -> None:
    principal = getattr(request.state, "principal", None)
    extra: dict[str, Any] = request.state.audit
    code = None
    if response.status_code >= 400:
        code = response.headers.get("x-rlm-error-code")
    await state.db(
        state.runtime.audit.record, correlation_id=request.state.request_id, tool="http_api",
        duration_ms=elapsed * 1000.0, model_used=extra.get("model"), cost=extra.get("cost"),
        error_code=code, tenant_id=principal.tenant_id if principal else None,
        key_id=principal.key_id if principal else None,
        route=f"{request.method} {endpoint}", status=response.status_code,
        execution_id=extra.get("execution_id"), tokens=extra.get("tokens"))
