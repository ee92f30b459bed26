"""The fields of one log line, by the format it is written in: JSON lines (keys), logfmt
(`key=value`), syslog (`host app[pid]: <level>`), web access logs (the Common and Combined
Log Formats) and bracketed logs (`<stamp> LEVEL [service]`). Each reader gives None for a
line not of its format (logfmt gives the pairs it finds, none being no pair)."""

from __future__ import annotations

import json
import re

from .structured import flatten

__all__ = ["LEVELS", "LOGFMT", "access_fields", "bracketed_fields", "json_fields",
           "logfmt_fields", "syslog_fields"]

LEVELS = frozenset("trace debug info information notice warn warning error err critical crit "
                   "fatal alert emerg emergency severe".split())
"""Log level words: a line that starts with one marks the `level` field."""
LOGFMT = re.compile(r"(?<![\w.-])([A-Za-z_][\w.-]{0,40})=(\"[^\"\n]{0,200}\"|[^\s\"]{1,200})")
_STAMP = (r"(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d"
          r"|\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?)")
_SYSLOG = re.compile(r"^(?:<\d{1,3}>)?" + _STAMP + r" (?P<host>[\w.-]+) (?P<app>[\w./-]+)"
                     r"(?:\[(?P<pid>\d+)\])?: (?P<msg>.*)$")
_ACCESS = re.compile(
    r'^(?P<client>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>[^\]]+)\] '
    r'"(?P<method>[A-Z]+) (?P<path>\S+)(?: (?P<protocol>[^"\s]+))?" (?P<status>\d{3}) '
    r'(?P<bytes>\d+|-)(?: "(?P<referer>[^"]*)" "(?P<user_agent>[^"]*)")?(?P<rest>.*)$')
"""A request line of the Common or Combined Log Format, as web servers write them."""
_LEVEL_HEAD = re.compile(r"^[<\[(]?(?P<level>[A-Za-z]+)[>\])]?:?(?:\s|$)")
_BRACKET = re.compile(r"\[(?P<tag>[A-Za-z][\w./-]{0,60})\]")


def json_fields(line: str) -> dict[str, str] | None:
    """A JSON object's fields, flattened (`structured.flatten`)."""
    if not line.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return flatten(data)


def logfmt_fields(line: str) -> dict[str, str]:
    """Every `key=value` pair of the line with a value."""
    return {m.group(1): m.group(2).strip('"') for m in LOGFMT.finditer(line)
            if m.group(2).strip('"')}


def _level_of(message: str) -> str | None:
    head = _LEVEL_HEAD.match(message.lstrip())
    if head and head.group("level").lower() in LEVELS:
        return head.group("level")
    return None


def syslog_fields(line: str) -> dict[str, str] | None:
    """`<stamp> host app[pid]: message`, the level a message opens with and its pairs."""
    m = _SYSLOG.match(line)
    if not m:
        return None
    out = {"host": m.group("host"), "app": m.group("app")}
    if m.group("pid"):
        out["pid"] = m.group("pid")
    level = _level_of(m.group("msg"))
    if level:
        out["level"] = level
    return out | logfmt_fields(m.group("msg"))


def access_fields(line: str) -> dict[str, str] | None:
    """A web server's request line, by the names of its format's fields."""
    m = _ACCESS.match(line)
    if not m:
        return None
    out = {k: v for k, v in m.groupdict().items() if v not in (None, "-") and k != "rest"}
    # What servers append after the format (nginx's `rt=0.041`) is key=value too.
    return out | logfmt_fields(m.group("rest"))


def bracketed_fields(line: str) -> dict[str, str] | None:
    """`<stamp> LEVEL [service] ...`, `[LEVEL] service: ...` and the like."""
    rest = re.sub(r"^\[?" + _STAMP + r"\]?\s*", "", line)
    level = _level_of(rest)
    if level is None:
        return None
    out = {"level": level}
    after = rest.lstrip()[len(level):]
    tags = [t for t in _BRACKET.findall(after) if t.lower() not in LEVELS]
    if tags:
        out["service"] = tags[0]
    else:
        named = re.match(r"^[\])>:]*\s+([A-Za-z][\w./-]{0,60}):\s", after)
        if named:
            out["service"] = named.group(1)
    return out | logfmt_fields(after)
