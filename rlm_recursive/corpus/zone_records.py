"""DNS zone files in the master-file format of RFC 1035 §5.1 (what BIND, NSD and Knot read):
one record per resource record, its fields named as the RFCs name them.

A line is `owner [TTL] [class] type rdata`, TTL and class in either order; an owner left out
(the line starts with a blank) is the previous line's, `@` is the origin; `$ORIGIN` sets the
origin that relative names are completed with, `$TTL` the default TTL; parentheses carry a
record over several lines (an SOA's timers, each with its `; serial` comment); `;` starts a
comment outside quotes. A record that is commented out is a comment: no record.

The fields: `name` (the owner, completed with the origin, without the final dot), `ttl` and
`class` when the line writes them (a default from `$TTL` is not said on the record's line,
so a look-up citing the line could not show it), `type`, and the rdata's parts as the RFCs
name them, as written (a domain name keeps its final dot: without it, it is relative to
the origin) (an A or AAAA record's `address`, a CNAME's `canonical name`, an MX's
`preference` and `exchange`, an SOA's `serial`, `refresh`, `retry`, `expire` and `minimum`,
an SRV's `priority`, `weight`, `port` and `target`, ...). A document is read as a zone when
most of its lines that are not comments or blank are records or directives.
"""

from __future__ import annotations

import re

__all__ = ["RDATA_FIELDS", "absolute", "entry_fields", "read_zone", "zone_records"]

Span = tuple[int, int, dict[str, str]]

RDATA_FIELDS: dict[str, tuple[str, ...]] = {
    "A": ("address",), "AAAA": ("address",), "CNAME": ("canonical name",),
    "DNAME": ("target",), "NS": ("name server",), "PTR": ("pointer",),
    "MX": ("preference", "exchange"),
    "SOA": ("primary name server", "responsible mailbox", "serial", "refresh", "retry",
            "expire", "minimum"),
    "SRV": ("priority", "weight", "port", "target"), "TXT": ("text",), "SPF": ("text",),
    "CAA": ("flags", "tag", "value"), "HINFO": ("cpu", "os"), "RP": ("mailbox", "text domain"),
    "NAPTR": ("order", "preference", "flags", "service", "regexp", "replacement"),
    "SSHFP": ("algorithm", "fingerprint type", "fingerprint"),
    "TLSA": ("usage", "selector", "matching type", "certificate data"),
    "DS": ("key tag", "algorithm", "digest type", "digest"),
    "DNSKEY": ("flags", "protocol", "algorithm", "public key"),
}
"""Each record type's rdata fields, in the order the RFCs write them (1035, 2782, 8659,
3403, 4255, 6698, 4034); the last field takes what is left (a TXT's strings, a key)."""
_TYPES = frozenset(RDATA_FIELDS) | frozenset(
    "LOC URI SVCB HTTPS CERT OPENPGPKEY SMIMEA RRSIG NSEC NSEC3 NSEC3PARAM CDS CDNSKEY "
    "AFSDB KX APL IPSECKEY DHCID ZONEMD".split())
