"""The seed's error envelope (003 §16.1, §22.1) over the project's stable codes.

Every non-2xx answer is `{error: {code, message, request_id, details}}`; `code` is always one
of `errors.ERROR_CODES`, and each code has one HTTP status.
"""

from __future__ import annotations

import random
import re
from typing import Any

from fastapi.responses import JSONResponse

from ..errors import ERROR_CODES, RlmError

__all__ = ["HTTP_STATUS", "envelope", "error_response", "request_id_from"]

HTTP_STATUS: dict[str, int] = {
    "unauthorized": 401,
    "forbidden": 403,
    "path_denied": 403,
    "egress_denied": 403,
    "not_found": 404,
    "unknown_tool": 404,
    "session_closed": 409,
    "session_not_ready": 409,
    "session_expired": 410,
    "secrets_found": 409,
    "conflict": 409,
    "file_too_large": 413,
    "payload_too_large": 413,
    "unsupported_file": 415,
    "invalid_args": 422,
    "context_overflow": 422,
    "file_not_found": 422,
    "rate_limited": 429,
    "budget_exceeded": 429,
    "internal_error": 500,
    "key_salt_missing": 500,  # the server's configuration, not the client's request
    "key_salt_mismatch": 500,  # `store copy` only (CLI)
    "target_not_empty": 409,  # `store copy` only (CLI)
    "git_error": 500,
    "provider_error": 502,
    "model_not_found": 502,
    "auth_error": 502,  # the model server refused the runner's key: not the client's 401
    "empty_answer": 502,
    "store_unavailable": 503,
    "execution_lost": 503,  # the shared store lost a worker's result: submit it again
    "timeout": 504,
}
"""One status per stable code (a test checks that every code has one)."""

_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")


def request_id_from(header: str | None) -> str:
    """The client's X-Request-ID when it is a plain id, else a fresh one."""
    if header and _REQUEST_ID.fullmatch(header):
        return header
    # 128 random bits, as a uuid4 has, from the process's Mersenne Twister (seeded from the
    # OS at start): an id needs to be unique, not secret, and uuid4's system call per request
    # showed up in the API's profile under load.
    return f"req_{random.getrandbits(128):032x}"


def envelope(code: str, message: str, request_id: str,
             details: dict[str, Any] | None = None) -> dict[str, Any]:
    if code not in ERROR_CODES:  # a bug here must not invent a code clients cannot branch on
        code = "internal_error"
    return {"error": {"code": code, "message": message, "request_id": request_id,
                      "details": details or {}}}


def error_response(exc: RlmError, request_id: str, *, status: int | None = None) -> JSONResponse:
    """The envelope for an RlmError, with Retry-After when the error says when to retry."""
    headers = {"X-Request-ID": request_id, "X-RLM-Error-Code": exc.code}
    retry = exc.details.get("retry_after_s")
    if isinstance(retry, int | float):
        headers["Retry-After"] = str(max(1, int(retry)))
    details = {k: v for k, v in exc.details.items() if _jsonable(v)}
    body = envelope(exc.code, exc.message, request_id, details)
    return JSONResponse(body, status_code=status or HTTP_STATUS.get(exc.code, 500),
                        headers=headers)


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | type(None) | list | dict)
