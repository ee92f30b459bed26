"""`doctor` for every configured model endpoint: each `[providers.NAME]` group, an
`OLLAMA_HOST` list and `OPENAI_BASE_URL`, host by host (up or down, models listed).

A host the profile would refuse (not local under a local-only profile) is reported and never
contacted, as the egress policy would do for a run.
"""

from __future__ import annotations

import os

from ..catalog import Catalog
from ..errors import ConfigError
from ..policy import Profile
from ..policy.egress import endpoint_host, is_local_endpoint
from ..providers.groups import EndpointGroup, endpoint_group
from ..providers.hostpool import HostPool
from ..providers.hosts import split_hosts
from .doctor import Check

__all__ = ["configured_groups", "endpoint_checks"]


def configured_groups(catalog: Catalog) -> list[EndpointGroup]:
    """The groups worth checking: every provider table, a host list, OPENAI_BASE_URL."""
    names = list(catalog.providers)
    if "ollama" not in names and len(split_hosts(os.environ.get("OLLAMA_HOST"))) > 1:
        names.append("ollama")  # one host is the existing Ollama check's business
    if "openai" not in names and os.environ.get("OPENAI_BASE_URL"):
        names.append("openai")
    groups = []
    for name in names:
        try:
            groups.append(endpoint_group(catalog, name))
        except ConfigError:
            groups.append(EndpointGroup(name=name, kind="openai"))  # no base URL: reported
    return groups


async def endpoint_checks(catalog: Catalog, profile: Profile) -> list[Check]:
    checks: list[Check] = []
    for group in configured_groups(catalog):
        if not group.hosts:
            checks.append(Check(area="endpoints", name=group.name, status="fail",
                                detail="no base_url, hosts or OPENAI_BASE_URL",
                                fix=f"set base_url in [providers.{group.name}] of models.toml"))
            continue
        refused = [h for h in group.hosts
                   if profile.local_only and not is_local_endpoint(h, profile.local_hosts)]
        for host in refused:
            checks.append(Check(
                area="endpoints", name=f"{group.name} {host}", status="fail",
                detail=f"{endpoint_host(host)!r} is not local: the {profile.name!r} profile "
                       "refuses this whole group and will not contact it",
                fix=f"list it in local_hosts of [profiles.{profile.name}] if it is on your "
                    "own network, or remove it"))
        if refused:
            continue
        pool = HostPool(group.kind, list(group.hosts),  # type: ignore[arg-type]
                        api_key_env=group.api_key_env)
        await pool.refresh()
        for state in pool.describe():
            up = state["state"] == "up"
            models = state["models"] or []
            checks.append(Check(
                area="endpoints", name=f"{group.name} {state['host']}",
                status="ok" if up else "fail",
                detail=(f"{group.kind}, up, {len(models)} models"
                        + (f" ({', '.join(models[:5])}{', …' if len(models) > 5 else ''})"
                           if models else "")) if up else f"down: {state['last_error']}",
                fix=None if up else "start the server there, or remove the host from the list"))
    return checks
