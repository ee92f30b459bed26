"""What a run needs from the composition root, as a type.

`agent/runtime.py` builds the parts once from settings (store backend and blobs, profile and
its policies, catalog, tool registry, audit) and the surfaces hold it. The layers below it
(`query`, `plan`, the REPL service) are handed a `RunHost`: they name the parts they use and
never import the root, so imports flow one way (surfaces → runtime → query → tools → store).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..catalog import Catalog
from ..policy import AuditLog, EgressPolicy, PathPolicy, Profile
from ..store import Store
from ..tools import Registry, ToolContext

__all__ = ["RunHost"]


class RunHost(Protocol):
    """The parts of a built runtime a run reads (`agent.runtime.Runtime` is one)."""

    store: Store
    catalog: Catalog
    profile: Profile
    egress: EgressPolicy
    policy: PathPolicy
    audit: AuditLog
    registry: Registry

    def context(self, session_id: str | None = None, **extras: Any) -> ToolContext:
        """A tool context over the store and policy, for `session_id`."""
        ...
