"""The kind of value a question asks for, and whether an answer is of that kind, judged from
the value's shape and the label over it, never from a list of names:
- "who" wants a person or a role-holder. An organisation ("Forest Row Sports", "Bury &
  District Camera Club") answers only a question that asks for one ("who supplies ...",
  "which company ..."); a title, summary or event-name line ("SUMMARY:...") names no one;
- a phone number for "phone", "mobile", "number for <someone>", "<someone>'s number"; an
  extension for "extension", "bleep" (a time "08:30" in a line naming the fixtures
  secretary is no number for them);
- a date or time for "when", a number for "how many";
- a sum standing alone for "how much", "price", "premium", "insured" (a reference code's
  digits are no sum); a percentage for "what %"; some digits not measuring anything ("8 kg")
  for "flight no.", "ticket number", "exit code"; a weekday or a date for "which day".
"""

from __future__ import annotations

import re

from ...corpus.asked import asked_clause, asked_label, asked_phrase
from ...corpus.dates import said_dates
from ...corpus.evidence import contains, normalise, stems, values
from ...corpus.naming import HONORIFICS
from ...corpus.narrow import CLOCK_ASKED, TIME_TAKEN, TIME_TAKEN_ASKED
from ...corpus.units import EMAIL, MONEY_SUM
from .labelled import (
    only_a_person_for_a_topic,
    other_fields_only,
    other_side,
    undated,
    without_times,
)
from .measures import QP_ESCAPE, measure_fits, names_place, states_count, unmarked_among_sums
from .persons import CALENDAR_WORDS, asks_who, names_person

__all__ = ["asks_when", "fits_kind", "fits_kind_in", "only_intended", "only_when_and_who"]

_MAIL_PARTY_ASKED = re.compile(r"\b(?:sent|send|sends|sender|received?|recipient|mailed|"
                               r"e-?mails?|messages?)\b", re.IGNORECASE)
"""Who sent or received a message: its address names them (a log gives no other name)."""
_EXTENSION_ASKED = re.compile(r"\b(?:extension|ext|extn|bleep|pager)\b", re.IGNORECASE)
_PHONE_ASKED = re.compile(
    r"\b(?:phone|telephone|tel|mobile|landline|fax|direct\s+line|contact\s+number|"
    r"(?:call|ring|dial|text)\s+(?:on|at)?\s*(?:what|which)?\s*number)\b"
    r"|(?:['’]s|^|\b(?:the|what|which|whats|what's|what’s|your|my|his|her|their|our))"
    r"\s*number\s+(?:for|to\s+(?:call|ring|text)|of\s+(?:the\s+)?[a-z]+\s+(?:secretary|"
    r"office|desk|manager|officer))\b|['’]s\s+number\b|\bon\s+what\s+number\b",
    re.IGNORECASE)
"""A phone number is asked: "phone", "mobile", "number for the secretary", "Kerry's number",
"and on what number?" (not "account number", "number of bookings")."""
_PHONE_SHAPE = re.compile(r"(?<![\w.:/-])(?:\+\d{1,3}[ -]?)?(?:\(\d{1,5}\)[ -]?)?\d{2,6}"
                          r"(?:[ -]\d{1,6})*(?![\w:/]|\.\d)")
"""Groups of digits with one space or hyphen between them, a bracketed area code first:
not "0605 (47" nor a timetable's "0716  0801" columns."""
_CLOCK = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
_DATE_SHAPE = re.compile(r"^\d{4}-\d\d-\d\d$|^\d{1,2}-\d{1,2}-\d{2,4}$")
_EXTENSION_SHAPE = re.compile(r"(?<![\w.:/-])\d{3,6}(?![\w:/]|\.\d)")
_COUNT_WORDS = re.compile(r"\b(?:no|none|zero|one|two|three|four|five|six|seven|eight|nine|"
                          r"ten|eleven|twelve|a\s+dozen|dozens?|hundreds?|once|twice)\b",
                          re.IGNORECASE)


