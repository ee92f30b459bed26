"""A `Provider` over a pool of hosts: each call goes to the host `HostPool` picks, and a call
that meets a dead host moves to a live one, within the run's budget."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..errors import ProviderAuthError, ProviderError, Timeout
from .base import ChatRequest, ChatResult, Provider
from .hostpool import HostPool, HostState, Kind

__all__ = ["PooledProvider"]

_T = TypeVar("_T")
HostFactory = Callable[[str], Provider]


def _host_failed(exc: Exception) -> bool:
    """A failure of the host rather than of the request: another host may answer."""
    if isinstance(exc, ProviderAuthError):
        return False  # every host of a group shares the key: moving on cannot help
    return isinstance(exc, Timeout) or (isinstance(exc, ProviderError) and exc.retryable)


class PooledProvider:
    """Several hosts of one kind behind one provider name (`OLLAMA_HOST=a,b`, `hosts = [...]`)."""

    def __init__(
        self, kind: Kind, hosts: list[str], factory: HostFactory, *, max_concurrency: int = 4,
        api_key_env: str | None = None, max_attempts: int | None = None,
    ) -> None:
        self.name = kind
        self.pool = HostPool(kind, hosts, max_concurrency=max_concurrency,
                             api_key_env=api_key_env)
        self._factory = factory
        self._providers: dict[str, Provider] = {}
        self._max_attempts = max_attempts or len(hosts) + 2

    @property
    def hosts(self) -> list[str]:
        """Every endpoint this provider may contact, for the egress policy."""
        return [h.url for h in self.pool.hosts]

    def describe(self) -> list[dict[str, Any]]:
        return self.pool.describe()

    async def chat(self, request: ChatRequest) -> ChatResult:
        deadline = time.monotonic() + request.options.timeout_s
        return await self._routed(request.model, deadline, lambda p: p.chat(request))

    async def context_window(self, model: str) -> int:
        deadline = time.monotonic() + 30.0

        async def window(provider: Provider) -> int:
            return await provider.context_window(model)  # type: ignore[attr-defined]

        return await self._routed(model, deadline, window)

    async def _routed(
        self, model: str, deadline: float, call: Callable[[Provider], Awaitable[_T]],
    ) -> _T:
        """Run `call` on the best host; on a host failure mark it down and try another."""
        tried: set[str] = set()
        last: Exception | None = None
        for _ in range(self._max_attempts):
            if time.monotonic() >= deadline:
                break
            # A host tried once may be tried again only when no other is left.
            exclude = tried if len(tried) < len(self.pool.hosts) else set()
            try:
                async with self.pool.lease(model, exclude, deadline) as host:
                    result = await call(self._provider(host))
                    host.answered += 1
                    return result
            except LookupError:
                break
            except (ProviderError, Timeout) as exc:
                if not _host_failed(exc):
                    raise
                last = exc
                tried.add(host.url)
                self.pool.mark_down(host, str(exc))
        if last is not None:
            raise last
        states = ", ".join(f"{h.url} {'up' if h.up else 'down'}" for h in self.pool.hosts)
        raise ProviderError(f"no {self.name} host could take the request ({states})",
                            retryable=True)

    def _provider(self, host: HostState) -> Provider:
        provider = self._providers.get(host.url)
        if provider is None:
            provider = self._providers[host.url] = self._factory(host.url)
        return provider

    async def aclose(self) -> None:
        await self.pool.aclose()
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()
