"""Counting records by plan: field filters matched to the question's words, phrases counted
where no field fits, all compared by English stems ("errors" → error, "fire alarms" → fire
alarm) and case-insensitively."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .aggregate import number_of, seconds_of
from .dates import DateCondition, has_month, in_year
from .records import Layout, Record
from .word_stems import phrase_regex, stems

__all__ = ["NONE_VALUES", "Comparison", "FieldFilter", "TallyPlan", "blank_tables",
           "group_counts", "labelled_value", "left_blank", "select", "split_mentions", "tally"]


class FieldFilter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(min_length=1)
    value: str = Field(min_length=1)


class Comparison(BaseModel):
    """A numeric field compared with a number ("germinated at under 60%": germ_pct < 60)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(min_length=1)
    op: Literal["<", "<=", ">", ">="]
    value: float
    clock: bool = False
    """The field holds running times ("00:47:05") and `value` is in seconds."""

    def holds(self, record: Record) -> bool:
        raw = record.fields.get(self.field)
        read = seconds_of if self.clock else number_of
        number = read(raw) if raw is not None else None
        if number is None:
            return False
        return {"<": number < self.value, "<=": number <= self.value,
                ">": number > self.value, ">=": number >= self.value}[self.op]

    def describe(self) -> str:
        if self.clock:
            return f"{self.field}{self.op}{self.value / 60:g} min"
        return f"{self.field}{self.op}{self.value:g}"


class TallyPlan(BaseModel):
    """What to count: records holding every filter and every phrase, or the phrase's
    occurrences (`occurrences`), or every record when the question asks for all of them.
    Filters on one field are alternatives ("ERROR or WARN lines"); fields combine with and.
    Negated conditions ("not in service", "except the high ones", "other than Leeds") are
    `exclude` filters and `exclude_phrases`: a record must hold the field and not that value.
    `absent` keys: "no parking bay" counts records whose value there says none."""

    model_config = ConfigDict(extra="forbid")

    filters: list[FieldFilter] = Field(default_factory=list)
    phrases: list[str] = Field(default_factory=list)
    occurrences: bool = False
    every: bool = False
    exclude: list[FieldFilter] = Field(default_factory=list)
    exclude_phrases: list[str] = Field(default_factory=list)
    absent: list[str] = Field(default_factory=list)
    compare: list[Comparison] = Field(default_factory=list)
    """Numeric conditions ("under 60%"): the record's number there must meet each."""
    docs: list[str] = Field(default_factory=list)
    """The documents the question names ("in the mail log"); empty: every document."""
    months: list[int] = Field(default_factory=list)
    """Months the record's date must fall in ("in October": 10), any of them."""
    years: list[int] = Field(default_factory=list)
    """Years the record's date must fall in ("during 2026"), any of them."""
    dated: list[DateCondition] = Field(default_factory=list)
    """Date conditions ("before 2012", "after the due date"): each must hold."""
    blank: list[str] = Field(default_factory=list)
    """Fields left empty ("not returned yet"): blank in a record of a table that has them."""
    inside: list[FieldFilter] = Field(default_factory=list)
    """Words a field's value holds ("born in Ellerby": BIRT.PLAC "Ellerby, Yorkshire")."""
    labelled: list[FieldFilter] = Field(default_factory=list)
    """A value after its label in the text ("fix version 4.8.0" over `Fix Version/s: 4.8.0`,
    among other labels on the line): that label's value, not the value's words anywhere."""

    @property
    def empty(self) -> bool:
        return not (self.filters or self.phrases or self.every or self.exclude
                    or self.exclude_phrases or self.absent or self.compare or self.months
                    or self.years or self.dated or self.blank or self.inside or self.labelled)

    def describe(self) -> str:
        grouped: dict[str, list[str]] = {}
        for f in self.filters:
            grouped.setdefault(f.field, []).append(f.value)
        parts = [f"{k}={'|'.join(v)}" for k, v in grouped.items()]
        parts += [f"text {p!r}" for p in self.phrases]
        excluded: dict[str, list[str]] = {}
        for f in self.exclude:
            excluded.setdefault(f.field, []).append(f.value)
        parts += [f"{k}≠{'|'.join(v)}" for k, v in excluded.items()]
        parts += [f"no text {p!r}" for p in self.exclude_phrases]
        parts += [f"{k}=none" for k in self.absent]
        parts += [c.describe() for c in self.compare]
        parts += [f"a date in month {'|'.join(map(str, self.months))}"] if self.months else []
        parts += [f"a date in {'|'.join(map(str, self.years))}"] if self.years else []
        parts += [d.describe() for d in self.dated]
        parts += [f"{k} blank" for k in self.blank]
        parts += [f"{f.field}~{f.value!r}" for f in self.inside]
        parts += [f"{f.field}: {f.value}" for f in self.labelled]
        where = f" in {len(self.docs)} named document(s)" if self.docs else ""
        if self.every and not parts:
            return "every record" + where
        return (" and ".join(parts) or "(everything)") + where


def _same(a: str, b: str) -> bool:
    return a == b or stems(a) == stems(b)


NONE_VALUES = frozenset(("none", "n/a", "na", "-", "--", "no", "nil", "null", "not applicable",
                         "not recorded", "not set", "unknown"))
