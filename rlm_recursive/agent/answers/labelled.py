"""A value labelled as another thing's identifier answers nothing.

An identifier is asked with a field word ("tax code", "case number", "job ref", "postgres
version"); a line often holds several, each after its own label ("Emp. no 00301",
`NODE_VERSION: "20.11"`, "Order ref 4471"). When every identifier-like value of an answer sits
under such a label and no label names what the question asks (its words before the field
word, "tax", "postgres"), the answer is another field's value, whatever its shape: a
payslip's employee number for a tax code, a base image's Node version for a replica's
PostgreSQL version. Clock times and dates are never the number of a thing ("10:00" for "the
case number"). A value labelled as the earlier state ("Previous rating: 4") answers nothing
asked of the later one ("the rating after the re-rating visit"), and the reverse; a person's
name alone is no topic ("what's that session about").
"""

from __future__ import annotations

import re

from ...corpus.dates import said_dates
from ...corpus.glossary import glossed
from ...corpus.word_stems import stems

__all__ = ["only_a_person_for_a_topic", "other_fields_only", "other_side", "undated",
           "without_times"]

_FIELD = r"(?:no|nr|num|number|code|ref|reference|id|version|ver)"
_LABELLED = re.compile(
    rf"(?<![A-Za-z\d.])([A-Za-z]+)(?:\.?[ \t_-]{{1,2}}|\.){_FIELD}\.?(?![A-Za-z])[ \t]*[:=#]?"
    rf"[ \t]*[\"'“]?([^\s\"'”,;|^~]*\d[^\s\"'”,;|^~]*)", re.IGNORECASE)
"""A value after a label ending in a field word: "Emp. no 00301", "NODE_VERSION: "20.11"",
"Job ref KG-55120" (the group before the field word is the label's qualifier; "PID" is one
word, and a value ends at a component mark, "^" or "|")."""
_FIELD_ASKED = re.compile(rf"\b((?:[\w'’-]+\s+){{1,2}}){_FIELD}\b\.?", re.IGNORECASE)
_VALUE = re.compile(r"(?<![\w.])[A-Za-z]*\d[\w./:-]*")
_TIMES = re.compile(r"(?<![\d.:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d.:])"
                    r"|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
"""A clock time ("10:00", not "20.11", a version's shape too) or a date in digits: when, not
which."""
_GENERIC = frozenset(stems("the a an what which whats is are of for on in my your its his her "
                           "their this that current latest new old"))


def without_times(text: str) -> str:
    """The text with its clock times and digit dates taken out."""
    return _TIMES.sub(" ", text)


def undated(text: str) -> str:
    """The text with every date it writes ("2 Nov", "30 September 2026", "2026-09-30") and
    its clock times taken out: what is left of it says no "when"."""
    for start, end, _ in reversed(said_dates(text)):
        text = text[:start] + " " + text[end:]
    return without_times(text)


def _asked_qualifiers(question: str) -> set[str]:
    """The words naming whose identifier is asked: "tax" of "what tax code", "postgres"."""
    found: set[str] = set()
    for match in _FIELD_ASKED.finditer(question):
        found |= {s for s in stems(match.group(1)) if s not in _GENERIC}
    return found


def _short_for(short: str, word: str) -> bool:
    """"emp" of employee, "stf" of staff, "acct" of account: same first letter, then the
    short form's letters in order."""
    if len(short) < 2 or short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in short[1:])


def _alternative(text: str, at: int) -> str:
    """The label word written before a slash ahead of a label's qualifier: "Ref" of "Ref /
    Chq no." (a reference or a cheque number)."""
    before = re.search(r"([A-Za-z]+)\.?\s*/\s*$", text[:at])
    return before.group(1) if before else ""


def _named(qualifier: str, question_stems: set[str]) -> bool:
    """The label's qualifier is a word of the question, or short for one."""
    if not qualifier:
        return False
    q = stems(qualifier)[0] if stems(qualifier) else qualifier.lower()
    # A label of another language says the English words of its meaning ("Medl." member).
    meant = glossed(stems(qualifier), stems)
    return bool(meant & question_stems) or any(
        q == s or _short_for(q, s) or (len(s) >= 3 and q.startswith(s)) for s in question_stems)


def other_fields_only(question: str, answer: str) -> bool:
    """Every identifier-like value of the answer is labelled as a field the question does
    not ask for ("Emp. no 00301" for "what tax code"); False when the question names no
    qualified field or some value stands without such a label."""
    if not _asked_qualifiers(question):
        return False
    question_stems = set(stems(question))
    text = without_times(answer)
    labelled = list(_LABELLED.finditer(text))
    if not labelled or any(_named(m.group(1), question_stems) or _named(
            _alternative(text, m.start(1)), question_stems) for m in labelled):
        return False
    covered = [m.span(2) for m in labelled]
    # A value outside every label ("6008832/2025 Ms Raman v ...") may be the asked one.
    return all(any(a <= v.start() < b for a, b in covered) for v in _VALUE.finditer(text))


_LATER_ASKED = re.compile(r"\b(?:after|now|new|current|currently|latest|today['’]?s?)\b",
                          re.IGNORECASE)
_EARLIER_ASKED = re.compile(r"\b(?:before|previous|previously|prior|old|former|formerly|"
                            r"original|originally|earlier|used\s+to)\b", re.IGNORECASE)
_EARLIER_LABEL = re.compile(r"(?:^|[\s(;,|])(?:previous|prior|old|former|original|was)\b"
                            r"[\w \t-]{0,24}[:=]", re.IGNORECASE)
_LATER_LABEL = re.compile(r"(?:^|[\s(;,|])(?:new|current|now|latest|revised)\b[\w \t-]{0,24}[:=]",
                          re.IGNORECASE)


def other_side(question: str, answer: str) -> bool:
    """The answer's value is labelled as the state the question does not ask: "Previous
    rating: 4" for the rating after a visit, "New limit: 30" for the old limit."""
    later, earlier = _LATER_ASKED.search(question), _EARLIER_ASKED.search(question)
    if later and not earlier:
        return bool(_EARLIER_LABEL.search(answer)) and not _LATER_LABEL.search(answer)
    if earlier and not later:
        return bool(_LATER_LABEL.search(answer)) and not _EARLIER_LABEL.search(answer)
    return False


_TOPIC_ASKED = re.compile(r"\bwhat(?:['’]s|\s+is|\s+was|\s+are|\s+were)\b[^?]*\babout\s*\??\s*$"
                          r"|\b(?:topic|subject|theme)\b", re.IGNORECASE)
_TITLED_NAME = re.compile(r"^\W*(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Professor|Sir|Dame|Rev|Revd|Cllr)"
                          r"\.?\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}\W*$")


def only_a_person_for_a_topic(question: str, answer: str) -> bool:
    """A topic is asked ("what's that session about", "the subject of ...") and the answer
    is a person's titled name alone."""
    return bool(_TOPIC_ASKED.search(question) and _TITLED_NAME.match(answer.strip()))
