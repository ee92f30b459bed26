"""The answer a record gives: the field a question asks about ("carrier" of a shipment's row),
and whether one row's cell can be what is asked (a total is no one row's part of it)."""

from __future__ import annotations

import re

from ...corpus.asked import asked_head, asked_phrase, label_says
from ...corpus.evidence import normalise, stems
from ...corpus.glossary import glossed
from ...corpus.lookup import another_kind
from ...corpus.naming import says
from ...corpus.records import Layout, Record
from ...corpus.units import consonants_of
from .clauses import WHO
from .persons import names_asked_role

__all__ = ["field_asked", "part_of_total"]

_PROPER = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)*"
                     r"|[A-Z]\.\s*[A-Z][a-z'’-]+")
"""A field value that is a person's or a firm's name ("Sato", "K. Byrne", "Dr Amelia Crane")."""


_ACT_ASKED = re.compile(r"\s*what\s+(?:did|does|do|will|would|should|could|has|have|had)\b",
                        re.IGNORECASE)
"""A question about what someone did or decided: a field is its answer only when its name
says more of the question than one word it happens to share ("weight")."""
_LEAD_PREPOSITION = re.compile(
    r"\s*(until|till|since|from|before|after)\s+(?:what|which|when)\b", re.IGNORECASE)


def field_asked(question: str, record: Record, layout: Layout | None = None
                ) -> tuple[str, str] | None:
    """The field the question asks about, and its value: "carrier" → ("carrier", "CMA CGM").
    A field whose value the question itself names (the entity) is not the answer."""
    said = normalise(question)
    # "What's the mobile of the escalation contact for Fares?": the mobile, though the
    # contact's field shares more words.
    head = asked_head(re.sub(r"^(\s*\w+)['’]s\b", r"\1 is", question))
    asked_words = asked_phrase(question)
    asked = set(stems(question)) | set(asked_words)  # "how old": the age
    phrase = set(asked_words)
    # "nightly rate": the rate, though "Nights" shares a word with it too.
    noun = asked_words[-1] if asked_words else None
    # "Until what date is it valid?": the field saying the question's leading preposition
    # and another of its words ("Valid until"), not the one saying only "date".
    lead = _LEAD_PREPOSITION.match(question)
    best: tuple[tuple[bool, bool, int, bool], str, str] | None = None
    # A summary's bare "TOTAL" column for "their total open balance", when no column of the
    # row names the balance.
    bare_total = "total" in phrase and not any(label_says(question, k) for k in record.fields)
    for key, value in record.fields.items():
        # "ISBN (paperback)" for the hardback's ISBN: another thing of the asked name.
        if not value.strip() or normalise(value) in said or another_kind(question, phrase,
                                                                          key, record):
            continue
        # A label of another language says the English words of its meaning ("Medl.nr").
        key_stems = set(stems(key.replace("_", " ")))
        key_stems |= glossed(stems(key.replace("_", " ")), stems)
        key_stems |= {w for w in asked for k in key_stems if consonants_of(k, w)}  # "HDCP"
        by_lead = bool(lead and lead.group(1).lower() in re.findall(r"[a-z]+", key.lower())
                       and key_stems & asked)
        score = (by_lead, head in key_stems, len(key_stems & asked), noun in key_stems)
        if _ACT_ASKED.match(question) and not asked_words and score[2] < 2:
            continue  # "what did the committee decide about ... estimated-weight catfish"
        # "Room" shares no word with "phone extension"; `MAX_BATCH_SIZE` shares "max" with
        # "max replicas" but is not them.
        totals = bare_total and key_stems == {"total"}
        if score[2] and (by_lead or label_says(question, key) or totals) and (
                best is None or score > best[0]):
            best = (score, key, value)
    if best is None and WHO.match(question):
        # "who is judging ...": a field whose text names someone under that role
        # ("DESCRIPTION: Judge: Celia Marsden ..."), not the one field holding any name.
        labelled = [(k, v) for k, v in record.fields.items() if names_asked_role(question, v)]
        if len(labelled) == 1:
            return labelled[0]
    if best is None and (WHO.match(question) or re.search(r"\bname\b", question, re.I)):
        # "Under what name is booking B-7709?": no field is called "name", but one field
        # holds a name (guest: Sato) and no other does. Not when the document's other
        # records have a field of the asked name this one leaves out (a log's contact with
        # no NAME: its country is no name).
        if layout is not None and not WHO.match(question) and any(
                "name" in stems(key) for r in layout.records if r.doc_id == record.doc_id
                for key in r.fields):
            return None
        named = [(k, v) for k, v in record.fields.items()
                 if _PROPER.fullmatch(v.strip()) and normalise(v) not in said]
        return named[0] if len(named) == 1 else None
    return (best[1], best[2]) if best else None


_TOTAL_ASKED = re.compile(r"\b(?:total|overall|altogether|in\s+all|combined)\b", re.IGNORECASE)


def part_of_total(question: str, key: str, record: Record, layout: Layout | None,
                  named: list[str]) -> bool:
    """A total is asked ("their total open balance") and the entity has other rows of the
    same table: one row's cell is a part of it, not the total (a summary's TOTAL column
    may answer)."""
    if layout is None or not _TOTAL_ASKED.search(question) or "total" in key.lower():
        return False
    rows = [r for r in layout.records if r.doc_id == record.doc_id
            and r.fields.keys() == record.fields.keys()
            and all(says(normalise(r.text), e) for e in named)]
    return len(rows) > 1
