"""Egress policy: which provider, endpoint and model a call may reach, decided before connecting.

`check()` is pure: it parses the endpoint but never resolves or contacts it. A name counts as
loopback only if it is exactly `localhost` or an IP literal in 127.0.0.0/8 or ::1, so
`localhost.evil.com` and `127.0.0.1.nip.io` are remote.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from urllib.parse import parse_qs, urlsplit

from ..errors import EgressDenied
from .profiles import CLOUD_OPT_IN, DEFAULT_PROFILE, Profile

__all__ = [
    "CLOUD_PROVIDERS",
    "IN_PROCESS_PROVIDERS",
    "LOOPBACK_PROVIDERS",
    "OLLAMA_DEFAULT_ENDPOINT",
    "EgressPolicy",
    "endpoint_host",
    "is_local_endpoint",
    "is_loopback_url",
]

IN_PROCESS_PROVIDERS = frozenset({"embedded", "fake"})
"""Run inside this process: no network at all."""
LOOPBACK_PROVIDERS = frozenset({"ollama", "openai"})
"""Network providers that are local when their endpoint is loopback."""
CLOUD_PROVIDERS = frozenset({"claude"})

OLLAMA_DEFAULT_ENDPOINT = "http://127.0.0.1:11434"
"""What the ollama client uses when neither an endpoint nor `$OLLAMA_HOST` is set."""

# Ollama's "cloud" models (e.g. `gpt-oss:120b-cloud`) are served through the local daemon but
# run on a remote service, so a loopback endpoint alone does not keep the data local.
_OLLAMA_CLOUD_MODEL = re.compile(r"[:\-]cloud$", re.IGNORECASE)


def is_loopback_url(endpoint: str) -> bool:
    """True only for an http(s) URL whose host is `localhost` or a loopback IP literal."""
    text = endpoint.strip()
    if "://" not in text:
        # The ollama client accepts `host:port` without a scheme; read it the same way.
        text = "http://" + text
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises on a malformed port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https"):
        return False
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        # Any other name needs DNS, and DNS can point anywhere.
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


class EgressPolicy:
    """Allows or denies a model call under one profile; no network is touched."""

    def __init__(self, profile: Profile, *, env: Mapping[str, str] | None = None) -> None:
        self.profile = profile
        self._env = os.environ if env is None else env

    def check(
        self,
        provider: str,
        *,
        endpoint: str | None,
        model: str,
        model_overridden: bool = False,
    ) -> None:
        """Raise EgressDenied unless this provider, endpoint and model are allowed.

        Call it with the endpoint the provider will actually connect to. For `ollama`, None
        means the client default (`$OLLAMA_HOST`, else 127.0.0.1:11434), checked the same way.
        """
        name = self.profile.name
        if model_overridden and not self.profile.allow_model_override:
            raise EgressDenied(
                f"model override is disabled in the {name!r} profile; drop the `model` argument "
                f"to use the configured model, or set allow_model_override = true in "
                f"[profiles.{name}] of models.toml",
                profile=name,
                model=model,
            )
        if self.profile.local_only:
            self._check_local(provider, endpoint, model)
        prefixes = self.profile.allowed_model_prefixes
        qualified = f"{provider}/{model}"
        if prefixes and not any(model.startswith(p) or qualified.startswith(p) for p in prefixes):
            raise EgressDenied(
                f"model {qualified!r} is not in allowed_model_prefixes of the {name!r} profile "
                f"({', '.join(prefixes)}); pick an allowed model or extend the list in "
                f"[profiles.{name}]",
                profile=name,
                model=model,
            )

    def check_all(
        self, provider: str, endpoints: list[str], *, model: str, model_overridden: bool = False,
    ) -> None:
        """`check` for every host of an endpoint group: one non-local host refuses them all."""
        for endpoint in endpoints or [None]:
            self.check(provider, endpoint=endpoint, model=model,
                       model_overridden=model_overridden)

    def check_store(self) -> None:
        """Raise EgressDenied unless the shared store's hosts are local, when the profile
        says so (`local_store`, on in `restricted`): documents and conversations are written
        to `RLM_DATABASE_URL` and `RLM_BLOB_URL`, so a remote one is egress like a model's.

        Checked before the store connects. A PostgreSQL socket path counts as local; an
        `s3://` URL without `AWS_ENDPOINT_URL` means AWS itself, which never is.
        """
        if not self.profile.local_store:
            return
        hosts = [("RLM_DATABASE_URL", h) for h in _database_hosts(
            (self._env.get("RLM_DATABASE_URL") or "").strip())]
        hosts += [("RLM_BLOB_URL", h) for h in _blob_hosts(
            (self._env.get("RLM_BLOB_URL") or "").strip(), self._env)]
        local = {h.strip().strip("[]").lower() for h in self.profile.local_hosts}
        for variable, host in hosts:
            if not (_is_loopback_host(host) or host.lower() in local):
                name = self.profile.name
                raise EgressDenied(
                    f"the {name!r} profile keeps the store on local hosts, and {variable} "
                    f"names host {host!r}; list it in local_hosts of [profiles.{name}] in "
                    f"models.toml if it is on your own network, or set local_store = false",
                    profile=name, host=host)

    def _is_local(self, endpoint: str) -> bool:
        return bool(endpoint) and is_local_endpoint(endpoint, self.profile.local_hosts)

    def _check_local(self, provider: str, endpoint: str | None, model: str) -> None:
        name = self.profile.name
        if provider in IN_PROCESS_PROVIDERS:
            return
        if provider in LOOPBACK_PROVIDERS:
            effective = endpoint or (
                (self._env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_ENDPOINT).split(",")[0]
                if provider == "ollama" else "")
            if not self._is_local(effective):
                raise EgressDenied(
                    f"the {name!r} profile allows only local models, and the {provider} "
                    f"endpoint host {endpoint_host(effective)!r} is not loopback; point it at "
                    f"127.0.0.1 (or localhost / [::1]), or list the host in local_hosts of "
                    f"[profiles.{name}] in models.toml{_opt_in(name)}",
                    profile=name,
                    provider=provider,
                    host=endpoint_host(effective),
                )
            if provider == "ollama" and _OLLAMA_CLOUD_MODEL.search(model):
                raise EgressDenied(
                    f"{model!r} is an Ollama cloud model, which sends data off this machine; "
                    f"the {name!r} profile allows only local models{_opt_in(name)}",
                    profile=name,
                    model=model,
                )
            return
        if name == DEFAULT_PROFILE:
            raise EgressDenied(
                f"provider {provider!r} sends your documents off this machine, and the "
                f"default profile {name!r} allows only local models (embedded, or ollama or an "
                f"OpenAI-compatible server on a local host); to use a cloud model, opt in with "
                f"{CLOUD_OPT_IN}",
                profile=name, provider=provider)
        raise EgressDenied(
            f"provider {provider!r} is not allowed in the {name!r} profile, which allows only "
            f"local models (embedded, or ollama or an OpenAI-compatible server on a local "
            f"host); use a local tier or switch profile (--profile unrestricted or "
            f"RLM_PROFILE=unrestricted) outside restricted deployments",
            profile=name,
            provider=provider,
        )


def _opt_in(profile_name: str) -> str:
    """Under the default profile, how the operator opts in to data leaving the machine."""
    return f"; or opt in with {CLOUD_OPT_IN}" if profile_name == DEFAULT_PROFILE else ""


def is_local_endpoint(endpoint: str, local_hosts: list[str]) -> bool:
    """Loopback, or a host the profile lists in `local_hosts` (exact, case-insensitive)."""
    if is_loopback_url(endpoint):
        return True
    host = endpoint_host(endpoint).lower()
    return host != "?" and host in {h.strip().strip("[]").lower() for h in local_hosts}


def _is_loopback_host(host: str) -> bool:
    return is_loopback_url(f"http://[{host}]" if ":" in host else f"http://{host}")


def _database_hosts(url: str) -> list[str]:
    """Every TCP host a libpq URL may connect to (`h1,h2` lists and `?host=` included);
    a Unix-socket directory is no host at all."""
    if not url:
        return []
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    named = [_without_port(h.strip()) for h in netloc.split(",")]
    for key in ("host", "hostaddr"):
        for value in parse_qs(parts.query).get(key, []):
            named += [h.strip() for h in value.split(",")]
    return [h for h in named if h and not h.startswith("/") and not h.startswith("%2F")]


def _without_port(host: str) -> str:
    if host.startswith("["):  # [::1]:5433
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _blob_hosts(url: str, env: Mapping[str, str]) -> list[str]:
    """The host blobs travel to: none for the data dir or a `file://` path."""
    if not url.startswith("s3://"):
        return []
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    return [endpoint_host(endpoint) if endpoint else "s3.amazonaws.com"]


def endpoint_host(endpoint: str) -> str:
    """The host part alone: an endpoint may carry credentials, which must not be echoed."""
    text = endpoint if "://" in endpoint else "http://" + endpoint
    try:
        return urlsplit(text).hostname or "?"
    except ValueError:
        return "?"
