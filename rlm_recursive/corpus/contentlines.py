"""Documents written as content lines, `NAME;PARAM=value:value` (iCalendar, vCard, the RFC
5545 / 6350 family): one record per innermost component (`BEGIN:VEVENT` ... `END:VEVENT`),
its fields named by property.

A calendar export is a list of events, not a list of lines: "how many bookings are for the
Garden Room" counts the events whose LOCATION says so. A long value is folded onto lines that
begin with a space; it is unfolded before it is read. Parameters become fields of their own
(`ORGANIZER;CN=Kerry Doughty:mailto:...` gives `ORGANIZER.CN` = "Kerry Doughty"), and the
property is a field under its full name too (`TEL;type=CELL` beside `TEL;type=HOME`).
"""

from __future__ import annotations

import re

__all__ = ["component_records", "content_fields"]

Span = tuple[int, int, dict[str, str]]

_LINE = re.compile(r"^(?P<name>[A-Z][A-Z0-9-]{0,40})(?P<params>(?:;[A-Za-z0-9-]+="
                   r"(?:\"[^\"]*\"|[^;:\"]*))*):(?P<value>.*)$")
_PARAM = re.compile(r";([A-Za-z0-9-]+)=(\"[^\"]*\"|[^;:\"]*)")
_ESCAPES = {"\\,": ",", "\\;": ";", "\\n": " ", "\\N": " ", "\\\\": "\\"}
_SHARE = 0.8
"""Share of a document's unfolded lines that must be content lines."""
_MIN_COMPONENTS = 2


def _unescape(value: str) -> str:
    return re.sub(r"\\[,;nN\\]", lambda m: _ESCAPES[m.group(0)], value).strip()


def content_fields(line: str) -> dict[str, str] | None:
    """The property of one unfolded content line, with its parameters; None if it is not
    one."""
    m = _LINE.match(line)
    if m is None:
        return None
    name = m.group("name")
    out = {name: _unescape(m.group("value"))}
    if m.group("params"):
        # A card's mobile and its home phone are both `TEL`: the line's own name, with its
        # parameters as written (`TEL;type=CELL`), tells them apart.
        out[name + m.group("params")] = out[name]
    for key, value in _PARAM.findall(m.group("params")):
        out[f"{name}.{key.upper()}"] = value.strip('"')
    return out


def _logical_lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end, unfolded text) of each content line: a line that begins with a space or
    a tab continues the one before."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        if body[:1] in (" ", "\t") and out:
            start, _, joined = out[-1]
            out[-1] = (start, pos + len(body), joined + body[1:])
        elif body.strip():
            out.append((pos, pos + len(body), body))
        pos += len(raw)
    return out


def component_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per component of the shallowest level that repeats (the
    events of a VCALENDAR, the cards of a vCard file), when the document is written in
    content lines; else None. A nested component (an event's VALARM) stays in its event."""
    lines = _logical_lines(text)
    if not lines or sum(_LINE.match(body) is not None for _, _, body in lines) < (
            _SHARE * len(lines)):
        return None
    found: list[tuple[int, int, int, dict[str, str]]] = []  # depth, start, end, fields
    stack: list[tuple[int, dict[str, str]]] = []
    for start, end, body in lines:
        upper = body.upper()
        if upper.startswith("BEGIN:"):
            stack.append((start, {}))
        elif upper.startswith("END:") and stack:
            begun, fields = stack.pop()
            found.append((len(stack), begun, end, fields))
        elif stack and (props := content_fields(body)) is not None:
            for key, value in props.items():
                stack[-1][1].setdefault(key, value)
    depths = sorted({d for d, *_ in found})
    level = next((d for d in depths if sum(f[0] == d for f in found) >= _MIN_COMPONENTS),
                 None)
    if level is None:
        return None
    return sorted((start, end, fields) for d, start, end, fields in found if d == level)
