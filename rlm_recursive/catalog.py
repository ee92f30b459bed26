"""The model catalog (`models.toml`): models, per-depth presets and policy profile overrides."""

from __future__ import annotations

import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_config_dir
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

__all__ = ["BUILTIN_PROVIDERS", "MAX_SERVER_NUM_CTX", "Catalog", "ModelInfo", "Preset",
           "ProviderEntry", "TierSpec", "load_catalog"]

MAX_SERVER_NUM_CTX = 32768
"""Cap on a window taken from the server (Ollama `/api/show`) for an uncatalogued model: the
trained maximum (often 128k) would make the server allocate a KV cache most machines cannot
hold. The catalogued models use the same window; a larger one is set in models.toml."""

BUILTIN_PROVIDERS = ("ollama", "openai", "claude", "embedded", "fake")
ProviderName = str
"""A built-in provider, or the name of a `[providers.NAME]` table (checked by load_catalog)."""
Think = bool | Literal["low", "medium", "high"]
"""Whether a thinking model thinks (Ollama `think`); unset means off."""


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = ""
    provider: ProviderName
    num_ctx: int = Field(8192, ge=512)
    tools: bool = True
    params_b: float | None = None
    cost_in_per_mtok: float | None = None
    cost_out_per_mtok: float | None = None
    gguf: str | None = None
    think: Think | None = None
    """Unset: ask thinking models (qwen3, gpt-oss, deepseek-r1) not to think. Their thinking
    tokens count against the reply budget and can leave an empty answer."""
    code: bool = False
    """A code model (qwen2.5-coder): small, yet it writes REPL code well, so `auto` lets it
    write the count the runtime cannot plan exactly."""
    catalogued: bool = True
    """False for a model named on the command line only: its window comes from the server."""

    @property
    def is_small(self) -> bool:
        """Small models (<= 3B or without native tools) do better with runtime strategies."""
        return not self.tools or (self.params_b is not None and self.params_b <= 3)

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        if self.cost_in_per_mtok is None and self.cost_out_per_mtok is None:
            return None
        return (input_tokens * (self.cost_in_per_mtok or 0)
                + output_tokens * (self.cost_out_per_mtok or 0)) / 1e6


class TierSpec(BaseModel):
    """One depth's model; `provider` defaults to the model's own."""

    model_config = ConfigDict(extra="forbid")

    model: str
    provider: ProviderName | None = None
    temperature: float = 0.0
    num_ctx: int | None = None
    think: Think | None = None
    """Overrides the model's `think` for this depth: true, false, "low", "medium", "high"."""


class Preset(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = ""
    profile: str | None = None
    tiers: list[TierSpec] = Field(min_length=1)
    summary_tier: int | None = Field(None, ge=0)
    """The depth whose model writes conversation summaries (LCM); default: the deepest."""


class ProviderEntry(BaseModel):
    """`[providers.NAME]`: one endpoint group, a single server or a pool of hosts."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["ollama", "openai"] | None = None
    """The API the hosts speak; defaults to NAME when NAME is `ollama` or `openai`."""
    base_url: str | None = None
    """openai: includes `/v1`. Default: `$OPENAI_BASE_URL` (openai), `$OLLAMA_HOST` (ollama)."""
    hosts: list[str] = []
    """Several hosts serving the same models; requests are routed and fail over among them."""
    api_key_env: str | None = None
    """The environment variable holding the bearer key (openai default: OPENAI_API_KEY)."""
    max_concurrency: int = Field(4, ge=1, le=1024)
    """Requests in flight per host at once."""
    stream: bool = False
    """openai: read replies as server-sent events (long generations never idle the socket)."""


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid")

    providers: dict[str, ProviderEntry] = {}
    models: dict[str, ModelInfo] = {}
    presets: dict[str, Preset] = {}
    profiles: dict[str, dict[str, Any]] = {}
    lcm: dict[str, Any] = {}
    """The `[lcm]` table: lossless context management knobs (validated by `lcm.LcmConfig`)."""

    def model(self, name: str, provider: str | None = None) -> ModelInfo:
        """A catalogued model, or a default entry for an uncatalogued one on a known provider."""
        info = self.models.get(name)
        if info is not None:
            return info
        if provider is None:
            raise ConfigError(f"unknown model {name!r}: add [models.{name!r}] to models.toml "
                              "or name its provider", key=f"models.{name}")
        if provider not in BUILTIN_PROVIDERS and provider not in self.providers:
            # A provider a client named: a bad argument now, not a failure at the first call.
            known = ", ".join([*BUILTIN_PROVIDERS, *self.providers])
            raise ConfigError(f"unknown provider {provider[:100]!r} for model {name[:200]!r}; "
                              f"known: {known}", key="provider")
        # num_ctx stays at its default; the Ollama provider asks the server for the real one.
        return ModelInfo(name=name, provider=provider, catalogued=False)

    def preset(self, name: str) -> Preset:
        try:
            return self.presets[name]
        except KeyError:
            raise ConfigError(f"unknown preset {name!r}; known: {', '.join(self.presets)}",
                              key=f"presets.{name}") from None


def _user_file() -> Path | None:
    explicit = os.environ.get("RLM_MODELS")
    if explicit:
        return Path(explicit).expanduser()
    default = Path(user_config_dir("rlm-recursive", appauthor=False)) / "models.toml"
    return default if default.exists() else None


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _parse(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin} is not valid TOML: {exc}", key=origin) from exc


def load_catalog(user_file: Path | None = None) -> Catalog:
    """The bundled catalog, overridden table by table by the user's file."""
    data = _parse((resources.files("rlm_recursive") / "models.toml").read_text("utf-8"),
                  "models.toml")
    user_file = user_file or _user_file()
    if user_file is not None:
        if not user_file.is_file():
            raise ConfigError(f"models file {user_file} does not exist", key="RLM_MODELS")
        data = _merge(data, _parse(user_file.read_text("utf-8"), str(user_file)))
    for name, entry in data.get("models", {}).items():
        if isinstance(entry, dict):
            entry.setdefault("name", name)
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"models.toml: {key}: {err['msg']}", key=key) from None
    _check_providers(catalog)
    for preset_name, preset in catalog.presets.items():
        for depth, tier in enumerate(preset.tiers):
            if tier.model not in catalog.models and tier.provider is None:
                raise ConfigError(
                    f"preset {preset_name!r} tier {depth} names unknown model {tier.model!r}",
                    key=f"presets.{preset_name}.tiers.{depth}.model")
    return catalog


def _check_providers(catalog: Catalog) -> None:
    """Every provider table has a type, and every model names a provider that exists."""
    for name, entry in catalog.providers.items():
        if entry.type is None:
            if name not in ("ollama", "openai"):
                raise ConfigError(f"[providers.{name}] needs type = \"openai\" or \"ollama\"",
                                  key=f"providers.{name}.type")
            entry.type = name  # type: ignore[assignment]
    known = set(BUILTIN_PROVIDERS) | set(catalog.providers)
    for name, info in catalog.models.items():
        if info.provider not in known:
            raise ConfigError(f"model {name!r} names provider {info.provider!r}, which is neither "
                              f"built in ({', '.join(BUILTIN_PROVIDERS)}) nor a "
                              "[providers.NAME] table", key=f"models.{name}.provider")
