"""Months in dates as records write them: "01OCT", "1 Oct", "October 3", "2026-10-01",
"20261019" (iCalendar, HL7), "03/10/2026". A question's "in October" is a condition on the
record's date, whatever the record's spelling; so are "before 2012", "since September" and
"after the due date" (`DateCondition`)."""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FOREIGN_WEEKDAYS", "MONTHS", "MONTH_WORD", "WEEKDAYS", "DateCondition", "SaidDate",
           "date_of",
           "day_row_date",
           "has_month", "in_year", "month_heading", "record_years", "said_dates", "same_date",
           "weekday_named"]

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
        rf"|(?<!\d)\d{{1,2}}[/.]{mm}[/.](?:19|20)?\d\d\b",           # 03/10/2026, QIF's D03/10/2026
        re.IGNORECASE)


MONTH_WORD = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")[a-z]*\.?"
"""A month's name or short form as a question writes it ("Apr", "April", "Sept.")."""


def has_month(text: str, month: int) -> bool:
    """Does the text hold a date in `month` (1-12)?"""
    return _month_pattern(month).search(text) is not None


_Y = r"((?:1[5-9]|20)\d\d)"
_ISO = re.compile(rf"\b{_Y}[-/.](\d\d)[-/.](\d\d)(?:\b|T)|\b{_Y}(\d\d)(\d\d)(?:T|\b)")
"""A year first: "2026-10-01", a ledger's "2025/04/02", "2025.04.02", "20261001"."""
_DMY = re.compile(rf"\b(\d{{1,2}})([/.-])(\d{{1,2}})\2{_Y}\b")
_NAMED = re.compile(rf"\b(?:(\d{{1,2}})[ -]?)?([A-Za-z]{{3,9}})\.?,?[ -](?:(\d{{1,2}}),?\s+)?"
                    rf"{_Y}\b")
_YEAR = re.compile(rf"(?<![\d.:/-]){_Y}(?![\d.:/-])")
_SHORT = 24
"""A value longer than this is text that mentions a year, not a date."""


_OPENING = re.compile(r"^\W{0,3}(\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}-\d\d-\d\d|"
                      r"\d{1,2}[ -][A-Za-z]{3,9}\.?,?[ -]\d{4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4})"
                      r"(?![\d/.-]\d)")
"""A date a record opens with ("28/04/2026  14:15  Vet: ...", "## 12 April 2026"): the date
the entry is of."""


def record_years(text: str) -> set[int]:
    """The years a record's date falls in: that of the date it opens with, when it opens with
    one (an entry of 2026 that says "next due 2027" is of 2026); else of every date it holds
    (a year standing alone is no date here: "Model 2026")."""
    opening = _OPENING.match(text.lstrip())
    if opening and (day := date_of(opening.group(1))) is not None:
        return {day.year}
    years = {int(m.group(4)) for m in _DMY.finditer(text)}
    years |= {int(m.group(1) or m.group(4)) for m in _ISO.finditer(text)}
    years |= {int(m.group(4)) for m in _NAMED.finditer(text) if m.group(2).lower() in MONTHS}
    return years


def in_year(text: str, year: int) -> bool:
    """Does the record's date fall in `year` (`record_years`)?"""
    return year in record_years(text)



def date_of(value: str) -> date | None:
    """The date a field value states ("2026-10-01", "20261001", "03/10/2026", "3 Oct 2026",
    "ABT MAR 1890", "2012"); a bare year is its first day. None: no date, or several."""
    text = value.strip()
    if not text or len(text) > _SHORT + 12:
        return None
    iso = _ISO.search(text)
    if iso:
        y, m, d = (int(g) for g in (iso.groups()[:3] if iso.group(1) else iso.groups()[3:]))
        return _safe(y, m, d)
    dmy = _DMY.search(text)
    if dmy:
        return _safe(int(dmy.group(4)), int(dmy.group(3)), int(dmy.group(1)))
    named = _NAMED.search(text)
    if named and MONTHS.get(named.group(2).lower()):
        day = named.group(1) or named.group(3) or "1"
        return _safe(int(named.group(4)), MONTHS[named.group(2).lower()], int(day))
    years = _YEAR.findall(text)
    if len(years) == 1 and len(text) <= _SHORT:
        return date(int(years[0]), 1, 1)
    return None