_VERSION_ASKED = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}version\b", re.IGNORECASE)
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+|\bv\d+\b", re.IGNORECASE)


def _phone_like(answer: str, question: str, extension: bool) -> bool:
    said = normalise(question)
    for match in _PHONE_SHAPE.finditer(answer):
        digits = re.sub(r"\D", "", match.group())
        groups = re.findall(r"\d+", match.group())
        if len(groups) > 1 and all(_CLOCK.fullmatch(g) for g in groups):
            continue  # times in a row ("0840 0940 1040"), not one number
        if (len(digits) >= 6 and not _DATE_SHAPE.match(match.group().strip())
                and digits not in re.sub(r"\D", "", said)):
            return True
    return extension and any(m.group() not in said for m in _EXTENSION_SHAPE.finditer(answer))


_ASKED_AFTER_COLON = re.compile(r"^[^?]*?:\s*(?P<asked>(?:what|which|who|whom|whose|when|where|"
                                r"how)\b[^:]*)$", re.IGNORECASE)
""""The setting that limits how much temp space a process may use: what is its default?": the
question after the colon says what kind of value is asked; the words before describe what it
is asked of ("how much" there asks no amount)."""


_CLOCK_SAID = re.compile(
    r"(?<![\d.:/])(?:[01]?\d|2[0-3])(?:[:.h][0-5]\d)(?![\d/])|\b(?:[01]\d|2[0-3])[0-5]\d\b"
    r"|\b(?:1[0-2]|0?[1-9])(?:[:.][0-5]\d)?\s?[ap]\.?m\b|\b(?:noon|midnight|midday)\b",
    re.IGNORECASE)
"""A time of day: "21:40", "6.40", "10h20", "1109" (a log's 24-hour clock), "6:40am", "noon"."""


def _asking_part(question: str) -> str:
    match = _ASKED_AFTER_COLON.match(question.strip())
    return match.group("asked") if match else asked_clause(question)


def fits_kind_in(question: str, answer: str, unit_text: str, heading: str = "") -> bool:
    """`fits_kind` of the answer, and of the line of its unit that holds it (a clause cut
    from "ORGANIZER;CN=Imran Siddiqui" has lost the key that says he is no judge); a count
    looked up must be stated as one, in its unit under its `heading`."""
    question = _asking_part(question)
    if only_intended(question, unit_text):
        return False
    # "45" for "how late": its line, "delay 45 min", says the kind.
    measured = None if _asks_other_kind(question) else measure_fits(question, answer, unit_text)
    if measured is not None:
        return measured
    if not fits_kind(question, answer) or unmarked_among_sums(question, answer, unit_text):
        return False
    if (_kind_named_elsewhere(question, answer, unit_text)
            or _counts_things(question, answer, unit_text)):
        return False
    if _HOW_MANY.match(question) and not states_count(question, answer, unit_text, heading):
        return False  # "albumen print 1 item" is no count of the items closed to readers
    said = set(values(question))
    anchors = [v for v in values(answer) if v not in said]
    # The unit's heading is a line of it too: "SERIES 3 (Box 4)" over the series' records.
    lines = [line for line in f"{heading}\n{unit_text}".split("\n")
             if anchors and all(contains(normalise(line), v) for v in anchors)]
    return not lines or any(fits_kind(question, line) for line in lines)


_WHICH_KIND = re.compile(r"^\s*(?:which|what)\s+(?P<kind>[a-z]{3,})\b", re.IGNORECASE)


def _kind_named_elsewhere(question: str, answer: str, unit_text: str) -> bool:
    """"Which depot ...": the line names things of that kind by it ("Castleby Depot") and
    the answer does not say it ("181 Weir Road", the address on the same line)."""
    match = _WHICH_KIND.match(question)
    if match is None or not set(stems(match["kind"])) & set(asked_label(question)):
        return False
    kind = re.escape(match["kind"])
    # A capitalised name before the kind word ("Castleby Depot"), not "the contractor".
    named = re.search(rf"\b[A-Z][\w'’-]*\s+(?i:{kind})s?\b", unit_text)
    return named is not None and re.search(rf"\b{kind}", answer, re.IGNORECASE) is None


