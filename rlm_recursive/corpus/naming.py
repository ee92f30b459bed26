"""What a text names, and whether a unit of text names a given entity.

- `values`: the numbers, codes and names an answer holds;
- `entities`: what a question names (quoted phrases, names, codes, "ward 7");
- `names`: a unit says an entity itself, in its heading or document title, or as the "I" of
  the letter its author wrote; `contains`: a whole-token match of normalised text.
"""

from __future__ import annotations

import re
import unicodedata

from .asked import asked_phrase
from .dates import FOREIGN_WEEKDAYS, MONTHS, WEEKDAYS, said_dates, same_date, weekday_named
from .units import (
    SENTENCE_END,
    STOP,
    THOUSANDS,
    Unit,
    abbreviates,
    consonants_of,
    normalise,
    stems,
)

__all__ = ["HONORIFICS", "contains", "described", "entities", "names", "says", "values",
           "written_forms"]

HONORIFICS = frozenset("mr mrs ms miss mx dr prof sir dame rev revd".split())
"""Titles before a name: a register writes "Eileen Frances DOWLING" of "Mrs Eileen Dowling",
so a title names no one by itself."""

_COMMON_CAPS = frozenset((
    "What Which Who Whom Whose Where When Why How Is Are Was Were Does Do Did Can Could Would "
    "Should Has Have Had The A An In On At Of For To From By With According Please Tell Give "
    "Name List Find Show I We You It This That These Those Answer Question Excerpt Not Found "
    "Yes No If Then There Here"
).split())

_VALUE = re.compile(r"[^\W_](?:[\w.:/+-]*[^\W_])?")
_CAPS_WORD = re.compile(r"\b[A-Z][\w'-]*")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”|(?<!\w)'([^']{2,80})'(?!\w)")
"""Quoted phrases; an apostrophe inside a word is none ("What's Kerry Doughty's ...")."""
_HOST = re.compile(r"[a-z][\w-]*(?:\.[a-z][\w-]*){2,}", re.IGNORECASE)
"""A host name: "shop.northfell.org.uk", "api.staging.example.com"."""
_NOUN_NUMBER = re.compile(
    r"\b([A-Za-z][a-z]{2,})\s+(#?\d[\w-]*\b(?![/.]\d)|(?!I\b)[A-Z](?![\w'’-]))")
"""A noun and its number or letter: "ward 7", "bed 4A", "bay C", "groups C and D"; a number
written with a slash or a point ("ticket 25/0415") is a code, the entity by itself."""
_NO_NOUNS = frozenset(("number", "first", "last", "next", "previous", "earliest", "latest",
                       "final"))
"""Words before a number that name no kind of thing: "the first 47A", "number 47" name the
47A and the 47 (a timetable writes "SERVICE 47A"), so the number alone is the entity."""


def _is_value(token: str) -> bool:
    return any(c.isdigit() for c in token) or (len(token) >= 2 and token.isupper())


def values(text: str) -> list[str]:
    """Numbers, codes and names in `text`: tokens with a digit, ALL-CAPS codes, and
    capitalised words that do not start a sentence (normalised, in order, unique)."""
    found: list[str] = []
    text = THOUSANDS.sub("", unicodedata.normalize("NFC", text))
    for sentence in SENTENCE_END.split(text):
        for i, match in enumerate(_VALUE.finditer(sentence)):
            token = match.group().rstrip(".:")
            if _is_value(token):
                found.append(token)
            elif i > 0 and token[:1].isupper() and token not in _COMMON_CAPS and len(token) > 1:
                found.append(token.removesuffix("'s"))
    return list(dict.fromkeys(normalise(v) for v in found))


def entities(question: str) -> list[str]:
    """What the question names: quoted phrases, dates ("1 December 2025", one entity
    however a text writes it: `says`), names (capitalised words that are not the
    question's own words), codes with digits, and "noun number" pairs ("ward 7")."""
    named = [a or b or c for a, b, c in _QUOTED.findall(question)]
    # A date is one entity, not a month, a year and a day number apart ("1" and "december
    # 2025" name nothing together in "01 Dec 2025").
    for start, end, _ in said_dates(question):
        named.append(question[start:end])
        question = question[:start] + " " * (end - start) + question[end:]
    named += [f"{noun} {num}" for noun, num in _NOUN_NUMBER.findall(question)
              if noun.lower() not in STOP and noun.lower() not in _NO_NOUNS]
    taken = normalise(" ".join(named))
    asked = set(asked_phrase(question))
    for match in _CAPS_WORD.finditer(question):
        word = match.group()
        # "the Wolskis' lease": the family is "Wolski" ("Harbour Kennels'" is written
        # "KENNELS" too: `written_forms`).
        word = (word[:-2] if word.endswith("s'") and len(word) > 4 else
                word.removesuffix("'s")).strip("'-")
        before = question[:match.start()].rstrip()
        titled = re.search(r"\b(\w+)\.$", before)  # "Dr. Patel": no sentence ends
        if ((not before or before[-1] in ".?!") and not word.isupper()
                and not (titled and titled.group(1).lower() in HONORIFICS)):
            continue  # "Summarise ...", "Describe ...": capitalised by its place only
        if (word in _COMMON_CAPS or len(word) < 2 or normalise(word) in taken
                or word.lower().rstrip(".") in HONORIFICS):
            continue
        if word.isupper() and set(stems(word)) <= asked:
            continue  # "What AADSTS error ...", "KB of the update ...": the kind of code asked
        named.append(word)
    for match in _VALUE.finditer(question):
        token = match.group()
        # A code has a digit; a host name ("shop.example.org.uk") is a name in lower case.
        if ((any(c.isdigit() for c in token) or _HOST.fullmatch(token))
                and normalise(token) not in normalise(" ".join(named))):
            named.append(token)
    return list(dict.fromkeys(normalise(n) for n in named if n.strip()))


