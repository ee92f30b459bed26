"""A session's advisory `model_hints` (seed 000 Appendix A) as a tier plan.

`root_model` runs depth 0, `subcall_model` depth 1 and `bulk_model` depth 2 and below (the map
passes). Each value is a catalogued model name or `provider/model`. A missing hint takes the
`base` plan's tier at that depth (the plan the query would use anyway), else the hint above
it. Explicit query options (model_tiers, model, preset) still win: the query path asks for
this plan only when none is given.
"""

from __future__ import annotations

from typing import Any

from ..catalog import Catalog
from .recursion import Tier, TierPlan

__all__ = ["HINT_DEPTHS", "plan_from_hints"]

HINT_DEPTHS = ("root_model", "subcall_model", "bulk_model")


def _hinted(catalog: Catalog, value: str) -> Tier:
    return TierPlan.from_map(catalog, {0: value}).tiers[0]  # "model" or "provider/model"


def plan_from_hints(
    catalog: Catalog, hints: dict[str, Any] | None, base: TierPlan | None = None,
) -> TierPlan | None:
    """The plan the hints describe, or None without a usable hint (or a root to start from)."""
    if not hints or not any(hints.get(k) for k in HINT_DEPTHS):
        return None
    tiers: list[Tier] = []
    for depth, key in enumerate(HINT_DEPTHS):
        if hints.get(key):
            tiers.append(_hinted(catalog, hints[key]))
        elif base is not None:
            tiers.append(base.at(depth))
        elif tiers:
            tiers.append(tiers[-1])
        else:
            return None  # no root hint and no plan to take the root from
    while len(tiers) > 1 and tiers[-1] == tiers[-2]:
        tiers.pop()  # the last tier already covers every deeper depth
    return TierPlan(tiers=tiers, source="model_hints")
