"""The documents a counting question names by its words ("the support tickets", "in the FS02
export", "the vet appointments"), which are not words the counted records hold.

A word names a document when it is in the document's name or first lines (`Layout.titles`)
and few of its records say it: "tickets" over a JSON export of tickets, "appointments" over a
clinic's CSV. Such words select their documents (unless they name every one) and are neither
field filters nor phrases to find. After "in/from/of the" a whole run of such words names the
collection ("in the Fernhill export") before any of them is read as a field value, when it
narrows the corpus. Words that
call any file what it is ("export", "log", "sheet") go with a naming word beside them.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable

from ...corpus.records import Layout, Record
from ...corpus.tally import FieldFilter, TallyPlan, select
from ...corpus.value_match import MAX_DISTINCT
from ...corpus.word_stems import phrase_regex, stems, words

__all__ = [
    "FRAME_WORDS",
    "calls_a_file",
    "collection_run",
    "content_positions",
    "document_words",
    "file_words_dropped",
    "glossed",
    "head_unit",
    "joint_values",
    "noun_phrase",
    "titled_documents",
    "unit_phrases_dropped",
    "unit_values",
]

FRAME_WORDS = frozenset(
    "a an the of and or in on at to for from with by is are was were be been being do does did "
    "have has had that this these those there their its which what who whose where when why "
    "it they them we you i me my our your his her any all each every per total overall exact "
    "exactly please tell give find get report count tally enumerate number amount how many much "
    "often frequently times time occurrence occurrences appear appears appeared occur occurs "
    "occurred mention mentions mentioned contain contains contained say says said include "
    "includes included show shows shown log logged record recorded list listed come came "
    "originate exist exists word words phrase term string text file files document documents "
    "corpus dataset data loaded whole across altogether overall can could would you us "
    "marked tagged labelled labeled set as level severity status type kind category "
    "service component app host source field value most least fewest frequent frequently "
    "common commonly which top commonest than write wrote written writes produce produced "
    "produces emit emitted emits generate generated generates print printed raise raised "
    "throw threw thrown got see seen saw found happen happened still currently now ever "
    "so far yet today overall get gets return returned returns send sent sends make made "
    "makes need needs go went want belong belongs belonging associated related under within "
    "inside among between into out about over up there's here altogether entire ones one through "
    "via take takes took taken taking during only just individual individually separate "
    "flagged someone somebody anyone anybody either"
    .split())
"""The words that frame a counting question, not what it counts ("how many", "logged")."""

_DOC_WORDS = frozenset(stems("export exports dump extract file files document documents log logs "
                             "sheet spreadsheet dataset feed calendar history batch transcript "
                             "archive tree book register directory roster bibliography"))
_LEADS = frozenset("in from of across within throughout during".split())
_DETERMINERS = frozenset("the our this that these those".split())
_RARE_SHARE = 0.1
"""A word of a document's file name that at most this share of its records say names it."""
_RARE_LINES = 1
_OWN_SHARE = 0.5
"""A word of its file name that at most this share of its records say, and no other
document, names it."""
"""A word of its first lines that at most this many of its records say (the title's own)."""


def calls_a_file(phrase: str) -> bool:
    """Does the phrase only call a file what it is ("the feed", "the museum's export")?"""
    said = stems(phrase)
    return bool(said) and all(s in _DOC_WORDS for s in said)


def content_positions(question: str) -> set[int]:
    """Positions of the question's words that may say what is counted."""
    return {i for i, w in enumerate(words(question)) if w not in FRAME_WORDS and len(w) > 1}


def head_unit(question: str, taken: set[int] | None = None) -> int | None:
    """Position of the noun after "how many" / "number of" (the counted unit), past the
    words a field value took ("how many high priority tickets": tickets)."""
    ws = words(question)
    for i in range(len(ws) - 1):
        pair = (ws[i], ws[i + 1])
        verb = i == 0 and ws[i] in ("count", "tally", "enumerate")
        if verb or pair in (("how", "many"), ("number", "of"), ("count", "of")):
            j = i + (1 if verb else 2)
            while j < len(ws) and (ws[j] in _BEFORE_NOUN or j in (taken or ())):
                j += 1
            return j if j < len(ws) else None
    return None


