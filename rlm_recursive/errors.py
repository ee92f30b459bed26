"""Errors with stable codes.

    RlmError                      code, retryable, to_dict()
    ├── ModelError                the model's tool call was wrong: goes back to it as a tool result
    │   ├── InvalidArgs           invalid_args
    │   ├── UnknownTool           unknown_tool
    │   ├── NotFound              not_found (session, doc, span, artifact)
    │   ├── SessionClosed         session_closed (a load or artifact write after close)
    │   └── ContextOverflow       context_overflow (the input does not fit the model's window)
    ├── UserError                 bad input or configuration from the person or client
    │   ├── FileNotFound          file_not_found
    │   ├── FileTooLarge          file_too_large
    │   ├── UnsupportedFile       unsupported_file (binary, not UTF-8)
    │   ├── PathDenied            path_denied
    │   ├── EgressDenied          egress_denied
    │   ├── SecretsFound          secrets_found (an export would publish secrets)
    │   ├── GitError              git_error (git missing, not a repository, a git step failed)
    │   ├── ConfigError           invalid_args (bad models.toml, unknown preset or model)
    │   │   ├── KeySaltMissing    key_salt_missing (a shared database and no shared API-key
    │   │   │                     salt: RLM_API_KEY_SALT or RLM_API_KEY_SALT_FILE)
    │   │   └── KeySaltMismatch   key_salt_mismatch (`store copy`: the shared salt is not the
    │   │                         data dir's, so its API keys would never authenticate)
    │   ├── TargetNotEmpty        target_not_empty (`store copy`: the target store has rows)
    │   ├── Unauthorized          unauthorized (HTTP API: missing, malformed or revoked key)
    │   ├── Forbidden             forbidden (HTTP API: the key lacks the scope)
    │   ├── RateLimited           rate_limited (HTTP API: over a rate or concurrency limit)
    │   ├── PayloadTooLarge       payload_too_large (HTTP API: a body over --max-body-bytes)
    │   ├── SessionExpired        session_expired (HTTP API: the session outlived its TTL)
    │   └── SessionNotReady       session_not_ready (HTTP API: documents still loading)
    └── RunError                  the run cannot go on: ends it with its code
        ├── BudgetExceeded        budget_exceeded
        ├── Timeout               timeout
        ├── EmptyAnswer           empty_answer (the model gave no answer, e.g. it spent its
        │                         whole output budget thinking)
        ├── ProviderError         provider_error
        │   ├── ModelNotFound     model_not_found
        │   └── ProviderAuthError auth_error (the model server refused the key: 401/403)
        ├── Conflict              conflict (another process holds a lock; retryable)
        ├── StoreUnavailable      store_unavailable (the shared database cannot be reached;
        │                         retryable)
        ├── ExecutionLost         execution_lost (a queued execution's worker lost its final
        │                         write too often; retryable: submit it again)
        └── InternalError         internal_error

Inside the agent loop, ModelError and UserError raised by a tool go back to the model;
RunError ends the run.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "ERROR_CODES",
    "BudgetExceeded",
    "ConfigError",
    "Conflict",
    "ContextOverflow",
    "EgressDenied",
    "EmptyAnswer",
    "ExecutionLost",
    "FileNotFound",
    "FileTooLarge",
    "Forbidden",
    "GitError",
    "InternalError",
    "InvalidArgs",
    "KeySaltMismatch",
    "KeySaltMissing",
    "ModelError",
    "ModelNotFound",
    "NotFound",
    "PathDenied",
    "PayloadTooLarge",
    "ProviderAuthError",
    "ProviderError",
    "RateLimited",
    "RlmError",
    "RunError",
    "SecretsFound",
    "SessionClosed",
    "SessionExpired",
    "SessionNotReady",
    "StoreUnavailable",
    "TargetNotEmpty",
    "Timeout",
    "Unauthorized",
    "UnknownTool",
    "UnsupportedFile",
    "UserError",
]


class RlmError(Exception):
    """Base error: a stable machine-readable code and whether a retry may help."""

    code: ClassVar[str] = "internal_error"
    default_retryable: ClassVar[bool] = False

    def __init__(self, message: str, *, retryable: bool | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = self.default_retryable if retryable is None else retryable
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The envelope every surface renders: `{error, meta{error_code, retryable}}`."""
        meta: dict[str, Any] = {"error_code": self.code, "retryable": self.retryable}
        if self.details:
            meta["details"] = self.details
        return {"error": self.message, "meta": meta}

    def __str__(self) -> str:
        return self.message


