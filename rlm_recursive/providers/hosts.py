"""Model host addresses: `OLLAMA_HOST` (one host or a comma-separated pool), read before the
`ollama` package is imported.

The `ollama` package builds a module-level client from `$OLLAMA_HOST` when it is imported, and a
list (`a:11434,b:11434`) makes that import raise (`ValueError: Port could not be cast…`), which
crashed every command. We read the variable here, then import the package with the variable
narrowed to the first host, so its module-level client (which we never use) builds quietly.
"""

from __future__ import annotations

import os
import threading
import urllib.parse
from types import ModuleType

__all__ = [
    "DEFAULT_OLLAMA_HOST",
    "import_ollama",
    "normalise_host",
    "ollama_hosts",
    "split_hosts",
]

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
_IMPORT_LOCK = threading.Lock()


def normalise_host(host: str | None, default_port: int = 11434) -> str:
    """`host[:port]`, `:port` or a URL → `scheme://host:port[/path]`, the way Ollama reads it."""
    host = (host or "").strip()
    scheme, sep, rest = host.partition("://")
    if not sep:
        scheme, rest = "http", host
    port = {"http": 80, "https": 443}.get(scheme, default_port) if sep else default_port
    split = urllib.parse.urlsplit(f"{scheme}://{rest}")
    name = split.hostname or "127.0.0.1"
    if ":" in name:  # urlsplit strips the brackets of an IPv6 literal
        name = f"[{name}]"
    path = split.path.rstrip("/")
    return f"{scheme}://{name}:{split.port or port}{path}"


def split_hosts(value: str | list[str] | None) -> list[str]:
    """A comma-separated string or a list → its non-empty entries, stripped, in order."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    return [item.strip() for item in items if item and item.strip()]


def ollama_hosts(explicit: str | list[str] | None = None) -> list[str]:
    """Every Ollama host: `explicit`, else `$OLLAMA_HOST` (a list allowed), else loopback."""
    hosts = split_hosts(explicit) or split_hosts(os.environ.get("OLLAMA_HOST"))
    unique = dict.fromkeys(normalise_host(h) for h in hosts or [DEFAULT_OLLAMA_HOST])
    return list(unique)


def import_ollama() -> ModuleType:
    """`import ollama`, with a host list in `$OLLAMA_HOST` hidden while the package loads."""
    with _IMPORT_LOCK:
        value = os.environ.get("OLLAMA_HOST")
        if value is None or "," not in value:
            import ollama

            return ollama
        os.environ["OLLAMA_HOST"] = ollama_hosts(value)[0]
        try:
            import ollama
        finally:
            os.environ["OLLAMA_HOST"] = value
        return ollama
