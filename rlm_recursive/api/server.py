"""Run the API on uvicorn (the `rlm-recursive api` command)."""

from __future__ import annotations

import sys

import uvicorn

from ..agent.runtime import Runtime
from .app import create_app
from .state import ApiSettings

__all__ = ["serve_api"]


def serve_api(runtime: Runtime, *, host: str, port: int,
              settings: ApiSettings | None = None) -> None:
    """Serve /v1 until interrupted; logs go to stderr."""
    app = create_app(runtime, settings)
    shown = f"[{host}]" if ":" in host else host
    print(f"rlm-recursive: HTTP API at http://{shown}:{port}/v1 (docs /docs, profile "
          f"{runtime.profile.name}, data {runtime.store.data_dir})", file=sys.stderr)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