"""A field value that says the record has nothing there ("Parking bay: none")."""


def _matches(record: Record, plan: TallyPlan, patterns: list[re.Pattern[str]],
             unwanted: list[re.Pattern[str]] | None = None,
             tables: dict[tuple[str, str], set[str]] | None = None) -> bool:
    if plan.docs and record.doc_id not in plan.docs:
        return False
    if not all(left_blank(record, key, tables or {}) for key in plan.blank):
        return False
    if not all(d.holds(record.fields) for d in plan.dated):
        return False
    if not all(phrase_regex(f.value).search(record.fields.get(f.field, ""))
               for f in plan.inside):
        return False
    wanted: dict[str, list[str]] = {}
    for flt in plan.filters:
        wanted.setdefault(flt.field, []).append(flt.value)
    for key, values in wanted.items():
        have = record.fields.get(key)
        if have is None or not any(_same(have, v) for v in values):
            return False
    for flt in plan.exclude:  # "not in service": the record says its status, and not that
        have = record.fields.get(flt.field)
        if have is None or _same(have, flt.value):
            return False
    for key in plan.absent:
        have = record.fields.get(key)
        if have is None or have.strip().lower() not in NONE_VALUES:
            return False
    if not all(c.holds(record) for c in plan.compare):
        return False
    if not all(labelled_value(f.field, f.value).search(record.text) for f in plan.labelled):
        return False
    if plan.months and not any(has_month(record.text, m) for m in plan.months):
        return False
    if plan.years and not any(in_year(record.text, y) for y in plan.years):
        return False
    if unwanted and any(p.search(record.text) for p in unwanted):
        return False
    return all(p.search(record.text) for p in patterns)


def labelled_value(label: str, value: str) -> re.Pattern[str]:
    """`label` then a colon and a list of values on its line, `value` among them (whole)."""
    return re.compile(rf"(?<![\w/]){re.escape(label)}[ \t]*:[ \t]*"
                      rf"(?:[\w.+-]+[ \t]*[,;][ \t]*)*{re.escape(value)}(?![\w.+-]*\w)",
                      re.IGNORECASE)


def left_blank(record: Record, key: str, tables: dict[tuple[str, str], set[str]]) -> bool:
    """The record leaves `key` empty, and is a row of the table that has it: every field it
    has, the records that fill `key` in its document have too (a row of another table
    pasted beside it lacks `key` without leaving it blank)."""
    have = record.fields.get(key)
    if have is not None:
        return not have.strip() or have.strip().lower() in NONE_VALUES
    columns = tables.get((record.doc_id, key))
    return bool(columns) and len(record.fields) >= 2 and set(record.fields) <= columns


def blank_tables(records: list[Record], keys: list[str]) -> dict[tuple[str, str], set[str]]:
    """Per document and key: the fields of the records that fill the key in."""
    out: dict[tuple[str, str], set[str]] = {}
    for record in records:
        for key in keys:
            if record.fields.get(key, "").strip():
                out.setdefault((record.doc_id, key), set()).update(record.fields)
    return out


def select(records: Iterable[Record], plan: TallyPlan) -> Iterable[Record]:
    """The records the plan selects (every record's fields and text, in order)."""
    patterns = [phrase_regex(p) for p in plan.phrases]
    unwanted = [phrase_regex(p) for p in plan.exclude_phrases]
    tables = None
    if plan.blank:
        records = list(records)
        tables = blank_tables(records, plan.blank)
    return (r for r in records if _matches(r, plan, patterns, unwanted, tables))


def tally(layout: Layout, plan: TallyPlan, sample: int = 5) -> tuple[list[Record], int]:
    """(the first `sample` counted records, the exact count) over every record."""
    if plan.empty:
        return [], 0
    patterns = [phrase_regex(p) for p in plan.phrases]
    hits: list[Record] = []
    total = 0
    for record in select(layout.records, plan):
        if len(hits) < sample:
            hits.append(record)
        if plan.occurrences and patterns:
            total += min(len(p.findall(record.text)) for p in patterns)
        else:
            total += 1
    return hits, total


def split_mentions(layout: Layout, plan: TallyPlan) -> int:
    """How many of the records a phrase-only plan selects in prose hold its phrases on two
    or more of their lines: a paragraph listing several items ("Sofa ... Fair", "Rug ...
    Fair") is one record but several of what the question counts, so a count of records
    is no exact count of them."""
    if not plan.phrases or plan.occurrences or plan.filters or plan.compare or plan.labelled:
        return 0
    patterns = [phrase_regex(p) for p in plan.phrases]
    split = 0
    for record in select(layout.records, plan):
        if layout.formats.get(record.doc_id) != "prose":
            continue
        lines = [line for line in record.text.splitlines()
                 if all(p.search(line) for p in patterns)]
        split += len(lines) >= 2
    return split


def group_counts(records: Iterable[Record], plan: TallyPlan, key: str) -> Counter[str]:
    """How many records matching `plan` hold each value of field `key`."""
    counts: Counter[str] = Counter()
    for record in select(records, plan):
        value = record.fields.get(key)
        if value is not None:
            counts[value] += 1
    return counts
