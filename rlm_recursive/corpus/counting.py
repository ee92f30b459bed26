"""Exact counting by pattern: a literal or regex plus optional field filters, counted over
every document by the scan engine, and the fields a corpus marks (`key=value`, `"key": "v"`,
`Key: value`), so a question's words can be grounded in them."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

import regex
from pydantic import BaseModel, ConfigDict, Field

from .scan import regex_search
from .search import Hit

__all__ = ["CountPlan", "FieldFilter", "count_plan", "field_values", "ground_filters",
           "group_by", "plan_regex"]

_FIELD = re.compile(r"(?<![\w.-])([A-Za-z_][\w.-]{0,40})=(\"[^\"\n]{1,80}\"|[^\s,;\"]{1,80})"
                    r"|\"([A-Za-z_][\w.-]{0,40})\":\s*\"([^\"\n]{1,80})\""
                    r"|^[ \t]*([A-Z][\w -]{0,30}):[ \t]+([^\n]{1,80}?)[ \t]*$", re.MULTILINE)
_WORD = re.compile(r"[\w][\w.-]*")
_STOP = frozenset("a an the of and or in on at to for from with by is are was were be how many "
                  "much which what do does did have has had that this these those there "
                  "their its lines line log logs items entries records".split())
_SCAN_TIMEOUT_S = 60.0
_MAX_COUNT = 10**9


class FieldFilter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(min_length=1)
    value: str = Field(min_length=1)


class CountPlan(BaseModel):
    """What to count: items (lines) holding `pattern` and every filter; or pattern matches."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = ""
    regex: bool = False
    case_sensitive: bool = False
    filters: list[FieldFilter] = Field(default_factory=list)

    def describe(self) -> str:
        parts = [f"{f.field}={f.value}" for f in self.filters]
        if self.pattern:
            parts.append(f"{'regex' if self.regex else 'text'} {self.pattern!r}")
        return " and ".join(parts) or "(everything)"


def field_values(texts: Iterable[str]) -> dict[str, Counter[str]]:
    """Every field the texts mark, with how often each value occurs."""
    fields: dict[str, Counter[str]] = defaultdict(Counter)
    for text in texts:
        for m in _FIELD.finditer(text):
            key = m.group(1) or m.group(3) or m.group(5)
            value = (m.group(2) or m.group(4) or m.group(6) or "").strip('"')
            if value:
                fields[key][value] += 1
    return dict(fields)


def ground_filters(question: str, fields: dict[str, Counter[str]]) -> list[FieldFilter]:
    """Field filters for the question's words that are values of a field in the corpus.

    A word that is the value of several fields goes to the field the question names, else to
    the field where it is most frequent. Fields with a single value (nothing to tell apart)
    and values that are common English words are skipped.
    """
    words = [w for w in _WORD.findall(question) if w.lower() not in _STOP]
    named = {w.lower() for w in words}
    chosen: dict[str, FieldFilter] = {}
    for word in words:
        owners = [(key, value, counts[value]) for key, counts in fields.items()
                  if len(counts) > 1 for value in counts if value.lower() == word.lower()]
        if not owners:
            continue
        owners.sort(key=lambda o: (o[0].lower() not in named, -o[2]))
        key, value, _ = owners[0]
        chosen.setdefault(key, FieldFilter(field=key, value=value))
    return list(chosen.values())


def _filter_regex(f: FieldFilter) -> str:
    key, value = regex.escape(f.field), regex.escape(f.value)
    return (rf"(?:(?<![\w.-]){key}=\"?{value}\"?(?![\w.-])|\"{key}\":\s*\"{value}\""
            rf"|^[ \t]*{key}:[ \t]+{value}[ \t]*$)")


def plan_regex(plan: CountPlan) -> str:
    """One regex whose every match is one counted thing.

    With filters, a match is a whole line holding every filter (and the pattern): lookaheads
    test the conditions, so a line counts once however often its words repeat. Without
    filters, a match is one occurrence of the pattern.
    """
    pattern = plan.pattern if plan.regex else regex.escape(plan.pattern)
    if not plan.filters:
        return pattern
    looks = "".join(f"(?=[^\\n]*?{_filter_regex(f)})" for f in plan.filters)
    if plan.pattern:
        looks += f"(?=[^\\n]*?{pattern})"
    return f"^{looks}[^\\n]*"


def count_plan(docs: Iterable[tuple[str, str]], plan: CountPlan, sample: int = 5
               ) -> tuple[list[Hit], int]:
    """(the first `sample` matches, the exact number of matches) over every document."""
    if not plan.pattern and not plan.filters:
        return [], 0
    return regex_search(docs, plan_regex(plan), sample, _SCAN_TIMEOUT_S,
                        ignore_case=not plan.case_sensitive, max_count=_MAX_COUNT)


def group_by(docs: list[tuple[str, str]], plan: CountPlan, key: str) -> Counter[str]:
    """How many matching lines hold each value of field `key` (for "which is most ...")."""
    texts = dict(docs)
    probe = plan.model_copy(update={"filters": [*plan.filters,
                                                FieldFilter(field=key, value="__any__")]})
    any_value = regex.escape("__any__")
    line_regex = plan_regex(probe).replace(any_value, r"[^\s\"]+")
    hits, _ = regex_search(docs, line_regex, _MAX_COUNT, _SCAN_TIMEOUT_S,
                           ignore_case=not plan.case_sensitive, max_count=_MAX_COUNT)
    counts: Counter[str] = Counter()
    for hit in hits:
        line = texts[hit.doc_id][hit.start : hit.end]
        for value in field_values([line]).get(key, Counter()):
            counts[value] += 1
    return counts
