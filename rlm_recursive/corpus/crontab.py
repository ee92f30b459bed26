"""Crontab files (`m h dom mon dow command`, or `@daily command`): one record per job, with
the comment lines right above it (what the job is for, who owns it).

A job is still a job when it is commented out (`#30 2 * * * /opt/bin/reconcile`): that is
how people switch one off, so it is a record whose `state` says "commented out" (else
"active"); "how many jobs are disabled" counts them. `NAME=value` lines are settings, not
jobs.
"""

from __future__ import annotations

import re

__all__ = ["crontab_records"]

Span = tuple[int, int, dict[str, str]]

_TIME = r"[\d*/,\-A-Za-z]+"
_JOB = re.compile(rf"^(?P<off>#\s*)?(?:(?P<minute>{_TIME})\s+(?P<hour>{_TIME})\s+"
                  rf"(?P<day_of_month>{_TIME})\s+(?P<month>{_TIME})\s+(?P<day_of_week>{_TIME})"
                  r"|(?P<nickname>@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|"
                  r"hourly)))\s+(?P<command>[/~.$\w].*)$")
_FIELD = re.compile(r"^\d|^\*")
"""A schedule field starts with a digit or `*` (`*/15`, `1-5`, `0`): "# Owner: Bilal"
is no job."""
_SETTING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\s*=")
_MIN_JOBS = 2
_SHARE = 0.5
"""Share of a document's uncommented, non-setting lines that must be jobs."""


def _job(line: str) -> dict[str, str] | None:
    m = _JOB.match(line.strip())
    if m is None:
        return None
    if m.group("nickname") is None and not all(
            _FIELD.match(m.group(k)) for k in ("minute", "hour", "day_of_month")):
        return None
    out = {k: v for k, v in m.groupdict().items() if v and k != "off"}
    out["state"] = "commented out" if m.group("off") else "active"
    return out


def crontab_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per job, active or commented out, when the document's
    uncommented lines are mostly jobs and settings; else None."""
    records: list[Span] = []
    comment_from: int | None = None
    live = jobs_live = 0
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        stripped = body.strip()
        end = pos + len(body)
        fields = _job(stripped) if stripped else None
        if fields is not None:
            records.append((comment_from if comment_from is not None else pos, end, fields))
            comment_from = None
            jobs_live += fields["state"] == "active"
        elif stripped.startswith("#"):
            comment_from = pos if comment_from is None else comment_from
        else:
            comment_from = None
        if stripped and not stripped.startswith("#") and not _SETTING.match(stripped):
            live += 1
        pos += len(raw)
    if len(records) < _MIN_JOBS or jobs_live == 0 or jobs_live < _SHARE * live:
        return None
    return records
