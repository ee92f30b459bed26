"""Secret rules as data: gitleaks' ported rules and our own, compiled with RE2.

RE2 because gitleaks' patterns are Go (RE2) syntax, which Python's `re` does not fully accept
(a flag group in mid-pattern, `\\z`), and because RE2 matches in linear time: a 10 MB document
goes through all ~190 rules in well under a second, with no pattern that can backtrack for ever.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import ahocorasick
import re2

__all__ = ["RULESET_VERSION", "Rule", "keyword_finder", "load_rules"]

_ENGINE = 2
"""Bump when detect.py or codeshape.py changes what a rule's match becomes (widening,
allowlists, code shapes)."""

# cmd/generate/config/utils/generate.go (gitleaks, MIT): the templates its rules are built from.
_CI_PREFIX = r"[\w.-]{0,50}?(?i:"
_ID_PREFIX = r"[\w.-]{0,50}?(?:"
_ID_SUFFIX = r""")(?:[\w \t.-]{0,20})(?:\\*['"]{0,3})?[ \t]{0,5}"""
_OPERATOR = r"(?:[<>?+]?=|:{1,3}=|>|=>|:|\(|,|\|)"
_SECRET_PREFIX_UNIQUE = r"\b("
_SECRET_PREFIX = r"""(?:\\*(?:'|")|[\x60\s=|>]){0,5}("""
_SECRET_SUFFIX = r""")(?:['"\x60\s;\\<,)]|$)"""


@dataclass(frozen=True)
class Rule:
    """One compiled rule. `group` None: the first group that took part (else the match)."""

    id: str
    source: str
    regex: Any
    keywords: tuple[str, ...]
    group: int | None = None
    entropy: float | None = None
    allow: tuple[Any, ...] = ()
    require: Any = None
    context_deny: Any = None


def _pattern(spec: dict[str, Any]) -> str:
    if "regex" in spec:
        return spec["regex"]
    if "token" in spec:
        return ("(?i)" if spec.get("ci") else "") + (_SECRET_PREFIX_UNIQUE + spec["token"]
                                                     + _SECRET_SUFFIX)
    near, secret = spec["near"], spec["secret"]
    if spec.get("cs"):
        head = _CI_PREFIX + _ID_PREFIX + near + _ID_SUFFIX + ")"
    else:
        head = "(?i)" + _ID_PREFIX + near + _ID_SUFFIX
    return head + _OPERATOR + _SECRET_PREFIX + secret + _SECRET_SUFFIX


def _keywords(spec: dict[str, Any]) -> tuple[str, ...]:
    if "keywords" in spec:
        return tuple(k.lower() for k in spec["keywords"])
    near = spec.get("near", "")
    return (near.lower(),) if near.replace("-", "").replace("_", "").isalnum() else ()


def _options() -> Any:
    options = re2.Options()
    options.max_mem = 64 << 20  # the largest rules (JWT in base64) need more than the default
    return options


def _compile(pattern: str) -> Any:
    return re2.compile(pattern, _options())


def _compile_bytes(pattern: str) -> Any:
    # Rules run on UTF-8 bytes: google-re2 re-encodes a str argument on every call, which
    # costs more than the match itself.
    return re2.compile(pattern.encode("utf-8"), _options())


def _rule(spec: dict[str, Any], source: str) -> Rule:
    entropy = spec.get("entropy") if source == "rlm" or spec.get("noisy") else None
    return Rule(
        id=spec["id"], source=source, regex=_compile_bytes(_pattern(spec)),
        keywords=_keywords(spec), group=spec.get("group"), entropy=entropy,
        allow=tuple(_compile(a) for a in spec.get("allow", ())),
        require=_compile(spec["require"]) if "require" in spec else None,
        context_deny=_compile(spec["context_deny"]) if "context_deny" in spec else None)


def _data(name: str) -> bytes:
    return (resources.files(__package__) / "data" / name).read_bytes()


def keyword_finder(rules: tuple[Rule, ...]) -> Any:
    """An Aho-Corasick automaton of every rule keyword: one pass over the lowercased text
    finds all the keywords present, overlapping ones included (a `str.find` per keyword
    costs a pass per keyword: ~300 of them)."""
    automaton = ahocorasick.Automaton()
    for keyword in {k for rule in rules for k in rule.keywords}:
        automaton.add_word(keyword, keyword)
    automaton.make_automaton()
    return automaton


@cache
def load_rules() -> tuple[Rule, ...]:
    """Every rule: ours first (their kind names are the ones reports show), then gitleaks'."""
    rules = []
    for name, source in (("rlm.toml", "rlm"), ("gitleaks.toml", "gitleaks")):
        for spec in tomllib.loads(_data(name).decode("utf-8"))["rules"]:
            rules.append(_rule(spec, source))
    return tuple(rules)


def _version() -> str:
    digest = hashlib.sha256(f"engine {_ENGINE}\n".encode())
    for name in ("rlm.toml", "gitleaks.toml"):
        digest.update(_data(name))
    return digest.hexdigest()[:16]


RULESET_VERSION = _version()
"""Names the rule set a stored scan was made with: a new rule set rescans on next use."""
