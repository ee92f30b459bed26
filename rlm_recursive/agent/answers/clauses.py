"""Which clause of a unit answers a question: the kind of value it asks for (a number, a
time, a name, a sum of money), the label that names the value ("Which PO number" - "PO
77318"), the word that picks one of several siblings ("a half plot" - "half plot from £26
to £28"), and in a block of fields, the line whose key the question asks about. A
transcript's speaker is context here, not a clause (unless the question asks "who").
"""

from __future__ import annotations

import re

from ...corpus.asked import asked_label, label_says
from ...corpus.evidence import (
    Unit,
    contains,
    entities,
    has_word,
    normalise,
    qualifiers,
    shared_words,
    siblings,
    stems,
    values,
)
from ...corpus.speakers import strip_speaker
from .kinds import fits_kind

__all__ = ["WHO", "answer_clause", "answers_kind", "keyed_line", "labelled_as_asked", "of_kind",
           "says_asked"]

_CLAUSE = re.compile(r"\s*(?:;|,\s(?!\d{3}\b)|(?<![\s(][A-Z])(?<!^[A-Z])(?<!\b[Nn]o)(?<!\b[Nn]os)"
                     r"\.\s+|\s[—–]\s|\s-\s|\sand\s|:\s)\s*")
"""Where a clause ends; never inside brackets: "Ms Lindqvist (groups C and D)" is one; nor
after "no." ("licence no. DC/AB/118" is a label and its value)."""


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
_WHEN = re.compile(rf"\b\d{{1,2}}:\d\d\b|\b\w+day\b|\b\d{{1,2}}\s*{_MONTH}\b|\b{_MONTH}\s+\d|"
                   r"\b\d{4}-\d\d-\d\d\b", re.IGNORECASE)
_MONEY_WORDS = r"quote|cost|price|budget|fee|deposit|charge|rent|fine|wage|salary|bill|payment"
_MONEY_ASKED = re.compile(rf"\b(?:how\s+much|{_MONEY_WORDS})\b", re.IGNORECASE)
_MONEY = re.compile(r"[£$€¥]\s?\d|\d\s?(?:pounds|dollars|euros|gbp|usd|eur|p)\b", re.IGNORECASE)
_NUMBER_WORDS = (rf"{_MONEY_WORDS}|rate|number|code|extension|phone|mobile|bleep|pager|"
                 r"amount|total|weight|weigh|pressure|temperature|date|time|year|room|dose|"
                 r"reading|ref|reference|id|figure|percentage|speed|size|height|length|age|port")
_NUMBER_ASKED = re.compile(rf"\b(?:how\s+(?:many|much|long|far|old)|when|{_NUMBER_WORDS})\b",
                           re.IGNORECASE)
"""The question asks for a number, a code or a date: a clause with digits answers it."""
WHO = re.compile(r"\s*who(?:m|se)?\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][\w'.-]+\s+[A-Z][\w'-]+")


def _fits(question: str, clause: str) -> float:
    """How well a clause fits the kind of answer the question asks for: a number beside
    the counted noun ("how many doses" → "420 doses"), a date or time, a name."""
    q = question.lower()
    many = re.search(r"\bhow\s+(?:many|much)\s+((?:[a-z-]+\s+){0,2}[a-z-]+)", q)
    if many:
        nouns = [n for n in stems(many.group(1))]
        near = any(re.search(rf"\d[\d,.]*\s*(?:[\w-]+\s+)?{re.escape(n)}", clause.lower())
                   for n in nouns)
        return 2.0 if near else (0.5 if re.search(r"\d", clause) else 0.0)
    if re.match(r"\s*(?:when|what\s+(?:time|date|day))\b", q) or "what time" in q:
        return 1.0 if _WHEN.search(clause) else 0.0
    if _MONEY_ASKED.search(q):
        return 1.5 if _MONEY.search(clause) else 0.0
    if re.match(r"\s*who(?:m|se)?\b", q):
        return 1.0 if _NAME.search(clause) else 0.0
    return 0.0


_LABEL_VALUE = re.compile(r"\b([A-Za-z][A-Za-z-]*)\.?[ \t]*[:#]?[ \t]*((?=[\w/-]*\d)[\w/-]*\w)")
"""A word and the code or number it labels: "PO 77318", "batch KX4471B", "job 448127"."""


