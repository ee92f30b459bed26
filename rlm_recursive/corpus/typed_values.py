"""The one value of the asked kind on the line the question's words pick, when no label
names it: a step's time ("Install postgresql-15 ...... 94.31s"), a version ("Install nginx
1.24.0"), a size limit ("+ client_max_body_size 25m;" on a diff's added side), a length, an
amount beside the question's own verb ("Estimate given £685.00, invoiced £742.36"), a due
date, an IP address.

The kind comes from the question's wording ("how long did it take", "which version", "what
limit", "below what depth", "how much was invoiced", "when is it due", "which IP"). The line
gives a value of the kind and says at least two of the question's words, more than any
other (its paragraph breaks ties). With no model call; None (refused) when:
- the question asks no kind this module reads (an IPv6 address, a weight);
- a line that gives no such value says more of the question's words, outside the
  candidate's paragraph (the question describes another line);
- the line is a grid's row (its columns are the grid readers'), or lines tied with it give
  other values;
- the line gives several values of the kind that nothing tells apart: the words right
  before a value label it, and a label the question does not say names another value
  ("Due 13/10/2026" is no checkout date); a date of another weekday than the question's;
  a version not written right after the thing asked; a sentence wrapped onto the next line
  is read whole ("£145 per request for" / "a householder, £298 otherwise");
- another paragraph of the document gives a value of the kind on a line saying a question
  word this paragraph does not ("the barn conversion" over another fee);
- the question names an entity (a name, a month) that neither the line nor one line above
  it in its paragraph or the document's first lines says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .asked import qualifiers
from .dates import MONTHS, date_of, said_dates, weekday_named
from .grid_tables import grids
from .naming import entities, says
from .units import CONTINENTAL_SUM, STOP, normalise, stems

__all__ = ["KINDS", "TypedValue", "asked_kind", "gives_kind", "typed_value"]

_NUM = r"\d+(?:[.,]\d+)?"
_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = (
    ("ip", re.compile(r"\bip(?:v4)?\b(?:\s+address)?", re.I),
     re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")),
    ("version", re.compile(r"\bversion\b", re.I),
     re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\d.]*\d)")),
    ("duration", re.compile(r"\bhow\s+long\b.*\b(?:take|took|last|run|ran|spend|spent)\b"
                            r"|\b(?:duration|elapsed)\b", re.I),
     re.compile(rf"(?<![\w.]){_NUM}\s?(?:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)"
                r"(?![\w])", re.I)),
    ("size", re.compile(r"\b(?:size|limit|quota|capacity)\b", re.I),
     re.compile(rf"(?<![\w.]){_NUM}\s?(?:[kmgt]i?b?|bytes?)(?![\w])", re.I)),
    ("length", re.compile(r"\b(?:depth|deep|how\s+far|distance|height|how\s+high|how\s+tall|"
                          r"width|how\s+wide)\b", re.I),
     re.compile(rf"(?<![\w.]){_NUM}\s?(?:feet|foot|ft|metres?|meters?|m|km|kilometres?|"
                r"miles?|cm|mm|inch(?:es)?|yards?)(?![\w])", re.I)),
    ("amount", re.compile(r"^(?!.*\b(?:weigh\w*|heavy|long|far|tall|time|many|often)\b).*"
                          r"(?:\bhow\s+much\b(?!\s+(?:longer|later|earlier))"
                          r"|\b(?:cost|price|fee|charged?|paid|invoiced|billed)\b)", re.I),
     # Guineas ("4,200 gns"): what livestock and bloodstock still sell for.
     # A continental sum first ("€ 3.388,72", "€ 12,50"), its decimals kept.
     re.compile(rf"[£$€]\s?(?:{CONTINENTAL_SUM}|\d[\d,]*(?:\.\d\d)?)"
                r"|\b\d[\d,]*(?:\.\d\d)?\s?(?:GBP|USD|EUR|gns|guineas)\b")),
    ("time", re.compile(r"\b(?:what|which)\s+time\b|(?<!the\s)\btime\s+of\b", re.I),
     re.compile(r"(?<![\d:.])(?:[01]?\d|2[0-3])[:.][0-5]\d(?:\s?[ap]\.?m\.?)?(?![\d:.])",
                re.I)),
    ("date", re.compile(r"^\W*when\b|\b(?:what|which)\s+date\b|\bdue\s+(?:on|by|date)\b"
                        r"|\bwhen\b.*\bdue\b", re.I), None),
)
"""(kind, how a question asks it, how a line writes it); a date is read by `said_dates`."""
KINDS = frozenset(kind for kind, _, _ in _KINDS)
_NOT_READ = re.compile(r"\bipv6\b|\baaaa\b", re.I)
"""An IPv6 address asked: no IPv4 value answers it."""
_KIND_WORDS = frozenset(stems("how long much what which when ip take took"))
"""The question's words that ask the kind, not the line ("size", "depth" may be on it)."""
_HOW_MUCH_VERB = re.compile(r"\bhow\s+much\s+(?:was|is|were|did|does|has|had|will)\s+"
                            r"(?:[\w']+\s+){0,5}?([a-z]+ed|paid|spent|owed|due)\b", re.I)