class ModelError(RlmError):
    """Caused by a model's tool call; it can read the message and try again."""


class InvalidArgs(ModelError):
    code = "invalid_args"


class UnknownTool(ModelError):
    code = "unknown_tool"


class NotFound(ModelError):
    code = "not_found"


class ContextOverflow(ModelError):
    code = "context_overflow"


class SessionClosed(ModelError):
    """The session was closed: it can be read and exported, not changed."""

    code = "session_closed"


class UserError(RlmError):
    """Bad input or configuration."""


class FileNotFound(UserError):
    code = "file_not_found"


class FileTooLarge(UserError):
    code = "file_too_large"


class UnsupportedFile(UserError):
    code = "unsupported_file"


class PathDenied(UserError):
    code = "path_denied"


class EgressDenied(UserError):
    code = "egress_denied"


class SecretsFound(UserError):
    """An export found secrets; `details.locations` says where (never what)."""

    code = "secrets_found"


class GitError(UserError):
    code = "git_error"


class ConfigError(UserError):
    code = "invalid_args"


class KeySaltMissing(ConfigError):
    """API keys on a shared database (`RLM_DATABASE_URL`) need a salt every process shares,
    and none was given (or it is too short)."""

    code = "key_salt_missing"


class KeySaltMismatch(ConfigError):
    """`store copy`: the data dir's API keys are hashed under its own salt file, and the
    shared salt (RLM_API_KEY_SALT / RLM_API_KEY_SALT_FILE) differs or is missing."""

    code = "key_salt_mismatch"


class TargetNotEmpty(UserError):
    """`store copy`: the target database already holds rows (ids from two stores collide)."""

    code = "target_not_empty"


class Unauthorized(UserError):
    code = "unauthorized"


class Forbidden(UserError):
    code = "forbidden"


class RateLimited(UserError):
    """Over a rate or concurrency limit; `details.retry_after_s` says when to retry."""

    code = "rate_limited"
    default_retryable = True


class PayloadTooLarge(UserError):
    """A request body over the server's limit (`api --max-body-bytes`)."""

    code = "payload_too_large"


class SessionExpired(UserError):
    """The session outlived its TTL (seed 003: EXPIRED); create it again."""

    code = "session_expired"


class SessionNotReady(UserError):
    code = "session_not_ready"
    default_retryable = True


class RunError(RlmError):
    """The run cannot continue."""


class BudgetExceeded(RunError):
    code = "budget_exceeded"


class Timeout(RunError):
    code = "timeout"
    default_retryable = True


class EmptyAnswer(RunError):
    """The model produced no answer: an empty reply is never returned as a success."""

    code = "empty_answer"


class ProviderError(RunError):
    code = "provider_error"


class ModelNotFound(ProviderError):
    code = "model_not_found"


class ProviderAuthError(ProviderError):
    """A model server refused the credentials: retrying with the same key cannot help."""

    code = "auth_error"


class Conflict(RunError):
    """Another process holds a lock we waited for (e.g. the search index writer): retry later."""

    code = "conflict"
    default_retryable = True


class StoreUnavailable(RunError):
    """The shared database (`RLM_DATABASE_URL`) cannot be reached; retry once it is up."""

    code = "store_unavailable"
    default_retryable = True


class ExecutionLost(RunError):
    """A queued execution ended without its result: the worker's final write was lost (the
    database went away at that instant) more often than the worker retries, or its job is
    gone. Nothing was recorded as its answer; submitting it again is safe."""

    code = "execution_lost"
    default_retryable = True


class InternalError(RunError):
    code = "internal_error"


def _codes() -> dict[str, type[RlmError]]:
    """Breadth-first, so each code maps to the shallowest class that declares it."""
    table: dict[str, type[RlmError]] = {}
    pending: list[type[RlmError]] = list(RlmError.__subclasses__())
    while pending:
        cls = pending.pop(0)
        if "code" in cls.__dict__:
            table.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return dict(sorted(table.items()))


ERROR_CODES: dict[str, type[RlmError]] = _codes()
"""Every stable code and the class that first owns it (pinned by a test)."""
