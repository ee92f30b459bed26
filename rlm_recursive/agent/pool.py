"""Provider instances per provider name, created on first use, plus the sub-call cache."""

from __future__ import annotations

from typing import Any

from ..catalog import Catalog
from ..providers.base import ChatResult, Provider
from ..providers.groups import NETWORK_KINDS, build_provider, endpoint_group
from .recursion import Tier

__all__ = ["ProviderPool"]


class ProviderPool:
    """Opens each backend once per run (or per server process) and closes them together."""

    def __init__(
        self, overrides: dict[str, Provider] | None = None, catalog: Catalog | None = None,
    ) -> None:
        self._providers: dict[str, Provider] = dict(overrides or {})
        self.catalog = catalog
        """Where `[providers.NAME]` endpoint groups are read; set by the first run if unset."""
        self.cache: dict[str, ChatResult] = {}
        """Temperature-0 completions by (provider, model, options, prompt sha256)."""

    def get(self, tier: Tier) -> Provider:
        provider = self._providers.get(tier.provider)
        if provider is None:
            provider = _create(tier, self.catalog)
            self._providers[tier.provider] = provider
        return provider

    def endpoint(self, provider_name: str) -> str | None:
        """The first network endpoint a provider would contact, if it has one."""
        return next(iter(self.endpoints(provider_name)[1]), None)

    def endpoints(self, provider_name: str) -> tuple[str, list[str]]:
        """`(API kind, every endpoint)` a provider name may contact, for the egress policy.

        Read from the open provider when there is one (tests inject them), else resolved from
        the configuration without contacting anything.
        """
        provider = self._providers.get(provider_name)
        hosts: Any = getattr(provider, "hosts", None)
        if hosts is None and getattr(provider, "host", None) is not None:
            hosts = [provider.host]  # type: ignore[union-attr]
        if provider is not None and hosts is None:
            return getattr(provider, "name", provider_name), []
        group = endpoint_group(self.catalog, provider_name)
        return group.kind, list(hosts if hosts is not None else group.hosts)

    def host_states(self) -> dict[str, list[dict[str, Any]]]:
        """Each pooled provider's hosts: up or down, models, outstanding requests."""
        return {name: provider.describe() for name, provider in self._providers.items()
                if callable(getattr(provider, "describe", None))}

    async def aclose(self) -> None:
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()


def _create(tier: Tier, catalog: Catalog | None) -> Provider:
    group = endpoint_group(catalog, tier.provider)
    if group.kind in NETWORK_KINDS:
        return build_provider(group)
    if group.kind == "claude":
        from ..providers.claude_sdk import ClaudeSDKProvider

        return ClaudeSDKProvider()
    if group.kind == "embedded":
        from ..providers.embedded import EmbeddedProvider

        return EmbeddedProvider(model_path=tier.info.gguf, n_ctx=tier.num_ctx)
    from ..errors import ConfigError

    raise ConfigError(f"no provider {tier.provider!r} is configured", key="provider")
