"""The runtime: one store, catalog, policy and registry, shared by the CLI and MCP surfaces."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from ..catalog import Catalog, load_catalog
from ..config import resolve_data_dir
from ..policy import AuditLog, EgressPolicy, PathPolicy, Profile, audited, load_profile
from ..policy.profiles import DEFAULT_PROFILE, PROFILE_ENV
from ..store import Store
from ..store.auditrows import audit_sink
from ..tools import Registry, ToolContext
from ..types import ToolResult
from .query import ClientSubQueries
from .repl.service import ExecutionService
from .toolset import full_registry

__all__ = ["Runtime"]


class Runtime:
    """Everything a surface needs to call tools and run queries."""

    def __init__(
        self, data_dir: str | Path | None = None, profile: str | None = None,
        catalog: Catalog | None = None, registry: Registry | None = None,
    ) -> None:
        self.catalog = catalog or load_catalog()
        name = profile or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
        self.profile: Profile = load_profile(name, self.catalog.profiles.get(name))
        self.egress = EgressPolicy(self.profile)
        self.egress.check_store()  # before the store connects: its hosts receive documents
        self.store = Store(resolve_data_dir(data_dir))
        self.confined = False
        """True once a surface whose paths come from clients (MCP, HTTP) has called confine()."""
        # The data dir is protected: a load that reached rlm.db would corrupt the store.
        self.policy = PathPolicy.from_profile(self.profile, protected=[self.store.data_dir])
        self.executions = ExecutionService(self)
        """Runtime-mode REPL executions (rlm_execution_create, rlm_step_run, …)."""
        self.registry = registry or full_registry(self.executions)
        # On a shared database the audit is its `audit_log` table (every process's calls).
        shared = audit_sink(self.store.sql) if self.store.dialect == "postgresql" else None
        self.audit = AuditLog(self.store.data_dir / "audit.jsonl", profile=self.profile.name,
                              enabled=self.profile.audit, sink=shared)

    def confine(self) -> None:
        """Keep every path inside the profile's allowed roots, in every profile.

        For surfaces where a client, not the operator, names the paths (MCP over stdio or
        HTTP): no `..`, symlink or absolute escapes. Profiles differ in egress, not here.
        """
        self.policy = PathPolicy.from_profile(
            self.profile, confined=True, protected=[self.store.data_dir]
        )
        self.confined = True

    def context(self, session_id: str | None = None, **extras: Any) -> ToolContext:
        return ToolContext(store=self.store, policy=self.policy, session_id=session_id,
                           traces=self.profile.traces, sub_query=ClientSubQueries(self),
                           extras=dict(extras), profile=self.profile)

    async def call(
        self, name: str, args: dict[str, Any], ctx: ToolContext | None = None,
        correlation_id: str | None = None,
    ) -> ToolResult:
        """Invoke one registry tool for a surface, audited; run errors still raise."""
        ctx = ctx or self.context()
        async with audited(self.audit, name, correlation_id or uuid.uuid4().hex) as record:
            result = await self.registry.invoke(name, args, ctx)
            if result.is_error:
                record.error_code = result.output["meta"]["error_code"]
            record.bytes_read = (result.bytes_read if result.bytes_read is not None
                                 else sum(s.end - s.start for s in result.read_spans))
            record.model_used, record.cost = result.model_used, result.cost_usd
            return result

    def close(self) -> None:
        from ..lcm import release_lcm

        release_lcm(self.store)
        self.store.close()
