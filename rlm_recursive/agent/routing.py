"""Routing by the question's structure, checked against the corpus, not by keywords.

A question counts only when it asks how many of something there are ("how many", "the number
of errors", "count the ...", "which ... most often"), not when "number" or "total" names a
value ("the account number of Acme", "the total on invoice 7", "the sum insured"). Then the
corpus decides: the counted words name field values or phrases the records hold → count; they
name something no record says literally → classify (the model judges each record); the text
states the number ("the ward has 24 beds") → search. Iterative needs a bridge: a relative
clause or participle on an entity the question does not name ("the office that runs X").
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..corpus.records import Layout, read_layout
from ..corpus.tally import FieldFilter, TallyPlan, match_values, phrase_regex, stems, words
from .count_scope import FRAME_WORDS as _STOP
from .count_scope import (
    collection_run,
    content_positions,
    document_words,
    head_unit,
    joint_values,
    unit_values,
)
from .plan_words import (
    BRIDGE_VERB,
    Aggregation,
    aggregation,
    collection,
    comparisons,
    negated_scopes,
    negation_words,
    owner_words,
    particles,
)

if TYPE_CHECKING:
    from .context import RunContext

__all__ = ["CountDraft", "Route", "asks_to_aggregate", "asks_to_count", "count_draft",
           "has_bridge", "route", "session_layout"]

Route = Literal["count", "classify", "iterative", "search", "map-reduce"]

_COUNT = re.compile(
    r"\bhow\s+(many|often|frequently)\b"
    r"|(?:^|\b(?:the|a|total|overall|exact|whats|what's|is|me|us|give|report|find|get)\s+)"
    r"(?:total\s+|overall\s+|exact\s+)?(?:number|count|tally|amount)\s+of\s+"
    r"(?!(?:the|this|that|its|his|her|their|our|my|your|account|policy|invoice)\b|\w+'s\b)"
    r"|^\s*(?:please\s+|now\s+)?(?:count|tally|enumerate)\b"
    r"|\b(?:can|could|would)\s+you\s+(?:please\s+)?(?:count|tally)\b"
    r"|\bnumber\s+of\s+times\b|\bhow\s+much\s+of\s+the\s+\w+\s+(?:is|are)\b", re.IGNORECASE)
_RANK = re.compile(r"\b(most|least|fewest)\b(?:\s+(?:frequent(?:ly)?|common(?:ly)?|often|"
                   r"entries|lines|records|rows))?|\b(?:which|what)\b[^?]*\b(?:top|commonest)\b",
                   re.IGNORECASE)
_OFTEN = re.compile(r"\b(most|least)\s+(frequent(ly)?|common(ly)?|often)\b|\bfewest\b|"
                    r"\b(most|least)\s+(entries|lines|records|rows|errors|warnings|mentions)\b",
                    re.IGNORECASE)
_TIMES = re.compile(r"\bhow\s+(often|frequently)\b|\btimes\b|\boccurrences?\b",
                    re.IGNORECASE)
_MEASURE = re.compile(
    r"\bhow\s+many\s+(?:cubic\s+|square\s+)?(?:metres|meters|litres|liters|kilograms|kilos|"
    r"kg|grams|tonnes|tons|miles|kilometres|kilometers|km|pounds|dollars|euros|calories|"
    r"kilowatts?|kwh|watts|volts|degrees|milligrams|millilitres|milliliters|mg|ml|m3|m2)\b",
    re.IGNORECASE)
""""How many cubic metres ...": an amount the text states, not records to count."""
_SUMMARY = re.compile(
    r"\bsummari[sz](e|ing)\b|\b(give|write|provide|produce|need|want)\b[^?.]{0,20}"
    r"\b(summary|overview|recap|synopsis|digest)\b|\btl;?dr\b|\bgist\b|\bin a nutshell\b"
    r"|\b(main|key|central|major|overall)\s+(themes?|points?|topics?|ideas?|findings|takeaways|"
    r"messages?|arguments?)\b|\bwhat\s+(is|are)\s+(this|these|the)\s+(documents?|reports?|"
    r"files?|texts?|notes?)\s+(mostly\s+|mainly\s+|all\s+)?about\b|\brecap\b|\boverview of\b",
    re.IGNORECASE)
_RELATIVE = re.compile(r"\b(the|a|an)\s+((?:(?!(?:the|a|an|of)\b)[\w-]+\s+){0,2}[\w-]+)\s+"
                       r"(that|which|who|whose|where)\b", re.IGNORECASE)
_PARTICIPLE = re.compile(
    rf"\bthe\s+(?:[\w-]+\s+){{0,2}}?[\w-]+\s+(?:{BRIDGE_VERB}|behind\s|that's\s|which's\s)",
    re.IGNORECASE)
_AUXILIARY = re.compile(r"\b(is|are|was|were|been|be)\s*$", re.IGNORECASE)
_OPENING = re.compile(r"^\s*(?:(?:what|which|who|whom|where|when|how)(?:'s|\s+is|\s+was|"
                      r"\s+are|\s+were|\s+does|\s+did|\s+do)?|tell\s+me|give\s+me|find|name|"
                      r"state|list|identify)\s+", re.IGNORECASE)
_NUMBER = (r"(?:(?<![\w.])\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|"
           r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|a\s+dozen|dozens\s+of)")
_UNITS = frozenset(stems("line lines entry entries record records row rows item items event "
                         "events message messages log logs note notes paragraph paragraphs "
                         "section sections request requests"))
_MIN_ITEMS = 5
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


_AGGREGATE = re.compile(
    r"\b(average|mean|median|percent(age)?|proportion|distinct|unique|frequency)\b"
    r"|\bper\s+(day|hour|week|month|service|user|file|document|host|category)\b"
    r"|\b(list|enumerate|name)\s+(all|every|each)\b|\bpairs?\s+of\b|\ball\s+pairs\b"
    r"|\b(sum|total)\s+of\s+(all|every|the)\s+\w+s\b|\bmost\s+(common|frequent)\b",
    re.IGNORECASE)


def asks_to_aggregate(question: str) -> bool:
    """Counting, or another computation over many records (an average, a list of all, a
    total of all ...), which code does exactly; not "the total on invoice 7"."""
    return asks_to_count(question) or bool(_AGGREGATE.search(question))


def asks_to_count(question: str) -> bool:
    """Does the question ask how many of something there are (or which is most frequent)?"""
    return bool(_COUNT.search(question) or _OFTEN.search(question))


def has_bridge(question: str) -> bool:
    """A relative clause or participle on an entity other than the one asked about."""
    body = question.split("?")[0]
    head = _OPENING.match(body)
    target_end = head.end() if head else 0
    for m in _RELATIVE.finditer(body):
        # "What is the code that opens the vault?": the clause describes the asked value
        # itself, one look-up. A clause further on bridges to another entity.
        if m.start() > target_end + 1 or not head:
            return True
    # "is the heparin infusion running for bed 4A": the question's own verb, not a bridge.
    return any(not _AUXILIARY.search(body[:m.start()]) for m in _PARTICIPLE.finditer(body))


def _content_runs(question: str, skip: set[int]) -> list[tuple[list[str], list[int]]]:
    """Runs of adjacent content words and their positions, leaving out the `skip` ones."""
    runs: list[tuple[list[str], list[int]]] = []
    current: list[str] = []
    at: list[int] = []
    for i, word in enumerate(words(question)):
        keep = i not in skip and word not in _STOP and len(word) > 1
        if keep:
            current.append(word)
            at.append(i)
        elif current:
            runs.append((current, at))
            current, at = [], []
    if current:
        runs.append((current, at))
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
    content = content_positions(question)
    # "in the FS02 export": the collection, before "export" is read as some field's value.
    reserved, reserved_docs = collection_run(question, layout, content - said)
    said |= reserved
    matches = [m for m in match_values(q_stems, layout.fields)
               if not said & set(range(m.start, m.stop))]
    # "how many security fixes": "fixes" is what is counted, not a second section (Fixed).
    scopes = negated_scopes(question)
    negated_at = set().union(*scopes) if scopes else set()
    matches = joint_values(question, [m for m in matches
                                      if m not in unit_values(question, matches, negated_at)])
    filters = list(dict.fromkeys(FieldFilter(field=m.field, value=m.value) for m in matches
                                 if m.start not in negated_at))
    exclude = list(dict.fromkeys(FieldFilter(field=m.field, value=m.value) for m in matches
                                 if m.start in negated_at))
    skip = {i for m in matches for i in range(m.start, m.stop)} | negation_words(question)
    keys = {s for key in layout.fields for s in stems(key)}
    absent = [key for key in layout.fields if stems(key) and any(
        set(stems(key)) <= {q_stems[i] for i in scope} for scope in scopes)
        and not any(m.field == key for m in matches)]
    units = _UNITS | set(stems(layout.unit))
    skip |= {i for i, s in enumerate(q_stems) if s in keys or s in units}
    agg = aggregation(question, layout)
    if agg is not None:
        skip |= agg.words
    skip |= said
    within, docs = collection(question, layout)
    taken = {i for m in matches for i in range(m.start, m.stop)}
    # The collection as a whole ("did the library catalogue send back"): no filter.
    skip |= within | (owner_words(question) - taken) | particles(question)
    # "the support tickets" over a ticket export: the documents, not what their records say.
    titled, named_docs = document_words(question, layout, content - skip - taken)
    skip |= titled
    docs = docs or reserved_docs or named_docs
    head = head_unit(question, skip) if agg is None else _unit_after(question, agg, skip)
    if head is not None and (filters or exclude or absent or agg is not None or compared):
        skip.add(head)  # "how many tickets are in billing": tickets are the unit counted
    draft = CountDraft(TallyPlan(filters=filters, exclude=exclude, absent=absent, docs=docs,
                                 compare=[c for c, _ in compared]), aggregate=agg)
    rank = _OFTEN.search(question) or (_RANK.search(question) and re.search(
        r"\b(which|what)\b", question, re.IGNORECASE))
    if rank and agg is None:
        draft.rank_key = _rank_key(question, layout, matches)
        if draft.rank_key is not None:
            draft.offered = [m.value for m in matches if m.field == draft.rank_key]
            draft.plan.filters = [f for f in filters if f.field != draft.rank_key]
    corpus = _corpus_sample(layout)
    resolved = {i for scope in scopes for i in scope if i in skip}
    for run, at in _content_runs(question, skip):
        phrase = " ".join(run)
        negative = bool(set(at) & negated_at)
        target = draft.plan.exclude_phrases if negative else draft.plan.phrases
        if phrase_regex(phrase).search(corpus):
            target.append(phrase)
            resolved |= set(at)
        else:
            found = [w for w in run if phrase_regex(w).search(corpus)]
            if len(found) == len(run):
                target.extend(found)
                resolved |= set(at)
            else:
                draft.unknown.extend(w for w in run if w not in found)
    draft.plan.phrases = [p for p in draft.plan.phrases if not _everywhere(p, layout)]
    # A negation whose clause named nothing the plan could exclude is a judgement.
    draft.negated = any(not (scope & resolved) and not any(
        set(stems(k)) <= {q_stems[i] for i in scope} for k in absent) for scope in scopes)
    draft.plan.occurrences = bool(_TIMES.search(question)) and not filters
    draft.plan.every = draft.plan.empty and not draft.unknown
    return draft


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


def _rank_key(question: str, layout: Layout, matches: list) -> str | None:
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


def _ranks_a_field(question: str, layout: Layout) -> bool:
    """"Which ward has the most patients?" over records with a Ward field."""
    if not (_RANK.search(question) and re.match(r"\s*(which|what)\b", question, re.IGNORECASE)):
        return False
    return _rank_key(question, layout, []) is not None


def _corpus_sample(layout: Layout) -> str:
    return "\n".join(r.text for r in layout.records)


def _everywhere(phrase: str, layout: Layout) -> bool:
    """A phrase on (almost) every record selects nothing ("ticket" in `ticket=T-1 ...`)."""
    if len(layout.records) < _MIN_ITEMS:
        return False
    pattern = phrase_regex(phrase)
    step = max(len(layout.records) // 200, 1)
    sample = layout.records[::step]
    return sum(bool(pattern.search(r.text)) for r in sample) >= 0.9 * len(sample)


def _states_number(question: str, layout: Layout) -> bool:
    """The text states the count itself ("the Oak ward has 24 beds"): a look-up."""
    head = head_unit(question)
    ws = words(question)
    if head is None or head >= len(ws) or ws[head] in _STOP:
        return False
    # The counted noun may end a longer phrase: "how many flu vaccine doses" → doses (a
    # plural in the run of words after "how many"; "requests took" ends at a verb).
    run = []
    for w in ws[head:head + 3]:
        if w in _STOP:
            break
        run.append(w)
    nouns = run[:1] + [w for w in run[1:] if w.endswith("s")]
    for noun in nouns:
        stem = re.escape(stems(noun)[0])
        stated = re.compile(rf"\b{_NUMBER}\s+(?:[\w-]+\s+){{0,2}}?{stem}\w{{0,3}}\b",
                            re.IGNORECASE)
        if any(stated.search(r.text) for r in layout.records):
            return True
    return False


def route(question: str, layout: Layout | None) -> tuple[Route, str]:
    """The runtime strategy for a question, and why (layout None: from the wording alone)."""
    # A sum or average of a numeric field the records hold: computed by code, however few.
    if layout is not None and aggregation(question, layout):
        draft = count_draft(question, layout)
        if draft.aggregate and not (draft.unknown or draft.negated):
            return "count", (f"the {draft.aggregate.op} of {draft.aggregate.key} over "
                             f"{draft.plan.describe()}: computed by code")
    if asks_to_count(question):
        if _MEASURE.search(question):
            return "search", "a quantity in units of measure is stated, not counted: a look-up"
        if layout is None:
            return "count", "the question asks how many"
        draft = count_draft(question, layout)
        countable = len(layout.records) >= _MIN_ITEMS
        if draft.negated and countable:
            return "classify", "a negated condition: each record is judged"
        if draft.unknown and countable and not (draft.rank_key or _states_number(question,
                                                                                 layout)):
            narrowed = f" among {draft.plan.describe()}" if draft.plan.filters else ""
            return "classify", (f"no record says {' '.join(draft.unknown)!r} literally: "
                                f"each record{narrowed} is judged")
        if (draft.plan.filters or draft.plan.exclude or draft.plan.absent or draft.rank_key
                or draft.plan.compare or (draft.plan.exclude_phrases and not draft.unknown)):
            return "count", f"the question names field values ({draft.plan.describe()})"
        if _states_number(question, layout):
            return "search", "the text states the number: a look-up"
        if draft.plan.phrases and not draft.unknown:
            return "count", f"the question names a phrase the text holds ({draft.plan.describe()})"
        if draft.plan.every and countable:
            return "count", f"every {layout.unit} is counted"
        return "search", "nothing countable in the corpus: a look-up"
    if layout is not None and _ranks_a_field(question, layout):
        return "count", "the question ranks the values of a field"
    if _SUMMARY.search(question):
        return "map-reduce", "the question asks for a summary"
    if has_bridge(question):
        return "iterative", "a bridge: the answer depends on another fact found first"
    return "search", "a single look-up"


_LAYOUTS: OrderedDict[tuple[tuple[str, str], ...], Layout] = OrderedDict()


async def session_layout(rc: RunContext) -> tuple[Layout, list[tuple[str, str]]]:
    """The session's records and fields (parsed once per set of documents), and its texts."""
    documents = await asyncio.to_thread(rc.store.documents, rc.session_id)
    key = tuple((d.id, d.content_hash) for d in documents)
    # The whole corpus, read from disk: off the event loop.
    texts = await asyncio.to_thread(lambda: [(d.id, rc.store.text(d)) for d in documents])
    layout = _LAYOUTS.get(key)
    if layout is None:
        names = {d.id: (d.source or "").replace("\\", "/").rsplit("/", 1)[-1]
                 for d in documents}
        layout = await asyncio.to_thread(read_layout, texts, names)
        _LAYOUTS[key] = layout
        while len(_LAYOUTS) > 4:
            _LAYOUTS.popitem(last=False)
    return layout, texts
