"""Sums and averages over records, computed exactly: the numeric fields of a corpus and the
value of a field in each record, read as a number ("£1,150", "84210", "2,400.50 EUR")."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from typing import Literal

from .records import Layout, Record

__all__ = ["Operation", "aggregate", "clock_fields", "format_number", "number_of",
           "numeric_fields", "seconds_of"]

Operation = Literal["sum", "mean", "median", "min", "max"]
_NUMBER = re.compile(r"^(?:[£$€¥]\s?|[A-Z]{3}\s)?"
                     r"(?:(?P<c>[+-]?\d{1,3}(?:[.\u00a0\u202f ]\d{3})*,\d{1,2})"
                     r"|(?P<n>[+-]?\d{1,3}(?:[,\u00a0\u202f ]\d{3})+(?:\.\d+)?|[+-]?\d+(?:\.\d+)?))"
                     r"\s*[A-Za-z%/]{0,8}\.?$")
"""A number as English writes it ("1,150.50"), or as much of Europe does, with a comma
before its one or two decimals ("39,00", "1 110,00", "3.388,72"): "1,150" is a thousand."""
_NUMERIC_SHARE = 0.8
"""Share of a field's values that must read as numbers for it to be summed."""
_CLOCK = re.compile(r"^(?P<h>\d{1,3}):(?P<m>[0-5]\d):(?P<s>[0-5]\d)$")
"""A running time as hours, minutes and seconds ("00:47:05", "1:02:10"). Two parts alone
("47:05") are no duration: minutes and seconds, or hours and minutes, cannot be told."""
_DURATION_NAMES = frozenset(("duration", "length", "runtime", "running", "elapsed", "dur"))
"""Words of a field's name that say it holds a length of time, not a time of day."""


def number_of(value: str) -> float | None:
    """The number a field value states ("£1,150" → 1150.0), or None (a date, a code, text)."""
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    if match.group("c") is not None:
        return float(re.sub(r"[.\u00a0\u202f ]", "", match.group("c")).replace(",", "."))
    return float(re.sub(r"[,\u00a0\u202f ]", "", match.group("n")))


def seconds_of(value: str) -> float | None:
    """The seconds a running time states ("00:47:05" → 2825.0), or None."""
    match = _CLOCK.match(value.strip())
    if match is None:
        return None
    return float(int(match["h"]) * 3600 + int(match["m"]) * 60 + int(match["s"]))


def clock_fields(layout: Layout) -> list[str]:
    """Fields named as a length of time whose values are (almost all) running times
    ("duration": "00:47:05"): what "longer than 45 minutes" compares, in seconds."""
    out = []
    for key, values in layout.fields.items():
        named = {w.lower() for w in re.findall(r"[A-Za-z]+", key)}
        total = sum(values.values())
        clocks = sum(n for v, n in values.items() if seconds_of(v) is not None)
        if named & _DURATION_NAMES and total >= 2 and clocks >= _NUMERIC_SHARE * total:
            out.append(key)
    return out


def numeric_fields(layout: Layout) -> list[str]:
    """Fields whose values are (almost all) numbers: quantities a question can sum."""
    out = []
    for key, values in layout.fields.items():
        total = sum(values.values())
        numbers = sum(n for v, n in values.items() if number_of(v) is not None)
        if total >= 2 and numbers >= _NUMERIC_SHARE * total:
            out.append(key)
    return out


def aggregate(records: Iterable[Record], key: str, op: Operation
              ) -> tuple[float | None, list[Record], int]:
    """(the result, the records it used, records selected without a number in `key`)."""
    used: list[Record] = []
    numbers: list[float] = []
    skipped = 0
    for record in records:
        raw = record.fields.get(key)
        number = number_of(raw) if raw is not None else None
        if number is None:
            skipped += 1
            continue
        used.append(record)
        numbers.append(number)
    if not numbers:
        return None, used, skipped
    compute = {"sum": sum, "mean": statistics.fmean, "median": statistics.median,
               "min": min, "max": max}[op]
    return float(compute(numbers)), used, skipped


def format_number(value: float) -> str:
    """1234567.0 → "1,234,567"; 301.25 → "301.25" (at most two decimals)."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")
