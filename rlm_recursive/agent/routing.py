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
import itertools
import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Literal

from ..corpus.dates import MONTHS
from ..corpus.records import Layout, Record, read_layout
from ..corpus.tally import select
from ..corpus.word_stems import stems, words
from .answers.measures import asks_capacity
from .counting.draft import MIN_ITEMS, OFTEN, RANK, CountDraft, count_draft, rank_key
from .counting.plan_words import BRIDGE_VERB, EVENT_TIME, aggregation
from .counting.scope import FRAME_WORDS as _STOP
from .counting.scope import content_positions, head_unit, noun_phrase
from .counting.table_rows import compared_rows, summed_rows

if TYPE_CHECKING:
    from .context import RunContext

__all__ = ["CountDraft", "Route", "asks_for_summary", "asks_to_aggregate", "asks_to_count",
           "count_draft", "has_bridge", "route", "session_layout"]

Route = Literal["count", "classify", "iterative", "search", "map-reduce"]

_COUNT = re.compile(
    r"\bhow\s+(many|often|frequently)\b"
    r"|(?:^|\b(?:the|a|total|overall|exact|whats|what's|is|me|us|give|report|find|get)\s+)"
    r"(?:total\s+|overall\s+|exact\s+)?(?:number|count|tally|amount)\s+of\s+"
    r"(?!(?:the|this|that|its|his|her|their|our|my|your|account|policy|invoice)\b|\w+'s\b)"
    r"|^\s*(?:please\s+|now\s+)?(?:count|tally|enumerate)\b"
    r"|\b(?:can|could|would)\s+you\s+(?:please\s+)?(?:count|tally)\b"
    r"|\bnumber\s+of\s+times\b|\bhow\s+much\s+of\s+the\s+\w+\s+(?:is|are)\b", re.IGNORECASE)
_MEASURE = re.compile(
    r"\bhow\s+many\s+(?:cubic\s+|square\s+)?(?:metres|meters|litres|liters|kilograms|kilos|"
    r"kg|grams|tonnes|tons|miles|kilometres|kilometers|km|pounds|dollars|euros|calories|"
    r"kilowatts?|kwh|watts|volts|degrees|milligrams|millilitres|milliliters|mg|ml|m3|m2)\b"
    r"|\bhow\s+many\s+(?:[\w-]+\s+)?(?:hours|minutes|seconds)\b",
    re.IGNORECASE)
""""How many cubic metres ...", "how many element hours ...": an amount the text states (a
quantity or a duration), not records to count."""
_SETTING = re.compile(
    r"\bby\s+default\b|\b(?:is|are)\s+(?:the|its|their)\s+default\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:is|are)\s+(?:the|its|their|your|my)\s+"
    r"(?:[\w-]+\s+)?(?:limit|maximum|max|minimum|min|cap|quota|allowance|ceiling|threshold)\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:is|are)\s+(?:allowed|permitted)\b"
    r"|\b(?:up\s+to|at\s+most|at\s+least)\s+how\s+many\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:can|may|could|must|should)\s+"
    r"(?!(?:not|never|no|n['’]t)\b)(?:[\w'’-]+\s+){0,6}?(?:before|until|without|at\s+(?:once|a\s+time)|"
    r"in\s+(?:one|a|each|any)\s+\w+)\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:can|may)\s+(?:I|we|you|one|it|they)\s+"
    # An allowance of one thing: "how many requests a minute is a production key allowed",
    # "how many users does the plan permit", "how many retries does a failed call get".
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:is|are)\s+(?:a|an|each|every|one|any|"
    r"the|your|my|our|their)\s+(?:[\w-]+\s+){0,3}?(?:allowed|permitted|entitled|granted)\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:does|do)\s+"
    r"(?:(?!not\b)[\w-]+\s+){1,4}?(?:allow|permit)\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,4}?(?:does|do|will)\s+(?:a|an|each|every|one|any|"
    r"a\s+single)\s+(?:[\w-]+\s+){1,3}?(?:get|receive|have|keep|retain)\b"
    # A configured value: "how many cycles is read 1 set to", "... configured for".
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){1,2}?(?:is|are)\s+(?:[\w-]+\s+){1,4}?"
    r"(?:set|configured)\s+(?:to|for|at)\b",
    re.IGNORECASE)
