"""Policy profiles: `local` (the default), `restricted` (hospital) and `unrestricted`
(personal, cloud allowed), plus operator overrides.

Decisions (see also ARCHITECTURE.md, Policy):
- `local` (the default, seed 001: "egress policy defaults to restricted/local-only"): the
  paths, traces and audit of `unrestricted`, but egress to local models only (embedded, or
  Ollama on loopback). A cloud model needs an opt-in by the operator: `--profile
  unrestricted` / `RLM_PROFILE=unrestricted`, or naming the model, provider or preset on the
  CLI (`QueryOptions.operator_opt_in`). MCP and HTTP clients never opt in for the operator.
- `restricted`: local providers on loopback only, model override denied, relative paths only
  (any absolute input is rejected, even one inside `allowed_roots`), roots default to the
  working directory, the SDD's minimum denylist can be extended but never removed, 16 MiB per
  loaded file, traces off, audit on.
- `unrestricted`: cloud providers allowed, model override only when enabled, absolute paths
  allowed. Roots default to the working directory; `read_anywhere` lets the CLI (where the
  operator types the path) read outside them. Device, FIFO and socket files are still rejected,
  and the denylist still applies; a personal user who needs e.g. `tokenizer.py` replaces
  `denylist` in `[profiles.unrestricted]` (ALWAYS_DENIED stays). The CLI reads hard links
  unless they are another name of a denylisted file. No per-file cap; traces kept (local store
  only); audit on, since an incident review after a cloud egress needs it most.
- In every profile, paths from MCP or HTTP clients stay inside `allowed_roots`
  (`PathPolicy.from_profile(..., confined=True)`), and files with several names (hard links)
  are refused unless `allow_hardlinks = true`: profiles differ in egress, not confinement.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

__all__ = [
    "ALWAYS_DENIED",
    "BUILTIN_PROFILES",
    "CLOUD_OPT_IN",
    "DEFAULT_DENYLIST",
    "DEFAULT_PROFILE",
    "PROFILE_ENV",
    "Profile",
    "load_profile",
]

ALWAYS_DENIED: tuple[str, ...] = (
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers*",
    "~/.ssh/*",
    "**/*.key",
    "**/*.p12",
    "**/.netrc",
    "**/.pgpass",
    "**/.git-credentials",
    "**/.aws/credentials",
    "**/.config/gcloud",
    "**/.kube/config",
    "**/.ssh",
    "**/.env*",
    "**/*.env.*",
)
"""System and user secrets, denied in every profile whatever `denylist` says.

`**/.ssh` denies an `.ssh` folder at any depth and everything below it (keys, `config`,
`known_hosts`); `**/.env*` and `**/*.env.*` deny dotenv files (`.env`, `.env.local`,
`.envrc`, `secrets.env.local`).

A pattern starting with `/` or `~/` matches the whole canonical path (`~` is the home
folder); the others match below an allowed root, like every denylist entry.
"""

DEFAULT_DENYLIST: tuple[str, ...] = (
    "**/.env",
    "**/*.pem",
    "**/id_rsa*",
    "**/*credential*",
    "**/*token*",
    *ALWAYS_DENIED,
)
"""The SDD's minimum denylist (section 7.1 item 4) plus ALWAYS_DENIED."""

PROFILE_ENV = "RLM_PROFILE"
DEFAULT_PROFILE = "local"
CLOUD_OPT_IN = ("--profile unrestricted (or RLM_PROFILE=unrestricted), or name the cloud "
                "model on the command line (--provider claude, --model MODEL or --preset "
                "PRESET)")
"""How the operator opts in to cloud models under the default profile (every message says)."""


class Profile(BaseModel):
    """One named policy: path, size, egress, trace and audit rules."""

    # Frozen: a policy must not be loosened by code that merely holds it.
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    allowed_roots: list[Path] = Field(default_factory=list)
    """Canonical roots; the first is the base for relative paths. Empty means the cwd."""
    allow_absolute_paths: bool = False
    read_anywhere: bool = False
    """The CLI may read outside `allowed_roots` (never MCP or HTTP clients)."""
    allow_hardlinks: bool = False
    """Read regular files with more than one name. Off, they are refused wherever paths are
    confined (every profile over MCP, restricted everywhere): another name may be outside the
    roots. A hard link to a known secret is refused either way."""
    denylist: list[str] = Field(default_factory=lambda: list(DEFAULT_DENYLIST))
    max_bytes_file: int | None = Field(default=None, gt=0)
    """Per-file cap when loading documents; None means no cap."""
    max_bytes_query: int = Field(default=262144, gt=0)
    """Cap for a file read by `rlm_query`; a client may lower it, never raise it."""
    local_only: bool = True
    local_hosts: list[str] = Field(default_factory=list)
    """Host names or IP literals a local-only profile also counts as local (a model server on
    the hospital's own network); loopback always counts. Matched exactly, never by DNS."""
    local_store: bool = True
    """The shared store (`RLM_DATABASE_URL`, `RLM_BLOB_URL`) must be on a local host too:
    document text and conversations go there. Off in `local` and `unrestricted`."""
    allowed_model_prefixes: list[str] = Field(default_factory=list)
    """Empty allows any model; otherwise `model` or `provider/model` must start with one."""
    allow_model_override: bool = False
    traces: bool = False
    audit: bool = True

    def query_max_bytes(self, requested: int | None = None) -> int:
        """The byte cap for one `rlm_query` read: the client's value, bounded by the profile."""
        if requested is None:
            return self.max_bytes_query
        return max(1, min(requested, self.max_bytes_query))


