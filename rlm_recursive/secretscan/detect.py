"""Find secrets in a text: rules (ours and gitleaks'), detect-secrets' plugins, and entropy.

A hit is the whole secret: the rule's secret group widened to the end of the value (the
closing quote of a quoted value, else the end of the token), so `DB_PASSWORD="xx@yy"` and a
`glpat-` token longer than the rule's fixed length are hidden whole. Keywords, checksums and
our own ids around it are never part of it.

Two confidences: `rule` (a rule or a detect-secrets plugin matched: deterministic, whatever
the entropy of the draw) and `suspect` (a string only the entropy heuristic flags).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2

from .codeshape import QUOTES, PythonText, is_placeholder
from .rules import Rule, keyword_finder, load_rules

__all__ = ["Detector", "Hit", "default_detector", "merge_hits"]

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~")
_TRAILING = ".,;:"
"""Sentence punctuation after an unquoted value, when white space or the end follows it."""
_MAX_QUOTED = 4096
_MIN_LEN = 4

# Values that are not secrets whatever key they follow: literals, placeholders, references to
# the environment, our own redaction marks and ids (`sha256:` checksums, doc_/ses_/… ids).
_ALLOW = re2.compile("|".join(f"(?:{pattern})" for pattern in (  # a flag stays in its group
    r"(?i)^(?:true|false|null|none|nil|undefined|yes|no|on|off|str|string|int|integer|bool"
    r"|boolean|bytes|any|object|optional|required|redacted|secret|password|token|empty)[),;]*$",
    r"^\[REDACTED:[a-z0-9_]+\]$",
    r"(?i)^(?:basic|bearer|token|digest|negotiate|ntlm|apikey|hoba|mutual|aws4-hmac-sha256)$",
    r"^[\[{(]$",
    r"^[*.xX•_-]+$",
    r"^<[^<>]*>$",
    r"^\$(?:[A-Z_]+|[a-z_]+)$",  # $VAR, ${VAR}, %VAR%: gitleaks' shapes (one case, no
    r"^\$\{(?:[A-Z_]+|[a-z_]+)\}$",  # digits); `$dy4p4x_XZZ7` is a password, not a variable

    r"^\$?\{\{.*\}\}$",
    r"^%(?:[A-Z_]+|[a-z_]+)%$",
    r"^@[A-Za-z_]+@$",
    r"^(?:os\.environ|os\.getenv|process\.env|System\.getenv|getenv\(|ENV\[|env\()",
    r"^(?:doc|ses|spn|art|run|msg|exe|key|ten|job)_[0-9a-f]{12}$",
    r"^sha256:[0-9a-f]{64}$",
)))
_HEX = re2.compile(r"^(?:[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})$")
_EXPORT_NAME = re2.compile(
    r"^(?:[a-z.]{1,16}/)*\d{8}T\d{6}Z[-_][0-9a-f]{8}(?:/[a-z]{1,16}(?:_[0-9a-f]{12})?)*$")
"""The export's own branch and folder names: a timestamp and a session id prefix mix enough
characters to pass the entropy limit about 1 time in 500. Only short lowercase words may
stand around them, so no random string can hide in a name that is let through."""


@dataclass(frozen=True, order=True)
class Hit:
    """A secret at `[start, end)` of the text scanned. Never holds the secret itself."""

    start: int
    end: int
    kind: str
    confidence: str = "rule"


def merge_hits(hits: list[Hit]) -> list[Hit]:
    """Hits in order, overlapping ones as one (the first one's kind; `rule` if either is)."""
    merged: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            confidence = "rule" if "rule" in (last.confidence, hit.confidence) else "suspect"
            merged[-1] = Hit(last.start, max(last.end, hit.end), last.kind, confidence)
        else:
            merged.append(hit)
    return merged


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole value from `start`: to its closing quote, else to the end of the token (a
    rule of fixed length stops inside a longer token). Never backwards: a rule's secret group
    starts where the secret does (after `=`, `:`, a quote or a word boundary)."""
    n = len(text)
    quote = text[start - 1] if start > 0 and text[start - 1] in QUOTES else None
    if quote is not None:
        closed = end < n and (text[end] == quote or text.startswith("\\" + quote, end))
        if not closed:
            close = text.find(quote, end, end + _MAX_QUOTED)
            newline = text.find("\n", end, close if close != -1 else end + _MAX_QUOTED)
            if close != -1 and newline == -1:
                end = close - (1 if text[close - 1] == "\\" else 0)
        return start, end
    while end < n and text[end] in _TOKEN_CHARS:
        end += 1
    while end > start and text[end - 1] in _TRAILING and (end == n or text[end].isspace()):
        end -= 1
        n = end
    return start, end


def _secret_span(rule: Rule, match: Any) -> tuple[int, int]:
    if rule.group is not None:
        return match.span(rule.group)
    for index in range(1, (match.re.groups or 0) + 1):
        start, end = match.span(index)
        if start != -1 and end > start:
            return start, end
    return match.span()


def _keep(rule: Rule, match: Any, value: str) -> bool:
    if len(value) < _MIN_LEN and rule.source == "rlm" and rule.id != "private-key":
        return False
    # A quote the match took at either end is not the value, nor is a summary's cut mark.
    bare = value.strip(QUOTES).removesuffix("…")
    if _ALLOW.search(bare) or any(a.search(bare) for a in rule.allow):
        return False
    if rule.require is not None and not rule.require.search(value):
        return False
    if rule.context_deny is not None and rule.context_deny.search(
            match.group(0).decode("utf-8", "replace")):
        return False
    return rule.entropy is None or _entropy(value) >= rule.entropy


class Detector:
    """Scans texts with every rule whose keyword the text holds, then the plugins."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules
        self._keywords = keyword_finder(rules)
        self._always = [i for i, rule in enumerate(rules) if not rule.keywords]
        self._by_keyword: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            for keyword in rule.keywords:
                self._by_keyword.setdefault(keyword, []).append(index)
        self._plugins, self._entropy = _plugins()

    def find(self, text: str) -> list[Hit]:
        """Merged hits in order; overlapping hits become one (the first one's kind)."""
        if len(text) < _MIN_LEN:
            return []
        found = [*self._rule_hits(text), *self._plugin_hits(text)]
        # An entropy-only string that overlaps a rule's hit would widen it over its label
        # (`KEY=value` is one base64-looking token): the rule's hit is the secret.
        found += [h for h in self._entropy_hits(text)
                  if not any(h.start < f.end and f.start < h.end for f in found)]
        return merge_hits(found)

    def _rule_hits(self, text: str) -> Iterator[Hit]:
        data = text.encode("utf-8", "surrogatepass")
        chars = _CharOffsets(text, data)
        # A rule runs only on a text that holds one of its keywords (gitleaks' prefilter).
        present = {k for _, k in self._keywords.iter(text.lower())}
        chosen = set(self._always).union(*(self._by_keyword[k] for k in present))
        code = PythonText(text)
        for index in sorted(chosen):  # in file order: ours first, their kinds win ties
            rule = self.rules[index]
            for match in rule.regex.finditer(data):
                start, end = (chars.at(b) for b in _secret_span(rule, match))
                if end <= start:
                    continue
                start, end = _widen(text, start, end)
                value = text[start:end]
                if end > start and _keep(rule, match, value) and not is_placeholder(value) \
                        and not code.is_code(start, end):
                    yield Hit(start, end, _slug(rule.id))

    def _plugin_hits(self, text: str) -> Iterator[Hit]:
        for plugin in self._plugins:
            for value in set(plugin.analyze_string(text)):
                at = text.find(value)
                while value and at != -1:
                    start, end = _widen(text, at, at + len(value))
                    yield Hit(start, end, _slug(plugin.secret_type))
                    at = text.find(value, at + len(value))

    def _entropy_hits(self, text: str) -> Iterator[Hit]:
        plugin, token = self._entropy
        for match in token.finditer(text):
            value = match.group(0)
            if len(value) < 20 or _HEX.search(value) or _EXPORT_NAME.search(value):
                continue  # checksums and uuids are hex by design
            if _ALLOW.search(value) or is_placeholder(value):
                continue
            if plugin.calculate_shannon_entropy(value) > plugin.entropy_limit:
                yield Hit(match.start(), match.end(), "high_entropy_string", "suspect")


class _CharOffsets:
    """Byte offsets of a UTF-8 text as character offsets (a character is a byte that does not
    continue a multi-byte sequence), with a checkpoint every 64 KiB."""

    _BLOCK = 1 << 16
    _CONTINUATION = bytes(range(0x80, 0xC0))

    def __init__(self, text: str, data: bytes) -> None:
        self.data = data
        self.ascii = len(text) == len(data)
        self._before: list[int] | None = None

    def _continuations(self, chunk: bytes) -> int:
        return len(chunk) - len(chunk.translate(None, self._CONTINUATION))

    def at(self, offset: int) -> int:
        if self.ascii or offset <= 0:
            return offset
        if self._before is None:
            self._before, total = [0], 0
            for start in range(0, len(self.data), self._BLOCK):
                total += self._continuations(self.data[start:start + self._BLOCK])
                self._before.append(total)
        block = offset // self._BLOCK
        head = self.data[block * self._BLOCK:offset]
        return offset - self._before[block] - self._continuations(head)


def _slug(kind: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in kind.lower()).strip("_")


def _plugins() -> tuple[tuple[Any, ...], tuple[Any, Any]]:
    # Imported here: detect-secrets (with requests) costs ~160 ms, paid only by a scan.
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    plugins = (AWSKeyDetector(), PrivateKeyDetector(), JwtTokenDetector(), SlackDetector(),
               StripeDetector(), GitHubTokenDetector(), GitLabTokenDetector(), OpenAIDetector(),
               NpmDetector(), PypiTokenDetector(), SendGridDetector(), TwilioKeyDetector())
    entropy = Base64HighEntropyString()
    with entropy.non_quoted_string_regex(is_exact_match=False):
        token = entropy.regex  # unquoted: JSON values are scanned decoded, without quotes
    return plugins, (entropy, token)


@cache
def default_detector() -> Detector:
    return Detector(load_rules())
