"""Extractive answering: the runtime finds the line that answers, and the answer is copied
from it. For small models, which copy a neighbour's value or invent one when asked to write.

1. Retrieval: BM25 passages for the question, plus every place the question's named
   entities (names, codes, "bed 7") occur literally; a window of lines around each.
2. The windows are cut into units (sentences, lines, labelled entries, `Key: value` blocks)
   and the best unit must hold every entity the question names and most of its other words
   (`evidence.best_units`, strict): never a neighbouring entity's sentence.
3. The span: in a record with fields (a CSV row, a JSON line, a `Key: value` block, a
   settings section's `key = value` lines) the field whose name the question asks about
   ("carrier: CMA CGM"); in prose, the clause that holds a value of the kind asked beside
   the question's words ("Heparin infusion at 900 units/hr"; `clauses`).
No unit qualifies → None: the caller says not found (or asks the model, and grounding
checks what it says). No model call here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.asked import asked_label, asked_phrase, label_says
from ...corpus.doc_reference import without_document_reference
from ...corpus.evidence import (
    Unit,
    best_units,
    contains,
    entities,
    has_word,
    leans_on_scope,
    names,
    normalise,
    stems,
    values,
)
from ...corpus.lookup import lookup, says_rest
from ...corpus.naming import described, says
from ...corpus.narrow import narrowed_in_line
from ...corpus.records import Layout, Record
from ...corpus.scopes import scoped_value
from ...corpus.sections import author, heading_over, headings
from ...corpus.siblings import outscoped
from ...store import Store
from ...types import SpanRef
from .clauses import answer_clause, keyed_line, labelled_as_asked, of_kind, says_asked
from .persons import names_asked_role
from .record_answer import field_asked, part_of_total
from .windows import Window, entry_start, holds_heading, window_units, windows

__all__ = ["Extract", "about_asked", "asked_row", "cited", "copied", "describes_other",
           "disagree", "extract", "looked_up", "record_at"]

_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_LINES_CITED = 800
"""Characters: the longest run of whole lines cited around an extracted unit."""


@dataclass(frozen=True)
class Extract:
    answer: str
    ref: SpanRef
    """The unit or record the answer is copied from (cited)."""
    field: str | None = None
    """The field of a record the value is in, when the unit is a record."""
    heading: SpanRef | None = None
    """The heading the unit is under, when it names what the question asks about and the
    unit does not (cited with the answer)."""
    dated: SpanRef | None = None
    """The line naming the month of a row that gives its day by number alone ("13 FR"
    under "NOVEMBER 2026"), cited with the answer when the question names the date."""


def copied(found: Extract, bridges: list[str] | None = None) -> dict[str, object]:
    """The runtime's copy of the answer, as a strategy hands it to grounding (with the
    bridges of the chain that led to it, for multi-hop questions)."""
    heading = found.heading if found.heading and found.heading.doc_id == found.ref.doc_id else None
    dated = found.dated if found.dated and found.dated.doc_id == found.ref.doc_id else None
    return {"answer": found.answer, "doc_id": found.ref.doc_id, "start": found.ref.start,
            "end": found.ref.end, "field": found.field, "bridges": bridges or [],
            "heading": [heading.start, heading.end] if heading else None,
            "dated": [dated.start, dated.end] if dated else None}


def cited(found: Extract) -> list[SpanRef]:
    """What an extracted answer cites: its unit, the heading that names its entity, and the
    line naming its row's month."""
    return [found.ref, *(ref for ref in (found.heading, found.dated) if ref)]


def disagree(model_answer: str, runtime_answer: str, question: str) -> bool:
    """The model's answer leaves out a value of the clause the runtime copied ("960 457" for
    "01632 960 455"), or adds values that clause does not give (the neighbour's "17:30"
    beside "07:45"): it is answering from another line, or about more than was asked."""
    asked = set(values(question))
    theirs = set(values(model_answer)) - asked
    ours = set(values(runtime_answer)) - asked
    # The clause's numbers and codes are its answer; its names may be context ("the Harbour
    # building is 4821-K" agrees with "4821-K"), and so may an aside in brackets ("7316
    # (ZEBRA-QUARTZ-91427)" agrees with "7316").
    aside = set(values(_BRACKETED.sub(" ", runtime_answer))) - asked or ours
    core = {v for v in aside if any(c.isdigit() for c in v)} or aside
    return bool(ours) and (not core <= theirs or bool(theirs - ours))