_ASKED_LABEL = re.compile(
    r"\b(?:which|what)\s+(?:(?:is|are|was|were)\s+(?:the\s+)?)?((?:[\w-]+\s+){0,2}?[\w-]+)\s+"
    r"(?:is|are|was|were|do|does|did|has|have|had|will|would|can|of|for|on|in|at|to)\b",
    re.IGNORECASE)
"""What "which/what X ..." asks for: "Which PO number is ...", "What batch are ..."."""


def answers_kind(question: str, unit: Unit) -> bool:
    """The unit could answer the question: it says what "which/what X" asks for and holds a
    value of the kind asked (a number for "which port", a time for "when")."""
    return says_asked(question, unit) and of_kind(question, unit.text)


def says_asked(question: str, unit: Unit) -> bool:
    """The unit says what "which/what X ..." asks for ("What deposit ..." - "a refundable
    deposit is payable"), its kind words (number, code) aside."""
    label = _ASKED_LABEL.search(question)
    words = [w for w in stems(label.group(1)) if w not in _KINDS] if label else []
    # "what year": a year written says it ("since 2017"), the word need not be.
    return all(has_word(w, unit.stem_set) or (w == "year" and _YEAR.search(unit.text))
               for w in words)


_KINDS = frozenset(("number", "code", "id", "ref", "refer", "valu"))
_YEAR = re.compile(r"(?<![\d.:/-])(?:1[5-9]|20)\d\d(?![\d.:/-])")


def _labelled(question: str, clause: str) -> bool:
    """The clause gives a new code or number under the word the question asks for ("Which
    PO number ..." - "PO 77318", "What batch ..." - "batch KX4471B"): that label names
    the value."""
    label = _ASKED_LABEL.search(question)
    if label is None:
        return False
    asked, said = set(stems(label.group(1))), set(values(question))
    return any(normalise(m.group(2)) not in said and set(stems(m.group(1))) & asked
               for m in _LABEL_VALUE.finditer(clause))


def _event(question: str, clause: str) -> bool:
    """"When is the new fan expected?": the event asked about is the question's last word;
    its date is in the clause that says it ("ETA 16 April"), not in the subject's ("out of
    service since 2 April awaiting a new fan"). True for every clause of other questions."""
    if not re.match(r"\s*when\b", question, re.IGNORECASE):
        return True
    return bool(shared_words(stems(question)[-1:], frozenset(stems(clause))))


def _wants_number(question: str) -> bool:
    """A number, code or date is asked for ("who ... and on what number?" asks one too)."""
    if WHO.match(question):
        return bool(re.search(rf"\b(?:what|which)\s+(?:{_NUMBER_WORDS})\b", question,
                              re.IGNORECASE))
    return bool(_NUMBER_ASKED.search(question))


def _names_new(question: str, text: str) -> bool:
    said = normalise(question)
    return any(normalise(m.group()) not in said for m in _NAME.finditer(text))


def of_kind(question: str, text: str) -> bool:
    """The text holds a new value of the kind the question asks for: digits for a number
    (a phone number's shape when one is asked), a date or time for "when", a person's name
    for "who" (`kinds.fits_kind`; anything new otherwise)."""
    said = set(values(question))
    new = [v for v in values(text) if v not in said]
    if re.match(r"\s*(?:when|what\s+(?:time|date|day))\b", question, re.IGNORECASE):
        return bool(_WHEN.search(text))
    if not fits_kind(question, text):  # "08:30" is no phone number, a SUMMARY line no one
        return False
    if _wants_number(question):
        return any(c.isdigit() for v in new for c in v)
    if WHO.match(question):
        return _names_new(question, text)
    return bool(new) or bool(set(stems(text)) - set(stems(question)))


