"""The kinds of items a judging question may mean, read from the corpus's structure, and the
one it names.

A question that judges items ("how many of the teachers' subject comments complain about
homework", "how many pupils got a form tutor comment that is wholly positive", "how many
customers were unhappy when they collected their bike") picks the items of one kind, then
judges each. A document offers these kinds:
- labelled lines: the lines that open with one recurring label and say something in words
  ("Form tutor: A pleasant, hard-working member of the form", "On collection: "Not
  impressed"");
- runs of labelled lines under one recurring heading line ("Comments" over each pupil's
  subject comments): every line of the runs, whatever its label;
- records of a group (the blocks between blank lines or rules: job cards, virtual-host
  blocks), named by the word most of them open with ("JOB", "VirtualHost");
- table rows, named by their header cells and the heading over the table ("PART B - FALSE
  AND UNWANTED ALARMS" over "Ref  Date  ...  Cause").
The question names a kind by its words (stems); the rest of its words are the condition
judged. A label that only repeats the counted noun ("Customer: D. Okafor, 07700 900412" for
"how many customers") names who is counted, not what is judged. With no kind named, the
items are the session's records narrowed by the field values the question names
(`narrowed_records`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ...corpus.blocks import lines_of
from ...corpus.record_units import Unit, record_units, table_units
from ...corpus.records import Layout, Record
from ...corpus.tally import TallyPlan, tally
from ...corpus.word_stems import NOT_VALUES, stems, words
from .block_kinds import LETTER_LABELS, continued, paired, section_blocks
from .draft import count_draft
from .scope import FRAME_WORDS, content_positions, head_unit, noun_phrase, titled_documents
from .terms import addressees

__all__ = ["ItemKind", "criterion_stems", "document_kinds", "gist", "items_to_ask",
           "named_kind", "narrowed_records", "question_kind"]

_LABELLED = re.compile(r"^[ \t]*([A-Za-z][A-Za-z ()'/&.-]{0,30}?)[ \t]*:[ \t]+(\S.*?)[ \t]*$")
_MIN_RECUR = 3
"""A label (or a heading over labelled lines) this many times in a document makes a kind."""
_PROSE_WORDS = 3
"""A labelled line says something in words when its value has this many words of letters."""
_HEADING_WORDS = 4
_TABLE_TITLE_LINES = 3
"""How far above a table's header its title may sit."""
_LITERAL_ITEMS = 2
"""The condition's words said by one item only may be an accident of wording, not how the
items name what is judged (one "fuel" among "ESSO" and "SHELL" rows): no pre-filter then."""
_NEGATION = re.compile(r"\b(?:no|not|never|without|none|nor)\b|n['’]t\b", re.IGNORECASE)


@dataclass(frozen=True)
class ItemKind:
    """Items of one kind in one document, and the words that name the kind."""

    doc_id: str
    name: str
    items: tuple[Record, ...]
    labels: frozenset[str]
    """Stems of the labels the document's records use: context, not a condition."""
    single_label: bool = False
    columns: str = ""
    """A table's header cells: what its rows hold, which names them less than its title."""
    section: bool = False
    """The blocks under a heading: items only when the heading names the counted noun."""
    answered: bool = False
    """Questions, each with its answer ("Q:" lines with the "A:" lines after them)."""

    @property
    def prose(self) -> float:
        """Mean words of letters an item says: the judged text is prose."""
        return sum(sum(w.isalpha() for w in words(r.text)) for r in self.items) / max(
            len(self.items), 1)

    def describe(self, source: str = "") -> str:
        """"5 'Form tutor' items of report.txt" (`source`: the document's name)."""
        name, where = self.name or self.columns, source or self.doc_id
        return f"{len(self.items)} '{name}' items of {where}" if name else (
            f"{len(self.items)} records of {where}")


def _prose_label(line: str) -> tuple[str, str] | None:
    match = _LABELLED.match(line)
    if not match or sum(w.isalpha() for w in words(match.group(2))) < _PROSE_WORDS:
        return None
    return match.group(1).strip(), match.group(2)


