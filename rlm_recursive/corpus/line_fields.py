"""A field of the one line a question names by a rare token: logs and lists that write one
event or item a line with its fields inline (`key=value`, `key: value`, "Label value"
cells).

"the size of the message that ops@example.invalid sent", "which status code did the
delivery to a.b@example.invalid end with", "gas meter reading at move-in": the line is the
one saying the question's anchors (an e-mail address, a host, a code), or, with none, the
one of the lines giving an asked field that says strictly most of the question's other
words ("gas" where the next line says "water"). On it, the value after a label made of the
question's asked words (`field_values.candidates`: a value has a digit, so "status=failed"
is no code). With no model call; None (refused) when:
- no line says the anchors, or more than `MAX_LINES` lines say them and give the asked
  field (a host a run names on every step's line is read from the few giving it); or two
  lines give different values;
- two labels on the line fit the asked words equally and give different values;
- with no anchor, the document does not say most of the question's words, or no line is
  picked strictly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import asked_label, asked_phrase
from .blocks import lines_of
from .described import question_codes, says_stem, stems_of
from .field_values import Candidate, candidates
from .record_units import Unit
from .units import EMAIL, SENTENCE_END, STOP, normalise, stems

__all__ = ["MAX_LINES", "LineField", "anchors", "line_field"]

MAX_LINES = 4
"""An anchor said on more lines than this names a sender or a host of the whole log, not
one event."""
_HEAD_LINES = 16
"""A document's title block is at most this many lines: it says what all its lines are
about."""
_HOST = re.compile(r"(?<![\w@.-])[a-z][\w-]*(?:\.[a-z][\w-]*)+\.[a-z]{2,}(?![\w@-]|\.\w)",
                   re.IGNORECASE)
"""A host name ("mx.example.invalid"); an e-mail address is read whole first."""


@dataclass(frozen=True)
class LineField:
    value: str
    doc_id: str
    start: int
    end: int
    """The line's span in its document (cited)."""
    label: str
    asked_as: str
    """The question's words the label says ("size" for `size=`), for grounding."""
    anchors: tuple[str, ...]
    context: tuple[int, int] | None = None
    """The document's title block, when the question says what it says and the line does
    not ("Flat 3" for a meter reading of the flat's inventory): cited with the line."""


def anchors(question: str) -> list[str]:
    """The question's rare tokens, as written: e-mail addresses, host names, codes with a
    digit ("4Rk2", "INV-2231")."""
    found = [m.group() for m in EMAIL.finditer(question)]
    rest = EMAIL.sub(" ", question)
    found += [m.group() for m in _HOST.finditer(rest)]
    found += [c for c in question_codes(_HOST.sub(" ", rest)) if re.search(r"\d", c)]
    return list(dict.fromkeys(a.rstrip(".") for a in found))


def said_whole(token: str, line: str) -> bool:
    """The line says the token whole ("a@b.invalid" not in "xa@b.invalid", "47" not in
    "147")."""
    return re.search(rf"(?<![\w@.+-]){re.escape(token)}(?![\w@-]|\.\w)", line,
                     re.IGNORECASE) is not None


def _names(question: str) -> set[str]:
    """The stems of the names the question gives past its first word ("Mr Kwame Boateng"),
    not its acronyms ("DSN", "IP": kinds of field)."""
    return set(stems(" ".join(re.findall(r"(?<=\s)[A-Z][a-z][\w'’-]*", question))))


def _reads(question: str, doc_id: str, start: int, end: int, text: str, asked: set[str],
           said: set[str]) -> list[Candidate]:
    """The values the line gives after a label of the asked words (not one the question
    itself gives, nor one read only by its kind: a line has many figures)."""
    unit = Unit(doc_id, start, end, (), text[start:end])
    return [c for c in candidates(question, unit, text, asked, said)
            if not c.by_kind and c.used & asked and normalise(c.value) not in normalise(
                question)]


def _one(reads: list[tuple[Candidate, str, int, int]]) -> tuple[Candidate, str, int, int] | None:
    """The best-fitting read, when every read of that fit gives one value."""
    if not reads:
        return None
    best = max(c.score for c, *_ in reads)
    top = [r for r in reads if r[0].score == best]
    return top[0] if len({normalise(c.value) for c, *_ in top}) == 1 else None


def _anchored(question: str, tokens: list[str], docs: list[tuple[str, str]], asked: set[str]
              ) -> list[tuple[Candidate, str, int, int]] | None:
    lines = [(doc_id, s, e) for doc_id, text in docs for s, e, line in lines_of(text)
             if all(said_whole(t, line) for t in tokens)]
    if not lines:
        return None
    said = {w for t in tokens for w in stems(t)}
    texts = dict(docs)
    reads = [[(c, doc_id, s, e)
              for c in _reads(question, doc_id, s, e, texts[doc_id], asked - said, said)
              if _same_sentence(texts[doc_id][s:e], c.value, tokens)]
             for doc_id, s, e in lines]
    if len(lines) > MAX_LINES:
        # A host a run's output names on every step's line: only the lines giving the
        # asked field are its record (the recap's `ok=`), and they must be few too.
        reads = [found for found in reads if found]
        if len(reads) > MAX_LINES:
            return None
    return [read for found in reads for read in found]