"""A setting or a limit the text states, asked as "how many": "how many snapshots does it
keep by default", "how many days can the house stand empty before cover stops", "how many
seats is the limit", "how many bags may I take", "how many retries does a failed delivery
get", "how many cycles is read 1 set to": one stated number, not items to count
("how many requests hit the limit", "how many of the rooms can be booked" still count)."""
_SUMMARY = re.compile(
    r"\bsummari[sz](e|ing)\b|\b(give|write|provide|produce|need|want)\b[^?.]{0,20}"
    r"\b(summary|overview|recap|synopsis|digest)\b|\btl;?dr\b|\bgist\b|\bin a nutshell\b"
    r"|\b(main|key|central|major|overall)\s+(themes?|points?|topics?|ideas?|findings|takeaways|"
    r"messages?|arguments?)\b|\bwhat\s+(is|are)\s+(this|these|the)\s+(documents?|reports?|"
    r"files?|texts?|notes?)\s+(mostly\s+|mainly\s+|all\s+)?about\b"
    r"|^\W*(?:(?:a|quick|short|brief)\s+)*recap\b|\boverview of\b",
    re.IGNORECASE)
"""A summary asked: "summarise", "give me an overview", "recap the week". Not "what does the
recap show for web-01": a report's section called its recap is no request for one."""


def asks_for_summary(question: str) -> bool:
    """Does the question ask for a summary (`_SUMMARY`), not one fact?"""
    return _SUMMARY.search(question) is not None

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
    return bool(_COUNT.search(question) or OFTEN.search(question))


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
    if EVENT_TIME.search(body):  # "on the day the beach had to be closed"
        return True
    # "is the heparin infusion running for bed 4A": the question's own verb, not a bridge.
    return any(not _AUXILIARY.search(body[:m.start()]) for m in _PARTICIPLE.finditer(body))


def _ranks_a_field(question: str, layout: Layout) -> bool:
    """"Which ward has the most patients?" over records with a Ward field."""
    if not (RANK.search(question) and re.match(r"\s*(which|what)\b", question, re.IGNORECASE)):
        return False
    return rank_key(question, layout, []) is not None


_YEAR = r"(?:1[89]|2[01])\d\d\b"
_MONTH_AFTER = rf"[ \t]+(?:{'|'.join(sorted(MONTHS, key=len, reverse=True))})\b"
_MONTHS = {s for name in MONTHS for s in stems(name)}


def _one_record_states(question: str, chosen: list[Record]) -> bool:
    """"How many votes did Lorna Hepworth get?" over a count sheet's row for her: the one
    record the question's names select gives figures in fields, and neither its fields nor
    its text say the counted noun: the figure is looked up, not the record counted."""
    head = head_unit(question)
    if len(chosen) != 1 or head is None or head >= len(words(question)):
        return False
    record = chosen[0]
    noun = stems(words(question)[head])
    figures = [v for v in record.fields.values() if re.fullmatch(r"[\d.,]+", v.strip())]
    return bool(noun) and bool(figures) and noun[0] not in set(stems(record.text))


