"""The full registry: the store tools plus the agent's own (sub-queries, citations)."""

from __future__ import annotations

from ..tools import CORE_TOOLS, Registry
from ..tools.lcm import LCM_TOOLS
from ..tools.subquery import SUBQUERY_TOOLS
from .citations import CITATION_TOOLS

__all__ = ["full_registry"]


def full_registry() -> Registry:
    return Registry([*CORE_TOOLS, *SUBQUERY_TOOLS, *CITATION_TOOLS, *LCM_TOOLS])