def _same_sentence(line: str, value: str, tokens: list[str]) -> bool:
    """The value is said in a sentence of the line that says the anchors: "Distance 58 km,
    ascent 812 m. The v1 card went ..." gives no ascent of v1."""
    return any(value in sentence and all(said_whole(t, sentence) for t in tokens)
               for sentence in SENTENCE_END.split(line))


def _unanchored(question: str, docs: list[tuple[str, str]], asked: set[str], head: set[str]
                ) -> list[tuple[Candidate, str, int, int]] | None:
    """The reads of the one line, of the lines giving the asked field and saying all of
    the asked phrase ("water meter reading"), saying strictly most of the question's words
    that some such lines say and others do not."""
    words = set(stems(question)) - STOP
    phrase = set(asked_phrase(question))
    out = []
    for doc_id, text in docs:
        # The document says most of what the question says: else it is about another thing.
        if 4 * sum(says_stem(stems_of(text), w) for w in words) < 3 * len(words):
            continue
        read = [(s, e, stems_of(line), [c for c in _reads(question, doc_id, s, e, text, asked,
                                                           set()) if c.used & head])
                for s, e, line in lines_of(text)]
        read = [r for r in read if r[3] and all(says_stem(r[2], w) for w in phrase)]
        if not read:
            continue
        said = [{w for w in words if says_stem(line_stems, w)} for _, _, line_stems, _ in read]
        telling = set().union(*said) - set.intersection(*said) if len(said) > 1 else said[0]
        scores = sorted(((len(s & telling), k) for k, s in enumerate(said)), reverse=True)
        if scores[0][0] == 0 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
            continue
        s, e, line_stems, found = read[scores[0][1]]
        if _about_another_line(text, s, line_stems, words - phrase):
            continue
        out += [(c, doc_id, s, e) for c in found
                if _told_beside(text[s:e], c.value, words - phrase)]
    return out


def _told_beside(line: str, value: str, rest: set[str]) -> bool:
    """The value is not only in the tail of a sentence begun on the line before: "...
    clinic in\nroom 7. Dr Varma is the safeguarding lead" gives another doctor's room, not
    the lead's; "Unsigned callbacks. Retried 3 times only." keeps its topic."""
    sentences = [part for part in SENTENCE_END.split(line) if part.strip()]
    said = {w for w in rest if says_stem(stems_of(line), w)}
    if len(sentences) < 2 or not said or not line.lstrip()[:1].islower():
        return True
    tail, others = sentences[0], sentences[1:]
    return (value not in tail or any(says_stem(stems_of(tail), w) for w in said)
            or any(value in sentence for sentence in others))


def _about_another_line(text: str, start: int, line_stems: set[str], rest: set[str]) -> bool:
    """The question's words beside the asked phrase ("of the electricity substation lease")
    are said by other lines of the document and by neither the line picked nor the title
    block: the question asks the field of another entry ("Lessee's title WX501163"), not the
    line that merely gives one ("Title number WX418827")."""
    head = _head(text)
    above = stems_of(text[head[0]:head[1]])
    if any(says_stem(line_stems, w) or says_stem(above, w) for w in rest):
        return False
    return any(says_stem(stems_of(line), w) for s, _, line in lines_of(text)
               if s != start and s >= head[1] for w in rest)


def _head(text: str) -> tuple[int, int]:
    """The document's title block: its first lines, up to the first blank line after them."""
    end = 0
    for _, e, line in lines_of(text)[:_HEAD_LINES]:
        if not line.strip() and end:
            break
        end = e
    return 0, end


def _context(question: str, text: str, start: int, end: int) -> tuple[int, int] | None:
    """Every name the question gives is said by the line, or else by the document's title
    block (returned, to be cited): a line of another person's record is not theirs. The
    block is also returned when it says other words of the question the line does not
    ("check-in", "flat")."""
    line = stems_of(text[start:end])
    head = _head(text)
    above = stems_of(text[head[0]:head[1]])
    names = _names(question)
    if not all(says_stem(line, w) or says_stem(above, w) for w in names):
        raise LookupError
    missing = {w for w in stems(question) if w not in STOP and not says_stem(line, w)}
    return head if start >= head[1] and any(says_stem(above, w) for w in missing) else None


def line_field(question: str, docs: Iterable[tuple[str, str]]) -> LineField | None:
    """The field the question asks of the line it names (see the module), or None."""
    docs = list(docs)
    tokens = anchors(question)
    # The words that may label what is asked: the asked phrase's ("size", "status code"),
    # not a name the question gives (it names the line). A question naming no thing
    # ("what time was ...") asks a column or a sentence, not a labelled field.
    asked = set(asked_phrase(question)) - STOP - _names(question)
    asked -= {w for t in tokens for w in stems(t)}
    if not asked:
        return None
    # With no anchor, the label must say the asked phrase's head: a line's other cells
    # ("Emergency  20") are not what is asked.
    reads = (_anchored(question, tokens, docs, asked) if tokens
             else _unanchored(question, docs, asked, set(asked_label(question)[:1])))
    picked = _one(reads or [])
    if picked is None:
        return None
    read, doc_id, start, end = picked
    try:
        context = _context(question, dict(docs)[doc_id], start, end)
    except LookupError:  # a name the question gives is said by neither
        return None
    asked_as = " ".join(w for w in re.findall(r"[A-Za-z][\w'’-]*", question)
                        if set(stems(w)) & read.used)
    return LineField(read.value, doc_id, start, end, read.label, asked_as or read.label,
                     tuple(tokens), context)
