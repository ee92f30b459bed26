"""Squid's native access log (`logformat squid`, the default of `access_log`): fields by
position, none labelled, named here as Squid's documentation names them.

`time elapsed client result/status bytes method URL user hierarchy/peer type`, e.g.
`1700000000.123    512 192.0.2.7 TCP_MISS/200 4120 GET http://a.invalid/ jdoe
HIER_DIRECT/198.51.100.9 text/html`:
- `time`: seconds since the epoch, with milliseconds;
- `elapsed`: milliseconds the transaction took;
- `client`: the client's address;
- `result`: Squid's result code (`TCP_MISS`, `TCP_DENIED`, ...), and `outcome`, the code's
  tag without its transport prefix (`MISS`, `DENIED`: the everyday word, "denied
  requests", "cache misses");
- `status`: the HTTP status code;
- `bytes`: the size of the reply sent to the client;
- `method`, `url`;
- `user`: the authenticated user or ident name;
- `hierarchy`: how the request was forwarded (`HIER_DIRECT`: to the origin server,
  `HIER_NONE`: not forwarded), and `peer`, the server it went to;
- `type`: the reply's MIME type.
A `-` is Squid's "none": that field is left out.
"""

from __future__ import annotations

import re

__all__ = ["squid_fields"]

_SQUID = re.compile(
    r"^(?P<time>\d{9,11}\.\d{3})\s+(?P<elapsed>-?\d+)\s+(?P<client>\S+)\s+"
    r"(?P<result>[A-Z][A-Z_]*)/(?P<status>\d{3})\s+(?P<bytes>\d+)\s+(?P<method>[A-Z_-]+)\s+"
    r"(?P<url>\S+)\s+(?P<user>\S+)\s+(?P<hierarchy>[A-Z][A-Z_]*)/(?P<peer>\S+)"
    r"(?:\s+(?P<type>\S+))?\s*$")
_PREFIXES = ("TCP_", "UDP_", "NONE_")
"""The transport a result code names first (Squid's "Squid result codes")."""


def squid_fields(line: str) -> dict[str, str] | None:
    """The named fields of a line of Squid's native access log, or None."""
    m = _SQUID.match(line.strip())
    if m is None:
        return None
    out = {k: v for k, v in m.groupdict().items() if v not in (None, "-")}
    result = out["result"]
    prefix = next((p for p in _PREFIXES if result.startswith(p)), "")
    if prefix and len(result) > len(prefix):
        out["outcome"] = result[len(prefix):]
    return out