_HOW_MANY = re.compile(r"\s*how\s+many\b", re.IGNORECASE)
_WHOLE_NUMBER = re.compile(r"(?<![\w.:/-])\d[\d,]*(?![\w:/-]|\.\d)")
_WHEN_DONE = re.compile(r"\b(?:when|what\s+date|which\s+day|what\s+day)\b.*\b(?:was|were|did|has|"
                        r"had)\b.*?\b([a-z]{3,}ed)\b", re.IGNORECASE)
_INTENT = r"(?:to|will|shall|should|must|needs?\s+to|awaiting|pending|due\s+to)\s+(?:be\s+)?"


def only_intended(question: str, unit_text: str) -> bool:
    """"When was the hob replaced?": the line says the act only as still to come
    ("Landlord to replace hob."), so its date is no date the act was done."""
    match = _WHEN_DONE.search(question)
    if match is None:
        return False
    root = stems(match.group(1))
    if not root:
        return False
    said = [m for m in re.finditer(rf"\b{re.escape(root[0][:5])}\w*", unit_text, re.IGNORECASE)]
    return bool(said) and all(re.search(rf"{_INTENT}$", unit_text[:m.start()], re.IGNORECASE)
                              for m in said)
_COUNTED = re.compile(r"(?<![\w.,/-])(\d+)\s+[a-z]+s\b")
"""A number counting things ("12 pens", "3 bags"): how many, not which."""


def _counts_things(question: str, answer: str, unit_text: str) -> bool:
    """A numbered thing is asked ("licence number") and the answer's only new numbers
    count things in its line ("licence no. CBC/AWL/0342, 12 pens": 12 is no licence number)."""
    if not _NUMBERED_ASKED.search(question) or _HOW_MANY.match(question):
        return False
    said = set(re.findall(r"\d+", question))
    numbers = [n for n in re.findall(r"(?<![\w.,/-])\d+(?![\w.,/-]*\d)", answer)
               if n not in said]
    if not numbers or re.search(r"\d[\w/-]*[A-Za-z]|[A-Za-z][\w/-]*\d", answer):
        return False  # a code in the answer ("KL1697", "C4410") is a number of a thing
    counted = {m.group(1) for m in _COUNTED.finditer(unit_text)}
    return all(n in counted for n in numbers)


def _asks_other_kind(question: str) -> bool:
    """A phone number, a person, a version or a percentage is asked: judged before any
    measure the question names ("the phone number for bookings over £500")."""
    return bool(_PHONE_ASKED.search(question) or _EXTENSION_ASKED.search(question)
                or asks_who(question) or _VERSION_ASKED.search(question)
                or _PERCENT_ASKED.search(question))


_WHEN_ASKED = re.compile(r"\b(?:when|date|dated|day|days|time|times|year|month|week|hour|"
                         r"o'?clock|how\s+long|how\s+late|how\s+early)\b", re.IGNORECASE)
_CLOCK_OR_DATE = re.compile(r"(?<![\d.:])\d{1,2}:\d{2}(?::\d{2})?(?![\d.:])"
                            r"|^[\s\-*•]*(?:[01]?\d|2[0-3])\.[0-5]\d(?=\s+\S)"
                            r"|(?<![\d/.-])\d{1,4}[/-]\d{1,2}[/-]\d{1,4}(?![\d/.-])")
"""A clock time ("08:20"; "15.15" where a diary's entry opens with it) or a date: a
version ("1.24.0") or a reading ("6.30") is neither."""


