"""Secret scanning and redaction of the files an export would write.

Detection is secretscan's: our keyword-anchored rules, gitleaks' rules, detect-secrets'
plugins (all `rule` confidence) and the base64 entropy heuristic (`suspect`). Checksums, uuids
and our own ids are allowlisted by shape (`sha256:…`, `doc_…`, a hex value of a checksum key),
not by a blanket "hex is fine": a hex string next to a secret keyword is a secret.

JSON files are scanned value by value, each decoded string with its key, so an escaped quote
or newline cannot hide a secret; redaction re-encodes the value, so the file stays valid JSON.
Pieces of secrets already known from the session's sources (`KnownSecrets`) are found in JSON
values too, which catches a copy or a cut excerpt that no pattern would recognise. A finding
names the file, the line, the kind and the confidence, never the secret.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from ..secretscan import Hit, KnownSecrets, apply, default_detector, literals, value_hits

__all__ = ["Finding", "find_secrets", "redact_file", "redact_text", "scan_file"]

_CHECKSUM_KEYS = frozenset({"content_hash", "checksum", "sha256", "hash", "digest", "commit",
                            "commit_sha", "etag", "span_hash"})
_CHECKSUM_VALUE = re.compile(r"(?:sha256:)?[0-9a-f]{40,64}")
_SECRET_WORD = re.compile(r"(?i)\b(?:password|passwd|passphrase|secret|token|credentials?"
                          r"|api[ _-]?key|private[ _-]key|access[ _-]key)s?\b")
"""A text that names a secret but holds no value a rule recognises: a `suspect` line, since
the value may be in a format no rule knows (reported, never silently exported)."""


@dataclass(frozen=True)
class Finding:
    """Where a secret is: file, 1-based line, kind and confidence. Never the secret."""

    file: str
    line: int
    kind: str
    confidence: str = "rule"

    def to_dict(self) -> dict[str, str | int]:
        return {"file": self.file, "line": self.line, "kind": self.kind,
                "confidence": self.confidence}


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Merged `(start, end, kind)` ranges of every secret in a plain text, in order."""
    return [(h.start, h.end, h.kind) for h in default_detector().find(text)]


def redact_text(text: str) -> tuple[str, int]:
    """`text` with each secret replaced by `[REDACTED:<kind>]`, and how many there were."""
    return apply(text, find_secrets(text))


def _is_json(name: str) -> bool:
    return name.endswith((".json", ".jsonl"))


@lru_cache(maxsize=1 << 16)
def _detected(key: str | None, value: str) -> tuple[Hit, ...]:
    # An export scans each file up to three times (scan, redact, check) and repeats many
    # values (ops, timestamps, ids): each distinct (key, value) is scanned once.
    return tuple(value_hits(default_detector(), key, value))


def _value_hits(key: str | None, value: str, known: KnownSecrets | None,
                is_key: bool = False) -> list[Hit]:
    if key in _CHECKSUM_KEYS and _CHECKSUM_VALUE.fullmatch(value):
        return []  # our own checksums, under the keys we write them with
    hits = list(_detected(key, value))
    if known and not is_key:  # keys are field names: a piece of a secret there is chance
        hits += [Hit(s, e, kind) for s, e, kind in known.find(value)]
    return hits


def _mentions(text: str, hits: list[Hit], offset: int = 0) -> list[int]:
    """Offsets of secret words in lines (of `text`) where no hit was found."""
    found, covered = [], {text.count("\n", 0, h.start) for h in hits}
    for match in _SECRET_WORD.finditer(text):
        line = text.count("\n", 0, match.start())
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        if line not in covered and "[REDACTED:" not in text[start:end if end != -1 else None]:
            covered.add(line)
            found.append(offset + match.start())
    return found


def scan_file(name: str, content: str, known: KnownSecrets | None = None, *,
              mentions: bool = True) -> list[Finding]:
    """Every secret in one file; JSON string values are decoded before they are scanned.
    With `mentions`, each line that names a secret with no value found is a suspect."""
    findings = []
    if not _is_json(name):
        hits = default_detector().find(content)
        findings += [Finding(name, content.count("\n", 0, h.start) + 1, h.kind, h.confidence)
                     for h in hits]
        if mentions:
            findings += [Finding(name, content.count("\n", 0, at) + 1, "secret_mention",
                                 "suspect") for at in _mentions(content, hits)]
        return sorted(findings, key=lambda f: f.line)
    line, counted = 1, 0
    for match, value, key, is_key in literals(content):
        line += content.count("\n", counted, match.start())
        counted = match.start()
        hits = _value_hits(key, value, known, is_key)
        findings += [Finding(name, line, h.kind, h.confidence) for h in hits]
        if mentions and key is not None and _mentions(value, hits):
            findings.append(Finding(name, line, "secret_mention", "suspect"))
    return findings


def redact_file(name: str, content: str, known: KnownSecrets | None = None) -> tuple[str, int]:
    """The file with its secrets redacted (JSON stays valid JSON), and how many there were."""
    if not _is_json(name):
        return redact_text(content)
    out, pos, count = [], 0, 0
    for match, value, key, is_key in literals(content):
        hits = _value_hits(key, value, known, is_key)
        if not hits:
            continue
        clean, found = apply(value, [(h.start, h.end, h.kind) for h in hits])
        count += found
        out += [content[pos:match.start()], json.dumps(clean, ensure_ascii=False)]
        pos = match.end()
    out.append(content[pos:])
    return "".join(out), count
