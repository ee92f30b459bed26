"""Endpoint groups: which API and which hosts a provider name stands for, and the `Provider`
that serves it (one host: the plain provider; several: a `PooledProvider`).

A provider name is built in (`ollama`, `openai`, `claude`, `embedded`, `fake`) or a
`[providers.NAME]` table of models.toml. `ollama` reads `$OLLAMA_HOST` (a comma-separated list
allowed) and `openai` reads `$OPENAI_BASE_URL`, unless their table says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import BUILTIN_PROVIDERS, Catalog, ProviderEntry
from ..errors import ConfigError
from .base import Provider
from .hosts import normalise_host, ollama_hosts, split_hosts

__all__ = ["NETWORK_KINDS", "EndpointGroup", "build_provider", "endpoint_group"]

NETWORK_KINDS = ("ollama", "openai")
_POOLED_RETRY_ATTEMPTS = 1
"""Per host inside a pool: a refused connection moves to the next host at once."""


@dataclass(frozen=True)
class EndpointGroup:
    name: str
    kind: str
    """The API spoken: ollama, openai, or an in-process / cloud provider's own name."""
    hosts: tuple[str, ...] = ()
    api_key_env: str | None = None
    max_concurrency: int = 4
    stream: bool = False


def endpoint_group(catalog: Catalog | None, name: str) -> EndpointGroup:
    """The group a provider name stands for; every host is resolved, none is contacted."""
    entry = catalog.providers.get(name) if catalog is not None else None
    if entry is None:
        if name not in BUILTIN_PROVIDERS:
            raise ConfigError(f"no provider {name!r} is configured: use one of "
                              f"{', '.join(BUILTIN_PROVIDERS)} or add [providers.{name}] to "
                              "models.toml", key="provider")
        entry = ProviderEntry(type=name) if name in NETWORK_KINDS else None
    if entry is None:
        return EndpointGroup(name=name, kind=name)
    kind = entry.type or name
    listed = split_hosts(entry.hosts) or split_hosts(entry.base_url)
    if kind == "ollama":
        hosts = ollama_hosts(listed) if listed else ollama_hosts()
    else:
        from .openai import KEY_ENV, openai_base_url

        hosts = list(dict.fromkeys(openai_base_url(h) for h in listed or split_hosts(
            openai_base_url(None))))
        entry = entry.model_copy(update={"api_key_env": entry.api_key_env or KEY_ENV})
    return EndpointGroup(name=name, kind=kind, hosts=tuple(hosts), api_key_env=entry.api_key_env,
                         max_concurrency=entry.max_concurrency, stream=entry.stream)


def _host_provider(group: EndpointGroup, host: str, retry_attempts: int | None) -> Provider:
    retries = {} if retry_attempts is None else {"retry_attempts": retry_attempts}
    if group.kind == "ollama":
        from .ollama import OllamaProvider

        return OllamaProvider(normalise_host(host), **retries)
    from .openai import OpenAIProvider

    return OpenAIProvider(host, api_key_env=group.api_key_env or "OPENAI_API_KEY",
                          stream=group.stream, label=group.name, **retries)


def build_provider(group: EndpointGroup) -> Provider:
    """The provider for a network group: plain for one host, pooled for several."""
    if group.kind not in NETWORK_KINDS:
        raise ConfigError(f"provider {group.name!r} is not a network endpoint group",
                          key="provider")
    if len(group.hosts) == 1:
        return _host_provider(group, group.hosts[0], None)
    from .pooled import PooledProvider

    return PooledProvider(
        group.kind, list(group.hosts),  # type: ignore[arg-type]
        lambda host: _host_provider(group, host, _POOLED_RETRY_ATTEMPTS),
        max_concurrency=group.max_concurrency, api_key_env=group.api_key_env)
