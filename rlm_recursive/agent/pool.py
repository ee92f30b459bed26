"""Provider instances per provider name, created on first use, plus the sub-call cache."""

from __future__ import annotations

from typing import Any

from ..providers.base import ChatResult, Provider
from .recursion import Tier

__all__ = ["ProviderPool"]


class ProviderPool:
    """Opens each backend once per run (or per server process) and closes them together."""

    def __init__(self, overrides: dict[str, Provider] | None = None) -> None:
        self._providers: dict[str, Provider] = dict(overrides or {})
        self.cache: dict[str, ChatResult] = {}
        """Temperature-0 completions by (provider, model, options, prompt sha256)."""

    def get(self, tier: Tier) -> Provider:
        provider = self._providers.get(tier.provider)
        if provider is None:
            provider = _create(tier)
            self._providers[tier.provider] = provider
        return provider

    def endpoint(self, provider_name: str) -> str | None:
        """The network endpoint a provider would contact (for the egress check), if known."""
        provider = self._providers.get(provider_name)
        host: Any = getattr(provider, "host", None)
        if host is None and provider_name == "ollama":
            from ..providers.ollama import ollama_host

            host = ollama_host()
        return host

    async def aclose(self) -> None:
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()


def _create(tier: Tier) -> Provider:
    if tier.provider == "ollama":
        from ..providers.ollama import OllamaProvider

        return OllamaProvider()
    if tier.provider == "claude":
        from ..providers.claude_sdk import ClaudeSDKProvider

        return ClaudeSDKProvider()
    if tier.provider == "embedded":
        from ..providers.embedded import EmbeddedProvider

        return EmbeddedProvider(model_path=tier.info.gguf, n_ctx=tier.num_ctx)
    from ..errors import ConfigError

    raise ConfigError(f"no provider {tier.provider!r} is configured", key="provider")
