"""Sums and averages over records, computed exactly: the numeric fields of a corpus and the
value of a field in each record, read as a number ("£1,150", "84210", "2,400.50 EUR")."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from typing import Literal

from .records import Layout, Record

__all__ = ["Operation", "aggregate", "format_number", "number_of", "numeric_fields"]

Operation = Literal["sum", "mean", "median", "min", "max"]
_NUMBER = re.compile(r"^(?:[£$€¥]\s?|[A-Z]{3}\s)?"
                     r"(?P<n>[+-]?\d{1,3}(?:[,\u00a0\u202f ]\d{3})+(?:\.\d+)?|[+-]?\d+(?:\.\d+)?)"
                     r"\s*[A-Za-z%/]{0,8}\.?$")
_NUMERIC_SHARE = 0.8
"""Share of a field's values that must read as numbers for it to be summed."""


def number_of(value: str) -> float | None:
    """The number a field value states ("£1,150" → 1150.0), or None (a date, a code, text)."""
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    return float(re.sub(r"[,\u00a0\u202f ]", "", match.group("n")))


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
