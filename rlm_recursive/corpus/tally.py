"""Counting records by plan: field filters matched to the question's words, phrases counted
where no field fits, all compared by English stems ("errors" → error, "fire alarms" → fire
alarm) and case-insensitively."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import snowballstemmer
from pydantic import BaseModel, ConfigDict, Field

from .aggregate import number_of
from .dates import DateCondition, has_month
from .records import Layout, Record

__all__ = ["NONE_VALUES", "Comparison", "FieldFilter", "TallyPlan", "ValueMatch",
           "blank_tables", "group_counts", "left_blank", "match_values", "names_key",
           "phrase_regex", "select", "stems", "tally", "words"]

_WORD = re.compile(r"[A-Za-z0-9]+")
_STEMMER = snowballstemmer.stemmer("english")
_CANON = {"err": "error", "crit": "critic", "inform": "info", "dbg": "debug", "emerg": "emerg",
          "warning": "warn"}
"""Stems that name the same thing (log level spellings)."""
_NOT_VALUES = frozenset("a an the of and or to in on at for is are was be yes no none true "
                        "false null n a na".split())
MAX_DISTINCT = 1000
"""A field with more distinct values than this is an identifier or free text, not a class."""


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


_SHORT_FORMS = {"pct": "percent", "perc": "percent", "qty": "quantity", "amt": "amount",
                "avg": "average", "temp": "temperature", "dur": "duration", "cnt": "count",
                "wt": "weight", "dist": "distance", "num": "number", "no": "number",
                "g": "gram", "kg": "kilogram", "km": "kilometre", "mi": "mile",
                "min": "minute", "mins": "minute", "sec": "second", "secs": "second",
                "ms": "millisecond", "hrs": "hour", "h": "hour", "pc": "percent"}
"""Short forms people write in column names (`germ_pct`, `seed_g`, `dur_ms`), as the words
a question uses for them."""
_PREFIX = 4
"""A column name's word this long that begins a question's word names it (`germ` for
"germinated", `temp` for "temperature")."""


def names_key(key_word: str, word: str) -> bool:
    """A word of a field's name (`germ`, `pct`) names a question's word ("germinated",
    "percentage"): the same stem, a short form of it, or a prefix of four letters or more."""
    key_word, word = key_word.lower(), word.lower()
    if _stem(key_word) == _stem(word):
        return True
    full = _SHORT_FORMS.get(key_word)
    if full is not None:
        return word.startswith(full[:max(len(full) - 1, 4)])
    return len(key_word) >= _PREFIX and not key_word.isdigit() and word.startswith(key_word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word[-1:] == "s" and word[:-1].isdigit():
        return word[:-1]  # a number's plural names the number ("404s" are 404 statuses)
    stem = _STEMMER.stemWord(word)
    return _CANON.get(stem, stem)


@lru_cache(maxsize=65536)
def stems(text: str) -> tuple[str, ...]:
    """The text's words, lowercased and stemmed."""
    return tuple(_stem(w) for w in words(text))


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

    def holds(self, record: Record) -> bool:
        raw = record.fields.get(self.field)
        number = number_of(raw) if raw is not None else None
        if number is None:
            return False
        return {"<": number < self.value, "<=": number <= self.value,
                ">": number > self.value, ">=": number >= self.value}[self.op]

    def describe(self) -> str:
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
    dated: list[DateCondition] = Field(default_factory=list)
    """Date conditions ("before 2012", "after the due date"): each must hold."""
    blank: list[str] = Field(default_factory=list)
    """Fields left empty ("not returned yet"): blank in a record of a table that has them."""
    inside: list[FieldFilter] = Field(default_factory=list)
    """Words a field's value holds ("born in Ellerby": BIRT.PLAC "Ellerby, Yorkshire")."""

    @property
    def empty(self) -> bool:
        return not (self.filters or self.phrases or self.every or self.exclude
                    or self.exclude_phrases or self.absent or self.compare or self.months
                    or self.dated or self.blank or self.inside)

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
        parts += [d.describe() for d in self.dated]
        parts += [f"{k} blank" for k in self.blank]
        parts += [f"{f.field}~{f.value!r}" for f in self.inside]
        where = f" in {len(self.docs)} named document(s)" if self.docs else ""
        if self.every and not parts:
            return "every record" + where
        return (" and ".join(parts) or "(everything)") + where


@dataclass(frozen=True)
class ValueMatch:
    """A field value the question names: which question words (`start:stop`) name it."""

    field: str
    value: str
    start: int
    stop: int
    frequency: int


_ALIASES = {"feline": "cat", "canine": "dog", "lagomorph": "rabbit", "equine": "horse",
            "bovine": "cow|cattle", "porcine": "pig", "ovine": "sheep", "avian": "bird",
            "did not attend": "no show|dna|did not show", "not attended": "no show",
            "commented out": "disabled|switched off|turned off|inactive"}
"""Words a record writes for a class (the vet's "Feline", the clinic's "Did not attend") and
the everyday words a question uses for it ("cats", "no-shows")."""
_ALIAS_STEMS = {stems(k): [stems(a) for a in v.split("|")] for k, v in _ALIASES.items()}
_PARTS = re.compile(r"\s+[/>|]\s+")
"""A value written as a path of classes ("Feline / DSH", "Hardware > Disk"): each part names
it too ("cats", "DSH")."""


_SYNONYMS = [frozenset(stems(group)) for group in (
    "denied refused rejected declined", "access entry admission", "granted allowed admitted")]
"""Words an event's outcome is written in ("ACCESS DENIED") and the everyday words a question
uses for it ("refused entry")."""
_SYNONYM_OF = {s: group for group in _SYNONYMS for s in group}
_CODE = re.compile(r"\d")


