"""Months in dates as records write them: "01OCT", "1 Oct", "October 3", "2026-10-01",
"20261019" (iCalendar, HL7), "03/10/2026". A question's "in October" is a condition on the
record's date, whatever the record's spelling."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["MONTHS", "has_month"]

MONTHS = {name: i for i, names in enumerate(
    ("january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
     "august aug", "september sep sept", "october oct", "november nov", "december dec"),
    start=1) for name in names.split()}
"""Month names and their usual short forms, lowercased, to their numbers."""


@lru_cache(maxsize=12)
def _month_pattern(month: int) -> re.Pattern[str]:
    names = "|".join(n for n, m in MONTHS.items() if m == month)
    mm = f"{month:02d}"
    return re.compile(
        rf"(?<![A-Za-z])\d{{1,2}}[ -]?(?:{names})[a-z]*\b"          # 01OCT, 1 Oct, 3-October
        rf"|\b(?:{names})[a-z]*\.?[ -]\d{{1,2}}\b"                 # Oct 1, October 03
        rf"|\b(?:19|20)\d\d-{mm}-\d\d\b"                           # 2026-10-01
        rf"|\b(?:19|20)\d\d{mm}\d\d(?:T|\d{{4}}|\b)"               # 20261019, 20261019T0930
        rf"|\b\d{{1,2}}[/.]{mm}[/.](?:19|20)?\d\d\b",               # 03/10/2026
        re.IGNORECASE)


def has_month(text: str, month: int) -> bool:
    """Does the text hold a date in `month` (1-12)?"""
    return _month_pattern(month).search(text) is not None
