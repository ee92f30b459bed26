"""A hop through a value: what is asked is not on the line the question describes, but on
the line of a thing that line names, or in the heading the line sits under.

Reports, programmes, registers and config files say a thing's details once, where the thing
is the subject (a card list's "card 20490  PETROV Anton  dept: ...", a rooms table's "Chart
Room ..... second floor", a compose file's `db-replica:` block), and elsewhere only name it
(an event line's "PETROV Anton (#20490)", a talk's "— Chart Room", `PGHOST: db-replica`). Or
they say a detail once over many lines: a finding aid's series heading "(Box 4)" over its
items, a service history's vehicle banner "Colour: Pearl White" over its visits. So, with no
model call, for a question that asks for a labelled thing ("which floor", "how many seats",
"what colour", "since what year"):

1. the lines that match the rest of the question (`blocks.bridge_units`);
2. its scope: the lines it sits under (less indented lines above it, up to a rule, and the
   banner framed by the rules above) and the lines it heads (indented under it). A scope
   line whose part (cell, clause) says the asked label answers (`_labelled_part`), when the
   line itself does not say it;
3. else its values (names, codes, a key's value) that the question does not give; each
   looked up where it is the subject: a line that has it in one of its first two parts, and
   a part that says the asked label and something more (or a bare key and the items under
   it).
Two values, or two of the question's lines, that lead to different answers say nothing
(None): the question's bridge is not known. The answer cites the subject line and names the
value as its bridge; the bridge's line is cited too.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from ...corpus.asked import asked_label, label_words
from ...corpus.blocks import lines_of
from ...corpus.dates import MONTHS
from ...corpus.glossary import glossed
from ...corpus.units import STOP, abbreviates, has_word, normalise, stems
from ...store import Store
from ...types import SpanRef
from ..answers.extractive import Extract
from ..counting.plan_words import EVENT_TIME
from .blocks import bridge_units
from .bridges import role_spans
from .chain import Chain

__all__ = ["described", "follow_hop", "hop_label", "hop_through", "labelled_part",
           "says_label", "subject_parts"]

_LEAD_IN = re.compile(r"^\s*(on|in|at|since|from|for|to|by|until|till)\s+(?=(?:which|what)\b)",
                      re.IGNORECASE)
"""A preposition before the question word: "since what year" asks for what "since" says."""
_PARTS = re.compile(r"\s{2,}|\t|\s*[|;,]\s*|\s*\.{3,}\s*|\s+[—–]\s+|\s*\[|\]\s*|\s*\(|\)\s*"
                    r"|\s+-{1,2}\s+(?=[A-Z][\w .]{0,20}:)")
"""Where a line's parts (cells, clauses, bracketed asides) divide; a hyphen only before a
label ("TUE 4 AUG 2026 - WO: Pavel Novak", not "HILLSIDE HARRIERS - 5K RACE")."""
_RULE = re.compile(r"\s*([=\-*_~#+])\1{9,}\s*")
_CANDIDATE = re.compile(r"(?:[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|\d[\w-]*|of|de|van|von))*"
                        r"|[\w./-]*\d[\w./-]*|[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)")
"""A value a line may name: a capitalised run ("Chart Room", "PETROV Anton"), a token with
a digit ("20490"), an identifier joined by hyphens or underscores ("db-replica")."""
_KEY_VALUE = re.compile(r"^\s*-?\s*[\w.-]+\s*[:=]\s*\[?([\w./-]+)")
_BANNER = 5
"""Lines between two rules read as the banner over what follows."""
_UNITS = 3


def hop_label(question: str) -> tuple[str, ...]:
    """The stems the answer's part must say: the asked label ("floor", "seat"), or the
    preposition the question word follows ("since" for "since what year")."""
    lead = _LEAD_IN.match(question)
    rest = question[lead.end():] if lead else question
    label = asked_label(rest)
    return (*label, *stems(lead.group(1))) if lead and lead.group(1).lower() == "since" \
        else label


_WH = re.compile(r"^\s*(?:(?:on|in|at|since|from|for|to|by|until|till)\s+)?(?:which|what|how\s+"
                 r"(?:many|much))\s+(?:[\w-]+\s+){0,3}?", re.IGNORECASE)


def described(question: str) -> str:
    """The question without what it asks for: the description of the line it is about
    ("on which floor is the room hosting the funding bid workshop" → "is the room hosting
    the funding bid workshop")."""
    if (event := EVENT_TIME.search(question)) is not None:
        # "on the day the beach had to be closed at setup": the line of what happened then.
        return re.split(r"[,?]", question[event.end():], maxsplit=1)[0].strip()
    match = _WH.match(question)
    if match is None:
        return question
    label = set(hop_label(question))
    rest = question[match.start():]
    words = rest.split()
    # The asked phrase's words and the question word go; the rest describes.
    kept = [w for w in words if not (set(stems(w)) & label)]
    body = " ".join(kept)
    return _WH.sub("", body, count=1) if _WH.match(body) else body


def says_label(question: str, text: str) -> bool:
    """The text says what the question asks for (its label, in words): an answer read on
    the question's own line needs no hop."""
    label = hop_label(question)
    return bool(label) and any(_says_label(part, label) for part in subject_parts(text))


def _says_label(part: str, label: tuple[str, ...]) -> bool:
    """The part says the label in words: the word itself, or an abbreviation of it used as
    a key ("dept:" for department); not a value's shape (a phone number is anyone's)."""
    own = stems(part)
    said = frozenset(own) | glossed(own, stems)  # "Vikt: 10.9" says the weight
    if any(has_word(w, said) for w in label):
        return True
    keys = re.findall(r"([a-z]{3,})\s*[:.]", part.lower())
    return any(abbreviates(key, word) for key in keys for word in label)


def _labels(part: str, label: tuple[str, ...]) -> bool:
    """The part is a label and its value: it opens or ends with the label ("seats 85",
    "second floor", "dept: Finance"), not a sentence that uses the word ("that's the
    port-side team")."""
    words = re.findall(r"[^\W\d_][\w'’]*[:.]?|\d\S*", part)
    return bool(words) and any(_says_label(words[at], label) for at in {0, len(words) - 1})


def subject_parts(line: str) -> list[str]:
    """A line's parts: its cells, clauses and bracketed asides, non-empty."""
    return [p.strip() for p in _PARTS.split(line) if p and p.strip()]


def labelled_part(lines: list[str], label: tuple[str, ...], skip: str = "") -> str | None:
    """The one part of the lines that says the label and something more (not `skip`'s): a
    bare key ("ports:") takes the items under it. None when none or several differ."""
    found: list[str] = []
    for at, line in enumerate(lines):
        for part in subject_parts(line):
            if (skip and normalise(skip) in normalise(part)) or not _labels(part, label):
                continue
            if part.endswith(":") and at + 1 < len(lines):
                part = f"{part} {lines[at + 1].strip().lstrip('- ').strip()}"
            rest = set(stems(part)) - set(label)
            if rest - label_words(" ".join(label)) or re.search(r"\d", part):
                found.append(part)
    found = list(dict.fromkeys(found))
    # The asked noun itself ("ports:" for "which host port") before a word beside it
    # ("PRIMARY_HOST: db").
    head = [part for part in found if has_word(label[0], frozenset(stems(part)))]
    found = head or found
    return found[0] if len(found) == 1 else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _scope(lines: list[tuple[int, int, str]], at: int) -> tuple[list[int], list[int]]:
    """The lines over line `at` (less indented lines above it up to a rule, then the banner
    between the two rules above), and the lines under it (indented past it)."""
    over: list[int] = []
    indent = _indent(lines[at][2])
    j = at - 1
    while j >= 0 and not _RULE.fullmatch(lines[j][2]):
        text = lines[j][2]
        if text.strip() and _indent(text) < indent:
            over.append(j)
            indent = _indent(text)
        j -= 1
    # The block's opening line under a rule ("SAT 13 DEC 2025 — Patrol 5 — PC: ..." over the
    # day's entries), at the left margin: a banner of its own block. (No rule, no block.)
    opening = next((k for k in range(j + 1, at) if lines[k][2].strip()), None) if j >= 0 else None
    if opening is not None and opening not in over and not _indent(lines[opening][2]):
        over.append(opening)
    upper = next((k for k in range(j - 1, max(j - _BANNER - 2, -1), -1)
                  if _RULE.fullmatch(lines[k][2])), None)
    if j >= 0 and upper is not None:
        over += [k for k in range(upper + 1, j) if lines[k][2].strip()]
    under = []
    for k in range(at + 1, len(lines)):
        text = lines[k][2]
        if not text.strip() or _indent(text) <= _indent(lines[at][2]):
            break
        under.append(k)
    return over, under


def _candidates(texts: list[str], question: str, label: tuple[str, ...]) -> list[str]:
    """The values the lines name that the question does not give (nor its label)."""
    said = normalise(question)
    out: list[str] = []
    for text in texts:
        found = [m.group() for m in _CANDIDATE.finditer(text)]
        if key := _KEY_VALUE.match(text):
            found.append(key.group(1))
        for value in found:
            value = value.strip(".:'’-")
            norm = normalise(value)
            if (len(norm) < 2 or norm in said or norm in STOP or not re.search(r"\w", norm)
                    or set(stems(value)) <= set(label)):
                continue
            out.append(value)
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=16)
def _heads(text: str) -> tuple[str, tuple[int, ...]]:
    """Each line's first two parts (normalised), one line each, and where each starts:
    what a line is about, where a value it names is its subject ("card 20490 | PETROV
    Anton", "Chart Room | second floor")."""
    heads = [" | ".join(normalise(p) for p in subject_parts(line)[:2]).replace("\n", " ")
             for _, _, line in lines_of(text)]
    starts, at = [], 0
    for head in heads:
        starts.append(at)
        at += len(head) + 1
    return "\n".join(heads), tuple(starts)


