"""Counting the items a document lists under a heading: "how many different exit statuses
does the man page list" over a page whose EXIT STATUS section holds one item per status.

A heading is a line of its own kind: a troff section (`.SH EXIT STATUS`), a Markdown heading
(`## Exit status`) or a line in capitals. The question names one when every word of the
heading is a word of the noun phrase it counts ("exit statuses"). Its section runs to the
next heading; its items are the tagged paragraphs (`.TP`, `.IP`) or the bullets and numbered
lines in it. One heading only, with at least two items: else there is nothing to count here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.records import Layout
from ...corpus.tally import TallyPlan
from ...corpus.word_stems import stems, words
from .draft import CountDraft, count_draft
from .scope import head_unit, noun_phrase

__all__ = ["ListedCount", "listed_count", "listed_question", "lists_apply"]

_HEADING = re.compile(r"^(?:\.S[HS]\s+\"?(?P<troff>[^\"\n]+)\"?|#{1,6}\s+(?P<md>.+)"
                      r"|(?P<caps>[A-Z][A-Z0-9 /&'-]{2,}[A-Z0-9]))\s*$", re.MULTILINE)
_ITEM = re.compile(r"^(?:\.(?:TP|IP)\b|\s*(?:[-*•]|\d{1,3}[.)])\s+\S)", re.MULTILINE)
_MIN_ITEMS = 2
_PREFIX = 5


@dataclass
class ListedCount:
    """The items under the heading the question names."""

    heading: str
    doc_id: str
    start: int
    end: int
    total: int

    def describe(self) -> str:
        return f"items listed under the heading {self.heading!r}"


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) >= _PREFIX and len(b) >= _PREFIX and a[:_PREFIX] == b[:_PREFIX])


def listed_count(question: str, texts: list[tuple[str, str]], plan: TallyPlan
                 ) -> ListedCount | None:
    """The count of the items under the one heading the counted noun phrase names, in the
    documents the question names (all, when it names none); None when no heading or two
    are named, or the section lists fewer than two items."""
    head = head_unit(question)
    ws = words(question)
    counted = [stems(ws[i])[0] for i in sorted(noun_phrase(question, head))]
    if not counted:
        return None
    found: list[ListedCount] = []
    for doc_id, text in texts:
        if plan.docs and doc_id not in plan.docs:
            continue
        headings = list(_HEADING.finditer(text))
        for i, match in enumerate(headings):
            title = next(g for g in match.groups() if g)
            said = stems(title)
            if not said or not all(any(_same(s, c) for c in counted) for s in said):
                continue
            end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
            total = len(_ITEM.findall(text, match.end(), end))
            if total >= _MIN_ITEMS:
                found.append(ListedCount(title.strip(), doc_id, match.start(), end, total))
    return found[0] if len(found) == 1 else None


def lists_apply(draft: CountDraft) -> bool:
    """A heading's list is what is counted only when the plan names no field condition (a
    value, a date, a comparison): those select records, not a section."""
    plan = draft.plan
    return not (draft.negated or draft.rank_key or draft.aggregate or plan.filters
                or plan.exclude or plan.inside or plan.compare or plan.dated or plan.blank
                or plan.months or plan.absent)


def listed_question(question: str, layout: Layout, texts: list[tuple[str, str]]
                    ) -> ListedCount | None:
    """The list count a counting question's own plan allows."""
    draft = count_draft(question, layout)
    return listed_count(question, texts, draft.plan) if lists_apply(draft) else None