# Secure defaults live on the model itself, so a bare Profile(name=...) is restricted-like.
_UNRESTRICTED: dict[str, Any] = {
    "allow_absolute_paths": True,
    "read_anywhere": True,
    "max_bytes_file": None,
    "local_only": False,
    "local_store": False,
    "allow_model_override": False,
    # Traces stay in the local store for debugging; MCP responses still omit them by default.
    "traces": True,
    # Audit matters most here: it scopes an incident review after a cloud egress (SDD 10.2).
    "audit": True,
}
_BUILTIN_FIELDS: dict[str, dict[str, Any]] = {
    "local": {**_UNRESTRICTED, "local_only": True},
    "restricted": {
        "allow_absolute_paths": False,
        "read_anywhere": False,
        "max_bytes_file": 16 * 1024 * 1024,
        "local_only": True,
        "allow_model_override": False,
        "traces": False,
        "audit": True,
    },
    "unrestricted": _UNRESTRICTED,
}

BUILTIN_PROFILES: tuple[str, ...] = tuple(_BUILTIN_FIELDS)
_OVERRIDABLE = frozenset(Profile.model_fields) - {"name"}


def load_profile(
    name: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Profile:
    """Build a profile: name from the argument, else `$RLM_PROFILE`, else `local`.

    `overrides` is the parsed `[profiles.<name>]` table of models.toml. Unknown profile names,
    unknown keys and bad values raise ConfigError naming the key.
    """
    env = os.environ if env is None else env
    chosen = name or env.get(PROFILE_ENV) or DEFAULT_PROFILE
    if chosen not in _BUILTIN_FIELDS:
        source = "profile" if name else PROFILE_ENV
        raise ConfigError(
            f"unknown profile {chosen!r} (from {source}); known profiles: "
            f"{', '.join(BUILTIN_PROFILES)}",
            key=source,
        )
    base_dir = Path(os.path.realpath(cwd or Path.cwd()))
    fields: dict[str, Any] = dict(_BUILTIN_FIELDS[chosen])
    overrides = dict(overrides or {})
    for key in overrides:
        if key not in _OVERRIDABLE:
            raise ConfigError(
                f"unknown key 'profiles.{chosen}.{key}' in models.toml; known keys: "
                f"{', '.join(sorted(_OVERRIDABLE))}",
                key=f"profiles.{chosen}.{key}",
            )
    fields.update(overrides)
    if "allowed_roots" in overrides:
        fields["allowed_roots"] = _roots(overrides["allowed_roots"], base_dir, chosen)
    if not fields.get("allowed_roots"):
        fields["allowed_roots"] = [base_dir]
    if chosen == "restricted" and "denylist" in overrides:
        # The hospital minimum cannot be switched off by a config edit; extra patterns add.
        extra = overrides["denylist"]
        if isinstance(extra, list):
            fields["denylist"] = list(DEFAULT_DENYLIST) + [
                p for p in extra if p not in DEFAULT_DENYLIST
            ]
    elif isinstance(fields.get("denylist"), list):
        # System and user secrets stay denied whatever the operator's list says.
        extra = fields["denylist"]
        fields["denylist"] = list(extra) + [p for p in ALWAYS_DENIED if p not in extra]
    try:
        return Profile(name=chosen, **fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        raise ConfigError(
            f"invalid value for 'profiles.{chosen}.{key}' in models.toml: {err['msg']}",
            key=f"profiles.{chosen}.{key}",
        ) from None


def _roots(raw: Any, base_dir: Path, profile: str) -> list[Path]:
    """Canonicalise configured roots: `~` expanded, relative to the cwd, symlinks resolved."""
    key = f"profiles.{profile}.allowed_roots"
    if not isinstance(raw, list) or not all(isinstance(r, str | Path) for r in raw):
        raise ConfigError(f"'{key}' must be a list of folder paths", key=key)
    roots: list[Path] = []
    for entry in raw:
        text = os.fspath(entry)
        if not text or "\x00" in text:
            raise ConfigError(f"'{key}' contains an empty or invalid path", key=key)
        root = Path(os.path.realpath(base_dir / Path(text).expanduser()))
        if not root.is_dir():
            # Fail loudly at startup rather than deny every later read with a confusing message.
            raise ConfigError(f"'{key}' entry {text!r} is not an existing folder", key=key)
        roots.append(root)
    return roots
