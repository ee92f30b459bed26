"""Secret detection: rules as data (gitleaks' ported rules and our own), detect-secrets'
plugins and an entropy heuristic; redaction of excerpts by offsets and by known content."""

from .detect import Detector, Hit, default_detector
from .fragments import KnownSecrets, SourceText, apply, overlapping
from .jsonscan import join_strings, joined_values, literals, value_hits
from .rules import RULESET_VERSION, Rule, load_rules

__all__ = [
    "RULESET_VERSION",
    "Detector",
    "Hit",
    "KnownSecrets",
    "Rule",
    "SourceText",
    "apply",
    "default_detector",
    "join_strings",
    "joined_values",
    "literals",
    "load_rules",
    "overlapping",
    "value_hits",
]