def _heading_ref(store: Store, session_id: str, doc_id: str, start: int, unit: Unit,
                 named: list[str], question: str) -> SpanRef | None:
    """The heading line over `start` (or the line naming a letter's author), when an entity
    the question names is only there, or (a block's header) words it asks."""
    leans = leans_on_scope(question, unit, named)
    if not (unit.scope or unit.author) or (all(contains(unit.norm, e) for e in named)
                                           and not leans):
        return None
    doc = next((d for d in store.documents(session_id) if d.id == doc_id), None)
    if doc is None:
        return None
    text = store.text(doc)
    over = [h for h in headings(text) if h[0] <= start]
    if over and leans:
        return SpanRef(doc_id=doc_id, start=over[-1][0], end=over[-1][1])
    at = text.find(author(text)) if unit.author else -1
    if at < 0:
        return None
    return SpanRef(doc_id=doc_id, start=text.rfind("\n", 0, at) + 1,
                   end=len(text) if text.find("\n", at) < 0 else text.find("\n", at))


def record_at(layout: Layout | None, doc_id: str, start: int) -> Record | None:
    """The record with fields (a row, a JSON line, a block, a markdown table's row) there."""
    if layout is None or doc_id not in layout.formats:
        return None
    return next((r for r in layout.records if r.doc_id == doc_id and r.start <= start < r.end
                 and len(r.fields) >= 2), None)


def _doc_said(layout: Layout | None, doc_id: str) -> str:
    """What a document's records say, as one text (`says_rest`)."""
    records = layout.records if layout is not None else []
    return " ".join(r.text for r in records if r.doc_id == doc_id)


def looked_up(question: str, layout: Layout | None) -> Extract | None:
    """The asked field of the record the question picks out by its values (`lookup`)."""
    found = (lookup(question, layout.records, layout.titles, layout.sections)
             if layout is not None else None)
    if found is None:
        return None
    record, key = found
    if describes_other(question, record.text):
        return None
    # The heading in force over the record ("C. PAYMENTS RECEIVED — OCTOBER 2025") is cited
    # with it when it says a word of the question the record does not: the look-up read
    # the record's words with it.
    over = heading_over(layout.sections.get(record.doc_id, ()), record.start)
    heading = None
    if over and (set(stems(over[2])) & set(stems(question))) - set(stems(record.text)):
        heading = SpanRef(doc_id=record.doc_id, start=over[0], end=over[1])
    return Extract(f"{key}: {record.fields[key]}",
                   SpanRef(doc_id=record.doc_id, start=record.start, end=record.end), key,
                   heading=heading)


def extract(store: Store, session_id: str, question: str, layout: Layout | None
            ) -> Extract | str | None:
    """The answer copied from the unit that best matches the question; else why there is
    none when no passage names together what the question names (no answer could be
    grounded, so no model need be asked); else None."""
    # "... in the NAS" names the file, not the record (grounding checks it against the name).
    question = without_document_reference(question, (d.source for d in store.documents(
        session_id)))
    # A record the question picks out by its values, with a field named as what is asked
    # (`lookup`'s strict rules), answers before any passage: the passage holding the
    # question's words may be a sibling record's (the member's loans, not their row).
    if (looked := looked_up(question, layout)) is not None:
        return about_asked(store, session_id, question, looked)
    found = windows(store, session_id, question)
    answered = _from_passages(store, session_id, question, layout, found) if found else None
    # The line a sibling's (another car's due date: `siblings`) gives way to the scoped one.
    if isinstance(answered, Extract) and not _outscoped(store, session_id, question, answered):
        return about_asked(store, session_id, question, answered)
    # No one passage answers: a labelled line may, named by the headings and opening
    # lines over it (a policy's page for one address, a chart's block for one resident).
    scoped = _scoped(store, session_id, question)
    if scoped is not None:
        return about_asked(store, session_id, question, scoped)
    return None if isinstance(answered, Extract) else answered