def _asks_date(question: str) -> bool:
    """What is asked is a date: its phrase ends in "date" ("what date was ...", "the date of
    birth"), or the question does ("Pfalzkorn order CL-0100 - requested delivery date?")."""
    phrase = asked_phrase(question)
    return bool(phrase and phrase[-1] == "date") or bool(_DATE_ASKED.search(question))


def asks_when(question: str) -> bool:
    """The question asks a time of some kind: "when", a date, a day, a time, how long."""
    return bool(_WHEN_ASKED.search(question))


def only_when_and_who(question: str, answer: str) -> bool:
    """The answer says nothing but the question's own words, dates, clock times and
    titles ("- 15.15 Dr & Mr Okonkwo-Hart" for the pitch a piano was tuned to; "plant room
    tap 09/11/2026 08:20" for an iron level): where and when a thing was, not what is
    asked, unless a date or a time is asked."""
    if _WHEN_ASKED.search(question):
        return False
    rest = _CLOCK_OR_DATE.sub(" ", answer)
    if re.search(r"\d", rest):  # "Eats 500 g wet food at 08:00": a value besides the time
        return False
    said = set(stems(question)) | HONORIFICS
    new = [w for w in stems(rest) if w not in said and not re.fullmatch(r"[a-z]", w)]
    return bool(_CLOCK_OR_DATE.search(answer)) and not new


def fits_kind(question: str, answer: str) -> bool:
    """The answer holds a value of the kind asked: a person for "who" (`names_person`), a
    phone number or extension when one is asked, a count for "how many". Other questions
    are not judged here (`clauses.of_kind` sees dates and codes)."""
    question = _asking_part(question)
    if only_when_and_who(question, answer):
        return False
    if _PHONE_ASKED.search(question) or _EXTENSION_ASKED.search(question):
        return _phone_like(answer, question, bool(_EXTENSION_ASKED.search(question)))
    if asks_who(question):
        return names_person(question, answer) or bool(
            _MAIL_PARTY_ASKED.search(question) and EMAIL.search(answer))
    if (other_fields_only(question, answer)  # "Emp. no 00301" for "what tax code"
            or other_side(question, answer)  # "Previous rating: 4" for the rating after
            or only_a_person_for_a_topic(question, answer)):
        return False
    if _IP_ASKED.search(question):  # "the IP address of the printer": an address
        return bool(_IP.search(answer))
    if CLOCK_ASKED.search(question):  # "at what time did the ambulance get there": a time
        return bool(_CLOCK_SAID.search(answer.rsplit(": ", 1)[-1]))
    if TIME_TAKEN_ASKED.search(question):  # "Hanna Vik's time": 31:02, not her club
        return bool(TIME_TAKEN.search(answer.rsplit(": ", 1)[-1]))
    if _asks_date(question):  # "requested delivery date?": a date, not the order's line
        return bool(said_dates(answer) or _DATE.search(answer) or _COMPACT_DATE.search(answer)
                    or CALENDAR_WORDS & set(stems(answer)))
    if _VERSION_ASKED.search(question):  # "which image version": "4.18.1", not the image
        return bool(_VERSION.search(answer))
    if _PERCENT_ASKED.search(question):  # "what % off": 15%, not the scenario's tag
        return bool(_PERCENT.search(answer))
    if (measured := measure_fits(question, answer)) is not None:
        return measured  # a weight for "how heavy", not a price; money for "paid out"
    if (placed := names_place(question, answer)) is not None:
        return placed  # "Chart Room" for "which room", not "13:45 (W) Workshop W1"
    if _UNIT_NAMED.search(question):  # "caffeine mg/L ...": a number, not a sample's code
        said = set(re.findall(r"\d[\d,.]*", question))
        return any(m.group().rstrip(".") not in said for m in _AMOUNT.finditer(undated(answer)))
    if _HOW_MANY.match(question):  # a whole number: a version ("3.14.14") counts nothing
        return bool(_WHOLE_NUMBER.search(without_times(undated(answer)))
                    or _COUNT_WORDS.search(answer))
    if _AMOUNT_ASKED.search(question):  # "the total yearly premium": 1,834.28, not a ref
        # A quoted-printable mail body writes "£18.50" as "=C2=A318.50": its escapes are no
        # code. A date or a clock time ("asked 2 Nov", "[2026-09-30 Wed 09:12]") is no sum.
        # A number the question says is no sum it asks for ("175ml" of "a large (175ml) glass").
        # A house number ("41 Station Rd") is no sum either.
        said = set(re.findall(r"\d[\d,.]*", question))
        # Nor is a count of things ("2 tiles"), unless the things are money ("500 pounds").
        return any(m.group().rstrip(".") not in said for m in _AMOUNT.finditer(
            _COUNTED_THINGS.sub(" ", _HOUSE_NUMBER.sub(" ", undated(QP_ESCAPE.sub(" ",
                                                                                 answer))))))
    if _NUMBERED_ASKED.search(question):  # "flight no.": KL1697, not "the KLM flight"
        # A measure ("bags over 8 kg", "keeping 30 days") is no number of a thing.
        # A clock time or a date ("10:00" for "the case number") says when, not which;
        # so does a year standing alone ("BOARDING BOOK (winter 2026)").
        # A sum of money ("No cert.: £110") is what something cost, not its number.
        # (Asked "when", "1906" is a clock time: "when does the number 47 get in?")
        rest = _MEASURED.sub(" ", MONEY_SUM.sub(" ", without_times(answer)))
        rest = rest if _WHEN_ASKED.search(question) else _YEAR.sub(" ", rest)
        return any(c.isdigit() for c in rest)
    if _DAY_ASKED.search(question):  # a weekday or a date, not any digit (a URL's, a time)
        return bool(CALENDAR_WORDS & set(stems(answer)) or _DATE.search(answer))
    if _WHEN_FIRST.match(question):
        # A time of some kind: a date, a clock time, a year, a month or a day's name, a
        # span ("in two weeks", "nightly"); the year in a file's name is none
        # ("/etc/ssl/certs/archive-2026.crt" for when a certificate expires).
        body = _PATHS.sub(" ", answer)
        return bool((CALENDAR_WORDS | _TIME_WORDS) & set(stems(body)) or _DATE.search(body)
                    or _CLOCK_OR_DATE.search(body) or _YEAR.search(body)
                    or _HOURS.search(body) or said_dates(body))  # "9 May" ("may" is no stem)
    return True