""""how much was Mr X actually charged": the verb that tells the amount asked from others."""
_VERSION_OF = re.compile(r"([\w.+-]+)\s+version\b|\bversion\s+of\s+(?:the\s+)?([\w.+-]+)", re.I)
_NEWER = re.compile(r"\b(?:now|new|current(?:ly)?|changed?\s+to|after)\b", re.I)
_OLDER = re.compile(r"\b(?:old|previous(?:ly)?|before|used\s+to)\b", re.I)
_MIN_WORDS = 2
_WRAP_LINES = 2
_MONTH_STEMS = frozenset(stems(" ".join(MONTHS)))
_GAPS = re.compile(r"\S\s{2,}(?=\S)")
_GRID_GAPS = 3
_HEAD_LINES = 15
"""A document's first lines say what all of it is about (a register's property, a run's
tool)."""


@dataclass(frozen=True)
class TypedValue:
    """A value of the asked kind on a line (`doc_id[start:end]`), and the words labelling it
    there ("Install nginx" before "1.24.0"; empty when none do)."""

    doc_id: str
    start: int
    end: int
    value: str
    kind: str
    label: str = ""
    above: tuple[int, int] | None = None
    """A line above saying the entities the question names that the value's line does not."""


def asked_kind(question: str) -> tuple[str, re.Pattern[str] | None] | None:
    """The kind of value the question asks, and how a line writes one."""
    if _NOT_READ.search(question):
        return None
    for kind, asked, written in _KINDS:
        if asked.search(question):
            return kind, written
    return None


def gives_kind(question: str, text: str) -> bool:
    """Does the text give a value of the kind the question asks (any, if it asks none)?"""
    asked = asked_kind(question)
    return asked is None or bool(_values(text, *asked))


def _values(line: str, kind: str, written: re.Pattern[str] | None) -> list[tuple[int, str]]:
    if written is None:
        return [(a, line[a:b]) for a, b, _ in said_dates(line)]
    return [(m.start(), m.group().strip()) for m in written.finditer(line)]


def _line_stems(line: str) -> set[str]:
    return set(stems(re.sub(r"[_/=:.-]", " ", line)))


def _pick(question: str, kind: str, line: str, found: list[tuple[int, str]]
          ) -> tuple[int, str] | None:
    """The one value of the line the question asks for, and where it is."""
    if kind == "version":
        match = _VERSION_OF.search(question)
        thing = next((g for g in match.groups() if g), "") if match else ""
        if not thing:
            return None
        found = [(at, v) for at, v in found
                 if re.search(rf"{re.escape(thing)}(?:\s+version)?[\s=/@:-]{{1,3}}$",
                              line[max(0, at - len(thing) - 12):at], re.I)]
    if kind == "amount" and len(found) > 1 and (verb := _HOW_MUCH_VERB.search(question)):
        asked = stems(verb.group(1))
        found = [(at, v) for at, v in found if set(asked) & set(stems(line[max(0, at - 16):at]))]
    if len({normalise(v) for _, v in found}) > 1:
        # Several values, and what tells them apart may follow each ("£180 per year for a
        # single and £260 for a double"): the words before one are no label of it alone.
        return None
    asked = set(stems(question))
    if kind == "ip":  # `server="203.0.113.40"`: a host's address, whatever names the host
        asked |= _HOST_LABELS
    found = [(at, v) for at, v in found if not _labelled_otherwise(line[:at], asked)]
    if kind == "date":  # "the Saturday reminders": a date of another weekday is not theirs
        days = {d for w in re.findall(r"[A-Za-z]+", question) if (d := weekday_named(w))
                is not None and len(w) >= 3}
        found = [(at, v) for at, v in found if not days or (
            (day := date_of(v)) is not None and day.weekday() in days)]
    distinct = {normalise(v) for _, v in found}
    return found[0] if len(distinct) == 1 else None


_HOST_LABELS = frozenset(stems("server host address addr ip upstream peer client remote "
                               "endpoint target instance node"))
"""Labels of an IP address that name whose it is (a host), not another kind of value."""


_NOTE_WORDS = 3


