"""The error code table and the envelope every surface renders."""

from __future__ import annotations

import pytest

from rlm_recursive import errors
from rlm_recursive.errors import ERROR_CODES, RlmError

# Renaming or dropping a code breaks clients that branch on it: change this on purpose only.
PINNED_CODES = {
    "auth_error",
    "budget_exceeded",
    "conflict",
    "context_overflow",
    "egress_denied",
    "empty_answer",
    "execution_lost",
    "file_not_found",
    "file_too_large",
    "forbidden",
    "git_error",
    "internal_error",
    "invalid_args",
    "key_salt_mismatch",
    "key_salt_missing",
    "model_not_found",
    "not_found",
    "path_denied",
    "payload_too_large",
    "provider_error",
    "rate_limited",
    "secrets_found",
    "session_closed",
    "session_expired",
    "session_not_ready",
    "store_unavailable",
    "target_not_empty",
    "timeout",
    "unauthorized",
    "unknown_tool",
    "unsupported_file",
}


def _all_error_classes() -> list[type[RlmError]]:
    return [
        cls
        for name in errors.__all__
        if isinstance(cls := getattr(errors, name), type) and issubclass(cls, RlmError)
    ]


def test_code_table_is_pinned() -> None:
    assert set(ERROR_CODES) == PINNED_CODES
    assert list(ERROR_CODES) == sorted(ERROR_CODES)


def test_every_class_code_is_in_the_table_and_every_owner_has_its_code() -> None:
    classes = _all_error_classes()
    assert len(classes) >= len(PINNED_CODES)
    assert {cls.code for cls in classes} == set(ERROR_CODES)
    for code, owner in ERROR_CODES.items():
        assert owner.code == code


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (errors.UnknownTool, "unknown_tool"),
        (errors.NotFound, "not_found"),
        (errors.ContextOverflow, "context_overflow"),
        (errors.FileNotFound, "file_not_found"),
        (errors.FileTooLarge, "file_too_large"),
        (errors.UnsupportedFile, "unsupported_file"),
        (errors.PathDenied, "path_denied"),
        (errors.EgressDenied, "egress_denied"),
        (errors.BudgetExceeded, "budget_exceeded"),
        (errors.Timeout, "timeout"),
        (errors.EmptyAnswer, "empty_answer"),
        (errors.ProviderError, "provider_error"),
        (errors.ModelNotFound, "model_not_found"),
        (errors.SessionClosed, "session_closed"),
        (errors.SecretsFound, "secrets_found"),
        (errors.GitError, "git_error"),
        (errors.Conflict, "conflict"),
        (errors.StoreUnavailable, "store_unavailable"),
        (errors.ExecutionLost, "execution_lost"),
        (errors.KeySaltMissing, "key_salt_missing"),
        (errors.KeySaltMismatch, "key_salt_mismatch"),
        (errors.TargetNotEmpty, "target_not_empty"),
    ],
)
def test_single_owner_codes_map_to_their_class(cls: type[RlmError], code: str) -> None:
    assert cls.code == code
    assert ERROR_CODES[code] is cls


def test_shared_codes() -> None:
    # Bad configuration is reported with the same code as a bad tool argument.
    assert errors.ConfigError.code == errors.InvalidArgs.code == "invalid_args"
    assert errors.InternalError.code == RlmError.code == "internal_error"
    assert issubclass(ERROR_CODES["invalid_args"], errors.InvalidArgs | errors.ConfigError)


@pytest.mark.parametrize(
    ("cls", "group"),
    [
        (errors.InvalidArgs, errors.ModelError),
        (errors.UnknownTool, errors.ModelError),
        (errors.NotFound, errors.ModelError),
        (errors.ContextOverflow, errors.ModelError),
        (errors.SessionClosed, errors.ModelError),
        (errors.SecretsFound, errors.UserError),
        (errors.GitError, errors.UserError),
        (errors.FileNotFound, errors.UserError),
        (errors.FileTooLarge, errors.UserError),
        (errors.UnsupportedFile, errors.UserError),
        (errors.PathDenied, errors.UserError),
        (errors.EgressDenied, errors.UserError),
        (errors.ConfigError, errors.UserError),
        (errors.KeySaltMissing, errors.ConfigError),
        (errors.BudgetExceeded, errors.RunError),
        (errors.Timeout, errors.RunError),
        (errors.ProviderError, errors.RunError),
        (errors.ModelNotFound, errors.ProviderError),
        (errors.Conflict, errors.RunError),
        (errors.InternalError, errors.RunError),
    ],
)
def test_groups(cls: type[RlmError], group: type[RlmError]) -> None:
    # The loop sends ModelError/UserError back to the model and ends the run on RunError.
    assert issubclass(cls, group)


def test_conflict_is_retryable_by_default() -> None:
    # A lock held by another process goes away: the client should try again.
    assert errors.Conflict("index busy").to_dict()["meta"] == {
        "error_code": "conflict",
        "retryable": True,
    }


def test_to_dict_shape_without_details() -> None:
    err = errors.NotFound("unknown doc_id 'doc_x'")
    assert err.to_dict() == {
        "error": "unknown doc_id 'doc_x'",
        "meta": {"error_code": "not_found", "retryable": False},
    }
    assert str(err) == "unknown doc_id 'doc_x'"


def test_to_dict_carries_details_and_retryable() -> None:
    err = errors.ProviderError("overloaded", retryable=True, status=529)
    assert err.to_dict() == {
        "error": "overloaded",
        "meta": {"error_code": "provider_error", "retryable": True, "details": {"status": 529}},
    }


def test_retryable_defaults() -> None:
    assert errors.Timeout("slow").retryable is True
    assert errors.Timeout("slow", retryable=False).retryable is False
    # Waiting is the fix for these (HTTP API: 429 Retry-After, a session still loading, the
    # shared database coming back, a queued execution whose result the database lost).
    retry_later = (errors.Timeout, errors.Conflict, errors.RateLimited, errors.SessionNotReady,
                   errors.StoreUnavailable, errors.ExecutionLost)
    for cls in retry_later:
        assert cls("x").retryable is True, cls
    for cls in _all_error_classes():
        if cls not in retry_later:
            assert cls("x").retryable is False, cls
