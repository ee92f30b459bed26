"""Secret scanning and redaction of the files an export would write.

Two sources of detectors: the 8 patterns of seed 000 Appendix C (plus wider forms of the same
key families, so a redaction covers the whole key and not a prefix of it) and detect-secrets'
plugins (AWS, private keys, JWTs, Slack, Stripe, GitHub, OpenAI, … and base64 high-entropy
strings). detect-secrets' hex high-entropy plugin is left out on purpose: every checksum in a
manifest is a hex sha256.

JSON files are scanned value by value: each string literal is decoded first, so an escaped
quote or newline cannot hide a secret, and redaction re-encodes it, so the file stays valid
JSON. A finding names the file, the line and the kind, never the secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
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

__all__ = ["SEED_PATTERNS", "Finding", "find_secrets", "redact_file", "redact_text", "scan_file"]

# Seed 000 Appendix C, verbatim except for a named group `s` around the secret itself (so a
# redaction keeps the `password=` label) and a left boundary on the `sk-` forms.
SEED_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"(?i)(api[_-]?key|apikey)\s*[:=]\s*[\"']?(?P<s>[\w-]{20,})", "API Key"),
    (r"(?i)(secret|token|password|passwd|pwd)\s*[:=]\s*[\"']?(?P<s>[\w-]{8,})",
     "Secret/Password"),
    (r"(?<![A-Za-z0-9])sk-[a-zA-Z0-9]{20,}", "OpenAI API Key"),
    (r"(?<![A-Za-z0-9])sk-ant-[a-zA-Z0-9-]{20,}", "Anthropic API Key"),
    (r"ghp_[a-zA-Z0-9]{36}", "GitHub PAT"),
    (r"gho_[a-zA-Z0-9]{36}", "GitHub OAuth"),
    (r"-----BEGIN (RSA |EC |DSA )?PRIVATE KEY-----", "Private Key"),
    (r"(?i)bearer\s+(?P<s>[a-zA-Z0-9._-]{20,})", "Bearer Token"),
)

# Whole-key forms of the same families: the seed's character classes stop at `_`, which real
# Anthropic and project-scoped OpenAI keys contain, its PEM pattern matches the header only,
# and a JWT's signature is part of the secret.
_WIDE_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,}", "Anthropic API Key"),
    (r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", "OpenAI API Key"),
    (r"gh[pousr]_[A-Za-z0-9_]{36,}", "GitHub Token"),
    (r"github_pat_[A-Za-z0-9_]{22,}", "GitHub PAT"),
    (r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[^\0]*?-----END (?:[A-Z0-9]+ )*"
     r"PRIVATE KEY(?: BLOCK)?-----|[^\0]*)", "Private Key"),
    (r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}", "Stripe Access Key"),
    (r"xox[abposr]-[A-Za-z0-9-]{10,}", "Slack Token"),
    # detect-secrets' JWT pattern ends lazily before the signature.
    (r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", "JSON Web Token"),
)

_PATTERNS = [(re.compile(p, re.DOTALL), kind)
             for p, kind in (*SEED_PATTERNS, *_WIDE_PATTERNS)]

_REGEX_PLUGINS: tuple[RegexBasedDetector, ...] = (
    AWSKeyDetector(), PrivateKeyDetector(), JwtTokenDetector(), SlackDetector(),
    StripeDetector(), GitHubTokenDetector(), GitLabTokenDetector(), OpenAIDetector(),
    NpmDetector(), PypiTokenDetector(), SendGridDetector(), TwilioKeyDetector(),
)
_MIN_ENTROPY_LEN = 20
_HEX = re.compile(r"[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_EXPORT_NAME = re.compile(
    r"(?:[a-z.]{1,16}/)*\d{8}T\d{6}Z[-_][0-9a-f]{8}(?:/[a-z]{1,16}(?:_[0-9a-f]{12})?)*")
"""The export's own branch and folder names (`rlm/session/<stamp>-<id8>`, `.rlm/sessions/
<stamp>_<id8>/artifacts/art_<id>`): a timestamp and a session id prefix mix enough characters
to pass the entropy limit about 1 time in 500. Only short lowercase words may stand around
them, so no random string can hide in a name that is let through."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_VALUE_SEP = "\0"


@dataclass(frozen=True)
class Finding:
    """Where a secret is: file, 1-based line and kind. Never the secret."""

    file: str
    line: int
    kind: str

    def to_dict(self) -> dict[str, str | int]:
        return {"file": self.file, "line": self.line, "kind": self.kind}


def _slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")


_ENTROPY = Base64HighEntropyString()
with _ENTROPY.non_quoted_string_regex(is_exact_match=False):
    # Unquoted: a JSON value is scanned after decoding, without the quotes around it.
    _ENTROPY_TOKEN = _ENTROPY.regex
_MIN_SECRET_LEN = 8  # shorter than any detector's shortest match ("pwd:" + 8 characters)


def _entropy_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _ENTROPY_TOKEN.finditer(text):
        token = match.group(0)
        if len(token) < _MIN_ENTROPY_LEN or _HEX.fullmatch(token):
            continue  # checksums and uuids are hex by design
        if _EXPORT_NAME.fullmatch(token):
            continue
        if _ENTROPY.calculate_shannon_entropy(token) > _ENTROPY.entropy_limit:
            yield match.start(), match.end(), _ENTROPY.secret_type


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Merged `(start, end, kind slug)` ranges of every secret in `text`, in order."""
    if len(text) < _MIN_SECRET_LEN:
        return []
    spans: list[tuple[int, int, str]] = []
    for regex, kind in _PATTERNS:
        for match in regex.finditer(text):
            start, end = match.span("s") if "s" in regex.groupindex else match.span()
            spans.append((start, end, kind))
    for plugin in _REGEX_PLUGINS:
        for value in set(plugin.analyze_string(text)):
            at = text.find(value)
            while value and at != -1:
                spans.append((at, at + len(value), plugin.secret_type))
                at = text.find(value, at + len(value))
    spans.extend(_entropy_spans(text))
    spans.sort(key=lambda s: (s[0], -s[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, _slug(kind)))
    return merged


def redact_text(text: str) -> tuple[str, int]:
    """`text` with each secret replaced by `[REDACTED:<kind>]`, and how many there were."""
    spans = find_secrets(text)
    out, pos = [], 0
    for start, end, kind in spans:
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return "".join(out), len(spans)


def _is_json(name: str) -> bool:
    return name.endswith((".json", ".jsonl"))


def _json_values(line: str) -> Iterator[tuple[re.Match[str], str]]:
    for match in _JSON_STRING.finditer(line):
        yield match, json.loads(match.group(0))


def scan_file(name: str, content: str) -> list[Finding]:
    """Every secret in one file; JSON string values are decoded before they are scanned."""
    findings: list[Finding] = []
    if _is_json(name):
        for number, line in enumerate(content.split("\n"), 1):
            # One scan per line: NUL (escaped in JSON, so never inside a value) keeps the
            # values apart for every pattern.
            values = _VALUE_SEP.join(value for _, value in _json_values(line))
            findings.extend(Finding(name, number, kind) for *_, kind in find_secrets(values))
        return findings
    return [Finding(name, content.count("\n", 0, start) + 1, kind)
            for start, _, kind in find_secrets(content)]


def redact_file(name: str, content: str) -> tuple[str, int]:
    """The file with its secrets redacted (JSON stays valid JSON), and how many there were."""
    if not _is_json(name):
        return redact_text(content)
    count = 0

    def one(match: re.Match[str]) -> str:
        nonlocal count
        clean, found = redact_text(json.loads(match.group(0)))
        count += found
        return json.dumps(clean, ensure_ascii=False) if found else match.group(0)

    return _JSON_STRING.sub(one, content), count
