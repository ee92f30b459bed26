"""Policy: profiles, path confinement, egress control and the content-free audit log."""

from .audit import AUDIT_FIELDS, AuditEntry, AuditLog, audited, new_correlation_id
from .egress import EgressPolicy, is_loopback_url
from .paths import Expect, PathPolicy, compile_glob
from .profiles import (
    ALWAYS_DENIED,
    BUILTIN_PROFILES,
    DEFAULT_DENYLIST,
    PROFILE_ENV,
    Profile,
    load_profile,
)

__all__ = [
    "ALWAYS_DENIED",
    "AUDIT_FIELDS",
    "BUILTIN_PROFILES",
    "DEFAULT_DENYLIST",
    "PROFILE_ENV",
    "AuditEntry",
    "AuditLog",
    "EgressPolicy",
    "Expect",
    "PathPolicy",
    "Profile",
    "audited",
    "compile_glob",
    "is_loopback_url",
    "load_profile",
    "new_correlation_id",
]