def answer_clause(question: str, unit: Unit) -> str:
    """The clause of a prose unit holding a new value beside the most question words, and
    of the kind the question asks for."""
    asked = set(stems(question))
    # The entity picks its own clause ("... 310 and Luis Abara on extension 322") but weighs
    # less than the question's other words: an entry names its entity all through, and a
    # clause that only names it again ("Mr Ibrahim Sadiq") is not the answer.
    named = set(stems(" ".join(entities(question))))
    topic = asked - named
    said = set(values(question))
    named_whole = entities(question)
    # "a half plot" in "Full plot goes from £48 to £52, half plot from £26 to £28": the
    # clause that says the question's contrast word, not its sibling's.
    picked, others = qualifiers(question, unit.stem_set), siblings(question, unit.stem_set)
    # Who speaks a transcript's line answers "who" questions only; else it is context.
    text = unit.text if WHO.match(question) else strip_speaker(unit.text)
    clauses = [c for c in _clauses(text.strip()) if c and c.strip()]
    # "At what time did the ambulance get to the beach for the man ...": the clause saying
    # the ambulance did it, not the one naming the man the entry is about.
    subject = frozenset(stems(found.group(1))) if (found := _SUBJECT.search(question)) else None
    scored = []
    for i, clause in enumerate(clauses):
        new = [v for v in values(clause) if v not in said]
        if not new and not (set(stems(clause)) - asked):
            continue
        near = max((len(shared_words(topic, frozenset(stems(c)))) / (1 + abs(i - j))
                    for j, c in enumerate(clauses)), default=0.0)
        words = frozenset(stems(clause))
        whole = 2.0 * bool(named_whole) * all(contains(normalise(clause), e)
                                              for e in named_whole)
        contrast = bool(picked) and (int(picked <= words) - int(bool(others & words)))
        scored.append((bool(new), contrast, _labelled(question, clause),
                       of_kind(question, clause), _event(question, clause),
                       near + len(shared_words(topic, words)) + 0.5 * len(named & words)
                       + whole + _fits(question, clause) + 2 * _fills_slot(question, clause)
                       + bool(subject and subject <= words),
                       -i, clause))
    if not scored:
        return unit.text.strip()
    clause = re.sub(r"\s+(?:and|or|but|with)$", "", max(scored)[-1].strip().rstrip(".,;:"))
    return _balanced(clause)


_SUBJECT = re.compile(r"\b(?:did|does|do|was|were|has|have|had)\s+(?:the|a|an|their|his|her|"
                      r"our|my|its)\s+([a-z]{3,})\b(?!\s+(?:of|for)\b)")
"""The subject of the question's verb ("did the ambulance get")."""


_STRANDED = re.compile(r"\b([a-z]{3,}(?:ed|en))\s+(to|at|by|for|from|with|into|onto|on|in|under)"
                       r"(?=\s*(?:$|[?.,!]|\b(?:on|in|at|during|last|this|that|yesterday|"
                       r"today)\b))", re.IGNORECASE)
"""A question ending its verb on a preposition ("which pitch was the grand tuned to on the
27th?"): the answer is what follows those words in the text ("Tuned to A442")."""


def _fills_slot(question: str, clause: str) -> bool:
    """The clause says the question's stranded verb and preposition, and a word after them."""
    for match in _STRANDED.finditer(question):
        verb = stems(match.group(1))
        if verb and re.search(rf"\b{re.escape(verb[0][:4])}\w*\s+{match.group(2)}\s+\S",
                              clause, re.IGNORECASE):
            return True
    return False


_FIELD_LINE = re.compile(r"^\s*([A-Za-z_][\w .-]{0,40}?)\s*(?::|=)\s*(\S.*)$")


def keyed_line(question: str, unit: Unit) -> str | None:
    """In a block of `Key: value` or `key = value` lines, the line whose key (else value)
    the question asks about ("max temp" → "max_temp_c = 1285"); None when no line shares a
    word with it or the block is not a record."""
    if not unit.record:
        return None
    asked = frozenset(stems(question))
    said = normalise(question)
    best: tuple[int, int, str] | None = None
    for i, line in enumerate(unit.text.split("\n")):
        match = _FIELD_LINE.match(line)
        if (match is None or normalise(match.group(2).strip()) in said
                or not label_says(question, line)):
            continue
        # The key names the field; the value's words count less ("seg4 = hold 15 min").
        score = (2 * len(shared_words(stems(match.group(1).replace("_", " ")), asked))
                 + len(shared_words(stems(match.group(2)), asked)))
        if score and (best is None or score > best[0]):
            best = (score, -i, line.strip())
    return best[2] if best else None


_PROSE_WORDS = 5
"""Words: a record's cell this long is a note, read as prose."""


