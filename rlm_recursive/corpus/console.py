"""Console output that reports each step per host, as `ansible-playbook`'s default output
does: a heading per play and task, one line per host and outcome, and a recap of counts.

    TASK [web : Install the proxy] ********
    ok: [edge-1]
    changed: [edge-2] => (item=proxy.conf)
    fatal: [edge-3]: UNREACHABLE! => {"msg": "…"}

    PLAY RECAP ****************************
    edge-1   : ok=4  changed=1  unreachable=0  failed=0

Each outcome line is a record: `status` (ok, changed, fatal, skipping…), `host` (the name
in brackets), the `task` and `play` headings it is under, and the `error` after a fatal's
`UNREACHABLE!`/`FAILED!`. Each recap line is a record keyed by its `host`, with its
`key=value` counts ("the total changed over all hosts" sums them) and the `section` it is
under ("PLAY RECAP"). Other lines (a diff, a
timing table) are records of their own, with their `key=value` fields if they write any.
"""

from __future__ import annotations

import re

__all__ = ["console_records"]

Span = tuple[int, int, dict[str, str]]

_HEADING = re.compile(r"^(?P<kind>[A-Z][A-Z ]{1,30}?)\s*\[(?P<title>[^\]\n]*)\]\s*\**\s*$")
_SECTION = re.compile(r"^(?P<title>[A-Z][A-Z ]{1,30}?)\s*\*{3,}\s*$")
"""A heading with no title in brackets ("PLAY RECAP ****")."""
_OUTCOME = re.compile(r"^(?P<status>[a-z][a-z ]{0,20}?):\s+\[(?P<host>[^\]\s]+(?: -> [^\]\s]+)?)\]"
                      r"(?::\s+(?P<error>[A-Z][A-Z ]*)!)?(?P<rest>.*)$")
_RECAP = re.compile(r"^(?P<host>[^\s:=]+)\s+:\s+(?P<counts>(?:[a-z_]+=\d+\s*){2,})$")
_PAIR = re.compile(r"(?<![\w.-])([A-Za-z_][\w.-]{0,40})=(\"[^\"\n]{0,200}\"|[^\s\"]{1,200})")
_RULE = re.compile(r"^[\s*=_-]*$")
_SHARE = 0.6
"""Share of non-blank lines that must be headings, outcomes or recap lines."""
_MIN_OUTCOMES = 4


def console_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per non-blank line of per-host console output (see the
    module), else None."""
    records: list[Span] = []
    heads: dict[str, str] = {}
    outcomes = known = total = headings = 0
    pos = 0
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        start, pos = pos, pos + len(raw)
        if not line.strip() or _RULE.match(line):
            continue
        total += 1
        end = start + len(line)
        if (heading := _HEADING.match(line)) is not None:
            known += 1
            headings += 1
            kind = heading.group("kind").strip().lower()
            if kind == "play":
                heads = {}
            heads["play" if kind == "play" else "task"] = heading.group("title").strip()
            records.append((start, end, dict(heads)))
        elif (section := _SECTION.match(line)) is not None:
            known += 1
            heads = {**heads, "section": section.group("title").strip()}
            records.append((start, end, {}))
        elif (outcome := _OUTCOME.match(line)) is not None:
            known += 1
            outcomes += 1
            fields = {"status": outcome.group("status"), "host": outcome.group("host"), **heads}
            if outcome.group("error"):
                fields["error"] = outcome.group("error").strip()
            records.append((start, end, fields))
        elif (recap := _RECAP.match(line)) is not None:
            known += 1
            counts = dict(_PAIR.findall(recap.group("counts")))
            section = {"section": heads["section"]} if "section" in heads else {}
            records.append((start, end, {"host": recap.group("host"), **counts, **section}))
        else:
            records.append((start, end, {k: v.strip('"') for k, v in _PAIR.findall(line)}))
    # The steps' headings make it a run's output: a log of `level: [service]` lines has none.
    if outcomes < _MIN_OUTCOMES or not headings or known < _SHARE * total:
        return None
    return records