def asked_row(store: Store, session_id: str, question: str, layout: Layout | None
              ) -> Extract | None:
    """The table row the question's words pick out, whole, when none of its cells says what
    is asked (the therapist's code "JO" for "which room"): a key line may give it for a
    code the row holds (`legend_values.keyed_value`). Never an answer itself."""
    found = windows(store, session_id, question)
    best = best_units(question, window_units(found), 1)
    if not best:
        return None
    unit = best[0][1]
    doc_id, offset = found[unit.source][:2]
    record = record_at(layout, doc_id, offset + unit.start)
    if record is None:
        return None
    return Extract(record.text, SpanRef(doc_id=doc_id, start=record.start, end=record.end))


def about_asked(store: Store, session_id: str, question: str, found: Extract
                 ) -> Extract | None:
    """None when what is cited is the own record of an entity the question names only to
    describe what it asks about (`describes_other`)."""
    if not described(question):
        return found
    doc = next(d for d in store.documents(session_id) if d.id == found.ref.doc_id)
    return None if describes_other(question, store.text(doc)[found.ref.start:found.ref.end]
                                   ) else found


def describes_other(question: str, cited: str) -> bool:
    """The cited record names an entity the question only uses to describe what it asks
    about (`naming.described`) on its first line alone: that is the entity's own record
    (batch 26-143's OG), not the one referring to it (the brew repitched from 26-143)."""
    first, _, rest = cited.strip().partition("\n")
    return any(contains(normalise(first), e) and not contains(normalise(rest), e)
               for e in described(question))


def _outscoped(store: Store, session_id: str, question: str, found: Extract) -> bool:
    doc = next(d for d in store.documents(session_id) if d.id == found.ref.doc_id)
    return outscoped(question, found.answer, store.text(doc), found.ref.start, found.ref.end)


_PLACE = re.compile(r"\d{1,3}[.)]?")
"""A row's number or place in a list ("2."), which names no field."""


def _scoped(store: Store, session_id: str, question: str) -> Extract | None:
    """The labelled line the question's names pick out by its scope (`scopes`), cited
    with the scope lines it needs."""
    docs = store.documents(session_id)
    found = scoped_value(question, ((d.id, store.text(d)) for d in docs))
    if found is None:
        return None
    doc_id, line, (first, last) = found
    # A grid's cell under a row numbered, not named ("2."): its column names it ("Club").
    key = line.column if line.column and _PLACE.fullmatch(line.label.strip()) else line.label
    return Extract(f"{key}: {line.value}", SpanRef(doc_id=doc_id, start=first, end=last), key)


