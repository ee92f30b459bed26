"""Counting one kind of record by a condition on another it refers to: "loans taken out by
members on the concession tier" over a loans table and a members table counts the loans
whose `member_no` is that of a member with tier=concession.

The counted noun names its own records by a field of theirs (`loan_id` for "loans"). When
the plan selects records that lack it (members), the two kinds share a field that
identifies the selected ones (`member_no`, one value per member): the count is of the
noun's records holding one of those values.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...corpus.records import Layout, Record
from ...corpus.tally import TallyPlan, select
from ...corpus.word_stems import stems, words
from .dates import key_stems
from .scope import head_unit, noun_phrase

__all__ = ["Join", "joined"]


@dataclass
class Join:
    """The noun's records counted through a shared field of the records the plan selects."""

    noun: str
    key: str
    records: list[Record]
    through: int
    """How many records the plan selected (the ones referred to)."""

    def describe(self, plan: TallyPlan) -> str:
        return (f"{self.noun} records whose {self.key} is that of one of the {self.through} "
                f"records with {plan.describe()}")


def _noun_field(question: str, layout: Layout) -> tuple[str, str] | None:
    """The counted noun and a field only its records have (`loan_id` for "loans")."""
    at = noun_phrase(question, head_unit(question))
    if not at:
        return None
    noun = words(question)[max(at)]
    stem = stems(noun)[0] if stems(noun) else noun
    named = [k for k in layout.fields if stem in key_stems(k)]
    return (noun, named[0]) if len(named) == 1 else None


def joined(question: str, layout: Layout, plan: TallyPlan) -> Join | None:
    """The join the question asks for, or None when the plan selects the noun's own records
    (or there is no field to join on)."""
    if plan.empty or plan.every:
        return None
    found = _noun_field(question, layout)
    if found is None:
        return None
    noun, own = found
    chosen = list(select(layout.records, plan))
    if not chosen or any(own in r.fields for r in chosen):
        return None
    units = [r for r in layout.records if own in r.fields]
    shared = [k for k in chosen[0].fields if all(k in r.fields for r in chosen)
              and any(k in u.fields for u in units)]
    # The field that identifies a record of the chosen kind: one value each, never repeated
    # by another record of that kind (`member_no` of members; not a log line's `host`).
    kind = [r for r in layout.records if own not in r.fields]
    keys = [k for k in shared if _identifies(k, kind)]
    if not keys:
        return None
    key = keys[0]
    values = {r.fields[key] for r in chosen}
    matched = [u for u in units if u.fields.get(key) in values]
    return Join(noun, key, matched, len(chosen))


def _identifies(key: str, records: list[Record]) -> bool:
    values = [r.fields[key] for r in records if key in r.fields]
    return len(values) >= 2 and len(set(values)) == len(values)
