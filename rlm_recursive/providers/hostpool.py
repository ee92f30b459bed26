"""A pool of model hosts serving one API (Ollama or OpenAI-compatible): which hosts are up,
which models each has and has loaded, and how busy each is.

Routing: only hosts that list the model (`/api/tags`, `/v1/models`); among them the host with
the model already loaded (`/api/ps`) wins, then the fewest outstanding requests under a
per-host bound; ties are broken at random, so separate processes spread over the pool.
A host that refuses connections or fails a probe is down and is retried with exponential
backoff; the listings are refreshed in the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from .ollama import http_client_options

__all__ = ["HostPool", "HostState", "Kind"]

Kind = Literal["ollama", "openai"]
REFRESH_S = 15.0
"""Age after which a routing decision starts a background refresh of the listings."""
PROBE_TIMEOUT_S = 2.0
_BACKOFF_BASE_S = 0.5
_BACKOFF_MAX_S = 30.0


def _tag(name: str) -> str:
    """`llama3.2` and `llama3.2:latest` are the same model to Ollama."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


@dataclass
class HostState:
    url: str
    up: bool = True
    """Unknown hosts count as up until a probe or a request says otherwise."""
    models: set[str] | None = None
    """Models the host lists; None until the first probe answers."""
    loaded: set[str] = field(default_factory=set)
    outstanding: int = 0
    failures: int = 0
    retry_at: float = 0.0
    last_error: str | None = None
    checked_at: float | None = None
    answered: int = 0

    def has(self, model: str, kind: Kind) -> bool:
        if self.models is None:
            return True
        return (_tag(model) if kind == "ollama" else model) in self.models

    def describe(self) -> dict[str, Any]:
        now = time.monotonic()
        return {"host": self.url, "state": "up" if self.up else "down",
                "models": sorted(self.models) if self.models is not None else None,
                "loaded": sorted(self.loaded), "outstanding": self.outstanding,
                "answered": self.answered, "last_error": self.last_error,
                "retry_in_s": round(max(0.0, self.retry_at - now), 2) if not self.up else None}


class HostPool:
    """The hosts of one endpoint group; every method runs on the caller's event loop."""

    def __init__(
        self, kind: Kind, hosts: list[str], *, max_concurrency: int = 4,
        api_key_env: str | None = None, refresh_s: float = REFRESH_S,
    ) -> None:
        self.kind = kind
        self.hosts = [HostState(url) for url in hosts]
        self.max_concurrency = max_concurrency
        self._api_key_env = api_key_env
        self._refresh_s = refresh_s
        self._refreshed_at: float | None = None
        self._refreshing: asyncio.Task[None] | None = None
        self._freed: asyncio.Event | None = None

    def describe(self) -> list[dict[str, Any]]:
        return [h.describe() for h in self.hosts]

    # -- routing ---------------------------------------------------------------------------

    def pick(
        self, model: str, exclude: set[str] | frozenset[str] = frozenset(),
    ) -> HostState | None:
        """The best host for `model` now, or None when every live host is full or excluded."""
        now = time.monotonic()
        live = [h for h in self.hosts if h.url not in exclude
                and (h.up or h.retry_at <= now)]  # a down host past its backoff gets a trial
        with_model = [h for h in live if h.has(model, self.kind)]
        # No live host lists it: send it anyway, so the server's own 404 names the fix.
        candidates = [h for h in (with_model or live) if h.outstanding < self.max_concurrency]
        if not candidates:
            return None
        name = _tag(model) if self.kind == "ollama" else model
        return min(candidates, key=lambda h: (not h.up, name not in h.loaded, h.outstanding,
                                              random.random()))

    @contextlib.asynccontextmanager
    async def lease(
        self, model: str, exclude: set[str], deadline: float,
    ) -> AsyncIterator[HostState]:
        """A host for one request, counted as outstanding until the block ends."""
        await self.ensure_fresh()
        while True:
            host = self.pick(model, exclude)
            if host is not None:
                break
            if not self._any_candidate(exclude):
                raise LookupError("no live host left")
            # Every candidate is at its bound (or backing off): wait for a slot, within budget.
            wait = min(self._next_retry(exclude) or 0.05, 0.25, deadline - time.monotonic())
            if wait <= 0:
                raise LookupError("no host freed up within the run's budget")
            self._freed = self._freed or asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._freed.wait(), wait)
            self._freed.clear()
        host.outstanding += 1
        try:
            yield host
        finally:
            host.outstanding -= 1
            if self._freed is not None:
                self._freed.set()

    def _any_candidate(self, exclude: set[str]) -> bool:
        return any(h.url not in exclude for h in self.hosts)

    def _next_retry(self, exclude: set[str]) -> float | None:
        now = time.monotonic()
        waits = [h.retry_at - now for h in self.hosts if h.url not in exclude and not h.up]
        return max(0.0, min(waits)) if waits else None

    # -- health ----------------------------------------------------------------------------

    def mark_down(self, host: HostState, error: str) -> None:
        host.up = False
        host.failures += 1
        host.last_error = error[:300]
        backoff = min(_BACKOFF_MAX_S, _BACKOFF_BASE_S * 2 ** (host.failures - 1))
        host.retry_at = time.monotonic() + backoff * random.uniform(0.8, 1.2)

    def mark_up(self, host: HostState) -> None:
        host.up, host.failures, host.retry_at = True, 0, 0.0

    async def ensure_fresh(self) -> None:
        """First use: probe every host and wait. Later: refresh stale listings in the background."""
        now = time.monotonic()
        if self._refreshed_at is None:
            await self.refresh()
        elif now - self._refreshed_at > self._refresh_s and (
                self._refreshing is None or self._refreshing.done()):
            self._refreshed_at = now
            self._refreshing = asyncio.create_task(self.refresh())

    async def refresh(self) -> None:
        """Probe every host that is up or past its backoff, at once."""
        self._refreshed_at = time.monotonic()
        now = time.monotonic()
        due = [h for h in self.hosts if h.up or h.retry_at <= now]
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S, headers=self._headers(),
                                     **http_client_options()) as client:
            await asyncio.gather(*(self._probe(client, h) for h in due))

    async def _probe(self, client: httpx.AsyncClient, host: HostState) -> None:
        try:
            if self.kind == "ollama":
                tags = (await client.get(f"{host.url}/api/tags")).raise_for_status().json()
                ps = (await client.get(f"{host.url}/api/ps")).raise_for_status().json()
                host.models = {_tag(n) for m in tags.get("models") or []
                               for n in (m.get("name"), m.get("model")) if isinstance(n, str)}
                host.loaded = {_tag(n) for m in ps.get("models") or []
                               for n in (m.get("name"), m.get("model")) if isinstance(n, str)}
            else:
                listing = (await client.get(f"{host.url}/models")).raise_for_status().json()
                host.models = {m["id"] for m in listing.get("data") or [] if "id" in m}
                host.loaded = set(host.models)  # a server lists what it has loaded
        except (httpx.HTTPError, ValueError, AttributeError, TypeError) as exc:
            self.mark_down(host, f"probe failed: {type(exc).__name__}: {exc}")
            return
        host.checked_at = time.monotonic()
        self.mark_up(host)

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self._api_key_env) if self._api_key_env else None
        return {"Authorization": f"Bearer {key}"} if key else {}

    async def aclose(self) -> None:
        if self._refreshing is not None and not self._refreshing.done():
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refreshing
