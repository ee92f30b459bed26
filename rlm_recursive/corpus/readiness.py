"""What a session shows once a load that ran in the background ends: READY with at least one
document, else FAILED; the per-source errors and per-page warnings reach the client. The API's
in-process loads and the workers' queued loads (queue/ingest.py) record the same thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import RlmError
from .loaders import LoadReport

__all__ = ["LoadOutcome"]


@dataclass(frozen=True)
class LoadOutcome:
    loaded: int
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, report: LoadReport) -> LoadOutcome:
        done = report.to_dict()
        # Per-page notices ("page 3: image only, no text …") reach the client, not only a CLI.
        warnings = [{"source": d["source"], "message": w}
                    for d in done.get("loaded", []) for w in d.get("warnings", [])]
        return cls(len(report.loaded), done.get("errors", []), warnings)

    @classmethod
    def failed(cls, exc: BaseException) -> LoadOutcome:
        """A load that raised: its code, or `internal_error` for a bug of ours (the session
        says so instead of staying CREATING)."""
        if isinstance(exc, RlmError):
            return cls(0, [{"code": exc.code, "message": exc.message}])
        return cls(0, [{"code": "internal_error", "message": type(exc).__name__}])

    @property
    def readiness(self) -> str:
        return "READY" if self.loaded else "FAILED"

    def notes(self) -> dict[str, Any] | None:
        """The session's `load_error` column: None when there is nothing to say."""
        if not (self.errors or self.warnings):
            return None
        return {"errors": self.errors, "warnings": self.warnings}