def _from_passages(store: Store, session_id: str, question: str, layout: Layout | None,
                   found: list[Window]) -> Extract | str | None:
    """The answer copied from the windows' best unit (see `extract`)."""
    units = window_units(found)
    # A record that holds every entity the question names, with a field the question asks
    # about: the field's value ("Which carrier is moving SH-1006?" → carrier: CMA CGM).
    named = entities(question)
    # "What's the IP address of the east wing printer?": IP is what is asked, not whose.
    asked = set(asked_phrase(question))
    if named and not all(set(stems(e)) <= asked for e in named):
        doc_said: dict[str, str] = {}  # joined once a document, not once a matching unit
        for unit in units:
            doc_id, offset = found[unit.source][:2]
            # Each entity said by the unit, or by its document's title or heading where the
            # unit says one of them itself ("Eileen DOWLING" in St Oswin's register).
            if not (all(names(unit, e) for e in named)
                    and any(says(unit.norm, e) for e in named)):
                continue
            record = record_at(layout, doc_id, offset + unit.start)
            if record is not None and doc_id not in doc_said:
                doc_said[doc_id] = _doc_said(layout, doc_id)
            # Its document's first lines name every record too ("(Club de randonnée)").
            if record is not None and says_rest(question, record, doc_said[doc_id], " ".join((
                    unit.title, layout.titles.get(doc_id, "") if layout else ""))) and (
                    picked := field_asked(question, record, layout)):
                key, value = picked
                if part_of_total(question, key, record, layout, named):
                    continue
                return Extract(f"{key}: {value}", SpanRef(doc_id=doc_id, start=record.start,
                                                          end=record.end), key)
    # A heading (or an email's header) names the subject, and a line ending in a colon
    # introduces a list: the lines under them answer.
    best = sorted(((score, unit) for score, unit in best_units(question, units, 5)
                   if not holds_heading(found, unit) and not unit.text.rstrip().endswith(":")),
                  key=lambda pair: (not says_asked(question, pair[1]),
                                    not of_kind(question, pair[1].text), -pair[0]))[:1]
    if not best:
        # No one line holds what the question names and asks: a record may, lines apart
        # (a manifest's name and its maxReplicas).
        if named and not any(all(names(u, e) for e in named) for u in units):
            return f"no passage names {', '.join(named)} together"
        return None
    unit = best[0][1]
    if _sibling_says_more(question, unit, units, named):
        return None  # the loading bay's "DOOR FORCED" line is another day's, not this one
    doc_id, offset, text = found[unit.source][:3]
    # A table's row the question's words picked: the column the question asks about (a
    # JSON array's record begins at its brace, past the line's indent).
    record = record_at(layout, doc_id, offset + unit.start + len(unit.text) - len(
        unit.text.lstrip()))
    picked = field_asked(question, record, layout) if record is not None else None
    # In a record of many lines (a calendar event), a field off the line the question's
    # words picked answers only when its name says what is asked (not the organiser's
    # name for who judges).
    if picked and not (set(stems(picked[0].replace("_", " "))) & set(stems(question))
                       and label_says(question, picked[0])) and not contains(
            unit.norm, normalise(picked[1])) and not names_asked_role(question, picked[1]):
        picked = None
    if record is not None and picked:
        return Extract(f"{picked[0]}: {picked[1]}",
                       SpanRef(doc_id=doc_id, start=record.start, end=record.end), picked[0])
    if record is not None and asked_label(question) and not any(
            label_says(question, f"{key}: {value}") for key, value in record.fields.items()):
        return None  # no cell of the row says what is asked ("Room" is no phone extension)
    # The unit's whole lines are cited (when short): cut out of them it is cut the same way
    # again when its answer is checked ("The revised quote is" ends a line that "£38,400"
    # carries on).
    first = text.rfind("\n", 0, unit.start) + 1
    last = len(text) if text.find("\n", unit.end) < 0 else text.find("\n", unit.end)
    if last - first > _LINES_CITED:
        first, last = unit.start, unit.end
    else:
        first = entry_start(text, first, last, _LINES_CITED)
    # The line introducing the list is cited with its item: it says what the item is about.
    lead = text.rfind(unit.lead, 0, unit.start) if unit.lead else -1
    if lead >= 0 and last - lead <= _LINES_CITED:
        first = min(first, text.rfind("\n", 0, lead) + 1)
    start, end = offset + first, offset + last
    answer = narrowed_in_line(question, " ".join((keyed_line(question, unit) or answer_clause(
        question, unit)).split()), unit.text)
    if answer is None:
        return None  # siblings on the line, and the question picks none of them
    if not labelled_as_asked(question, answer, unit.text):
        return None  # "Food business operator: ..." holds the entity, not the deadline
    return Extract(answer, SpanRef(doc_id=doc_id, start=start, end=end),
                   heading=_heading_ref(store, session_id, doc_id, start, unit, named,
                                            question))


_SHAPE_CHARS = 16
"""How much of a line's start gives its shape (a log line's "#00000 00.00.0000")."""


def _shape(text: str) -> str:
    """A line's shape: its opening with digits as 0, letters as a, spaces squeezed: the
    lines of one log or table share it ("#51303 12.03.2026 23:41:09 [R15 ..."), and it
    holds a digit (sentences of prose share "aaaaaaa aaaaaaaa" by chance)."""
    opening = " ".join(text.split())[:_SHAPE_CHARS]
    return re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "0", opening))


def _sibling_says_more(question: str, unit: Unit, units: list[Unit], named: list[str]
                       ) -> bool:
    """A line of the same list as the best unit (same shape) says the question's words the
    unit says and one it does not ("forced"): the question picks that kind of line, and the best
    unit, the same door's "ACCESS GRANTED" on the asked day, answers something else. The
    asked line is then not there (the door was forced on another day)."""
    topic = set(stems(question)) - set(stems(" ".join(named)))
    missing = {w for w in topic if not has_word(w, unit.stem_set)}
    if not missing:
        return False
    shape = _shape(unit.text)
    if "0" not in shape:  # prose: sentences share no layout, whatever their first words
        return False
    matched = topic - missing
    return any(other.text != unit.text and _shape(other.text) == shape
               and all(has_word(w, other.stem_set) for w in matched)
               and any(has_word(w, other.own_stems) for w in missing) for other in units)
