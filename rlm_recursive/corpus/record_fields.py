"""The <label> of <entity>: a field read from the one keyed record (`keyed_records`) a
question names, wherever in the record the field is written.

"freddie lindsay UPN", "turnout egton bridge & grosmont", "members.example.org backend IP",
"Thermo job no. for the -80 freezer B service?": the question names a record (a pupil's
report, a ward's count, a site's block, an outline's task) by words that record says and
its siblings do not, and asks a field the record writes somewhere in it, by a label ("UPN
A82…", "Turnout: 51.8%", "job no. TF-22…") or only by its kind (the one IP address of the
block, the one figure in p/kWh). With no model call:

1. the record: of a group, the one saying most of the question's telling words (those some
   records say and others do not), strictly more than any other, and every name or code of
   the question that any record says;
2. most of what the question says of the record must be said by it, by what the document
   says before its records, or by a record that holds it (a heading above): one word in
   common ("meter") is another document's record; and every code it gives;
3. the value: after a label made of the question's words outside a relative clause (or
   their abbreviations: "Att." for attendance, "Conf." for confirmation), or in a label cell
   with the value beside it; the label says what is asked (the question's asked phrase),
   and not only its head when the record never says the rest ("Tax code" is no "bank sort
   code"); else, when the question asks a kind (an IP address, a port, an amount, a
   duration, a figure in a unit it names), the record's one value of that kind, or the one
   on the line saying most of the question's words;
4. asked directly of a thing the record lists in its body (a candidate's row), the value
   must be on a line naming that thing.
Two records, labels or groups that give different values give nothing (None).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import measure_asked
from .blocks import lines_of, shape
from .described import Described, abbreviates, named_words, question_codes, says_stem, stems_of
from .field_values import ASKED_UNIT, asked_kind, asked_kind_words, candidates
from .keyed_records import keyed_records, preamble
from .naming import HONORIFICS
from .record_units import Unit
from .units import MONEY_SUM, STOP, normalise, stems

__all__ = ["FieldRead", "record_field"]

_ASK = frozenset(stems("which what who whom whose where when how many much name was were is "
                       "are did does do get got give gave set use used now current currently "
                       "right today latest present please tell show find after before per "
                       "since until via re"))
"""Words that ask, or say 'now', rather than name a record or a field."""
_RELATIVE = re.compile(r"\b(?:where|whose|who|that|which|whom)\b\s+\w", re.IGNORECASE)
_HEAD_LINES = 6
"""A record's first lines name it (banner, key line, its fields): a thing named further
down is one of the things it lists."""
_ROW_SHAPES = 3
"""Lines of one shape in a record, from which on they are rows of a list."""


@dataclass(frozen=True)
class FieldRead(Described):
    """A field read from a keyed record (`Described`: the value, its line, the record, the
    label as written, the words that picked the record, the question's words for the
    label), and what above the record names what the question names."""

    context: tuple[int, int] | None = None
    """What the document says above the record (its preamble, a heading over it), when it
    names what the question names and the record does not (cited with it)."""


def _said_code(code: str, text: str) -> bool:
    """The text says the code or number whole ("47" in "bus 47", not in "147" or "4.47")."""
    return re.search(rf"(?<![\w.]){re.escape(code)}(?![\w]|\.\d)", text, re.IGNORECASE) is not None


def _pick(group: list[Unit], words: set[str], must: set[str], codes: list[str]
          ) -> tuple[Unit, set[str], set[str]] | None:
    """The record saying most of the telling words (see the module), the telling words it
    says, and those of them the next best records do not say (what names it)."""
    said_by = []
    for unit in group:
        unit_stems = stems_of(unit.text)
        found = {w for w in words | must if says_stem(unit_stems, w)}
        found |= {f"code:{c}" for c in codes if _said_code(c, unit.text)}
        said_by.append(found)
    telling = set().union(*said_by) - set.intersection(*said_by)
    needed = telling & (must | {f"code:{c}" for c in codes})
    scores = sorted(((len(s & telling), k) for k, s in enumerate(said_by) if needed <= s),
                    reverse=True)
    if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
        return None
    best = said_by[scores[0][1]] & telling
    runners = [said_by[k] for n, k in scores[1:] if n == scores[1][0] and n > 0]
    return group[scores[0][1]], best, best - set().union(*runners)


def _enclosing(groups: list[list[Unit]], unit: Unit) -> str:
    """The text of the records of other groups that hold this one (the heading above)."""
    return " ".join(other.text[:200] for group in groups for other in group
                    if other is not unit and other.start <= unit.start and unit.end <= other.end)


def _own_lines(text: str, unit: Unit, said: set[str], listed: bool = True
               ) -> set[tuple[int, int]] | None:
    """The lines of the record's body saying the words that picked it that its head does
    not say, when there are such words: the record lists the thing asked of (a candidate's
    row; "V9 PLUS" on the page of the V9)."""
    lines = [(s, e, line) for s, e, line in lines_of(text[unit.start:unit.end]) if line.strip()]
    # A row of a list is one of the things listed, even among the first lines (a diary
    # day's "09:00-10:00  Niamh de Búrca  EDT 3"): rows share their shape.
    # (Only in a record no name picked: one a name picked is about it, first lines and all.)
    shapes = Counter(shape(line) for _, _, line in lines) if listed else Counter()
    heads = {k for k, (_, _, line) in enumerate(lines[:_HEAD_LINES])
             if shapes[shape(line)] < _ROW_SHAPES}
    head = " ".join(lines[k][2] for k in heads)
    words = {w for w in said if not w.startswith("code:") and not says_stem(stems_of(head), w)}
    words |= {w for w in said if w.startswith("code:") and not _said_code(w[5:], head)}
    if not words:
        return None
    return {(unit.start + s, unit.start + e) for k, (s, e, line) in enumerate(lines)
            if k not in heads and (k >= _HEAD_LINES or shapes[shape(line)] >= _ROW_SHAPES)
            and all(_said_code(w[5:], line) if w.startswith("code:")
                    else says_stem(stems_of(line), w) for w in words)}


_FOCUS = (
    re.compile(r"^\s*(?:which|what)(?:'s|’s)?\s+(?:is|are|was|were)\s+(?:the\s+|an?\s+)?"
               r"(?P<x>[^?]+?)\s+(?:of|for|in|on|at|from)\s", re.IGNORECASE),
    re.compile(r"^\s*(?:which|what)(?:'s|’s)?\s+(?!(?:is|are|was|were|do|does|did|has|have|"
               r"had|will|would|should|can|could)\b)(?P<x>[^?]+)", re.IGNORECASE),
    re.compile(r"^\s*(?:(?:the\s+)?(?:number|amount|count)\s+of\s+)?(?!(?:who|when|where|how|"
               r"why|which|what|is|are|was|were|do|does|did)\b)(?P<x>[^?]+)", re.IGNORECASE),
    re.compile(r"['’]s\s+(?P<x>[^?]+)", re.IGNORECASE),
)
_FOCUS_END = re.compile(r"\b(?:is|are|was|were|do|does|did|has|have|had|will|would|should|can|"
                        r"could|of|for|in|on|at|to|from|by|with|this|that|who|whose|which|"
                        r"where|when|if|after|before)\b|[,;(]", re.IGNORECASE)


def _focus(question: str) -> list[str]:
    """The words of what is asked ("which local port does …" → local port; "the total on
    X's bill" → total; "X's attendance this term" → attendance), or none when the question
    asks only by its question word ("how much are we asking …")."""
    if (measure := measure_asked(question)) is not None:
        return [measure]  # "how old": the age
    for pattern in _FOCUS:
        if (match := pattern.search(question)) is not None:
            phrase = _FOCUS_END.split(match.group("x"), maxsplit=1)[0]
            return [w for w in stems(phrase) if w not in STOP | _ASK | {"number", "name"}]
    return []


def _names(text: str, word: str) -> bool:
    """The record says the word, or abbreviates it as a label does ("Conf." for
    confirmation)."""
    return says_stem(stems_of(text), word) or any(
        abbreviates(short.lower(), word) for short in re.findall(r"\b([A-Za-z]{2,})\.", text))


def _context(question: str, text: str, groups: list[list[Unit]], group: list[Unit],
             unit: Unit) -> tuple[int, int] | None:
    """Where above the record the question's other words are said: the nearest record of
    another group that holds it (a heading), else the document's preamble."""
    own = stems_of(unit.text)
    missing = {w for w in stems(question) if w not in STOP and not says_stem(own, w)}
    holders = [other for g in groups for other in g if other is not unit
               and other.start <= unit.start and unit.end <= other.end]
    for holder in sorted(holders, key=lambda u: u.end - u.start):
        head = (holder.start, min(holder.end, unit.start))
        above = stems_of(text[head[0]:head[1]])
        if head[1] > head[0] and any(says_stem(above, w) for w in missing):
            return head
    said = preamble(text, group)
    if said.strip() and any(says_stem(stems_of(said), w) for w in missing):
        return 0, len(said.rstrip())
    return None


def _asked_words(question: str) -> set[str]:
    """The words that may label what is asked: all but those of a relative clause, which
    describe the record ("the card used by the guest who had room service": not "room")."""
    relative = _RELATIVE.search(question, 1 + len(question) - len(question.lstrip()))
    head = question[:relative.start()] if relative else question
    return set(stems(head)) - STOP - _ASK


def _read(question: str, text: str, groups: list[list[Unit]], group: list[Unit],
          words: set[str], must: set[str], codes: list[str], either: set[str]
          ) -> FieldRead | None:
    picked = _pick(group, words, must, codes)
    if picked is None:
        return None
    unit, said, naming = picked
    allowed = stems_of(unit.text + " " + preamble(text, group) + " " +
                        _enclosing(groups, unit))
    measure = measure_asked(question)  # "how old": the age, which the question never says
    asked = _asked_words(question) | either | ({measure} if measure else set())
    focus = [w for w in _focus(question) if w in asked]
    # Step 2: the record (with what is said about all records, or above it) says most of
    # what the question says of it: one word in common ("meter") is another document's.
    describing = words - set(focus)
    if 2 * sum(says_stem(allowed, w) for w in describing) < len(describing):
        return None
    kind, _ = asked_kind(question)
    # Words of what is asked that the record does not say: a "bank sort code" where the
    # record has a tax code (a describing "winning" or "used" aside).
    unsaid = {w for w in focus if w not in either and not _names(unit.text, w)
              and not re.search(rf"\b{re.escape(w)}\w*(?:ing|ed)\b", question)}
    if kind is None and focus and not set(focus) - unsaid:
        return None
    # A code the question gives is said by its record (or above it).
    if any(not _said_code(c, unit.text + " " + preamble(text, group) + " "
                          + _enclosing(groups, unit)) for c in codes):
        return None
    named = naming | {w for w in must if says_stem(stems_of(unit.text), w)}
    found = [c for c in candidates(question, unit, text, asked, named)
             if normalise(c.value) not in normalise(question)]
    if focus:  # a label says what is asked, or the value is of the kind asked; a label
        # saying the asked thing ("code") while the record leaves out what kind of it the
        # question asks ("sort") is another thing of that name.
        found = [c for c in found if c.by_kind or (
            c.used & set(focus) and not (focus[-1] in c.used and unsaid))]
    if not found:
        return None
    names = said & (must | {f"code:{c}" for c in codes})
    listed = not names
    if listed:
        # No name picked the record (each of a diary's weeks lists the pupil): the names
        # and codes it says are still the thing asked of, listed in it.
        names = ({w for w in must if says_stem(stems_of(unit.text), w)}
                 | {f"code:{c}" for c in codes if _said_code(c, unit.text)})
    if not _RELATIVE.search(question) and (own := _own_lines(text, unit, names, listed)
                                           ) is not None:
        found = [c for c in found if (c.start, c.end) in own]
    best = max((c.score for c in found), default=(0, 0))
    values = {normalise(c.value): c for c in found if c.score == best}
    if len(values) != 1:
        return None
    read = next(iter(values.values()))
    words = re.findall(r"[A-Za-z][\w'’-]*", question)
    asked_as = " ".join(w for w in words if set(stems(w)) & read.used) if read.used else (
        asked_kind_words(question))
    return FieldRead(read.value, unit.doc_id, read.start, read.end, unit, read.label,
                     sorted(said), asked_as, _context(question, text, groups, group, unit))


def record_field(question: str, docs: Iterable[tuple[str, str]]) -> FieldRead | None:
    """The field the question asks of the keyed record it names (see the module), or None
    when no one record is named or two readings differ."""
    # Names must be said by the record; an acronym ("IP", "UPN") or a title ("Mrs") is
    # a field or a courtesy, not a name.
    must = {w for w in named_words(question) if w not in HONORIFICS and not re.search(
        rf"\b{re.escape(w)}\b", " ".join(re.findall(r"\b[A-Z]{2,5}\b", question)).lower())}
    # Codes and numbers ("the 47", "-80 freezer") must be said by the record, whole.
    codes = question_codes(question) + [n for n in re.findall(r"(?<![\w.])\d{2}(?![\w.])",
                                                                question)]
    # The kind or unit a value is asked in ("backend IP", "p per kWh") says what, not which
    # record.
    words = set(stems(ASKED_UNIT.sub(" ", question))) - STOP - _ASK - set(
        stems(asked_kind_words(question)))
    # "spoilt/rejected": either word may be the one the text uses, so neither is required.
    either = {w for pair in re.findall(r"\w+(?:/\w+)+", question)
              for w in stems(pair.replace("/", " "))}
    words -= either
    reads = []
    for doc_id, text in docs:
        groups = keyed_records(doc_id, text)
        for group in groups:
            if (read := _read(question, text, groups, group, words, must, codes,
                                        either)) is not None:
                reads.append(read)
    # A label holding a sum of its own ("Quoted liner, £1,240 (quote Q-118).  £95 for
    # CCTV") labels no other sum: which of them is asked, the line does not say.
    reads = [r for r in reads
             if not (MONEY_SUM.search(r.label) and MONEY_SUM.search(r.value))]
    values = {normalise(r.value) for r in reads}
    return reads[0] if len(values) == 1 else None