def _states_number(question: str, layout: Layout) -> bool:
    """The text states the count itself ("the Oak ward has 24 beds"): a look-up.

    The number stands before the counted noun, not as a rate ("45.00 per match") nor as
    the tail of a timestamp or code ("00:31,783" then "Two" on the next line), and when
    the question names more than its noun ("the Oak ward"), its record says some of that
    too: a number about something else is no answer."""
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
    nouns = [w for w in run[:1] + [w for w in run[1:] if w.endswith("s")]
             if not re.fullmatch(_NUMBER, w)]
    # (Not the words naming a document: "in the diary" is about every line of it.)
    titled = set(stems(" ".join(layout.titles.values())))
    about = {stems(w)[0] for i, w in enumerate(ws)
             if i in content_positions(question) and w not in run} - titled
    # A name the question gives ("at Porthallow") is what the stating document must be
    # about: another document's "within 56 days" shares a common word, not the place.
    # Names as the text writes them ("VN2209" whole): capitalised words past the first.
    names = {s for w in re.findall(r"(?<=\s)[A-Z][\w'’-]*", question) for s in stems(w)
             if s not in _STOP} - _MONTHS
    said: dict[str, set[str]] = {}
    for noun in nouns:
        stem = re.escape(stems(noun)[0])
        # On one line, or a sentence wrapped onto the next ("reported 1,284\nvisiting
        # yachts"): a number ending one line ("VAT Reg ... 96") states nothing of the
        # heading under it ("GUEST FOLIO"); "more than one candidate" is a threshold.
        # A year or a day of a month is no count ("SPRING TERM 2027 REHEARSAL SCHEDULE",
        # "Mon 4 Jan  Band room").
        stated = re.compile(rf"(?<![\w.,:;])(?<!than )(?!{_YEAR}){_NUMBER}(?!{_MONTH_AFTER})"
                            rf"(?:[ \t]+|[ \t]*\n[ \t]*"
                            rf"(?=(?-i:[a-z])))(?!per\b)(?:[\w-]+[ \t]+){{0,2}}?{stem}\w{{0,3}}\b",
                            re.IGNORECASE)
        if any(stated.search(r.text) and (not about or about & set(stems(r.text))) and (
                not names or names & _document_stems(layout, r.doc_id, said))
               for r in layout.records):
            return True
    return False


def _document_stems(layout: Layout, doc_id: str, said: dict[str, set[str]]) -> set[str]:
    """Every stem a document's records say (kept in `said`): the e-mail about "the
    Brackley depot visit" states "We expect 14 visitors" on a line without the name."""
    if doc_id not in said:
        said[doc_id] = {s for r in layout.records if r.doc_id == doc_id for s in stems(r.text)}
    return said[doc_id]


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n[ \t]*\n")
_FIGURE = re.compile(r"(?<![\w.,:;£$€#-])\d[\d,]*(?:\.\d+)?(?![\w.,:/-]*\w)(?!\s*[:)])")
_NUMBERED = re.compile(r"(?-i:[A-Z])[\w.]*\s*$")
"""Before a number, a name: the number names a thing ("Note 4", "Room 12"), counts none."""
_RUNS_ON = re.compile(r"[ \t]+(?-i:[a-z])")
"""After a figure in a sentence, its words run on, in lower case on its line ("1,150 in
the ..."): not a table's cell ("45.00  Harbour Stores"), nor a line's last word."""
_BESIDE = 6
"""Words after a figure that say what it counts ("1,150 in the Republic of Ireland")."""


def _states_figure(question: str, texts: list[str]) -> bool:
    """A sentence states the figure asked: a number followed by some of the words the
    question asks with (not the counted noun: "units" may stand for "kettles"), in a
    sentence that says every one of them ("... were sold in the UK and 1,150 in the
    Republic of Ireland" for "how many kettles were sold in the Republic of Ireland")."""
    head = head_unit(question)
    ws = words(question)
    counted = noun_phrase(question, head)
    asked = {stems(ws[i])[0] for i in content_positions(question) - counted
             if ws[i] not in _STOP and not ws[i].isdigit() and stems(ws[i])}
    if len(asked) < 2:
        return False
    for text in texts:
        if not asked <= set(stems(text)):
            continue
        for sentence in _SENTENCE.split(text):
            if not asked <= set(stems(sentence)):
                continue
            for figure in _FIGURE.finditer(sentence):
                if _NUMBERED.search(sentence, 0, figure.start()) or not _RUNS_ON.match(
                        sentence, figure.end()):
                    continue
                beside = set(stems(" ".join(sentence[figure.end():].split()[:_BESIDE])))
                if asked & beside:
                    return True
    return False


