"""The field values a counting question's words are matched against: those of the documents
it names, when they hold a value for every word the whole corpus does ("the October dabba
payments came in as cash": the register's `Mode`, not a curling club's `How`, though the club
writes "Cash" more often)."""

from __future__ import annotations

from collections import Counter

from ...corpus.records import Layout
from ...corpus.value_match import match_values
from ...corpus.word_stems import stems
from .scope import document_words

__all__ = ["fields_of", "scoped_fields"]


def scoped_fields(question: str, layout: Layout, reserved_docs: list[str], free: set[int],
                 said: set[int]) -> dict[str, Counter[str]]:
    """The values of the documents the question names ("in the FS02 export" is
    `reserved_docs`; a title word few records say, "dabba", is found among the `free`
    positions), else every document's; `said`: positions other conditions took."""
    if reserved_docs:
        return fields_of(layout, reserved_docs)
    _, docs = document_words(question, layout, free)
    if not docs:
        return layout.fields
    narrow = fields_of(layout, docs)
    q_stems = stems(question)

    def matched_at(fields: dict[str, Counter[str]]) -> set[int]:
        return {i for m in match_values(q_stems, fields) if not said & set(range(m.start, m.stop))
                for i in range(m.start, m.stop)}

    # ("two cats" in a note's first lines names the note, yet "cats" is the bookings' value.)
    return narrow if matched_at(layout.fields) <= matched_at(narrow) else layout.fields


def fields_of(layout: Layout, docs: list[str]) -> dict[str, Counter[str]]:
    """The values each field takes in the documents `docs`."""
    out: dict[str, Counter[str]] = {}
    chosen = set(docs)
    for record in layout.records:
        if record.doc_id in chosen:
            for key, value in record.fields.items():
                out.setdefault(key, Counter())[value] += 1
    return out
