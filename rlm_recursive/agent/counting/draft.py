"""The count plan a question's words support in a corpus: which field values it names (the
filters), which phrases the records must hold, which documents it names, what it ranks or
aggregates, and the content words no record holds (then each record is judged: classify).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...corpus.dates import has_month
from ...corpus.records import Layout, Record
from ...corpus.tally import FieldFilter, TallyPlan, select
from ...corpus.value_match import match_values
from ...corpus.word_stems import phrase_regex, stems, words
from .dates import blank_fields, date_conditions, inside_fields, key_stems
from .flags import flag_terms
from .labels import labelled_terms
from .linking import linking_verbs_dropped
from .people import acts_by, people_words, person_condition
from .plan_words import (
    Aggregation,
    Stated,
    aggregation,
    collection,
    comparisons,
    negated_scopes,
    negation_words,
    owner_words,
    particles,
    uncompared_comparisons,
    written_negations,
)
from .scope import FRAME_WORDS as _STOP
from .scope import (
    collection_run,
    content_positions,
    document_words,
    file_words_dropped,
    glossed,
    head_unit,
    joint_values,
    noun_phrase,
    unit_phrases_dropped,
    unit_values,
)
from .scoped_fields import scoped_fields
from .terms import (
    acronym_values,
    addressees,
    answer_units,
    code_naming,
    compared_values,
    defined_code,
    judged_words,
    month_words,
    telling_years,
    time_frames,
    year_words,
)

__all__ = ["MIN_ITEMS", "OFTEN", "RANK", "CountDraft", "count_draft", "rank_key"]

RANK = re.compile(r"\b(most|least|fewest)\b(?:\s+(?:frequent(?:ly)?|common(?:ly)?|often|"
                   r"entries|lines|records|rows))?|\b(?:which|what)\b[^?]*\b(?:top|commonest)\b",
                   re.IGNORECASE)
OFTEN = re.compile(r"\b(most|least)\s+(frequent(ly)?|common(ly)?|often)\b|\bfewest\b|"
                    r"\b(most|least)\s+(entries|lines|records|rows|errors|warnings|mentions)\b",
                    re.IGNORECASE)
_TIMES = re.compile(r"\bhow\s+(often|frequently)\b|\btimes\b|\boccurrences?\b",
                    re.IGNORECASE)
_UNITS = frozenset(stems("line lines entry entries record records row rows item items event "
                         "events message messages log logs note notes paragraph paragraphs "
                         "section sections request requests"))
MIN_ITEMS = 5
"""Fewer records than this is not a countable unit: the text states facts, it does not list."""


@dataclass
class CountDraft:
    """What a counting question selects, read from its words against the corpus fields."""

    plan: TallyPlan
    unknown: list[str] = field(default_factory=list)
    """Content words no record holds: the question asks for a judgement (classify)."""
    rank_key: str | None = None
    """The field a "which ... most/least" question ranks."""
    offered: list[str] = field(default_factory=list)
    """The values of `rank_key` the question offers (empty: every value)."""
    negated: bool = False
    """A negation whose clause names nothing the plan can exclude (a judgement)."""
    aggregate: Aggregation | None = None
    """A sum/average over a numeric field instead of a count."""
    uncompared: list[Stated] = field(default_factory=list)
    """Comparisons the question states that no field of the records holds ("under £40 a
    bottle" over a wine list's table): a table's column, or nothing to count by code."""


def _content_runs(question: str, skip: set[int]) -> list[tuple[list[str], list[int]]]:
    """Runs of adjacent content words and their positions, leaving out the `skip` ones."""
    runs: list[tuple[list[str], list[int]]] = []
    for i, word in enumerate(words(question)):
        if i in skip or word in _STOP or len(word) <= 1:
            continue
        if runs and runs[-1][1][-1] == i - 1:
            runs[-1][0].append(word)
            runs[-1][1].append(i)
        else:
            runs.append(([word], [i]))
    return runs


def count_draft(question: str, layout: Layout) -> CountDraft:
    """The count plan a question's words support in this corpus.

    Values named inside a negation's clause ("not in service", "other than Leeds") are
    excluded, not required; "no <field>" asks for records whose field says none. An
    aggregate ("the total monthly rent") names its numeric field, which is not a filter.
    The collection the question names ("in the mail log") selects documents."""
    q_stems = stems(question)
    named_keys = _key_phrases(q_stems, layout)
    # "not opened by alice": "opened by" names the field opened_by, not the value "open".
    compared = comparisons(question, layout)
    # "over 80%": the number is compared with, not a value of, its field.
    said = named_keys.union(*(at for _, at in compared))
    # A comparison no field takes is still a condition: never a word to drop or match.
    uncompared, stated_at = uncompared_comparisons(question, said)
    said |= stated_at
    # "fix version 4.8.0": the value of the label the words spell, not "fix" in "Fixed".
    labelled, labelled_at = labelled_terms(question, layout)
    flagged, flagged_at = flag_terms(question, layout)  # "has a QSL been sent": QSL_SENT=Y
    said |= labelled_at | flagged_at
    # "posts that tell residents that ...": whom they tell is no field (RESIDENT) to match.
    said |= addressees(question) | time_frames(question) | answer_units(question)
    # "before 2012", "after the due date", "haven't come back yet": conditions on a date
    # or an empty field, not values to match.
    blank, blank_at = blank_fields(question, layout)
    if flagged_clear := {f.field for f in flagged}:  # "hadn't paid": Paid=no, not a blank
        blank_at = set() if set(blank) & flagged_clear else blank_at
        blank = [k for k in blank if k not in flagged_clear]
    dated, dated_at = date_conditions(question, layout, blank_at)
    said |= dated_at | blank_at
    years, year_at = year_words(question, layout.records, said)  # "seen in 2026"
    said |= year_at
    inside, inside_at = inside_fields(question, layout, said, _STOP)
    said |= inside_at
    # "tagged as work in progress" over "@wip" tags: the initials, inside the tag field.
    initialed, initialed_at = acronym_values(question, layout, said, _STOP)
    inside += initialed
    said |= initialed_at
    content = content_positions(question)
    # "in the FS02 export": the collection, before "export" is read as some field's value.
    reserved, reserved_docs = collection_run(question, layout, content - said)
    said |= reserved
    # "the total 'changed' over the recap": the summed field's name, not a value to match.
    agg = aggregation(question, layout)
    summed = agg.words if agg is not None else set()
    # A value is named in the documents the question names: "activities" in the hall
    # calendar is not a crontab's state "active"; "cash" of "the October dabba payments" is
    # the register's Mode, not the curling club's How.
    fields = scoped_fields(question, layout, reserved_docs, content - said, said | summed)
    matches = [m for m in match_values(q_stems, fields)
               if not (said | summed) & set(range(m.start, m.stop))]
    # "how many security fixes": "fixes" is what is counted, not a second section (Fixed).
    scopes = negated_scopes(question)
    negated_at = set().union(*scopes) if scopes else set()
    matches = joint_values(question, [m for m in matches
                                      if m not in unit_values(question, matches, negated_at)])
    coded, gloss = glossed(question, matches, fields)
    said |= gloss
    filters = list(dict.fromkeys([*coded, *flagged, *(FieldFilter(field=m.field, value=m.value)
                                            for m in matches if m.start not in negated_at)]))
    # "no seed time (NT)": the negation is the everyday name of the code the records write
    # for it (NT), not a condition against it.
    code_fields = {f.field for f in coded}
    exclude = list(dict.fromkeys(FieldFilter(field=m.field, value=m.value) for m in matches
                                 if m.start in negated_at and m.field not in code_fields))
    skip = {i for m in matches for i in range(m.start, m.stop)} | negation_words(question)
    keys = {s for key in layout.fields for s in key_stems(key)}
    absent = [key for key in layout.fields if stems(key) and any(
        set(stems(key)) <= {q_stems[i] for i in scope} for scope in scopes)
        and not any(m.field == key for m in matches)]
    units = _UNITS | set(stems(layout.unit))
    skip |= {i for i, s in enumerate(q_stems) if s in keys or s in units}
    if agg is not None:
        skip |= agg.words
    skip |= said
    within, docs = collection(question, layout)
    people_at = people_words(question, layout)
    if within & (inside_at | dated_at | people_at | year_at):
        # "born in Ellerby": the place a field holds, not a document about Ellerby.
        within, docs = set(), []
    taken = {i for m in matches for i in range(m.start, m.stop)}
    # The collection as a whole ("did the library catalogue send back"): no filter.
    skip |= within | (owner_words(question) - taken) | particles(question)
    # "the support tickets" over a ticket export: the documents, not what their records say.
    titled, named_docs = document_words(question, layout, content - skip - taken
                                        - people_at)
    skip |= titled
    docs = docs or reserved_docs or named_docs
    head = head_unit(question, skip) if agg is None else _unit_after(question, agg, skip)
    if head is not None and (filters or exclude or absent or agg is not None or compared
                             or dated or blank or inside or labelled):
        # "how many tickets are in billing", "how many hall bookings are tentative": the
        # noun phrase is the unit counted.
        skip |= {head} | (noun_phrase(question, head) - taken)
    absent = [k for k in absent if k not in blank]
    if code_fields:  # the words naming the code ("seed time") name no field that says none
        naming = code_naming(question)
        blank = [k for k in blank if k not in code_fields]
        absent = [k for k in absent if k not in code_fields and not set(stems(k)) <= naming]
    draft = CountDraft(TallyPlan(filters=filters, exclude=exclude, absent=absent, docs=docs,
                                 compare=[c for c, _ in compared], dated=dated, blank=blank,
                                 inside=inside, labelled=labelled),
                       aggregate=agg, uncompared=uncompared)
    rank = OFTEN.search(question) or (RANK.search(question) and re.search(
        r"\b(which|what)\b", question, re.IGNORECASE))
    if rank and agg is None:
        draft.rank_key = rank_key(question, layout, matches)
        if draft.rank_key is not None:
            draft.offered = [m.value for m in matches if m.field == draft.rank_key]
            draft.plan.filters = [f for f in filters if f.field != draft.rank_key]
    corpus = _corpus_sample(layout)
    resolved = {i for scope in scopes for i in scope if i in skip} | blank_at
    scope = [r for r in layout.records if not docs or r.doc_id in docs]
    draft.plan.years = telling_years(years, scope)
    draft.plan.months, dated = month_words(question, scope, skip,
                                           [layout.titles.get(d, "") for d in docs])
    skip |= dated
    # "comments that complain about the cafe": whether each one complains is judged.
    judged = judged_words(question, taken)
    # "below his target grade": two values of a record weighed, not a word to find.
    judged = sorted(set(judged) | set(compared_values(question, said)))
    draft.unknown.extend(words(question)[i] for i in judged)
    skip |= set(judged)
    acted: set[int | None] = set()
    said_beside: dict[int, list[str]] = {}
    """For each word no record says, the words of its run the records do say."""
    for run, at in _content_runs(question, skip):
        phrase = " ".join(run)
        negative = bool(set(at) & negated_at)
        target = draft.plan.exclude_phrases if negative else draft.plan.phrases
        person = None if negative else person_condition(phrase, layout, scope)
        code = None if negative or person is not None else defined_code(phrase, scope)
        if person == "":
            # "the apprentice" only in the staff note: who they are is not resolved.
            draft.unknown.extend(run)
        elif person is not None:
            # "tests done by Ruth" over a tester column of initials: her initials there.
            condition, declaring = person
            if isinstance(condition, FieldFilter):
                draft.plan.filters.append(condition)
            else:
                target.append(condition)
            draft.plan.exclude_phrases.extend(declaring)
            resolved |= set(at)
            acted.add(acts_by(question, at))
        elif code is not None:
            # "direct debits" over rows that say "DD": the code, not its key's line.
            target.append(code)
            draft.plan.exclude_phrases.append(phrase)
            resolved |= set(at)
        elif phrase_regex(phrase).search(corpus):
            target.append(phrase)
            resolved |= set(at)
        else:
            found = [w for w in run if phrase_regex(w).search(corpus)]
            if len(found) == len(run):
                target.extend(found)
                resolved |= set(at)
            else:
                draft.unknown.extend(w for w in run if w not in found)
                said_beside.update({i: found for i, w in zip(at, run, strict=True)
                                    if w not in found})
    for i in acted - {None}:
        # "checked by Owen": the verb is what his handle on the record says he did.
        draft.unknown = [w for w in draft.unknown if w != words(question)[i]]
        draft.plan.phrases = [p for p in draft.plan.phrases if p != words(question)[i]]
    draft.plan.phrases = [p for p in draft.plan.phrases if not _everywhere(p, layout)]
    unit_at = noun_phrase(question, head)
    unit_words = [words(question)[i] for i in sorted(unit_at)]
    draft.plan.phrases = unit_phrases_dropped(draft.plan, unit_words, layout.records)
    draft.plan.phrases, draft.unknown = file_words_dropped(draft.plan, draft.unknown, layout)
    # "ended with status=bounced": the field's name and its value are the condition.
    named_fields = {i for i, s in enumerate(q_stems) if s in keys}
    draft.plan.phrases = linking_verbs_dropped(
        draft.plan, question, layout, taken | said | named_fields,
        set().union(*(at for _, at in compared), stated_at))
    noun = words(question)[max(unit_at)] if unit_at else None
    if noun in draft.unknown and unit_at.isdisjoint(judged) and not draft.plan.empty and any(
            True for _ in select(layout.records, draft.plan)):
        # "how many appointments are in the Gym" over events that never say "appointment":
        # the noun names what is counted; its modifiers ("urgent tickets") stay conditions.
        draft.unknown.remove(noun)
        # Its modifiers the records say ("the billing chores") stay conditions.
        draft.plan.phrases += said_beside.get(max(unit_at), [])
    if docs is named_docs and docs and not draft.plan.empty:
        # Words that merely occur in a title ("result" in "Results & Tables") are a loose
        # scope: when the records they name hold nothing the rest of the question asks for
        # and other documents do, they named the wrong document.
        draft.plan.docs = _loose_scope(draft.plan, layout)
    # A negation whose clause named nothing the plan could exclude is a judgement; so is
    # one the records write themselves ("had no objection" over consultees' "No objection"):
    # it is what an item says, not a word to exclude, and excluding it counted the rest.
    draft.negated = any(not (scope & resolved) and not any(
        set(stems(k)) <= {q_stems[i] for i in scope} for k in absent) for scope in scopes
    ) or any(phrase_regex(said).search(corpus) for said, at in written_negations(question)
             if not at & taken)  # "no-shows" matched as a value is that value
    draft.plan.months = _item_months(draft.plan, layout)
    draft.plan.occurrences = bool(_TIMES.search(question)) and not filters
    draft.plan.every = draft.plan.empty and not draft.unknown
    return draft


def _item_months(plan: TallyPlan, layout: Layout) -> list[int]:
    """The plan's months that date items: "hearings listed for 17 Nov" over a cause list
    whose opening says the day names the list's date, not a date each hearing writes."""
    rest = plan.model_copy(update={"months": []})
    if not plan.months or rest.empty:
        return plan.months
    docs = {r.doc_id for r in select(layout.records, rest)}
    return [m for m in plan.months if not docs or any(
        has_month(r.text, m) and not _opening(r, layout)
        for r in layout.records if r.doc_id in docs)]


def _opening(record: Record, layout: Layout) -> bool:
    first = record.text.split("\n", 1)[0].strip()[:200]
    return bool(first) and first in layout.titles.get(record.doc_id, "")


def _loose_scope(plan: TallyPlan, layout: Layout) -> list[str]:
    if any(True for _ in select(layout.records, plan)):
        return plan.docs
    anywhere = plan.model_copy(update={"docs": []})
    return [] if any(True for _ in select(layout.records, anywhere)) else plan.docs


def _key_phrases(q_stems: tuple[str, ...], layout: Layout) -> set[int]:
    """Positions where the question spells out a field name of two or more words."""
    out: set[int] = set()
    for key in layout.fields:
        seq = stems(key)
        if len(seq) < 2:
            continue
        for i in range(len(q_stems) - len(seq) + 1):
            if q_stems[i:i + len(seq)] == seq:
                out |= set(range(i, i + len(seq)))
    return out


def _unit_after(question: str, agg: Aggregation, taken: set[int]) -> int | None:
    """The noun an aggregate runs over: the first free word after the quantity's
    preposition ("the total cost of | incidents in chemistry", "of the Maersk | shipments")."""
    ws = words(question)
    j = max(agg.words) + 1
    while j < len(ws) and (ws[j] in _STOP or j in taken):
        j += 1
    # A noun phrase's head is its last word: "of all the Primula | accessions".
    while j + 1 < len(ws) and ws[j + 1] not in _STOP:
        j += 1
    return j if j < len(ws) else None


def rank_key(question: str, layout: Layout, matches: list) -> str | None:
    """The field ranked: the one whose values the question offers, else the one it names."""
    by_field: dict[str, int] = {}
    for m in matches:
        by_field[m.field] = by_field.get(m.field, 0) + 1
    offered = [k for k, n in by_field.items() if n >= 2]
    if offered:
        return offered[0]
    q = set(stems(question))
    named = [k for k in layout.fields if set(stems(k)) and set(stems(k)) <= q
             and 1 < len(layout.fields[k]) <= 1000]
    return named[0] if named else None


def _corpus_sample(layout: Layout) -> str:
    return "\n".join(r.text for r in layout.records)


def _everywhere(phrase: str, layout: Layout) -> bool:
    """A phrase on (almost) every record selects nothing ("ticket" in `ticket=T-1 ...`)."""
    if len(layout.records) < MIN_ITEMS:
        return False
    pattern = phrase_regex(phrase)
    step = max(len(layout.records) // 200, 1)
    sample = layout.records[::step]
    return sum(bool(pattern.search(r.text)) for r in sample) >= 0.9 * len(sample)