_BEFORE_NOUN = frozenset("the a an all of individual separate single different".split())
"""Words between "how many" and the counted noun that say nothing of it."""


def noun_phrase(question: str, head: int | None) -> set[int]:
    """Positions of the counted noun phrase that starts at `head` ("hall bookings", "lab
    test results"): the words up to the next frame word."""
    ws = words(question)
    if head is None or head >= len(ws) or ws[head] in FRAME_WORDS:
        return set()
    last = head
    while last + 1 < len(ws) and ws[last + 1] not in FRAME_WORDS:
        last += 1
    return set(range(head, last + 1))


_LINKS = frozenset(("or", "and", "nor"))


def unit_values(question: str, matches: list, negated: set[int]) -> list:
    """The value matches of the counted noun ("how many security fixes", "how many changes
    were deprecated": fixes, changes) when another value of the same field is named apart
    from it, not joined by "or"/"and" ("ERROR or WARN lines" are alternatives)."""
    ws = words(question)
    head = head_unit(question)
    if head is None:
        return []
    last = head
    while last + 1 < len(ws) and ws[last + 1] not in FRAME_WORDS:
        last += 1  # the noun phrase's head is its last word
    unit = [m for m in matches if m.start <= last < m.stop]
    if not unit:
        return []
    at = unit[0]
    others = [m for m in matches if m.field == at.field and m.start != at.start
              and m.start not in negated]  # "(not critical)" excludes, it names no unit
    linked = any(_LINKS & set(ws[min(o.stop, at.stop):max(o.start, at.start)]) for o in others)
    return unit if others and not linked else []


def joint_values(question: str, matches: list) -> list:
    """Values of one field named apart, not joined by "or"/"and" ("decisions made on 5 May"
    over sections "3 March / Decisions", "5 May / Decisions"): only the values that hold
    them all, when some do; else every one (the alternatives of "ERROR, WARN lines")."""
    ws = words(question)
    out = list(matches)
    for field in {m.field for m in matches}:
        spans: dict[int, set[str]] = {}
        for m in matches:
            if m.field == field:
                spans.setdefault(m.start, set()).add(m.value)
        if len(spans) < 2:
            continue
        at = sorted(spans)
        if any(_LINKS & set(ws[a:b]) for a, b in itertools.pairwise(at)):
            continue
        common = set.intersection(*spans.values())
        if common:
            out = [m for m in out if m.field != field or m.value in common]
    return out