def _line_kinds(doc_id: str, text: str, labels: frozenset[str]) -> list[ItemKind]:
    """The recurring labels' lines, and the runs of labelled lines under a recurring
    heading line."""
    by_label: dict[str, list[Record]] = {}
    names: dict[str, str] = {}
    by_heading: dict[str, list[Record]] = {}
    runs: Counter[str] = Counter()
    heading: str | None = None
    in_run = False
    for start, end, line in lines_of(text):
        found = _prose_label(line)
        if found is None:
            stripped = line.strip()
            heading = stripped.lower() if _is_heading(stripped) else None
            in_run = False
            continue
        label, value = found
        end = continued(text, start, end)
        record = Record(doc_id, start, end, text[start:end].strip(), {label: value})
        by_label.setdefault(label.lower(), []).append(record)
        names.setdefault(label.lower(), label)
        if heading is not None:
            runs[heading] += not in_run
            by_heading.setdefault(heading, []).append(record)
        in_run = True
    recurring = {key: own for key, own in by_label.items() if len(own) >= _MIN_RECUR}
    for key, own in list(recurring.items()):
        # "Q:" lines each answered by an "A:" line: a question is judged with its answer.
        for other, answers in recurring.items():
            if other != key and own[0].start < answers[0].start and (
                    pairs := paired(own, answers, text)):
                recurring[key] = pairs
                del recurring[other]  # its lines are the pairs' second halves
                break
    kinds = [ItemKind(doc_id, names[key], tuple(own), labels, single_label=True,
                      answered=own is not by_label[key])
             for key, own in recurring.items()]
    for name, own in by_heading.items():
        if runs[name] >= _MIN_RECUR and len({next(iter(r.fields)).lower() for r in own}) > 1:
            kinds.append(ItemKind(doc_id, name, tuple(own), labels))
    return kinds


def _is_heading(line: str) -> bool:
    """A line of a few words and no label: what the labelled lines under it are."""
    return bool(line) and ":" not in line.rstrip(":") and len(
        line.split()) <= _HEADING_WORDS and bool(re.search(r"[A-Za-z]", line))


def _opening_word(unit: Unit) -> str:
    """The first word of letters a record opens with ("JOB 4471 | ..." → JOB)."""
    for line in unit.text.splitlines():
        found = re.search(r"[A-Za-z][A-Za-z-]*", line)
        if found:
            return found.group()
    return ""


def _record(unit: Unit) -> Record:
    return Record(unit.doc_id, unit.start, unit.end, unit.text,
                  {label: value for label, value, _, _ in unit.fields})


def _group_kinds(doc_id: str, text: str, labels: frozenset[str]) -> list[ItemKind]:
    """Each group of records (between blank lines or rules), named by the word most of its
    records open with, and each table, named by its header cells and title."""
    kinds = []
    for group in record_units(doc_id, text):
        opening = Counter(_opening_word(u).lower() for u in group)
        word, n = opening.most_common(1)[0]
        if word and word not in FRAME_WORDS and n * 2 >= len(group):
            own = [u for u in group if _opening_word(u).lower() == word]
            kinds.append(ItemKind(doc_id, word, tuple(map(_record, own)), labels))
        else:
            kinds.append(ItemKind(doc_id, "", tuple(map(_record, group)), labels))
    lines = lines_of(text)
    starts = {start: k for k, (start, _, _) in enumerate(lines)}
    # One kind per key column and title: the same table repeated (each pupil's grades, each
    # batch's samples, a column more or less) is one kind of row.
    tables: dict[tuple[str, str], list[Unit]] = {}
    columns: dict[tuple[str, str], str] = {}
    for table in table_units(doc_id, text):
        header = starts[table[0].start] - 1
        if header > 0 and _rule(lines[header][2]):  # the dashes under the header
            header -= 1
        heads = " ".join(label for label, _, _, _ in table[0].fields)
        key = (table[0].fields[0][0] if table[0].fields else "", _table_title(lines, header))
        tables.setdefault(key, []).extend(table)
        columns.setdefault(key, heads)
    for key, rows in tables.items():
        kinds.append(ItemKind(doc_id, key[1], tuple(map(_record, rows)), labels,
                              columns=columns[key]))
    return kinds


def _rule(line: str) -> bool:
    return bool(line.strip()) and not re.search(r"[A-Za-z0-9]", line)


def _table_title(lines: list[tuple[int, int, str]], header: int) -> str:
    """The heading over a table's header line: the nearest short line above it (a line of
    capitals or one of few words), within a few lines."""
    for k in range(header - 1, max(header - 1 - _TABLE_TITLE_LINES, -1), -1):
        line = lines[k][2].strip()
        letters = re.sub(r"[^A-Za-z]", "", line)
        if letters and ":" not in line.rstrip(":") and (
                letters.isupper() or len(line.split()) <= _HEADING_WORDS):
            return line
    return ""


@functools.lru_cache(maxsize=16)
def document_kinds(doc_id: str, text: str) -> tuple[ItemKind, ...]:
    """Every kind of item a document offers (see the module's docstring)."""
    found = [r for group in record_units(doc_id, text) for r in group]
    labels = frozenset(s for u in found for label, _, _, _ in u.fields for s in stems(label))
    sections = [ItemKind(doc_id, heading, tuple(blocks), labels, section=True)
                for heading, blocks in section_blocks(doc_id, text)]
    return tuple(_line_kinds(doc_id, text, labels) + _group_kinds(doc_id, text, labels)
                 + sections)


