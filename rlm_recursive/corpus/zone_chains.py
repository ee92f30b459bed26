"""The address a name in a DNS zone file resolves to, following its CNAME records as a
resolver does (RFC 1034 §3.6.2: a CNAME's owner has no other data; the query restarts at the
canonical name), with no model call.

"What IP address does www.example.invalid ultimately resolve to?": the question names a
host the zone has records for and asks an address ("IP", "address", "resolve"; IPv6 or AAAA
asks the AAAA record, else the A record). Each hop's record is kept, to be cited. None
(refused) when the name has no record in the zone, when the chain loops or leaves the zone,
when a name has two address records or two CNAMEs (which one the question means is not
known), or when the chain ends without a record of the asked type (an AAAA asked of a name
that has only an A record is not found).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .line_fields import anchors
from .zone_records import absolute, read_zone

__all__ = ["Resolved", "resolved_address"]

_ASKS_ADDRESS = re.compile(r"\b(?:IP|IPv[46]|address(?:es)?|resolves?|resolved|resolving|"
                           r"points?\s+to|AAAA)\b", re.IGNORECASE)
_ASKS_V6 = re.compile(r"\b(?:IPv6|AAAA)\b", re.IGNORECASE)
_MAX_HOPS = 8


@dataclass(frozen=True)
class Resolved:
    """The address reached, its document, each record followed (start, end) in order, and
    the names the chain went through (the canonical names, as their records write them,
    without a final dot: the record reached says them)."""

    value: str
    doc_id: str
    records: tuple[tuple[int, int], ...]
    through: tuple[str, ...]
    kind: str
    """The record type read ("A" or "AAAA")."""


_Record = tuple[int, int, dict[str, str], str]


def _chain(by_name: dict[str, list[_Record]], name: str, kind: str
           ) -> tuple[str, list[tuple[int, int]], list[str]] | None:
    hops: list[tuple[int, int]] = []
    through: list[str] = []
    seen = {name}
    for _ in range(_MAX_HOPS):
        records = by_name.get(name, [])
        addresses = [r for r in records if r[2]["type"] == kind]
        aliases = [r for r in records if r[2]["type"] == "CNAME"]
        if len(addresses) == 1 and not aliases:
            start, end, fields, _ = addresses[0]
            return fields["address"], [*hops, (start, end)], through
        if addresses or len(aliases) != 1:
            return None  # two addresses, none, or a CNAME beside other data
        start, end, fields, origin = aliases[0]
        hops.append((start, end))
        name = absolute(fields["canonical name"], origin).lower()
        if name in seen:
            return None  # a loop
        seen.add(name)
        through.append(fields["canonical name"].rstrip("."))
    return None


def resolved_address(question: str, docs: Iterable[tuple[str, str]]) -> Resolved | None:
    """The address the host the question names resolves to in a zone file (see the
    module), or None."""
    if not _ASKS_ADDRESS.search(question):
        return None
    kind = "AAAA" if _ASKS_V6.search(question) else "A"
    hosts = [h.lower().rstrip(".") for h in anchors(question)]
    found: list[Resolved] = []
    for doc_id, text in docs:
        records = read_zone(text)
        if not records:
            continue
        by_name: dict[str, list[_Record]] = {}
        for record in records:
            by_name.setdefault(record[2]["name"].lower(), []).append(record)
        for host in hosts:
            if host not in by_name:
                continue
            chain = _chain(by_name, host, kind)
            if chain is None:
                return None
            value, hops, through = chain
            found.append(Resolved(value, doc_id, tuple(hops), tuple(through), kind))
    return found[0] if len({r.value for r in found}) == 1 else None
