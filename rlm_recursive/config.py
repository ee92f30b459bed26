"""Settings: where data lives and the per-session limits."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field

from .errors import ConfigError, PathDenied, UserError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "MAX_CHARS_LIMIT", "MAX_SUB_CALLS_LIMIT", "MAX_TOKENS_LIMIT",
           "MAX_TOOL_CALLS_LIMIT", "SessionConfig", "data_dir_error", "resolve_data_dir"]

APP_NAME = "rlm-recursive"


def resolve_data_dir(explicit: str | Path | None = None) -> Path:
    """`--data-dir` > `RLM_DATA_DIR` > the XDG data dir (`~/.local/share/rlm-recursive`)."""
    chosen = explicit or os.environ.get("RLM_DATA_DIR") or user_data_dir(APP_NAME, appauthor=False)
    path = Path(chosen).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:  # a file in the way, no permission, a NUL byte
        raise data_dir_error(path, exc) from None
    return path


def data_dir_error(path: Path, exc: BaseException) -> UserError:
    """Why a data dir cannot be used, coded: no permission is `path_denied`, the rest (a file
    in the way, a NUL byte, a database that will not open) `invalid_args`."""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    message = (f"cannot use data dir {str(path)[:300]!r}: {reason}; give a folder you can "
               "write with --data-dir or RLM_DATA_DIR")
    if isinstance(exc, PermissionError):
        return PathDenied(message, key="data_dir")
    return ConfigError(message, key="data_dir")


MAX_TOOL_CALLS_LIMIT = 1_000_000
"""Upper bound of a session's tool budget. Every limit has one: SQLite stores at most 2**63 - 1,
and a larger value (a client sending 1e30) would break every later call on the session."""
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""The HTTP API's largest request body (`api --max-body-bytes`)."""
MAX_SUB_CALLS_LIMIT = 1_000_000
"""Upper bound of a run's sub-call budget (same reason)."""
MAX_TOKENS_LIMIT = 10_000_000
"""Upper bound of a requested output-token count."""
MAX_CHARS_LIMIT = 100_000_000
"""Upper bound of the per-response and per-peek character caps."""
_MAX_BYTES_LIMIT = 1 << 40


class SessionConfig(BaseModel):
    """Limits fixed when a session is created (seed 000 §4.3)."""

    model_config = ConfigDict(extra="forbid")

    max_tool_calls: int = Field(500, ge=1, le=MAX_TOOL_CALLS_LIMIT)
    max_chars_per_response: int = Field(50_000, ge=100, le=MAX_CHARS_LIMIT)
    max_chars_per_peek: int = Field(10_000, ge=100, le=MAX_CHARS_LIMIT)
    chunk_cache_enabled: bool = True
    max_file_bytes: int = Field(64 * 1024 * 1024, ge=1, le=_MAX_BYTES_LIMIT)
    max_load_bytes: int = Field(2 * 1024 * 1024 * 1024, ge=1, le=_MAX_BYTES_LIMIT)
    model_hints: dict[str, str] | None = None