def _asked_stems(question: str, joined: bool = False) -> set[str]:
    """The stems of the question's content words, and (`joined`) of each two beside each
    other written as one ("virtual hosts" names `VirtualHost`, "job cards" a jobcard)."""
    ws = words(question)
    content = content_positions(question)
    pairs = {stems(ws[i] + ws[i + 1])[0] for i in content if i + 1 in content and joined}
    return {s for i in content for s in stems(ws[i]) if s not in NOT_VALUES} | pairs


def _name_stems(kind: ItemKind) -> set[str]:
    name = LETTER_LABELS.get(kind.name.lower(), kind.name) if kind.single_label else kind.name
    return _naming(stems(name))


def _column_stems(kind: ItemKind) -> set[str]:
    return _naming(stems(kind.columns))


def _naming(words: Iterable[str]) -> set[str]:
    """The words of a kind's name or columns that may name it: no frame word, and no
    number ("2025" of "PAYMENTS RECEIVED — OCTOBER 2025" names no night drive of 2025)."""
    return {s for s in words if s not in NOT_VALUES and s not in FRAME_WORDS
            and not s.isdigit()}


_HEADER_WEIGHT = 0.5


def _counted_stems(question: str) -> set[str]:
    ws = words(question)
    return {s for i in noun_phrase(question, head_unit(question)) for s in stems(ws[i])}


def named_kind(question: str, layout: Layout, texts: list[tuple[str, str]],
               docs: list[str] | None = None) -> ItemKind | None:
    """The kind of item the question names by words besides the counted noun, then by the
    most words, then the one that says the most in words (in the documents `docs` when
    given); else, in the one document the question names, its largest group of records
    opening with one word; else None."""
    asked = _asked_stems(question, joined=True)
    counted = _counted_stems(question)
    phrase = sorted(noun_phrase(question, head_unit(question)))
    head = set(stems(words(question)[phrase[-1]])) if phrase else set()
    best: tuple[tuple[bool, float, float], ItemKind] | None = None
    fallback: ItemKind | None = None
    for doc_id, text in texts:
        if docs and doc_id not in docs:
            continue
        for kind in document_kinds(doc_id, text):
            if len(kind.items) < 2:
                continue
            named = _name_stems(kind)
            if kind.single_label and named and named <= head and not kind.answered:
                continue  # "Customer: D. Okafor": who is counted, not what is judged
            if kind.section and not named & counted:
                continue  # a heading over a document's parts is its title, not its items
            score = len(named & asked) + _HEADER_WEIGHT * len(_column_stems(kind) & asked)
            # "how many staff got a manager remark ...": the "Manager" lines, one a record,
            # are judged before the STAFF records the counted noun names.
            rank = (bool((named & asked) - counted), score, kind.prose)
            if score and (best is None or rank > best[0]):
                best = (rank, kind)
            # In the one document the question names, the records most of which open with
            # one word are its items ("<VirtualHost" blocks of the sites' config).
            # A table is its document's items too ("choir rehearsals": the schedule's rows).
            if docs and len(docs) == 1 and (kind.name or kind.columns) and not (
                    kind.single_label or kind.section or _is_lines(kind)) and (
                        fallback is None or len(kind.items) > len(fallback.items)):
                fallback = kind
    del layout
    return best[1] if best else fallback


def criterion_stems(question: str, kind: ItemKind, title: str = "") -> set[str]:
    """The question's words that say what is judged: not the kind's name, the counted noun,
    the words naming its document, nor the labels its records use."""
    # The labels of a document's other lines (a job card's "Bike") are what its lines are
    # about, not a condition; a record's own labels ("Require ip") are what is judged.
    context = kind.labels if kind.single_label or (not kind.columns and _is_lines(kind)) else set()
    return (_asked_stems(question) - _name_stems(kind) - _column_stems(kind)
            - _counted_stems(question) - set(stems(title)) - context)


def _is_lines(kind: ItemKind) -> bool:
    return all("\n" not in item.text for item in kind.items)


