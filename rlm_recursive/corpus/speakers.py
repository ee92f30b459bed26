"""Who speaks a transcript's line: a name after a time stamp, before a role in brackets, or in
capitals ("[00:04:30] Jean Whitlock (secretary): ...", "MARGARET (Treasurer): ..."). A turn is
a unit of its own, and its speaker is the author of what it says in the first person."""

from __future__ import annotations

import re

__all__ = ["TURN_CHARS", "speaker", "strip_speaker"]

_TURN = re.compile(
    r"^\s*(?:\[?(?P<stamp>\d{1,2}:\d\d(?::\d\d)?)\]?\s+)?"
    r"(?P<who>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})"
    r"(?:\s*\((?P<role>[^()\n]{1,40})\))?:\s+(?=\S)")
TURN_CHARS = 600


def speaker(line: str) -> str:
    """Who speaks a transcript's line ("[00:04:30] Jean Whitlock (secretary): ...",
    "MARGARET (Treasurer): ...", "14:02 Dev Patel: ..."): a name after a time stamp, before
    a role in brackets, or in capitals; "" for other lines (a `Key: value` line names no
    speaker)."""
    match = _TURN.match(line)
    if match is None:
        return ""
    who = match.group("who")
    if match.group("stamp") or match.group("role") or (who.isupper() and len(who) > 2):
        return who
    return ""


def strip_speaker(text: str) -> str:
    """A transcript line's words without who says them and when."""
    match = _TURN.match(text)
    return text[match.end():] if match and speaker(text) else text