_CLASSES = frozenset({"IN", "CH", "HS", "CS"})
_TTL = re.compile(r"^\d+[smhdwSMHDW]?(?:\d+[smhdwSMHDW])*$")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[()]|[^\s()";]+')
_NUMBER = re.compile(r"^\d+$")
_CHECKS: dict[str, re.Pattern[str]] = {
    "address": re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$"),
    "preference": _NUMBER, "serial": _NUMBER, "priority": _NUMBER, "weight": _NUMBER,
    "port": _NUMBER}
"""What an rdata field must look like (an A record's "address" in prose is no record)."""
_MIN_RECORDS = 3
_SHARE = 0.8
"""Share of a document's lines, comments and blanks aside, that must be records or
directives."""


def absolute(name: str, origin: str) -> str:
    """A name as the zone means it: `@` is the origin, a name without a final dot is
    relative to it; written without the final dot."""
    if name == "@":
        return origin.rstrip(".")
    if name.endswith("."):
        return name.rstrip(".")
    return f"{name}.{origin.rstrip('.')}" if origin else name


def _uncommented(line: str) -> str:
    """The line without its comment (a `;` outside quotes)."""
    quoted = False
    for i, char in enumerate(line):
        if char == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif char == ";" and not quoted:
            return line[:i]
    return line


def _entries(text: str) -> list[tuple[int, int, str, bool]]:
    """Each entry's span, its tokens' text (comments out, parenthesised lines joined) and
    whether it starts with a blank (the owner left out)."""
    out: list[tuple[int, int, str, bool]] = []
    pos = 0
    open_at: int | None = None
    body: list[str] = []
    blank_owner = False
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        end = pos + len(line)
        code = _uncommented(line)
        if open_at is None:
            if code.strip():
                open_at, body, blank_owner = pos, [code], code[:1] in " \t"
        elif code.strip():
            body.append(code)
        if open_at is not None:
            joined = " ".join(body)
            if joined.count("(") <= joined.count(")"):
                out.append((open_at, end, joined, blank_owner))
                open_at = None
        pos += len(raw)
    return out


def _rr(tokens: list[str], owner_written: bool) -> tuple[str | None, dict[str, str]] | None:
    """The owner (None when left out) and fields of an entry's tokens, or None when they
    are not a record."""
    owner = tokens[0] if owner_written else None
    rest = tokens[1:] if owner_written else tokens
    fields: dict[str, str] = {}
    while rest and rest[0].upper() not in _TYPES:
        head = rest.pop(0)
        if head.upper() in _CLASSES and "class" not in fields:
            fields["class"] = head.upper()
        elif _TTL.match(head) and "ttl" not in fields:
            fields["ttl"] = head
        else:
            return None
    if not rest or len(fields) > 2:
        return None
    kind = rest[0].upper()
    fields["type"] = kind
    data = [t.strip('"') if t.startswith('"') else t for t in rest[1:]]
    names = RDATA_FIELDS.get(kind, ("data",))
    if not data or len(data) < len(names) - (1 if kind in ("SOA",) else 0):
        return None
    for k, field in enumerate(names):
        if k >= len(data):
            break
        value = " ".join(data[k:]) if k == len(names) - 1 else data[k]
        if field in _CHECKS and not _CHECKS[field].match(value):
            return None
        fields[field] = value
    return owner, fields


def entry_fields(text: str) -> dict[str, str] | None:
    """The fields of one record as its own text writes it (a line of a zone, or an entry
    over several lines in parentheses), without its owner when the line leaves it out;
    None when the text is not one record."""
    entries = _entries(text)
    if len(entries) != 1:
        return None
    _, _, code, blank_owner = entries[0]
    tokens = [t for t in _TOKEN.findall(code) if t not in "()"]
    found = _rr(tokens, not blank_owner) if tokens and not tokens[0].startswith("$") else None
    return found[1] if found is not None else None


def zone_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per resource record, when the document is a zone file (see
    the module); else None."""
    zone = read_zone(text)
    return None if zone is None else [(start, end, fields) for start, end, fields, _ in zone]


def read_zone(text: str) -> list[tuple[int, int, dict[str, str], str]] | None:
    """`zone_records`, each record with the origin its relative names are completed with."""
    origin = ""
    owner: str | None = None
    records: list[tuple[int, int, dict[str, str], str]] = []
    other = 0
    for start, end, code, blank_owner in _entries(text):
        tokens = [t for t in _TOKEN.findall(code) if t not in "()"]
        if not tokens:
            continue
        if tokens[0].startswith("$"):
            if tokens[0].upper() == "$ORIGIN" and len(tokens) > 1:
                origin = tokens[1]
            elif tokens[0].upper() not in ("$TTL", "$INCLUDE", "$GENERATE"):
                other += 1
            continue
        found = _rr(tokens, not blank_owner)
        if found is None:
            other += 1
            continue
        written, fields = found
        owner = absolute(written, origin) if written is not None else owner
        if owner is None:
            other += 1
            continue
        records.append((start, end, {"name": owner, **fields}, origin))
    if len(records) < _MIN_RECORDS or len(records) < _SHARE * (len(records) + other):
        return None
    return records