def labelled_as_asked(question: str, answer: str, text: str,
                      fields: dict[str, str] | None = None) -> bool:
    """The label over the answer's value says what the question asks for: the column of
    the record's cell that holds it (`fields`), else the `key: value` line of `text` that
    holds it ("MAX_BATCH_SIZE: 800" is no "max replicas", "Room: Consult 1" no "phone
    extension"). Prose, and a question that names no thing ("who ...", "when ..."), are
    not checked here."""
    if not asked_label(question):
        return True
    said = set(values(question))
    anchors = [v for v in values(answer) if v not in said]
    if not anchors:
        return True
    # A field named only by its position ("OBX-5") has no label to say anything.
    cells = [(key, value) for key, value in (fields or {}).items()
             if _holds(value, anchors) and not _POSITIONAL.fullmatch(key)]
    if cells:
        # A column says what its cells are, unless the cell holds columns of its own ("40901
        # Room : 216": a line of several `key : value` pairs read as one); a cell of prose
        # ("Replacing disk 2 under Dell case 184220731") may say it itself, a short one
        # ("Card check") only repeats.
        beside = " ".join(fields.values()) if fields else ""
        return any((label_says(question, key, beside) if (inner := _inner_label(value, anchors))
                    is None else label_says(question, inner))
                   or (len(value.split()) >= _PROSE_WORDS
                       and label_says(question, _labelling(value, anchors)))
                   for key, value in cells)
    lines = [line for line in text.split("\n")
             if _FIELD_LINE.match(line) and _holds(line, anchors)]
    return not lines or any(label_says(question, _labelling(line, anchors)) for line in lines)


_INNER_LABEL = re.compile(r"(?:^|\s)([A-Za-z][\w.#/-]*(?:\s[A-Za-z][\w.#/-]*){0,2})\s*:\s")
"""A label inside a line or cell, before its value: "Room   : 216", "Departure : 26/10/26"."""
_NEXT_WORD = re.compile(r"\s*\(?([^\W\d_][\w-]*)(?!\s*:)")


def _inner_label(piece: str, anchors: list[str]) -> str | None:
    """The last `Label :` written before the value in a piece of text, with the value."""
    cut = _through_value(piece, anchors)
    labels = list(_INNER_LABEL.finditer(cut))
    return cut[labels[-1].start():] if labels else None


def _labelling(piece: str, anchors: list[str]) -> str:
    """The words that label the value in a `key: value` line or a prose cell: from its last
    label (`Label :`) up to the value and the word just after it ("12 cars", "48 hours").
    Words further on qualify something else: "Rate : GBP 118.00 per night (room only)"
    is no room."""
    return _inner_label(piece, anchors) or _through_value(piece, anchors)


def _through_value(piece: str, anchors: list[str]) -> str:
    """`piece` up to the end of the last value of the answer it holds, and the word after."""
    norm_ends = [m.end() for v in anchors for m in re.finditer(
        r"(?<![^\W_])" + re.escape(v) + r"(?![^\W_])", piece, re.IGNORECASE)]
    if not norm_ends:
        return piece
    end = max(norm_ends)
    after = _NEXT_WORD.match(piece, end)
    return piece[:after.end() if after else end]


_POSITIONAL = re.compile(r"[A-Z][A-Z0-9]{2}-\d+")
"""A pipe segment's field name: the segment and a position (`corpus.segments`)."""


def _holds(piece: str, anchors: list[str]) -> bool:
    return any(contains(normalise(piece), v) for v in anchors)


def _clauses(text: str) -> list[str]:
    """`text` cut at `_CLAUSE` separators outside brackets."""
    out, start = [], 0
    for match in _CLAUSE.finditer(text):
        before = text[:match.start()]
        if before.count("(") > before.count(")") or before.count("[") > before.count("]"):
            continue
        out.append(text[start:match.start()])
        start = match.end()
    return [*out, text[start:]]


def _balanced(text: str) -> str:
    """A clause cut out of "(...)" or "[...]" keeps no bracket it does not open or close."""
    for left, right in ("()", "[]"):
        if text.endswith(right) and left not in text:
            text = text[:-1]
        if text.startswith(left) and right not in text:
            text = text[1:]
    return text.strip()