def _safe(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


class DateCondition(BaseModel):
    """A date field compared with a date ("published before 2012": year < 2012-01-01) or with
    another date field of the same record ("returned after the due date")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(min_length=1)
    op: Literal["<", ">=", ">"]
    value: date | None = None
    other: str | None = None

    def holds(self, fields: dict[str, str]) -> bool:
        mine = date_of(fields.get(self.field, ""))
        bound = self.value if self.other is None else date_of(fields.get(self.other, ""))
        if mine is None or bound is None:
            return False
        return {"<": mine < bound, ">=": mine >= bound, ">": mine > bound}[self.op]

    def describe(self) -> str:
        return f"{self.field}{self.op}{self.other or self.value}"


_MONTH_WORD = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR4 = r"((?:19|20)\d\d)"
_SAID = (  # (pattern, which groups are day, month, year)
    (re.compile(rf"(?<![\w/.:-]){_DAY}[ -]?(?:of )?({_MONTH_WORD})\.?(?![a-z])"
                rf"(?:,?[ -]{_YEAR4}(?![\d.:/-]\d))?", re.I), (1, 2, 3)),
    (re.compile(rf"(?<![a-z])({_MONTH_WORD})\.? {_DAY}(?![\d:.]\d|\d)(?:,? {_YEAR4}(?!\d))?",
                re.I), (2, 1, 3)),
    (re.compile(rf"(?<![\d.])\b{_YEAR4}([-/.])(\d\d)\2(\d\d)(?!\d)"), (4, 3, 1)),
    (re.compile(r"(?<![\w/.:])(\d{1,2})([/.])(\d{1,2})\2((?:19|20)?\d\d)(?![\w/]|[.:]\d)"),
     (1, 3, 4)),
    # "06-11-2026" (a Dutch till's day first), with its whole year: "10-12-14" may be a range.
    (re.compile(r"(?<![\w/.:-])(\d{1,2})(-)(\d{1,2})-((?:19|20)\d\d)(?![\w/-]|[.:]\d)"),
     (1, 3, 4)),
    (re.compile(rf"(?<![a-z\d] )(?<![\w])({_MONTH_WORD})\.?,? {_YEAR4}(?!\d)", re.I),
     (0, 1, 2)),
)
"""A date as a text writes it: "1 Dec 2025", "1st of December", "December 1, 2025",
"2025-12-01" (or a ledger's "2025/12/01"), "01/12/2025", "11.03.2026"; a month of a year
("December 2025")."""

SaidDate = tuple[int | None, int, int | None]
"""(day, month, year) of a written date; no day for a month of a year, no year for
"11 March"."""


def said_dates(text: str) -> list[tuple[int, int, SaidDate]]:
    """The dates `text` writes, as (start, end, (day, month, year)), in order: a day and
    month are read day first ("03/10/2026" is 3 October), as dates.date_of reads them."""
    found: list[tuple[int, int, SaidDate]] = []
    for pattern, (d, m, y) in _SAID:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b, _ in found):
                continue
            month_said = match.group(m)
            month = (MONTHS.get(month_said.lower().rstrip("."))
                     if not month_said.isdigit() else int(month_said))
            day = int(match.group(d)) if d else None
            year_said = match.group(y) if y else None
            year = None if not year_said else int(year_said) + (
                2000 if len(year_said) == 2 else 0)
            if month is None or not 1 <= month <= 12 or (day is not None
                                                         and not 1 <= day <= 31):
                continue
            found.append((match.start(), match.end(), (day, month, year)))
    return sorted(found)


def same_date(asked: SaidDate, written: SaidDate) -> bool:
    """A written date is the asked one: its day and month, and its year when both say one
    ("1 December" is "01 Dec 2025"; "1 December 2025" is not "01 Dec 2024"); a month of a
    year is any day of it."""
    day, month, year = asked
    return (month == written[1] and (day is None or day == written[0])
            and (year is None or year == written[2]))


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


FOREIGN_WEEKDAYS = {name: k for k, names in enumerate((
    "maandag lundi lunes montag lunedì lunedi måndag mandag",
    "dinsdag mardi martes dienstag martedì martedi tisdag tirsdag",
    "woensdag mercredi miércoles miercoles mittwoch mercoledì mercoledi onsdag",
    "donderdag jeudi jueves donnerstag giovedì giovedi torsdag",
    "vrijdag vendredi viernes freitag venerdì venerdi fredag",
    "zaterdag samedi sábado sabado samstag sonnabend lördag lørdag",
    "zondag dimanche domingo sonntag domenica söndag søndag")) for name in names.split()}
"""Weekdays written in full in Dutch, French, Spanish, German, Italian and the Nordic
languages ("vrijdag 06-11-2026" is a Friday)."""


def weekday_named(word: str) -> int | None:
    """The weekday (0 = Monday) a word names, in full, in the plural or cut to two letters
    or more ("Fri", "FR", "Saturdays"), or in full in another language ("vrijdag"); None
    for any other word, or one two days share."""
    word = word.lower().rstrip(".")
    if word in FOREIGN_WEEKDAYS:
        return FOREIGN_WEEKDAYS[word]
    word = word[:-1] if word.endswith("s") and len(word) > 3 else word
    if len(word) < 2 or not word.isalpha():
        return None
    hits = {k for k, day in enumerate(WEEKDAYS) if day.startswith(word)}
    return hits.pop() if len(hits) == 1 else None


_LINE_MONTH = re.compile(rf"^\W*({_MONTH_WORD})\W*$", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"(?<![\w/.-])({_MONTH_WORD})\.?,?\s+{_YEAR4}(?![\d.:/-]?\d)",
                         re.IGNORECASE)
_DAY_BEFORE = re.compile(r"\d(?:st|nd|rd|th)?(?:\s+of)?[\s-]*$", re.IGNORECASE)


def month_heading(text: str) -> tuple[int, int, int, int | None] | None:
    """The one month a heading names for what is under it, as (start, end) of its line,
    month and year: a month of a year ("READINGS FOR NOVEMBER 2026") or a line that is a
    month's name alone ("November"). A full date ("valid from 1 November 2026") names a
    day, not the month of a table. None when no month is named, or several."""
    found: set[tuple[int, int | None]] = set()
    where: tuple[int, int] | None = None
    pos = 0
    for line in text.split("\n"):
        months: list[tuple[int, int | None]] = [
            (MONTHS[m.group(1).lower()], int(m.group(2))) for m in _MONTH_YEAR.finditer(line)
            if not _DAY_BEFORE.search(line[:m.start()]) and m.group(1) != "may"]
        if (alone := _LINE_MONTH.match(line)) is not None and len(alone.group(1)) > 3:
            months.append((MONTHS[alone.group(1).lower()], None))
        if months and where is None:
            where = (pos, pos + len(line))
        found.update(months)
        pos += len(line) + 1
    if len({m for m, _ in found}) != 1 or len({y for _, y in found if y}) > 1 or where is None:
        return None
    years = {y for _, y in found if y}
    return where[0], where[1], found.pop()[0], years.pop() if years else None


_DAY_FIRST = re.compile(r"^\s*(?:([A-Za-z]{2,9})\.?,?\s+)?(\d{1,2})(?![\d:./-])"
                        r"(?:\s+([A-Za-z]{2,9})\b\.?)?")


def day_row_date(row: str, above: str) -> SaidDate | None:
    """The date of a row that gives its day by number alone, first on the row ("13 FR",
    "Fri 13"), under a heading naming its month (`month_heading`): a tide table's or a
    calendar's day. A weekday written beside the number must be that date's when the year
    is known. None when the row opens with no day number, the heading names no one month,
    or the weekday is another's."""
    match = _DAY_FIRST.match(row)
    heading = month_heading(above)
    if match is None or heading is None:
        return None
    day, (_, _, month, year) = int(match.group(2)), heading
    days = {w for w in (match.group(1), match.group(3)) if w and weekday_named(w) is not None}
    if match.group(1) and not days:
        return None  # "Room 13": a word before the number that is no weekday
    if year is not None and days:
        when = _safe(year, month, day)
        if when is None or any(weekday_named(w) != when.weekday() for w in days):
            return None
    return (day, month, year) if 1 <= day <= 31 else None
