"""LCM knobs: the seed's defaults, then models.toml `[lcm]`, then `LCM_*` environment variables."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

__all__ = ["LcmConfig"]


class LcmConfig(BaseModel):
    """One typed home for every LCM setting (seed 002, "Configuration")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    context_threshold: float = Field(0.75, gt=0, le=1)
    """Compact when the assembled context reaches this share of the model's budget."""
    fresh_tail_count: int = Field(8, ge=0)
    """The newest raw messages, never compacted."""
    leaf_target_tokens: int = Field(600, ge=16)
    condensed_target_tokens: int = Field(900, ge=16)
    max_expand_tokens: int = Field(4000, ge=64)
    autocompact_disabled: bool = True
    """Autocompact is off by default: compaction runs on request (or when the loop must)."""
    leaf_window_factor: int = Field(3, ge=2)
    """A leaf summarises raw messages worth about this many times its target."""
    condense_fanout: int = Field(4, ge=2)
    """Adjacent summaries merged into one condensed summary."""
    large_file_tokens: int = Field(8000, ge=64)
    """Message content over this estimate is stored as a file with an exploration summary."""

    @classmethod
    def load(cls, table: dict[str, Any] | None = None,
             environ: dict[str, str] | None = None) -> LcmConfig:
        """The models.toml `[lcm]` table overridden by `LCM_<FIELD>` variables."""
        values: dict[str, Any] = dict(table or {})
        env = os.environ if environ is None else environ
        for name in cls.model_fields:
            raw = env.get(f"LCM_{name.upper()}")
            if raw is not None:
                values[name] = raw
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            key = ".".join(str(p) for p in err["loc"])
            raise ConfigError(f"lcm.{key}: {err['msg']}", key=f"lcm.{key}") from None