def _column_head(text: str, row_start: int, value: str) -> str:
    """The name of the grid column whose cell, on the row at `row_start`, holds the value
    (a register's "Notes"), or ""."""
    for grid in grids("", text):
        for row in grid.rows:
            if row.start == row_start:
                return next((grid.heads[c.column] for c in row.cells if value in c.text), "")
    return ""


def _noted_in_cell(row: str, kind: str, written: re.Pattern[str] | None) -> bool:
    """A grid row whose values of the kind are all in one cell of prose, its notes ("stock
    bull, bought Skipton mart Oct 2023, 4,200 gns"): that cell is read like a line."""
    cells = re.split(r"\s{2,}", row.strip())
    holding = [c for c in cells if _values(c, kind, written)]
    return len(holding) == 1 and len(re.findall(r"[A-Za-z]{2,}", holding[0])) >= _NOTE_WORDS


def _clause_words(before: str) -> list[str]:
    """The last words before a value, in its clause (a leader's dots are no stop)."""
    clause = re.split(r"[,;(\[|]|(?<!\.)\.\s", before)[-1]
    return re.findall(r"[A-Za-z][\w'/-]*", clause)[-3:]


def _label(before: str) -> str:
    """The words labelling a value on its line, as the text writes them ("Install nginx"),
    up to a column gap before them."""
    clause = re.split(r"[,;(\[|]|(?<!\.)\.\s", before)[-1]
    clause = re.sub(r"[\s.:=*\[\]\"'-]+$", "", clause)
    clause = re.split(r"\s{2,}|:\s", clause)[-1]  # "step : Install x": the step's own words
    words = list(re.finditer(r"[A-Za-z][\w'/-]*", clause))[-3:]
    return clause[words[0].start():].strip() if words else ""


def _labelled_otherwise(before: str, asked: set[str]) -> bool:
    """The words right before a value label it ("Due 13/10/2026", "backdated to 1 Sep"): a
    label none of whose words the question says names another value than the one asked."""
    label = [w for w in _clause_words(before) if w.lower() not in STOP]
    return bool(label) and not set(stems(" ".join(label).replace("_", " "))) & asked


def _entity_line(question: str, text: str, start: int, end: int
                 ) -> tuple[int, int] | bool:
    """Where the entities the question names are said: True on the value's line itself;
    else the span of the nearest line above it in its paragraph, or of the document's first
    lines, that says all the others (cited with it); False when no one line does."""
    missing = [e for e in entities(question) if not says(normalise(text[start:end]), e)]
    if not missing:
        return True
    para = text.rfind("\n\n", 0, start)
    above = text[para + 2 if para >= 0 else 0:start].split("\n")
    offset = start - len("\n".join(above))
    lines, at = [], offset
    for line in above:
        lines.append((at, at + len(line)))
        at += len(line) + 1
    head, at = [], 0
    for line in text[:3000].split("\n")[:_HEAD_LINES]:
        head.append((at, at + len(line)))
        at += len(line) + 1
    for a, b in [*reversed(lines), *head]:
        if a < b and all(says(normalise(text[a:b]), e) for e in missing):
            return a, b
    return False


def _paragraph(text: str, start: int, end: int) -> str:
    head = text.rfind("\n\n", 0, start)
    tail = text.find("\n\n", end)
    return text[head + 1 if head >= 0 else 0:tail if tail >= 0 else len(text)]


