"""The tenant-isolated HTTP API /v1 (seed 003 §16): FastAPI on uvicorn."""

from .app import create_app
from .server import serve_api
from .state import ApiSettings

__all__ = ["ApiSettings", "create_app", "serve_api"]