def items_to_ask(question: str, kind: ItemKind, title: str = "") -> list[bool] | None:
    """Which items the model need judge (None: all): when each alternative of the
    condition ("late or missing") names a word some items hold, an item holding none of
    those words cannot meet it. Not for a negated condition ("no concern raised"), where
    the item that says nothing may be the one that counts, nor a condition no item says."""
    if _NEGATION.search(question):
        return None
    criterion = criterion_stems(question, kind, title)
    held = [set(stems(item.text)) for item in kind.items]
    said = {s for h in held for s in h & criterion}
    alternatives = [set(stems(part)) & criterion
                    for part in re.split(r"\bor\b", question, flags=re.IGNORECASE)]
    asked = [bool(h & said) for h in held]
    if sum(asked) < _LITERAL_ITEMS or any(a and not a & said for a in alternatives):
        return None
    return None if all(asked) else asked


def question_kind(question: str, layout: Layout, texts: list[tuple[str, str]]
                  ) -> ItemKind | None:
    """The kind the question names, in the documents it names (by a field value's place or
    by title); None leaves the session's records narrowed by field values."""
    docs = count_draft(question, layout).plan.docs or titled_documents(question, layout)
    # A word a document's opening happens to say ("questioned") is a loose scope: a kind
    # the question names elsewhere is still the one meant.
    return named_kind(question, layout, texts, docs) or (
        named_kind(question, layout, texts) if docs else None)


def gist(text: str, stress: set[str], limit: int) -> str:
    """A multi-line item cut to `limit` characters, its runs of blanks squeezed: its first
    line, then the lines that say the condition's words, then the rest (the "Require ip"
    line of a long block must not be cut off)."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if sum(map(len, lines)) + len(lines) <= limit or len(lines) < 2:
        return "\n".join(lines)
    said = [k for k, line in enumerate(lines[1:], 1) if stress & set(stems(line))]
    order = [0, *said, *(k for k in range(1, len(lines)) if k not in said)]
    return "\n".join(lines[k] for k in order)


def narrowed_records(question: str, layout: Layout) -> tuple[list[Record], str, str]:
    """The items to judge: the session's records, narrowed by the field values the question
    names ("How many ERROR lines mention a network problem?": ERROR lines only)."""
    draft = count_draft(question, layout)
    records, narrowed = layout.records, []
    # "how many tickets ...", "did the engine room crew ...": the records of the documents
    # the question names by title only.
    docs = draft.plan.docs or titled_documents(question, layout)
    # A value inside the relative clause is part of the judgement, not a narrowing: "people
    # who couldn't log in to their account" are not the records tagged "account".
    head = _RELATIVE.split(question, maxsplit=1)[0]
    filters = draft.plan.filters if head == question else count_draft(head, layout).plan.filters
    # "in October": only the records dated then are judged.
    if not draft.negated and (filters or draft.plan.months):
        prefilter = TallyPlan(filters=filters, months=draft.plan.months, docs=docs)
        records, _ = tally(layout, prefilter, sample=len(layout.records))
        narrowed.append(prefilter.describe())
    elif docs:
        records = [r for r in records if r.doc_id in docs]
        narrowed.append(f"a place in {len(docs)} named document(s)")
    # "accessions that have notes that report a fungal problem": a record with no notes
    # reports nothing, so only those with the field are judged.
    for key in [] if draft.negated else _optional_fields_named(question, layout):
        kept = [r for r in records if r.fields.get(key, "").strip()]
        if not kept:
            # The field's records lie outside the documents a title word named: they are
            # the ones asked about when they say what the question is about ("visitor
            # comments ... the cafe"); else the field is another thing of the same name.
            kept = [r for r in layout.records if r.fields.get(key, "").strip()]
            about = set(stems(" ".join(words(question)[i] for i in content_positions(
                question)))) - set(stems(key))
            if not any(about & set(stems(r.text)) for r in kept):
                continue
            narrowed = []
        records = kept
        narrowed.append(f"a value in {key}")
    return records, layout.unit, " and ".join(narrowed)


_RELATIVE = re.compile(r"\b(?:who|that|which|whose|where)\b", re.IGNORECASE)
_SMALL_WORDS = frozenset(stems("a an the of and or in on at to for from with by as is are was "
                               "were be how"))


def _optional_fields_named(question: str, layout: Layout) -> list[str]:
    """Fields the question names by their whole name ("notes", "remarks") that some records
    of their documents leave empty; not whom a claim is told to ("tell residents that")."""
    told = addressees(question)
    asked = {s for i, s in enumerate(stems(question)) if i not in told}
    out = []
    for key in layout.fields:
        words = set(stems(key))
        # A column headed by a small word ("In", "How") is not named by the question's own.
        if not words or not words <= asked or words <= _SMALL_WORDS:
            continue
        docs = {r.doc_id for r in layout.records if key in r.fields}
        if any(key not in r.fields for r in layout.records if r.doc_id in docs):
            out.append(key)
    return out
