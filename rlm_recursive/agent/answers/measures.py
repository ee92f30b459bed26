"""The kind of quantity a question asks for, and whether an answer carries a value of it.

A small table: each kind is told from the question's words ("how heavy", "weigh" → a weight;
"how late", "how long" → a duration; "paid", "compensation", "cost" → money; "how many
people can X hold" → a capacity) and carried by a value's shape (its unit: "2.4 kg", "45 min",
"78 dB", "£3.66") or, for a bare number, by the label right before it ("Weight: 2.4",
"delay 45", "seats 420"). A value of another kind answers nothing: a price for "how much
does it weigh", a claim's date for "how much was paid out", a date for "how late".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.evidence import entities
from ...corpus.glossary import with_english
from ...corpus.narrow import MONEY_ASKED
from ...corpus.word_stems import stems, words
from ..counting.scope import content_positions, head_unit, noun_phrase

__all__ = ["QP_ESCAPE", "alternative_sums", "asked_measures", "asks_capacity", "measure_fits",
           "names_place", "states_count", "unmarked_among_sums"]

QP_ESCAPE = re.compile(r"=(?:[0-9A-F]{2}|\n)")
"""A quoted-printable escape: a mail body writes "£18.50" as "=C2=A318.50"."""

_NUM = r"(?<![\w.,/:-])(\d[\d,]*(?:\.\d+)?)"
"""A number standing alone (not the digits inside "WLR-DR-5541785" or "3.8.2")."""
_TO_LABEL = r"\b[^\d\n]{0,40}?"
"""From a label to its number: a few words, a colon, a dotted leader ("Weight ...... 2.4")."""


@dataclass(frozen=True)
class Measure:
    """One kind of quantity: the words asking for it, and how a value shows it."""

    name: str
    asked: re.Pattern[str]
    unit: str
    """What follows the number ("kg", "min"), or before it for a currency ("£")."""
    labels: str
    """Labels a bare number may stand under ("weight", "delay")."""
    before: str = ""
    """A mark standing before the number ("£", "USD")."""
    bare: str = ""
    """A shape the number may have with no mark at all (a sum's "186.40"): a text that marks
    some of its numbers ("£96.40") marks them all, and there a bare one is of another kind
    ("worn 0.75")."""

    def numbers(self, text: str, marked: str | None = None) -> set[str]:
        """The numbers of this kind in `text`, thousands separators dropped (`marked`: the
        text around it, which says whether a bare shape counts)."""
        found: list[str] = []
        # "45 min", "2.4kg", "a 99-year lease"
        found += re.findall(rf"{_NUM}[\s-]?(?:{self.unit})(?![A-Za-z])", text, re.IGNORECASE)
        before = self.before
        if self.bare and not (self.before and re.search(
                self.before, marked if marked is not None else text, re.IGNORECASE)):
            before = rf"{before}|{self.bare}" if before else self.bare
        if before:
            found += re.findall(rf"(?:{before})\s?(\d[\d,]*(?:\.\d+)?)", text,
                                re.IGNORECASE)
        found += re.findall(rf"\b(?:{self.labels}){_TO_LABEL}{_NUM}(?![\d:/-]|\.\d)", text,
                            re.IGNORECASE)
        return {n.replace(",", "") for n in found}


def _asked(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_CAPACITY_ASKED = _asked(
    r"\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){0,2}?(?:can|could|will|would|does|do)\s+"
    r"(?:[\w'’-]+\s+){1,5}?(?:hold|seat|take|accommodate|fit|sleep|carry)\b"
    r"|\bhow\s+many\s+(?:seats|places|spaces|berths)\s+(?:are\s+there|does|do|has|have)\b"
    r"|\bhow\s+many\s+(?!of\b)(?:[\w-]+\s+){0,2}?(?:fit|sit)\s+(?:in|into|on)\b"
    r"|\b(?:seating\s+)?capacity\s+of\b|\bseating\s+capacity\b|\bmaximum\s+occupancy\b")
"""A capacity is asked: "how many people can the hall hold", "how many seats are there in
...", "the capacity of ...": a number the text states, never a count of records."""
_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
"""A month's name, written out or cut short: with a day number it is a date."""
_TIME_UNITS = (r"s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|wks?|weeks?|months?|"
               r"yrs?|years?|nights?")
_MEASURES = (
    Measure("weight", _asked(r"\bweigh(?:s|ed|t|ts|ing)?\b|\bhow\s+heavy\b|\bmass\b"),
            r"kg|kgs|kilos?|kilograms?|g|grams?|mg|lbs?|oz|ounces?|tonnes?|tons?|t|st",
            r"weight|weighs|mass"),
    Measure("loudness", _asked(r"\bhow\s+(?:loud|noisy|quiet)\b|\bdecibels?\b|\bdb\b|"
                               r"\b(?:noise|sound)\s+(?:level|output)\b|\bloudness\b"),
            r"db|dba|db\(a\)|decibels?", r"noise|loudness|sound\s+level"),
    Measure("temperature", _asked(r"\btemperature\b|\bhow\s+(?:hot|cold|warm)\b"),
            r"°\s?[CF]?|º\s?[CF]?|deg(?:rees)?\s?[CF]?|[CF]", r"temperature|temp"),
    Measure("speed", _asked(r"\bhow\s+fast\b|\bspeed\b|\bvelocity\b"),
            r"mph|km/?h|kph|m/s|knots?|kts?|rpm|[kmg]bps|[kmg]b/s|fps", r"speed|velocity"),
    Measure("length", _asked(r"\bhow\s+(?:far|tall|high|wide|deep|long)\b|\b(?:length|"
                             r"distance|height|width|depth|diameter)\b"),
            r"mm|cm|m|km|in|inch(?:es)?|ft|feet|foot|yds?|yards?|mi|miles?|metres?|meters?|"
            r"kilometres?|kilometers?|\"|”|′|″",
            r"length|distance|height|width|depth|diameter|long|tall|wide|deep"),
    Measure("duration", _asked(r"\bhow\s+(?:late|long)\b|\b(?:length|duration)\b|"
                               r"\brun\s*-?\s*time\b|\bdelay(?:ed)?\s+by\b"),
            _TIME_UNITS, r"delay|delayed|late|duration|run\s*-?\s*time|lasts?|length|took"),
    Measure("money", MONEY_ASKED,
            r"p|pence|gbp|usd|eur|chf|aud|cad|nzd|jpy|inr|dollars?|euros?|pounds|cents?|quid|"
            r"gns|guineas",
            r"price|cost|costs|fee|charge|paid|payment|amount|total|premium|refund|"
            r"compensation|fare|rent|subtotal|balance|due|owed|value|sum",
            before=r"[£$€¥₹]|\b(?:gbp|usd|eur|chf|aud|cad|nzd|rs\.?|inr)\b",
            bare=r"(?<![\w.,/:-])(?=\d[\d,]*\.\d\d(?![\d.:/-]))"),
    Measure("capacity", _CAPACITY_ASKED,
            r"people|persons|guests|seats|seated|standing|places|covers|pax",
            r"seats|seating|capacity|holds?|sleeps|accommodates|occupancy|max(?:imum)?"),
    Measure("year", _asked(r"\b(?:what|which)\s+year\b|\bsince\s+when\b|\buntil\s+when\b"),
            r"(?!)", r"(?!)", before=r"(?<![\w.,/:-])(?=(?:1[0-9]|20)\d\d\b)"),
    Measure("date", _asked(r"\b(?:what|which)\s+date\b"),
            # "12 May", "12th of May", "12-May-2026"; "May 12" by the month before it
            rf"(?:st|nd|rd|th)?\s*(?:of\s+)?{_MONTHS}", r"(?!)",
            before=rf"\b{_MONTHS}\.?|(?<![\w.,/:-])(?=\d{{4}}-\d\d-\d\d\b|"
                   r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b)"),
    Measure("time of day", _asked(r"^\s*(?:at\s+)?what\s+time\b|\b(?:at|by|from|until)\s+what"
                                  r"\s+time\b"),
            r"am|pm|a\.m\.|p\.m\.|hrs|h", r"(?!)",
            # "08:40", "8.40", a timetable's "0840"
            before=r"(?<![\d:.])(?=\d{1,2}[:.]\d\d(?!\d)|(?:[01]\d|2[0-3])[0-5]\d\b)"),
)
"""The kinds. A question naming several ("how long", a duration or a length) takes a value of
any of them."""


def asks_capacity(question: str) -> bool:
    """The question asks how many a place or a thing holds (a stated number: a look-up)."""
    return _CAPACITY_ASKED.search(question) is not None


_NAME_WITH_DIGITS = re.compile(r"(?<![\w.-])(?=[\w.-]*\d)[A-Za-z]\w*(?:[-.]\w+)+")
"""A host or a code named by the question ("db-02.example.invalid", "kv-7"): its parts
("db") are no unit asked."""


def asked_measures(question: str) -> list[Measure]:
    """The kinds of quantity the question asks for ("how much does it weigh" → weight);
    "how long" asks a duration or a length."""
    question = _NAME_WITH_DIGITS.sub(" ", question)
    return [m for m in _MEASURES if m.asked.search(question)]


def _answer_numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(_NUM, text)}