def _titled(layout: Layout) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each document's file-name stems and first-lines stems (with its subject's)."""
    names, heads = {}, {}
    for doc_id, title in layout.titles.items():
        name, _, rest = title.partition("\n")
        subject = layout.subjects.get(doc_id, "")
        names[doc_id], heads[doc_id] = set(stems(name)), set(stems(f"{rest} {subject}"))
    return names, heads


def _documents_naming(word: str, layout: Layout, rare: bool) -> set[str]:
    """The documents whose name or first lines hold `word` (and, when `rare`, whose records
    seldom say it)."""
    stem = stems(word)[:1]
    if not stem or stem[0] in _DOC_WORDS:
        return set()
    names, heads = _titled(layout)
    out = set()
    pattern = phrase_regex(word)
    for doc_id in layout.titles:
        in_name, in_head = stem[0] in names[doc_id], stem[0] in heads[doc_id]
        if not (in_name or in_head):
            continue
        if not in_name and _holds_value(layout, doc_id, stem[0]):
            continue  # "direct" in a table's first rows: a value its records hold, no title
        if rare:
            own = [r for r in layout.records if r.doc_id == doc_id]
            # The title's own line (the document's first), read as a record, is the title
            # saying it; a key or a note among the first lines is the records' own.
            title_lines = layout.titles[doc_id].split("\n")
            first = title_lines[1].strip() if len(title_lines) > 1 else ""
            saying = sum(bool(pattern.search(r.text)) and r.text.strip()[:200] != first[:200]
                         for r in own)
            limit = max(_RARE_LINES, _RARE_SHARE * len(own)) if in_name else _RARE_LINES
            # A word of its file name no other document says ("dabba" of the tiffin
            # register, whose skip notes say it too) names it, unless most records say it.
            if saying > limit and not (in_name and saying <= _OWN_SHARE * len(own) and not any(
                    pattern.search(r.text) for r in layout.records if r.doc_id != doc_id)):
                continue
        out.add(doc_id)
    # A number several documents' names hold ("2025" of every export this year) is when
    # their records fall, not the name of one of them.
    if word.isdigit() and sum(stem[0] in names[d] for d in layout.titles) > 1:
        return set()
    return out


def _holds_value(layout: Layout, doc_id: str, stem: str) -> bool:
    """Does some record of the document hold a field value of that one word?"""
    return any(stems(value) == (stem,) for r in layout.records if r.doc_id == doc_id
               for value in r.fields.values())


def _generic(word: str) -> bool:
    """A word that calls any file what it is ("export", "log")."""
    return bool(set(stems(word)) & _DOC_WORDS)


def _selection(named: Iterable[set[str]], layout: Layout) -> list[str]:
    """The documents every naming word names (else any names), none when that is all."""
    sets = [s for s in named if s]
    if not sets:
        return []
    chosen = set.intersection(*sets) or set.union(*sets)
    return [] if chosen >= set(layout.titles) else sorted(chosen)


def collection_run(question: str, layout: Layout, content: set[int]
                   ) -> tuple[set[int], list[str]]:
    """A run of content words after "in/from/of (the)" that all name documents or call a
    file what it is, one at least naming one: its positions and the documents it selects."""
    q_words = words(question)
    positions: set[int] = set()
    named: list[set[str]] = []
    for i, word in enumerate(q_words):
        if word not in _LEADS:
            continue
        j = i + 1
        while j < len(q_words) and q_words[j] in _DETERMINERS:
            j += 1
        run, docs = [], []
        while j in content:
            naming = _documents_naming(q_words[j], layout, rare=False)
            # "in the ham radio log": a word between a naming word and the file word
            # describes the file too.
            bridged = bool(run) and not naming and any(
                k < len(q_words) and _generic(q_words[k]) for k in (j + 1, j + 2))
            if not (naming or _generic(q_words[j]) or bridged):
                break  # "in the FS02 export (not critical)": the run ends at "not"
            run.append(j)
            docs.append(naming)
            j += 1
            if _generic(q_words[j - 1]):
                break  # a file word ends its noun phrase: "in the feed | run longer than"
        # Only a run that narrows the corpus is its collection: "in the mailer service" of
        # one mailer.log is the service, a value. A run that calls the file what it is ("in
        # the fjord history" of one history) names the whole collection, no condition.
        if _selection(docs, layout):
            positions.update(run)
            named.extend(docs)
        elif any(_generic(q_words[k]) for k in run):
            positions.update(run)
    return positions, _selection(named, layout)


def document_words(question: str, layout: Layout, content: Iterable[int]
                   ) -> tuple[set[int], list[str]]:
    """The content words (`content`: positions no value or key took) that name documents,
    with the file words beside them, and the documents they select."""
    q_words = words(question)
    free = sorted(content)
    naming = {i: d for i in free if (d := _documents_naming(q_words[i], layout, rare=True))}
    positions = set(naming)
    for i in free:
        beside = (i - 1 in naming) or (i + 1 in naming)
        if beside and _generic(q_words[i]):
            positions.add(i)
    # "in the two-week print farm report": the words after the article describe the
    # document its title words name, not the items counted.
    for i in sorted(naming):
        j = i - 1
        while j >= 0 and q_words[j].lower() not in _ARTICLES | _PREPOSITIONS:
            j -= 1
        if j >= 0 and q_words[j].lower() in _ARTICLES:
            positions.update(k for k in free if j < k < i)
    return positions, _selection(naming.values(), layout)


_ARTICLES = frozenset(("the", "this", "that"))
_PREPOSITIONS = frozenset("in on of for at from by with to about over under during since "
                          "between after before until till than and or who which that "
                          "whose where when".split())


def titled_documents(question: str, layout: Layout) -> list[str]:
    """The documents the question's words name by title, however often their records say
    those words ("the engine room crew" of an engine room log): where a judgement looks."""
    q_words = words(question)
    return _selection((_documents_naming(q_words[i], layout, rare=False)
                       for i in content_positions(question)), layout)


_GLOSS = re.compile(r"\(([^()]{1,40})\)")
_CODE = re.compile(r"[A-Za-z0-9]{1,4}")


def glossed(question: str, matched: list, fields: dict[str, Counter[str]]
            ) -> tuple[list[FieldFilter], set[int]]:
    """"flagged as high (H)", "disabled (commented out)": the text in parentheses is how the
    records write the value, the words before it its everyday name. Returns filters for a
    code in parentheses that some field holds as written ("H", one letter, which value
    matching leaves out), and the positions of the everyday words, which name no value."""
    ws = words(question)
    filters: list[FieldFilter] = []
    gloss: set[int] = set()
    for m in _GLOSS.finditer(question):
        first = len(words(question[:m.start()]))
        inside = set(range(first, first + len(words(m.group(1)))))
        code = m.group(1).strip()
        holders = [(values[code], key) for key, values in fields.items()
                   if code in values and len(values) <= MAX_DISTINCT]
        if _CODE.fullmatch(code) and holders:
            filters.append(FieldFilter(field=max(holders)[1], value=code))
        elif not any(inside & set(range(v.start, v.stop)) for v in matched):
            continue
        j = first - 1
        while j >= 0 and ws[j] not in FRAME_WORDS:
            gloss.add(j)
            j -= 1
    return filters, gloss


def unit_phrases_dropped(plan: TallyPlan, unit: list[str], records: list[Record]
                         ) -> list[str]:
    """The plan's phrases without those that only repeat the counted noun phrase `unit`
    (its words in order): "how many bookings are for the Garden Room" when the events never
    say "booking". The noun itself goes first; its modifiers ("grant tasks", "spoilt
    papers") say which of them are counted and stay, unless a heading above the records the
    rest selects says them ("weekly alarm tests" under "PART A - WEEKLY USER TESTS"):
    dropping a condition counted every record of the place the question names."""
    if not unit:
        return plan.phrases
    if any(True for _ in select(records, plan)):
        return plan.phrases
    head = next((w for w in reversed(unit) if w.endswith("s") and not w.endswith("ss")),
                unit[-1])
    for dropped in ({head}, set(unit)):
        gone = [p for p in plan.phrases if set(p.split()) <= dropped]
        rest = [p for p in plan.phrases if p not in gone]
        if not gone or not (rest or plan.filters or plan.compare):
            continue
        without = plan.model_copy(update={"phrases": rest})
        chosen = list(select(records, without))
        modifiers = [w for p in gone for w in p.split() if w != head]
        if chosen and all(_heading_says(w, chosen, records) for w in modifiers):
            return rest
    return plan.phrases


def _heading_says(word: str, chosen: list[Record], records: list[Record]) -> bool:
    """Does a record of a document the `chosen` records are in, before the first of them
    there, say `word` (the heading or preamble the chosen records sit under)?"""
    pattern = phrase_regex(word)
    first: dict[str, int] = {}
    for record in chosen:
        first[record.doc_id] = min(first.get(record.doc_id, record.start), record.start)
    return any(r.doc_id in first and r.start < first[r.doc_id] and pattern.search(r.text)
               for r in records)


def file_words_dropped(plan: TallyPlan, unknown: list[str], layout: Layout
                       ) -> tuple[list[str], list[str]]:
    """"the news posts in the feed", "the objects in the museum export": a word that calls a
    file what it is names nothing its records say (when they do not say it). The plan's
    phrases and the unknown words without such words."""
    unknown = [w for w in unknown if not calls_a_file(w)]
    named = [p for p in plan.phrases if calls_a_file(p)]
    if not named:
        return plan.phrases, unknown
    rest = plan.model_copy(update={"phrases": [p for p in plan.phrases if p not in named]})
    if not rest.empty and not any(True for _ in select(layout.records, plan)) and any(
            True for _ in select(layout.records, rest)):
        return rest.phrases, unknown
    return plan.phrases, unknown