def _subject_lines(text: str, pattern: re.Pattern[str]) -> list[int]:
    """The lines (indexes) the pattern matches in the first two parts of."""
    joined, starts = _heads(text)
    return list(dict.fromkeys(bisect.bisect_right(starts, m.start()) - 1
                              for m in pattern.finditer(joined)))


def hop_through(store: Store, session_id: str, question: str) -> Chain | None:
    """`follow_hop` from the lines that match a description strictly, else hold every
    value it gives (`blocks.bridge_units`)."""
    return follow_hop(store, session_id, question, lambda description: [
        ref for ref, _ in bridge_units(store, session_id, description)])


def follow_hop(store: Store, session_id: str, question: str,
               find: Callable[[str], list[SpanRef]]) -> Chain | None:
    """The answer read in the scope of the question's line, or on the line of a thing that
    line names; None when neither says it, or two say different things. `find`: the lines
    that match a description (strictly)."""
    label = hop_label(question)
    if not label:
        return None
    texts = {d.id: store.text(d) for d in store.documents(session_id)}
    description = described(question)
    for ref in _bridge_lines(texts, description, find)[:_UNITS]:
        found = _from_line(texts, ref, description, question, label)
        if found is not None:
            return found if found is not _DISAGREE else None
    return None


def _bridge_lines(texts: dict[str, str], description: str,
                  find: Callable[[str], list[SpanRef]]) -> list[SpanRef]:
    """The lines the description matches: strictly; else a role it names ("the society's
    waiting-list officer"), strictly; else the one line that holds every value it gives,
    however the line writes a date or a time ("11 March" is "11.03.2026", "02:14" is
    "02:14:37")."""
    if found := find(description):
        return found
    plain = re.sub(r"[’']s\b", "", description)
    for start, end in role_spans(plain):
        # A role is a noun with what it does ("waiting-list officer"), not a bare noun.
        if len(set(stems(plain[start:end])) - STOP) >= 2 and (found := find(plain[start:end])):
            return found
    forms = _value_forms(description)
    held = [ref for doc_id, text in texts.items()
            for ref in _holding(doc_id, text, forms)] if len(forms) >= 2 else []
    return held if len(held) == 1 else _keyed_heads(texts, description)