def route(question: str, layout: Layout | None, texts: list[str] | None = None
          ) -> tuple[Route, str]:
    """The runtime strategy for a question, and why (layout None: from the wording alone;
    `texts`, the documents' whole texts: their sentences, beyond the records read)."""
    # A sum or average of a numeric field the records hold: computed by code, however few.
    if layout is not None and aggregation(question, layout):
        draft = count_draft(question, layout)
        # The records the question's words select hold no number of the field: "The customer
        # whose AP contact is now Brenda Voss - what is their total balance?" (the customer
        # is found first), "maximum stay at the Library car park, in minutes" (another
        # document's MIN column).
        unheld = draft.aggregate is not None and not any(
            re.search(r"\d", r.fields.get(draft.aggregate.key, ""))
            for r in select(layout.records, draft.plan))
        if draft.aggregate and not (draft.unknown or draft.negated or unheld):
            return "count", (f"the {draft.aggregate.op} of {draft.aggregate.key} over "
                             f"{draft.plan.describe()}: computed by code")
    if layout is not None:
        whole = texts if texts is not None else [r.text for r in layout.records]
        summed = summed_rows(question, [(str(i), t) for i, t in enumerate(whole)], [])
        if summed is not None:
            return "count", f"computed by code: {summed.describe()}"
    if asks_to_count(question):
        if _MEASURE.search(question):
            return "search", "a quantity in units of measure is stated, not counted: a look-up"
        if asks_capacity(question):
            if has_bridge(question):  # "seats in the room where the keynote is given"
                return "iterative", "a stated capacity of a place found first: a bridge"
            return "search", "a capacity is stated, not counted: a look-up"
        if _SETTING.search(question):
            return "search", "a setting or a limit is stated, not counted: a look-up"
        if layout is None:
            return "count", "the question asks how many"
        draft = count_draft(question, layout)
        countable = len(layout.records) >= MIN_ITEMS
        if draft.negated and countable:
            return "classify", "a negated condition: each record is judged"
        whole = texts if texts is not None else [r.text for r in layout.records]
        if draft.uncompared:
            # "under £40 a bottle" and no field holds prices: a table's column, or a
            # judgement of each record (never a count that leaves the comparison out).
            rows = compared_rows(question, [(str(i), t) for i, t in enumerate(whole)], [])
            if rows is not None:
                return "count", f"counted by code: {rows.describe()}"
            return ("classify" if countable else "search",
                    "a comparison no field or table column holds")
        plan = draft.plan
        only_words = not (plan.filters or plan.exclude or plan.absent or plan.compare
                          or plan.months or plan.dated or plan.blank or plan.inside
                          or plan.labelled or draft.rank_key)
        if only_words and _states_figure(question, whole):
            return "search", "a sentence states the figure beside the asked words: a look-up"
        if draft.unknown and countable and not (draft.rank_key or _states_number(question,
                                                                                 layout)):
            narrowed = f" among {draft.plan.describe()}" if draft.plan.filters else ""
            return "classify", (f"no record says {' '.join(draft.unknown)!r} literally: "
                                f"each record{narrowed} is judged")
        if (draft.plan.filters or draft.plan.exclude or draft.plan.absent or draft.rank_key
                or draft.plan.compare or draft.plan.dated or draft.plan.blank or draft.plan.months
                or draft.plan.inside or draft.plan.labelled
                or (draft.plan.exclude_phrases and not draft.unknown)):
            return "count", f"the question names field values ({draft.plan.describe()})"
        if _states_number(question, layout):
            return "search", "the text states the number: a look-up"
        if draft.plan.phrases and not draft.unknown:
            if countable and not any(True for _ in select(layout.records, draft.plan)):
                # "commits that are bug fixes": each word is in the text, never together
                # in one record; whether a record is one is a judgement.
                return "classify", (f"no record holds {draft.plan.describe()} together: "
                                    "each record is judged")
            if _one_record_states(question, list(itertools.islice(
                    select(layout.records, draft.plan), 2))):
                return "search", "the one record of the thing named states its figures: a look-up"
            return "count", f"the question names a phrase the text holds ({draft.plan.describe()})"
        if draft.plan.every and countable:
            return "count", f"every {layout.unit} is counted"
        return "search", "nothing countable in the corpus: a look-up"
    if layout is not None and _ranks_a_field(question, layout):
        return "count", "the question ranks the values of a field"
    if asks_for_summary(question):
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