def typed_value(question: str, docs: Iterable[tuple[str, str]]) -> TypedValue | None:
    """The value of the asked kind on the line the question's words pick (module doc)."""
    asked = asked_kind(question)
    if asked is None:
        return None
    kind, written = asked
    telling = set(stems(question)) - STOP - _KIND_WORDS
    named = entities(question)
    # (words the line says, words its paragraph says, where): a line gives a value of the
    # kind and says at least two of the question's words; its paragraph tells lines apart
    # (a run's step heading over its diff's lines).
    docs = list(docs)
    scored: list[tuple[int, int, str, str, int, int]] = []
    bare = 0  # most words a line outside every candidate's paragraph says, giving no value
    for doc_id, text in docs:
        offset = 0
        for line in text.split("\n"):
            start, offset = offset, offset + len(line) + 1
            said = len(telling & _line_stems(line))
            if (said < _MIN_WORDS and named and _BARE_STAMP.fullmatch(line)
                    and all(says(normalise(_above(text, start)), e) for e in named)):
                # A line of a date and a time alone is stamped on what the line above names
                # (a receipt's "RCPT 0452  TILL 03" over "16/11/26  11:47").
                said = _MIN_WORDS
            if said < _MIN_WORDS or (len(_GAPS.findall(line.strip())) >= _GRID_GAPS
                                     and not _noted_in_cell(line, kind, written)):
                continue  # a grid's row: its columns are read by the grid readers
            if not _values(line, kind, written):
                bare = max(bare, said) if not _in_paragraph_of_value(text, start, kind,
                                                                   written) else bare
                continue
            around = len(telling & _line_stems(_paragraph(text, start, start + len(line))))
            scored.append((said, around, doc_id, text, start, start + len(line)))
    if not scored:
        return None
    best = max(t[:2] for t in scored)
    if bare > best[0]:
        return None  # the line the question describes best gives no such value
    tied = [t for t in scored if t[:2] == best]
    if any(re.match(r"\s*[+-](?![+-])", t[3][t[4]:t[5]]) for t in tied):
        tied = _diff_side(question, tied)  # a diff's old and new line say the same words
    answers: list[TypedValue] = []
    for *_, doc_id, text, a, b in tied:
        line, b = _wrapped(text, a, b)
        picked = _pick(question, kind, line, _values(line, kind, written))
        head = "\n".join(text[:3000].split("\n")[:_HEAD_LINES])
        context = f"{head}\n{_paragraph(text, a, b)}"
        named = _entity_line(question, text, a, b)
        if (picked is None or named is False
                or _rival(text, (a, b), telling - _line_stems(context), kind, written)
                or not qualifiers(question, frozenset(_line_stems(text))) <= _line_stems(line)):
            return None
        assert picked is not None
        # A clock time on a log's line needs no label: it is when the line happened.
        label = (_label(line[:picked[0]]) or _column_head(text, a, picked[1])
                 or ("time" if kind == "time" else ""))
        answers.append(TypedValue(doc_id, a, b, picked[1], kind, label,
                                  named if isinstance(named, tuple) else None))
    if not answers or len({normalise(t.value) for t in answers}) != 1:
        return None
    return answers[0]


_BARE_STAMP = re.compile(r"\s*(?:\w{3},?\s+)?\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?\s+"
                         r"\d{1,2}[:.]\d\d(?::\d\d)?(?:\s?[ap]m)?\s*", re.I)
"""A line giving a date and a clock time and nothing else."""


def _above(text: str, start: int) -> str:
    """The line right above the one starting at `start`, "" when blank or none."""
    before = text[:max(start - 1, 0)]
    return before[before.rfind("\n") + 1:] if start else ""


def _wrapped(text: str, start: int, end: int) -> tuple[str, int]:
    """The line with the rest of its sentence when it wraps onto the next lines ("(fee £145
    per request for" / "a householder, £298 otherwise;"): every value it gives is weighed."""
    out = text[start:end]
    for _ in range(_WRAP_LINES):
        last = re.findall(r"[\w']+|[,(]$", out)[-1:] or [""]
        if end >= len(text) or not (last[0] in ",(" or last[0].lower() in STOP):
            break  # only a sentence plainly cut ("... per request for") runs on
        stop = text.find("\n", end + 1)
        following = text[end + 1:stop if stop >= 0 else len(text)]
        if not following.strip():
            break
        out, end = f"{out} {following.strip()}", stop if stop >= 0 else len(text)
    return out, end


def _rival(text: str, span: tuple[int, int], unsaid: set[str], kind: str,
           written: re.Pattern[str] | None) -> bool:
    """Does another paragraph of the document give a value of the kind on a line saying a
    question word this line's paragraph does not ("barn conversion" over another fee)?
    Then the question may well ask that one."""
    unsaid -= _MONTH_STEMS  # a month is a date's, checked with the entities
    if not unsaid:
        return False
    head = text.rfind("\n\n", 0, span[0])
    tail = text.find("\n\n", span[1])
    outside = text[:max(head, 0)] + "\n" + (text[tail:] if tail >= 0 else "")
    return any(unsaid & _line_stems(line) and _values(line, kind, written)
               for line in outside.split("\n"))


def _in_paragraph_of_value(text: str, start: int, kind: str,
                           written: re.Pattern[str] | None) -> bool:
    """Does a line of this line's paragraph give a value of the kind (a step's heading)?"""
    end = text.find("\n", start)
    return bool(_values(_paragraph(text, start, end if end >= 0 else len(text)), kind, written))


def _diff_side(question: str, tied: list[tuple[int, int, str, str, int, int]]
               ) -> list[tuple[int, int, str, str, int, int]]:
    """Of a diff's removed and added lines, the side the question asks ("now" the added);
    none when it does not say."""
    sign = "+" if _NEWER.search(question) else "-" if _OLDER.search(question) else ""
    if not sign:
        return []
    return [t for t in tied if t[3][t[4]:t[5]].lstrip()[:1] not in "+-"
            or t[3][t[4]:t[5]].lstrip().startswith(sign)]