_WHEN_FIRST = re.compile(r"\W*when\b", re.IGNORECASE)
_HOURS = re.compile(r"\b(?:[01]\d|2[0-3])[0-5]\d\b|\d\s?(?:am|pm|a\.m\.|p\.m\.)|"
                    r"\b(?:[01]?\d|2[0-3])h\d\d\b", re.IGNORECASE)
"""A clock time without a colon: "0745", "7pm", "19h30"."""
_PATHS = re.compile(r"\S*[A-Za-z]\S*[/\\]\S*|\S*[/\\]\S*[A-Za-z]\S*|\S+\.[a-z]{2,4}\b"
                    r"|\S*[A-Za-z]-\d{4}\S*")
"""Paths, file names and codes a year is part of ("archive-northfell-2026.crt")."""
_TIME_WORDS = frozenset(stems(
    "today tomorrow yesterday tonight morning afternoon evening night noon midnight dawn "
    "dusk daily nightly weekly monthly yearly annually hourly week month year day hour "
    "minute weekend weekday fortnight spring summer autumn winter easter christmas term now soon "
    "later after before until during"))


_IP_ASKED = re.compile(r"\bIP\b(?:v[46])?(?:\s+address)?|\bip\s+address\b")
_IP = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])"
                 r"|\b[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\b", re.IGNORECASE)