_SHORTENED = 6
"""Letters of a name's word from which a text may write it by its consonants."""
_CLOCK = re.compile(r"\d{1,2}:\d\d")


def _contains(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` (both normalised) as whole tokens: no letter, digit or
    hyphen either side, no decimals after. "3308" is not "pelican-3308", "3" not "3.5"."""
    # A number goes on past a decimal point ("3" is not "3.5"); a word before a comma and a
    # digit is a CSV cell's end ("CMA CGM,3100").
    after = r"(?![^\W_]|-\w|[.,]\d)" if needle[-1:].isdigit() else r"(?![^\W_]|-\w)"
    if _CLOCK.fullmatch(needle):  # "the 11:30 lesson": the slot "11:30-12:30" starts then
        after = r"(?=-\d{1,2}[:.]\d\d(?!\d)|(?![^\W_]|-\w|[.,]\d))"
    pattern = r"(?<![^\W_])(?<!-)" + re.escape(needle) + after
    return re.search(pattern, haystack) is not None


contains = _contains


def names(unit: Unit, entity: str) -> bool:
    """The unit names the entity: itself (a "noun number" pair perhaps written as one word,
    "cone6" for "cone 6"; a family by one of them, "Mr & Mrs Lindell" for the Lindells), in
    the heading it is under or its document's title, or as "I" or "me" in a letter its
    author wrote."""
    return (_says_name(unit.norm, entity)
            or (bool(unit.lead) and _contains(normalise(unit.lead), entity))
            or (bool(unit.scope) and _heading_names(unit.scope, unit, entity))
            or (bool(unit.title) and _heading_names(unit.title, unit, entity))
            or (bool(unit.author) and _contains(normalise(unit.author), entity)))


def says(norm: str, entity: str) -> bool:
    """The (normalised) text says the entity: a "noun number" pair perhaps as one word, with
    a sign between ("cone6", "run #8812", "room no. 4"); a
    date in any of its written forms ("01 Dec 2025", "01/12/2025" for "1 December 2025"); a
    month by the dates of a text all in it ("2026-10-16 ... install cmake" says October). A
    text with dates of other months too (a table of dated rows) does not say it: a dump of
    its rows would pass for the one asked."""
    if _contains(norm, entity):
        return True
    # A name's word as addresses shorten it ("Kingsley Gdns" for Kingsley Gardens).
    if len(entity) >= _SHORTENED and entity.isalpha() and any(
            consonants_of(token, entity) for token in re.findall(
                rf"(?<![\w-]){re.escape(entity[0])}[a-z]{{2,5}}(?![\w-])", norm)):
        return True
    if (month := MONTHS.get(entity)) is not None and len(entity) >= 3 and entity != "may":
        months = {d[1] for _, _, d in said_dates(norm)}
        return months == {month}
    if (day := weekday_named(entity)) is not None and len(entity) >= 3:
        return _says_weekday(norm, day)
    asked = said_dates(entity)
    if len(asked) == 1 and asked[0][:2] == (0, len(entity)):
        return any(same_date(asked[0][2], written) for _, _, written in said_dates(norm))
    if _NOUN_NUMBER.fullmatch(entity) is None:
        return False
    noun, _, number = entity.rpartition(" ")
    if any(_contains(norm, f"{noun}{gap}{number}") for gap in ("", " #", " no. ", " no ")):
        return True
    if _row_says(norm, noun, number.lstrip("#")):
        return True
    # The noun abbreviated ("RCPT 0452" for receipt 0452, "Rm 4" for room 4).
    return any(abbreviates(m.group(1), noun, lead=1, shortest=2) for m in re.finditer(
        r"(?<![^\W_])([a-z]{2,8})\.?\s?#?\s?" + re.escape(number) + r"(?![^\W_]|[.,]\d)", norm))


_CODE_LENGTH = 4
"""A number this long is a code of its own: "24371" is the invoice wherever its row says
"Invoice"; "7" is ward 7 only beside the word ("Ward 3: 7 beds" is not ward 7)."""


def _row_says(norm: str, noun: str, number: str) -> bool:
    """A table's row says the noun and, columns later, its number: "Invoice  07/23/2026
    24371" is invoice 24371 (its type, its date, its number)."""
    if len(number) < _CODE_LENGTH or not any(c.isdigit() for c in number):
        return False
    number_at = re.compile(rf"(?<![\w./:-])#?{re.escape(number)}(?!\w|[./:-]\w)")
    for line in norm.split("\n"):
        found = number_at.search(line)
        if found and stems(noun)[-1:] and stems(noun)[-1] in stems(line[:found.start()]):
            return True
    return False


def _says_name(norm: str, entity: str) -> bool:
    """`says` (in any of its `written_forms`), or a family by one of them ("Mr & Mrs
    Lindell" for the Lindells)."""
    return any(says(norm, form) for form in written_forms(entity)) or (
        _FAMILY.fullmatch(entity) is not None and _contains(norm, entity[:-1]))


_FAMILY = re.compile(r"[a-z]{3,}[^su\W]s")
"""A family by its plural ("the Lindells"), never a word ending in -ss, -us or -is."""


_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,9}(?![^\W\d_])")


def _says_weekday(norm: str, day: int) -> bool:
    """The (normalised) text says the weekday: its name, or its plural ("saturdays"); a
    short form ("fri", "fr") only beside a day number ("13 fr", "fri 13"), since "sat",
    "wed" and "sun" are words too."""
    for match in _WORD.finditer(norm):
        word = match.group()
        if weekday_named(word) != day:
            continue
        if word in (WEEKDAYS[day], f"{WEEKDAYS[day]}s") or word in FOREIGN_WEEKDAYS or re.search(
                r"(?<![\d.:/])\d{1,2}\s+$", norm[:match.start()]) or re.match(
                r"\.?,?\s+\d{1,2}(?![\d:./])", norm[match.end():]):
            return True
    return False


_NAME_WORD = re.compile(r"\b[A-Z][a-z][\w'-]+")


def _heading_names(heading: str, unit: Unit, entity: str) -> bool:
    """The heading over the unit (or its document's title) says the entity, and the unit
    does not pick out another name of that heading instead ("Saturday clinics (Harrow
    only)" under "Harrow & Vale Dental Group" is not about Vale)."""
    parts = [p for p in heading.split(" / ") if _says_name(normalise(p), entity)]
    if not parts:
        return False
    # Its names: capitalised words, not a heading's capitals ("CHICKEN AND LEEK").
    # A label's word ("Tenant:") names no one.
    others = {normalise(m.group()) for m in _NAME_WORD.finditer(" / ".join(parts))
              if not _contains(entity, normalise(m.group()))
              and not _says_name(normalise(m.group()), entity)
              and not re.match(r"[ \t]*:", " / ".join(parts)[m.end():])}
    return not any(_contains(unit.norm, v) for v in others)


def written_forms(entity: str) -> tuple[str, ...]:
    """An entity as a text may write it: "3rd" as the 3 or 03 of a date's column; a name
    read off a plural's possessive ("Harbour Kennels' licence") as its plural."""
    if re.fullmatch(r"[^\W\d_]{3,}", entity):
        # "Kennels'" of "HARBOUR KENNELS"; a German or Dutch plural ("Zuwendungsbestätigungen").
        return (entity, f"{entity}s", f"{entity}es", f"{entity}en", f"{entity}n")
    ordinal = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)\b", entity)
    if ordinal is None:
        return (entity,)
    day = ordinal.group(1)
    return (entity, *(entity[:ordinal.start()] + form + entity[ordinal.end():]
                      for form in dict.fromkeys((day, day.zfill(2)))))


_DESCRIBED = re.compile(
    r"^\W*(?:the|a|an)\s+(?:[\w'’-]+\s+){0,3}?(?:that|which|who|whose|where)\s+"
    r"(?P<clause>[^?]+?)\s*(?:\s[-–—]\s|,|\?|$)", re.IGNORECASE)
"""A question opening on what it asks about, described by a relative clause: "The brew that
used yeast repitched from batch 26-143 - what OG did it reach?"."""


def described(question: str) -> list[str]:
    """The entities a question names only inside the clause describing what it asks about:
    "batch 26-143" of "the brew that used yeast repitched from batch 26-143". The thing asked
    about is another record that refers to them, so a line that names them only through its
    heading (batch 26-143's own OG) is about them, not it."""
    match = _DESCRIBED.match(question)
    rest = normalise(question[match.end():]) if match else ""
    # A bare description ("the kiln that fires the cone 6 glaze", a chain's bridge) asks
    # nothing of another record: what it names is what it looks for.
    if match is None or not re.search(r"\b(?:what|which|who|whom|whose|when|where|how)\b", rest):
        return []
    clause = normalise(match.group("clause"))
    return [e for e in entities(question) if _contains(clause, e) and not _contains(rest, e)]
