"""Documents of level-numbered lines, `LEVEL [@ID@] TAG [value]` (GEDCOM family trees and
the exports that copy its layout): one record per level-0 line with the deeper lines under
it, its fields named by the tags on the way down.

    0 @I3@ INDI
    1 NAME William /Hollis/
    1 DEAT
    2 DATE 28 DEC 1938

gives `id` = "@I3@", `kind` = "INDI", `NAME` = "William /Hollis/", `DEAT.DATE` = "28 DEC
1938": "what year did he die" is the date under the death. A line continued on the next
(`CONC` joins, `CONT` starts a new line) is read as one value; a path met twice (a family's
children) keeps its first value under its name and numbers the others (`CHIL.2`). The
header and trailer records (`HEAD`, `TRLR`) are the file's, not records of it.
"""

from __future__ import annotations

import re

__all__ = ["level_records", "put_numbered"]

Span = tuple[int, int, dict[str, str]]

_LINE = re.compile(r"^\s*(?P<level>\d{1,2})\s+(?:(?P<id>@[^@\s]+@)\s+)?(?P<tag>[A-Za-z_]"
                   r"[\w-]{0,30})(?:\s(?P<value>.*))?$")
_CONTINUED = {"CONC": "", "CONT": " "}
_FILE_TAGS = frozenset(("HEAD", "TRLR"))
_SHARE = 0.9
"""Share of a document's non-blank lines that must be level-numbered."""
_MIN_RECORDS = 2


def put_numbered(fields: dict[str, str], key: str, value: str) -> str:
    """Store `value` under `key`, numbering a key met again; the name it was stored under."""
    n, name = 1, key
    while name in fields:
        n += 1
        name = f"{key}.{n}"
    fields[name] = value
    return name


def level_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per level-0 line and the lines under it, when the document
    is written in level-numbered lines; else None."""
    records: list[Span] = []
    path: list[str] = []  # the field names on the way down to the current line
    total = matched = 0
    pos = 0
    current: tuple[int, int, dict[str, str]] | None = None
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        start, pos = pos, pos + len(raw)
        if not body.strip():
            continue
        total += 1
        m = _LINE.match(body)
        if m is None:
            continue
        matched += 1
        level, tag = int(m.group("level")), m.group("tag").upper()
        value = (m.group("value") or "").strip()
        if level == 0:
            if current is not None:
                records.append(current)
            fields = {"kind": tag} | ({"id": m.group("id")} if m.group("id") else {})
            if value:
                fields["value"] = value
            current = (start, start + len(body), fields)
            path = []
            continue
        if current is None:
            continue
        current = (current[0], start + len(body), current[2])
        fields = current[2]
        if tag in _CONTINUED and path and len(path) >= level - 1:
            above = path[level - 2] if level >= 2 else None
            if above is not None and above in fields:
                # CONC joins as written: a space kept at the piece's start is the text's.
                fields[above] += _CONTINUED[tag] + (m.group("value") or "").rstrip()
            continue
        del path[level - 1:]
        key = f"{path[-1]}.{tag}" if path else tag
        if value:
            path.append(put_numbered(fields, key, value))
        else:
            path.append(key if key not in fields else put_numbered(fields, key, ""))
    if current is not None:
        records.append(current)
    if total == 0 or matched < _SHARE * total:
        return None
    records = [r for r in records if r[2]["kind"] not in _FILE_TAGS]
    for _, _, fields in records:
        for key in [k for k, v in fields.items() if not v]:
            del fields[key]
    return records if len(records) >= _MIN_RECORDS else None
