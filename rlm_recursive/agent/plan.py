"""Which models answer a run, and where its model calls may go: the tier plan (option B
`model_tiers` > A `model` > C `preset` > the session's `model_hints` > the provider's default)
and the egress policy of the run, checked before anything is loaded or sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog import Catalog
from ..errors import EgressDenied
from ..policy import EgressPolicy, Profile, load_profile
from ..policy.profiles import CLOUD_OPT_IN, DEFAULT_PROFILE
from .hints import plan_from_hints
from .host import RunHost
from .pool import ProviderPool
from .recursion import TierPlan

if TYPE_CHECKING:  # the query options build on this module
    from .query import QueryOptions

__all__ = ["preflight_egress", "resolve_plan", "run_egress"]

_DEFAULT_PRESET = {"ollama": "fully-local", "embedded": "embedded", "claude": "quality-first"}


async def resolve_plan(
    catalog: Catalog, profile: Profile, options: QueryOptions,
    hints: dict[str, Any] | None = None,
) -> tuple[TierPlan, str]:
    """Option B (model_tiers) > A (model) > C (preset) > the session's `model_hints` > the
    provider's default preset (a hint left out takes that default's tier)."""
    provider = options.provider if options.provider not in (None, "auto") else None
    if options.model_tiers:
        return TierPlan.from_map(catalog, options.model_tiers), "model_tiers"
    if options.model:
        return TierPlan.from_models(
            catalog, provider=provider, model=options.model,
            recursive_provider=options.recursive_provider,
            recursive_model=options.recursive_model), "model"
    if options.preset:
        return TierPlan.from_preset(catalog, options.preset), f"preset {options.preset}"
    hinted = plan_from_hints(catalog, hints)
    if hinted is not None:  # the root is hinted: no default (and no probe) needed
        return hinted, "session model_hints"
    plan, reason = await _default_plan(catalog, profile, provider)
    hinted = plan_from_hints(catalog, hints, plan)
    return (hinted, f"session model_hints over {reason}") if hinted else (plan, reason)


async def _default_plan(
    catalog: Catalog, profile: Profile, provider: str | None,
) -> tuple[TierPlan, str]:
    reason = f"provider {provider}"
    if provider is None:
        from ..providers.auto import detect_provider

        _refuse_remote_probe(profile)
        # Ollama wins only if the root of its default preset is pulled.
        root = catalog.preset(_DEFAULT_PRESET["ollama"]).tiers[0].model
        provider, reason = await detect_provider(root_model=root)
    preset = _DEFAULT_PRESET.get(provider)
    if preset is None:
        from ..errors import ConfigError

        raise ConfigError(f"no default preset for provider {provider!r}; pass --model",
                          key="provider")
    return TierPlan.from_preset(catalog, preset), reason


def _refuse_remote_probe(profile: Profile) -> None:
    """Auto-detection probes OLLAMA_HOST: a local-only profile must not reach a remote one."""
    from ..policy.egress import endpoint_host, is_local_endpoint
    from ..providers.hosts import ollama_hosts

    for host in ollama_hosts():  # every entry of a pool, before any of them is contacted
        if profile.local_only and not is_local_endpoint(host, profile.local_hosts):
            name = profile.name
            raise EgressDenied(
                f"the {name!r} profile allows only local models and OLLAMA_HOST lists "
                f"{endpoint_host(host)!r}, which is not local, so provider auto-detection "
                "would contact a remote host; point OLLAMA_HOST at http://127.0.0.1:11434, "
                "or choose provider 'embedded'"
                + (f", or opt in with {CLOUD_OPT_IN}" if name == DEFAULT_PROFILE else ""),
                profile=name, host=endpoint_host(host))


async def preflight_egress(runtime: RunHost, options: QueryOptions) -> None:
    """Refuse, before a file is loaded, a run that would reach a host the profile refuses:
    every host of every tier of an explicit choice, or every OLLAMA_HOST entry auto-detection
    would probe. Nothing is contacted."""
    egress = run_egress(runtime, options)
    if not (options.model_tiers or options.model or options.preset):
        if egress.profile.local_only and options.provider in (None, "auto"):
            _refuse_remote_probe(egress.profile)
        return
    plan, _ = await resolve_plan(runtime.catalog, egress.profile, options)
    pool = ProviderPool(catalog=runtime.catalog)
    for tier in plan.tiers:
        kind, endpoints = pool.endpoints(tier.provider)
        egress.check_all(kind, endpoints, model=tier.model)


def run_egress(runtime: RunHost, options: QueryOptions) -> EgressPolicy:
    """The egress policy every model call of a run goes through: the runtime's, or the one
    of the profile its preset implies (the hospital preset implies `restricted`)."""
    preset_profile = runtime.catalog.preset(options.preset).profile if options.preset else None
    if preset_profile and preset_profile != runtime.profile.name:
        return EgressPolicy(load_profile(preset_profile,
                                         runtime.catalog.profiles.get(preset_profile)))
    if options.operator_opt_in and not options.client_override and (
            runtime.profile.name == DEFAULT_PROFILE):
        # The operator named the model on the command line: the default profile's local-only
        # egress gives way for this run (restricted and custom profiles never do).
        return EgressPolicy(runtime.profile.model_copy(update={"local_only": False}))
    return runtime.egress