def _named_forms(value: str) -> set[tuple[str, ...]]:
    """"R07 Server Room SR-1": the name without the codes around it ("Server Room", two
    words or more); "OKAFOR Chioma": a two-word name either way round ("Chioma Okafor")."""
    tokens = value.split()
    first = next((i for i, t in enumerate(tokens) if not _CODE.search(t)), len(tokens))
    last = len(tokens) - next((i for i, t in enumerate(reversed(tokens))
                               if not _CODE.search(t)), len(tokens))
    forms = set()
    if last - first >= 2 and (first or last < len(tokens)):
        forms.add(stems(" ".join(tokens[first:last])))
    if len(tokens) == 2 and all(t.isalpha() for t in tokens):
        forms.add(stems(f"{tokens[1]} {tokens[0]}"))
    return forms


def _synonym_forms(form: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The form with each word that has synonyms said in any of them, when it has two words
    or more: one word alone is too loose ("refused" doses are not a loan "declined")."""
    out = {form}
    if len(form) < 2:
        return out
    for i, word in enumerate(form):
        for other in _SYNONYM_OF.get(word, ()):
            out |= {(*f[:i], other, *f[i + 1:]) for f in list(out)}
    return out


def _value_forms(value: str) -> set[tuple[str, ...]]:
    """The stem sequences a question may name a value by: its own, each part's, its name
    without codes, aliases and synonyms."""
    parts = _PARTS.split(value)
    forms = {stems(value)} | ({stems(p) for p in parts} if len(parts) > 1 else set())
    forms |= _named_forms(value)
    forms |= {alias for form in list(forms) for alias in _ALIAS_STEMS.get(form, ())}
    forms = {f for form in forms for f in _synonym_forms(form)}
    return {f for f in forms if f and not all(s in _NOT_VALUES for s in f)}


def _value_index(fields: dict[str, Counter[str]]) -> dict[str, list[tuple[tuple[str, ...],
                                                                            str, str, int]]]:
    index: dict[str, list[tuple[tuple[str, ...], str, str, int]]] = {}
    for key, values in fields.items():
        if not 1 < len(values) <= MAX_DISTINCT:
            continue
        for value, freq in values.items():
            if len(value) < 2:
                continue
            for seq in _value_forms(value):
                index.setdefault(seq[0], []).append((seq, key, value, freq))
    return index


def match_values(question_stems: tuple[str, ...], fields: dict[str, Counter[str]]
                 ) -> list[ValueMatch]:
    """Field values the question names, at most one per question word (a field may be
    named several times: "billing, auth or search").

    Longer values win over shorter ones on the same words; a value several fields share
    goes to the field the question names, else to the one where it is most frequent.
    """
    index = _value_index(fields)
    named = set(question_stems)
    found: list[ValueMatch] = []
    for i, first in enumerate(question_stems):
        for seq, key, value, freq in index.get(first, []):
            if tuple(question_stems[i:i + len(seq)]) == seq and (
                    not _small_number(seq) or _key_beside(question_stems, i, len(seq), key)):
                found.append(ValueMatch(key, value, i, i + len(seq), freq))

    def rank(m: ValueMatch) -> tuple[int, bool, int]:
        key_named = bool(set(stems(m.field)) & named)
        return (-(m.stop - m.start), not key_named, -m.frequency)

    chosen: list[ValueMatch] = []
    used: set[int] = set()
    for m in sorted(found, key=rank):
        if used & set(range(m.start, m.stop)):
            continue
        # Every value of that field the same words name: "cats" are "Feline / DSH" and
        # "Feline / Maine Coon" (alternatives of one filter).
        chosen.extend(o for o in found if (o.field, o.start, o.stop) == (m.field, m.start,
                                                                          m.stop))
        used.update(range(m.start, m.stop))
    return sorted(chosen, key=lambda m: m.start)


def _small_number(seq: tuple[str, ...]) -> bool:
    return len(seq) == 1 and seq[0].isdigit() and len(seq[0]) <= 2


def _key_beside(question_stems: tuple[str, ...], at: int, size: int, key: str) -> bool:
    """A number as small as "2" is a value of `key` only beside the key's name ("task 2",
    "2 stars"); "disk 2" is not Task=(2)."""
    near = question_stems[max(at - 1, 0):at] + question_stems[at + size:at + size + 1]
    return any(names_key(k, w) for k in words(key) for w in near)


def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A phrase by its stems: each word may take any ending ("alarm" finds "alarms")."""
    parts = []
    for word in words(phrase):
        # The stem is not always a prefix ("retry" → "retri"): keep what the two share.
        stem = _STEMMER.stemWord(word)
        shared = next((i for i, (a, b) in enumerate(zip(word, stem, strict=False))
                       if a != b),
                      min(len(word), len(stem)))
        root = word[:shared]
        parts.append(rf"\b{re.escape(word)}\b" if len(root) < 3 else rf"\b{re.escape(root)}\w*")
    return re.compile(r"[\W_]+".join(parts), re.IGNORECASE)


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
    if plan.months and not any(has_month(record.text, m) for m in plan.months):
        return False
    if unwanted and any(p.search(record.text) for p in unwanted):
        return False
    return all(p.search(record.text) for p in patterns)


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


def group_counts(records: Iterable[Record], plan: TallyPlan, key: str) -> Counter[str]:
    """How many records matching `plan` hold each value of field `key`."""
    counts: Counter[str] = Counter()
    for record in select(records, plan):
        value = record.fields.get(key)
        if value is not None:
            counts[value] += 1
    return counts