def _holding(doc_id: str, text: str, forms: list[re.Pattern[str]]) -> list[SpanRef]:
    """The lines of the text every form matches in: the lines the last form (a name or a
    code when the description gives one: the rarest and quickest to find) matches in,
    searched over the whole text once, then the other forms on those lines only (a log of
    millions of characters is not read line by line per form)."""
    found = []
    for start in dict.fromkeys(text.rfind("\n", 0, m.start()) + 1
                               for m in forms[-1].finditer(text)):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if all(form.search(text, start, end) for form in forms):
            found.append(SpanRef(doc_id=doc_id, start=start, end=end))
    return found


_HEAD_KEY = re.compile(r"^\s*([A-Za-z][\w-]*)\s*:\s*$")


def _keyed_heads(texts: dict[str, str], description: str) -> list[SpanRef]:
    """The one key line (`backup:`, a config's block) that the description names by its
    key ("the backup job"): the block under it is what the description is about."""
    wanted = set(stems(description)) - STOP
    held = [SpanRef(doc_id=doc_id, start=start, end=end)
            for doc_id, text in texts.items() for start, end, line in lines_of(text)
            if (key := _HEAD_KEY.match(line)) and stems(key.group(1)) and set(
                stems(key.group(1))) <= wanted]
    return held if len(held) == 1 else []


_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\b|\b([A-Za-z]{3,9})\s+"
                        r"(\d{1,2})(?:st|nd|rd|th)?\b")
_TIME = re.compile(r"\b(\d{1,2}):(\d\d)\b")


