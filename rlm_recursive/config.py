"""Settings: where data lives and the per-session limits."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SessionConfig", "resolve_data_dir"]

APP_NAME = "rlm-recursive"


def resolve_data_dir(explicit: str | Path | None = None) -> Path:
    """`--data-dir` > `RLM_DATA_DIR` > the XDG data dir (`~/.local/share/rlm-recursive`)."""
    chosen = explicit or os.environ.get("RLM_DATA_DIR") or user_data_dir(APP_NAME, appauthor=False)
    path = Path(chosen).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


class SessionConfig(BaseModel):
    """Limits fixed when a session is created (seed 000 §4.3)."""

    model_config = ConfigDict(extra="forbid")

    max_tool_calls: int = Field(500, ge=1)
    max_chars_per_response: int = Field(50_000, ge=100)
    max_chars_per_peek: int = Field(10_000, ge=100)
    chunk_cache_enabled: bool = True
    max_file_bytes: int = Field(64 * 1024 * 1024, ge=1)
    max_load_bytes: int = Field(2 * 1024 * 1024 * 1024, ge=1)
    model_hints: dict[str, str] | None = None