def measure_fits(question: str, answer: str, context: str | None = None) -> bool | None:
    """Whether the answer carries a value of the kind asked: a value of that kind in the
    answer, or (an answer of a bare number) the number is of that kind in a line of
    `context` holding it ("45" for "how late", from "delay 45 min"). None when the question
    asks no kind of quantity."""
    kinds = asked_measures(question)
    if not kinds:
        return None
    # A label of another language says its measure ("Vikt: 10.9" is a weight).
    answer = with_english(QP_ESCAPE.sub(" ", answer), stems)
    context = with_english(QP_ESCAPE.sub(" ", context), stems) if context is not None else None
    asked_numbers = _answer_numbers(question)
    marked = f"{answer}\n{context or ''}"
    if any(m.numbers(answer, marked) - asked_numbers for m in kinds):
        return True
    numbers = _answer_numbers(answer) - asked_numbers
    if not numbers or context is None:
        return False
    lines = [line for line in context.split("\n") if numbers & _answer_numbers(line)]
    return any(numbers & m.numbers(line, marked) for line in lines for m in kinds)


_MONEY = next(m for m in _MEASURES if m.name == "money")
_HOW_MUCH = re.compile(r"\bhow\s+much\b(?!\s+(?:time|longer|of)\b)", re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\b(?:or|otherwise|else|was|were|previously|formerly|instead|"
                          r"rather|unless|except)\b|\bfor\s+(?:an?\s+|the\s+)?\w+", re.IGNORECASE)
"""Words setting two sums side by side as alternatives: "£145 for a householder, £298
otherwise", "£179.99 (was £229.99)"; not the parts of one bill ("parts £120, labour £66")."""


def alternative_sums(question: str, answer: str) -> bool:
    """The answer gives two different sums of money as alternatives when one is asked: which
    applies is the question's to say, and the line does not say it."""
    asked = asked_measures(question)
    if not ([m for m in asked if m.name == "money"] or (not asked and _HOW_MUCH.search(question))):
        return False
    answer = QP_ESCAPE.sub(" ", answer)
    sums = _MONEY.numbers(answer) - _answer_numbers(question)
    if len(sums) < 2:
        return False
    places = [m.start() for n in sums for m in re.finditer(rf"(?<![\d.]){re.escape(n)}"
                                                            r"(?![\d]|\.\d)",
                                                            answer.replace(",", ""))]
    if not places:
        return False
    plain = answer.replace(",", "")
    return bool(_ALTERNATIVE.search(plain[min(places):max(places) + 40]))


def unmarked_among_sums(question: str, answer: str, context: str) -> bool:
    """For "how much", the answer's number stands in a line that writes its sums as sums
    ("8.90  12.20  48.00", "£12") and is none of them, nor a measure of anything: a bin,
    a row's number ("14 Albarino ... 8.90 12.20"), no sum."""
    if not _HOW_MUCH.search(question) or any(m.name != "money" for m in asked_measures(question)):
        return False
    numbers = _answer_numbers(answer) - _answer_numbers(question)
    lines = [line for line in context.split("\n") if numbers & _answer_numbers(line)]
    if not numbers or not lines:
        return False
    asked = set(stems(question))
    for line in lines:
        sums = _MONEY.numbers(line, line)
        if not sums or numbers & sums or any(numbers & m.numbers(line, line) for m in _MEASURES):
            return False
        # A label the question says stands right before it ("Fine: 500"): the sum asked.
        if any(set(stems(label)) & asked for n in numbers for label in re.findall(
                rf"([A-Za-z]+)\W{{0,3}}(?<![\d.]){re.escape(n)}(?![\d]|\.\d)",
                line.replace(",", ""))):
            return False
    return True


_COUNTED = re.compile(r"^(?:\d[\d,]*|no|none|zero|one|two|three|four|five|six|seven|eight|"
                      r"nine|ten|eleven|twelve|dozen|dozens|hundreds)$", re.IGNORECASE)
_NEAR = 3
"""Words between a count and its noun: "24 beds", "3 en-suite rooms", "Beds ...... 24"."""


def states_count(question: str, answer: str, context: str | None = None,
                 heading: str = "") -> bool:
    """A "how many" answered by a look-up states the count: a number beside the counted
    noun ("24 beds", "Beds: 24"), in a unit that says something of what the question asks
    beyond the noun and the names ("closed", "vacant"): half of those words at least, in its
    unit (`context`) or the unit's `heading`. An extent of one record ("albumen print 1
    item") counts nothing asked. True when the question names no counted noun."""
    phrase = noun_phrase(question, head_unit(question))
    if not phrase:
        return True
    question_words = words(question)
    noun = stems(question_words[max(phrase)])
    named = set(stems(" ".join(entities(question))))
    asked = {stems(question_words[i])[0] for i in content_positions(question) - phrase
             if i < len(question_words)} - named
    text = answer if context is None else context
    answer_numbers = _answer_numbers(answer)
    said = set(stems(f"{heading}\n{text}"))  # the unit and its heading say what it is of
    if 2 * len(asked & said) < len(asked):
        return False
    # Over the unit's lines as one run of words: a wrapped line parts "1,284" and "yachts".
    tokens = re.findall(r"[A-Za-z][A-Za-z'’]*|\d[\d,]*", text)
    counts = [i for i, t in enumerate(tokens) if _COUNTED.match(t) and (
        not answer_numbers or t.replace(",", "") in answer_numbers or not t[0].isdigit())]
    return any(stems(tokens[j])[:1] == noun[:1]
               for i in counts for j in range(max(0, i - _NEAR), i + _NEAR + 1)
               if j < len(tokens))


_PLACE_WORDS = frozenset(stems(
    "room hall theatre theater suite studio lab laboratory chamber gallery library lounge "
    "office auditorium annex annexe pavilion marquee barn centre center building wing floor "
    "rooms halls"))
_NAMED_PLACES = (
    (re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?room\b", re.IGNORECASE), _PLACE_WORDS),
    (re.compile(r"\b(?:which|what)\s+floor\b", re.IGNORECASE), frozenset(stems(
        "floor level storey story ground basement lower upper mezzanine"))),
    (re.compile(r"\b(?:which|what)\s+box\b", re.IGNORECASE), frozenset(stems("box boxes"))),
)
"""A place or a container asked by its kind ("which room", "which floor", "which box"):
the answer names one ("Chart Room", "second floor", "Box 4"), not a session's code or time."""


def names_place(question: str, answer: str) -> bool | None:
    """Whether the answer names a place of the kind asked; None when none is asked."""
    for asked, said in _NAMED_PLACES:
        if asked.search(question):
            return bool(said & set(stems(answer)))
    return None
