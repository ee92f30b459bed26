"""Recursion state and the per-depth tier plan (options A, B and C of seed 004 §9)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..catalog import BUILTIN_PROVIDERS, Catalog, ModelInfo
from ..errors import ConfigError, InvalidArgs

__all__ = ["MAX_DEPTH_CAP", "RecursionState", "Tier", "TierPlan"]

MAX_DEPTH_CAP = 5


@dataclass
class RecursionState:
    """Where a call sits in the tree. `call_trace` is shared by every node of one tree."""

    depth: int = 0
    max_depth: int = 1
    call_trace: list[dict[str, Any]] = field(default_factory=list)
    path: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.max_depth <= MAX_DEPTH_CAP:
            raise InvalidArgs(f"max_depth must be between 0 and {MAX_DEPTH_CAP}")

    def can_recurse(self) -> bool:
        return self.depth < self.max_depth

    def descend(self, call_id: str, max_depth: int | None = None) -> RecursionState:
        """The child state one level down; a child may lower `max_depth`, never raise it."""
        if not self.can_recurse():
            raise InvalidArgs(f"max_depth {self.max_depth} reached at depth {self.depth}: "
                              "answer from what you have")
        limit = self.max_depth if max_depth is None else min(self.max_depth, max_depth)
        return RecursionState(self.depth + 1, limit, self.call_trace, (*self.path, call_id))

    @property
    def final_depth(self) -> int:
        return max((c["depth"] for c in self.call_trace), default=self.depth)


class Tier(BaseModel):
    """The model one depth runs on."""

    model_config = ConfigDict(frozen=True)

    provider: str
    model: str
    temperature: float = 0.0
    info: ModelInfo

    @property
    def num_ctx(self) -> int:
        return self.info.num_ctx


class TierPlan(BaseModel):
    """Depth → tier; the last tier applies to every deeper depth."""

    model_config = ConfigDict(frozen=True)

    tiers: list[Tier]
    source: str

    def at(self, depth: int) -> Tier:
        return self.tiers[min(depth, len(self.tiers) - 1)]

    def describe(self) -> list[dict[str, Any]]:
        return [{"depth": d, "provider": t.provider, "model": t.model, "num_ctx": t.num_ctx}
                for d, t in enumerate(self.tiers)]

    @classmethod
    def from_preset(cls, catalog: Catalog, name: str) -> TierPlan:
        """Option C: a named preset from models.toml."""
        preset = catalog.preset(name)
        tiers = [_tier(catalog, t.model, t.provider, t.temperature, t.num_ctx, t.think)
                 for t in preset.tiers]
        return cls(tiers=tiers, source=f"preset:{name}")

    @classmethod
    def from_models(
        cls, catalog: Catalog, *, provider: str | None, model: str,
        recursive_provider: str | None = None, recursive_model: str | None = None,
    ) -> TierPlan:
        """Option A: one model at the root, optionally another for every depth below."""
        tiers = [_tier(catalog, model, provider)]
        if recursive_provider or recursive_model:
            tiers.append(_tier(catalog, recursive_model or model, recursive_provider or provider))
        return cls(tiers=tiers, source="recursive_model" if len(tiers) > 1 else "model")

    @classmethod
    def from_map(cls, catalog: Catalog, model_tiers: dict[str | int, Any]) -> TierPlan:
        """Option B: an explicit `{depth: "provider/model" | {provider, model}}` map."""
        try:
            depths = sorted(int(d) for d in model_tiers)
        except ValueError:
            raise InvalidArgs("model_tiers keys must be depths 0, 1, 2, …") from None
        if depths != list(range(len(depths))):
            raise InvalidArgs(f"model_tiers must cover depths 0..n without gaps, got {depths}")
        tiers = []
        for depth in depths:
            entry = model_tiers.get(depth, model_tiers.get(str(depth)))
            if isinstance(entry, str):
                provider, _, model = entry.partition("/")
                if not model or (provider not in BUILTIN_PROVIDERS
                                 and provider not in catalog.providers):
                    provider, model = "", entry  # `Qwen/Qwen3-8B` is one model id
                tiers.append(_tier(catalog, model, provider or None))
            elif isinstance(entry, dict) and "model" in entry:
                tiers.append(_tier(catalog, entry["model"], entry.get("provider")))
            else:
                raise InvalidArgs(f"model_tiers[{depth}] must be 'provider/model' or "
                                  "{provider, model}")
        return cls(tiers=tiers, source="model_tiers")


def _tier(
    catalog: Catalog, model: str, provider: str | None, temperature: float = 0.0,
    num_ctx: int | None = None, think: Any = None,
) -> Tier:
    info = catalog.model(model, provider)
    if provider is not None and provider != info.provider and model in catalog.models:
        raise ConfigError(f"model {model!r} is catalogued for provider {info.provider!r}, "
                          f"not {provider!r}", key=f"models.{model}.provider")
    if num_ctx is not None:
        info = info.model_copy(update={"num_ctx": num_ctx})
    if think is not None:
        info = info.model_copy(update={"think": think})
    return Tier(provider=provider or info.provider, model=model, temperature=temperature,
                info=info)