_DATE_ASKED = re.compile(r"\bdate\s*\??\s*$", re.IGNORECASE)
_COMPACT_DATE = re.compile(r"(?<!\d)(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)")
"""A date written as digits alone, as machine formats do ("20241109")."""
_UNIT_NAMED = re.compile(
    r"(?<![\w/])(?:[a-zµ]{1,3}/[a-z]{1,3}|mg|kg|km|mm|cm|kn|mpa|kpa|psi|ppm|ppb|kwh|kw|hz|"
    r"khz|mhz|ml|mph|kph|degc|°c|bp|(?:milli|centi|kilo)(?:metre|meter|gram|litre|liter)s?|"
    r"(?:metre|meter|gram|litre|liter)s|"  # plural: a "heat meter" is a device
    r"degrees|celsius|newtons|kilonewtons|volts|amps)(?![\w/])", re.IGNORECASE)
"""A unit of measure the question names ("mg/L", "in kN", "(metres)"): a number is asked."""
_AMOUNT_ASKED = re.compile(
    r"\bhow\s+much\b(?!\s+(?:time|longer|of\b))|\b(?:price|cost|charge|fee|fare|premium|"
    r"excess|insured|worth|grant|quote|quoted)s?\b(?!\s+(?:centre|center|code|band|type|"
    r"category|ref|id|list|no|number)\b)", re.IGNORECASE)
"""A sum of money is asked: "how much is ...", "the premium", "insured for", "worth" (not
the "cost centre" or "fee code" a money word names)."""
_AMOUNT = re.compile(r"(?<![A-Za-z\d.-])\d[\d,]*(?:\.\d+)?(?![\d-]|\.\d)")
"""A number standing alone ("£1,834.28", "500", "7.50"), not the digits inside a code
("CVM.1934.017", "HMW-HOME-0925", "KL1697")."""
_NUMBERED_ASKED = re.compile(
    r"\b(?:no\.|number|code|ref(?:erence)?|id)(?!\s+of\b)(?=\W|$)", re.IGNORECASE)
"""A numbered thing is asked: "flight no.", "ticket number", "exit code" (not "the number
of ...", which counts)."""
_DAY_ASKED = re.compile(r"\b(?:which|what)\s+day\b", re.IGNORECASE)
_DATE = re.compile(r"\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
                   r"|\b\d{1,2}\.\d{1,2}\.\d{2,4}\b")
"""A date in digits (beside `CALENDAR_WORDS`: "6 April" holds a month's name)."""
_PERCENT_ASKED = re.compile(r"%|\bper\s*cent(?:age)?\b|\bpercentage\b", re.IGNORECASE)
_PERCENT = re.compile(r"\d\s*(?:%|per\s*cent\b|pc\b)", re.IGNORECASE)
_COUNTED_THINGS = re.compile(r"(?<![\w.,£$€])\d+\s+(?!(?:pounds|dollars|euros|pence|quid|guineas|"
                             r"gns|bucks)\b)[a-z]+s\b", re.IGNORECASE)
_HOUSE_NUMBER = re.compile(r"\b\d+[A-Za-z]?\s+(?:[A-Z][\w'’-]*\s+){1,3}(?:Rd|Road|St|Street|Lane|"
                           r"Ln|Ave|Avenue|Close|Way|Drive|Dr|Court|Ct|Place|Terrace|Row|Hill|"
                           r"Crescent|Gardens|Square)\b")
_YEAR = re.compile(r"(?<![\w./-])(?:19|20)\d\d(?![\w./-]*\d)")
_MEASURED = re.compile(
    r"\d[\d,.]*\s*(?:kg|g|lbs?|km|m|cm|mm|mi|miles|mph|kph|l|ml|gb|mb|kb|tb|mins?|minutes|"
    r"h|hrs?|hours|days?|weeks?|months?|years?|nights?|x|percent|%)(?!\w)", re.IGNORECASE)
"""A number with its unit of measure: an amount, not the number of a thing."""