def _value_forms(description: str) -> list[re.Pattern[str]]:
    """Each value the description gives, as a line may write it: a day and month in any
    date order and spelling, a time with or without its seconds, a name or code as is."""
    forms: list[re.Pattern[str]] = []
    rest = description
    for match in _DAY_MONTH.finditer(description):
        month = MONTHS.get((match.group(2) or match.group(3)).lower())
        if month is None:
            continue
        day = int(match.group(1) or match.group(4))
        names = "|".join(n for n, m in MONTHS.items() if m == month)
        forms.append(re.compile(
            rf"(?<![\d.])0?{day}[./-]0?{month}(?![\d])|\b(?:19|20)\d\d-0?{month}-0?{day}\b"
            rf"|\b0?{day}\s*(?:{names})[a-z]*\b|\b(?:{names})[a-z]*\.?\s+0?{day}\b",
            re.IGNORECASE))
        rest = rest.replace(match.group(), " ")
    for match in _TIME.finditer(rest):
        forms.append(re.compile(rf"(?<![\d:])0?{int(match.group(1))}:{match.group(2)}(?!\d)"))
        rest = rest.replace(match.group(), " ")
    for match in _CANDIDATE.finditer(rest):
        if match.start() and re.search(r"[A-Z\d]", match.group()):
            value = re.escape(match.group().strip(".:'’-"))
            forms.append(re.compile(rf"(?<![\w-]){value}(?![\w-])", re.IGNORECASE))
    return forms


_DISAGREE = Chain(Extract("", SpanRef(doc_id="", start=0, end=0)), [], [])


def _clauses(text: str, description: str) -> list[str]:
    """The clauses of a line that say most of the description's words ("Waiting-list
    Officer — Gwen Arkwright" of the officers' line): the values of the others are other
    things'."""
    parts = [p for p in re.split(r";|(?<=[.!?])\s+", text) if p.strip()]
    wanted = set(stems(description))
    said = [len(wanted & set(stems(p))) for p in parts]
    return [p for p, n in zip(parts, said, strict=True) if n == max(said)] if parts else [text]


def _from_line(texts: dict[str, str], ref: SpanRef, description: str, question: str,
               label: tuple[str, ...]) -> Chain | None:
    text = texts[ref.doc_id]
    lines = lines_of(text)
    at = next((i for i, (start, end, _) in enumerate(lines) if start <= ref.start <= end), None)
    if at is None:
        return None
    own = [lines[i][2] for i in range(at, len(lines)) if lines[i][0] < ref.end] or [lines[at][2]]
    if labelled_part(own, label) is not None or any(
            _says_label(part, label) for line in own for part in subject_parts(line)):
        return None  # the line says what is asked: no hop (the extractive answer's)
    over, under = _scope(lines, at)
    bridge = SpanRef(doc_id=ref.doc_id, start=lines[at][0], end=lines[at][1])
    for j in over:
        part = labelled_part([lines[j][2]], label)
        if part is not None:
            # What the heading's line is about ("Reg: KX19 HNB", "SERIES 3") is the hop:
            # the answer is that thing's, not the question's line's own.
            head = SpanRef(doc_id=ref.doc_id, start=lines[j][0], end=lines[j][1])
            about = [p for p in subject_parts(lines[j][2]) if p != part][:1]
            return Chain(Extract(part, head), about, [bridge])
    named = _candidates([*_clauses(" ".join(own), description),
                         *(lines[k][2] for k in under), *(lines[j][2] for j in over)],
                        question, label)
    answers: dict[str, tuple[str, SpanRef]] = {}
    rows_of = {doc_id: lines_of(other) for doc_id, other in texts.items()} if named else {}
    for value in named:
        pattern = re.compile(rf"(?<![\w-]){re.escape(normalise(value))}(?![\w-])")
        for doc_id, other in texts.items():
            rows = rows_of[doc_id]
            for i in _subject_lines(other, pattern):
                if doc_id == ref.doc_id and abs(i - at) <= len(under) + len(own):
                    continue
                start, end, line = rows[i]
                _, below = _scope(rows, i)
                part = labelled_part([line, *(rows[k][2] for k in below)], label, skip=value)
                if part is not None:
                    last = rows[below[-1]][1] if below else end
                    answers.setdefault(normalise(part), (value, SpanRef(
                        doc_id=doc_id, start=start, end=last)))
    if not answers:
        return None
    if len(answers) > 1:
        return _DISAGREE
    part, (value, where) = next(iter(answers.items()))
    shown = texts[where.doc_id][where.start:where.end]
    written = next((p for p in _all_parts(shown) if normalise(p) == part), part)
    return Chain(Extract(written, where), [value], [bridge])


def _all_parts(text: str) -> list[str]:
    lines = text.split("\n")
    out = []
    for at, line in enumerate(lines):
        for part in subject_parts(line):
            out.append(part)
            if part.endswith(":") and at + 1 < len(lines):
                out.append(f"{part} {lines[at + 1].strip().lstrip('- ').strip()}")
    return out
