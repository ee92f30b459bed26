"""Units of text and their normal forms, shared by grounding and extraction.

- `normalise`: NFC, casefolded, one kind of dash, no thousands separators, single spaces;
  `stems`: the English stems of a text's content words (the search index's own stemmer);
- `split_units`: a text cut into paragraphs, `Key: value` records, logical lines
  (hard-wrapped prose joined back: corpus/wrapping.py), labelled entries ("Bed 7 — ..."),
  sentences and semicolon clauses;
- word families: stems of five letters or more that begin one another, or a stem and the
  same stem with a noun-making suffix (lead/leader, fail/failure);
- word forms: abbreviations as the words a question uses (ETA, ext, tel), British spellings
  made American; a unit's words include its heading's and what its values' shapes answer
  (a phone number answers "phone number").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import tantivy

from .glossary import glossed

__all__ = ["CONTINENTAL_SUM", "EMAIL", "FULL_STOP", "MONEY_SUM", "SENTENCE_END", "STOP",
           "THOUSANDS", "Unit",
           "abbreviates", "has_word", "normalise", "shared_words", "stems"]

STOP = frozenset((
    "a an and are as at be but by for if in into is it its no not of on or such that the their "
    "then there these they this to was will with what which who whom whose where when why how "
    "do does did has have had were been being can could would should may might must shall "
    "i me my we our you your he him his she her them than so very also just only about from "
    "up down out over under again any all each both few more most other some own same too "
    "because now still yet currently already "
    "answer question excerpt excerpts passage passages text document documents based given "
    "according says said here following "
    # The frame of a question, not its topic ("how long did it take", "when did it go off").
    "long much many often time go goes went gone get got off take takes took make made "
    "happen happened know tell find mention mentioned exact exactly give gave gives giving "
    # A modal frame, like "should": "which channel are the slingers supposed to use".
    "supposed"
).split())
THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f\u2009'](?=\d{3}(?!\d))")
"""Not a plain space: "ward 7 200 ml" is two numbers."""
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_SPACES = re.compile(r"\s+")
_ABBREVIATIONS = ("Dr", "Mr", "Ms", "Mrs", "St", "Prof", "No", "vs", "Fig", "Dept", "ext", "Ext",
                  "tel", "Tel", "mob", "Mob", "approx", "ref", "Ref", "dept", "extn", "Extn",
                  "no", "Nos", "nos", "Rev", "Revd", "Col", "Capt", "Cllr", "NO", "Nr", "nr",
                  "NR", "Nº", "Mme", "Mlle", "Sr", "Sra", "Hr", "Fr")
_INITIAL = r"(?<![\s(][A-Z]\.)(?<!^[A-Z]\.)"
"""Not after an initial ("P. Gill"); a code's last letter ("5254-Y. Every") is no initial."""
SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS)  # "Dr. Achebe" is one sentence
    + _INITIAL  # and so is "Engineer: P. Gill"
    + r"(?<!\.\.)(?<!\. \.)"  # a leader's dots ("Adult swim ...... 3.85") end nothing
    + r"(?<=[.!?;])\s+(?=[\"'(\[A-Z0-9])")
FULL_STOP = re.compile(
    "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS)
    + _INITIAL + r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")
"""A sentence's end by its full stop (not a semicolon's clause)."""


def normalise(text: str) -> str:
    """NFC, casefolded, one kind of dash, no thousands separators, single spaces."""
    text = unicodedata.normalize("NFC", text).casefold()
    text = _DASHES.sub("-", text)
    text = THOUSANDS.sub("", text)
    return _SPACES.sub(" ", text)


@functools.cache
def _stemmer() -> tantivy.TextAnalyzer:
    # The search index's stemmed field uses the same chain: one idea of "the same word".
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


_PHONE = re.compile(r"(?<![\w.])(?:\+\d{1,3}[\s-]?)?\(?0\d{2,4}\)?[\s-]?\d{3}[\s-]?\d{3,4}"
                    r"(?!\w|\.\d)")
"""A phone number as people write one: "01632 960 274", "0113 496 0275", "07700 900 845"."""
_NUMBER = re.compile(r"(?<![\w.])\d{3,}(?![\w.]|:\d)")
"""A number of three digits or more ("job 448127"): a "number" whether or not it says so."""
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TEMPERATURE = re.compile(r"\d\s*°|\d\s*deg(?:rees)?\s*[CF]\b|\bgas\s+(?:mark\s+)?\d",
                          re.IGNORECASE)
"""A temperature: "160°C", "30 degrees C", "gas mark 6"."""
_ABBREVIATIONS = {
    "ETA": "expected arrival", "ETD": "expected departure", "DOB": "date birth",
    "ext": "extension", "extn": "extension", "tel": "telephone", "mob": "mobile",
    "approx": "approximately", "qty": "quantity", "dept": "department", "mgr": "manager",
    "asst": "assistant", "appt": "appointment", "info": "information", "ref": "reference",
    "odo": "odometer", "cert": "certificate", "certs": "certificates", "inv": "invoice",
    "tkt": "ticket", "rcpt": "receipt", "pmt": "payment", "amt": "amount", "acct": "account",
    "addr": "address", "reg": "registration", "rego": "registration", "bal": "balance",
    "avg": "average",
    "yr": "year", "yrs": "years", "wk": "week", "hrs": "hours", "mins": "minutes",
    "gal": "gallons", "gals": "gallons", "lb": "pound", "lbs": "pounds",
}
"""Abbreviations written in notes, boards and logs, as the words a question uses ("When is
the fan expected?" - "ETA 16 April"). Upper-case keys match upper case only ("eta" is no
word, but "Eta" may be a name); the others match any case."""
_SLASHED = re.compile(r"(?<![\w/])[A-Za-z]/[A-Za-z](?![\w/])")
_SLASHED_WORDS = {"s/n": "serial number", "p/n": "part number", "a/c": "account",
                  "c/o": "care of", "w/e": "week ending"}
"""Two letters with a slash, as forms and plates write them ("S/N DEAB812044")."""
_SPELLINGS = ((re.compile(r"(?<=\w{3})is(e|es|ed|ing|ation|ations)$"), r"iz\1"),
              (re.compile(r"(?<=\w{2})our(s|ed|ing|ful|less)?$"), r"or\1"),
              (re.compile(r"(?<=\w{3})tre(s)?$"), r"ter\1"),
              (re.compile(r"(?<=\w{3})yse(s|d)?$"), r"yze\1"),
              (re.compile(r"(?<=\w{3})ogue(s)?$"), r"og\1"))
"""British spellings written the American way before stemming, on both sides (colour and
color, organise and organize, centre and center, analyse and analyze, catalogue)."""


def abbreviates(short: str, word: str, lead: int = 2, shortest: int = 3) -> bool:
    """`short` is `word` cut down ("emp" for employee, "dept" for department; "rcpt" for
    receipt with `lead` 1): shorter, its first `lead` letters, the rest of its letters in
    the word's order."""
    if len(short) < shortest or len(short) >= len(word) or short[:lead] != word[:lead]:
        return False
    letters = iter(word[lead:])
    return all(letter in letters for letter in short[lead:])


def consonants_of(short: str, word: str) -> bool:
    """`short` is `word` written by its first letter and some of its consonants in order,
    as column headers shorten words ("HDCP" handicap, "BLDG" building, "PMT" payment)."""
    short, word = short.lower(), word.lower()
    return (len(short) >= 3 and short.isalpha() and not set(short[1:]) & set("aeiouy")
            and abbreviates(short, word, lead=1))


def _word_forms(word: str) -> list[str]:
    expanded = _ABBREVIATIONS.get(word) or _ABBREVIATIONS.get(word.lower())
    if expanded:
        return expanded.split()
    lowered = word.lower()
    if lowered in _IRREGULAR:
        return [_IRREGULAR[lowered]]
    if len(lowered) >= 6:
        for pattern, replacement in _SPELLINGS:
            lowered = pattern.sub(replacement, lowered)
    return [lowered]


_IRREGULAR = dict(pair.split(":") for pair in (
    "sold:sell bought:buy spent:spend made:make took:take taken:take gave:give "
    "given:give sent:send kept:keep built:build held:hold told:tell brought:bring "
    "wrote:write written:write drove:drive driven:drive shorn:shear ran:run won:win "
    "lost:lose caught:catch flew:fly flown:fly bent:bend broke:break broken:break "
    "fed:feed laid:lay lent:lend chose:choose chosen:choose").split())
"""English verbs' irregular past forms, read as the verb ("sold" says sell)."""
_PER_SLASH = re.compile(r"(?<=\d)/(?=[a-z]{1,5}\b)")
"""A rate's slash before a unit in lower case ("$3.10/lb", "€45/hr"): per. (A watch's
"3/E" is the third engineer.)"""
_BOUND_PREFIX = re.compile(r"\b(non|ex|anti|pre|post|sub)-(?=[^\W\d_]{2})", re.IGNORECASE)
"""A prefix that makes another thing of the word it is hyphenated to: a pre-test lesson is
no test, a sub-total no total, an ex-owner no owner. Read as one word ("pretest")."""


def stems(text: str) -> list[str]:
    """English stems of the content words of `text` (stopwords and numbers left out;
    abbreviations expanded, British spellings made American, a bound prefix joined to its
    word)."""
    text = _SLASHED.sub(lambda m: _SLASHED_WORDS.get(m.group().lower(), m.group()),
                        unicodedata.normalize("NFC", text))
    text = _PER_SLASH.sub(" per ", _BOUND_PREFIX.sub(r"\1", text))
    words = [form for w in re.findall(r"[^\W\d_]{2,}", text)
             for form in _word_forms(w) if form not in STOP]
    return _stemmer().analyze(" ".join(words)) if words else []


@dataclass(frozen=True)
class Unit:
    """A sentence, line or `Key: value` block of a cited text, with its offsets there."""

    source: int
    """Index of the cited text it comes from."""
    start: int
    end: int
    text: str
    record: bool = False
    """A `Key: value` block: a value there belongs to the key on its line."""
    scope: str = ""
    """The heading the unit is under (`corpus.sections`): what it is about when
    it does not say ("Tenders close on 30 April" under "Lift replacement, Ashdown
    Building")."""
    author: str = ""
    """Who wrote the letter or email the unit is in, when it says "I" or "me"."""
    lead: str = ""
    """The line that introduces the list the unit is an item of ("Stock check this
    morning:"): its words are the item's own."""
    header: str = ""
    """The column names over a table's row, tab-separated: the row says its fields there
    ("| Fares |" under "| squad | escalation contact | mobile |")."""
    title: str = ""
    """The title of the document it is in (`sections.title`): the names it gives are said
    by every line of the document ("run #8812" over a CI log's lines)."""

    @functools.cached_property
    def norm(self) -> str:
        return normalise(self.text)

    @functools.cached_property
    def stem_set(self) -> frozenset[str]:
        """Its words' stems, its heading's, and the words its values' shapes answer (a
        phone number is a "phone number" whether or not the line says so)."""
        return self.own_stems | frozenset(stems(self.scope))

    @functools.cached_property
    def own_stems(self) -> frozenset[str]:
        """Its own words' stems and the words its values' shapes answer, not its heading's."""
        shapes = (("phone", "number", "telephon") if _PHONE.search(self.text)
                  else ("number",) if _NUMBER.search(self.text) else ())
        if EMAIL.search(self.text):  # "Author: R. Achebe <ra@x.dev>" gives an e-mail
            shapes = (*shapes, "email", "mail")
        if _TEMPERATURE.search(self.text):  # "bake at 160°C" gives a temperature
            shapes = (*shapes, "temperatur")
        own = (*stems(self.text), *stems(self.lead), *stems(self.header))
        # A label of another language says the English words of its meaning ("Vikt").
        return frozenset((*own, *shapes, *kind_words(self.text), *glossed(own, stems)))


_CODE = re.compile(r"(?=[\w/.-]*[A-Z])(?=[\w/.-]*\d)[A-Za-z\d][\w/.-]{0,10}[A-Za-z\d]")
"""A code: a short word of capitals and digits ("R19", "SR-1", "D/WHT/4/3", "12A"), not a
timestamp or a hash."""
CONTINENTAL_SUM = r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?(?![\d.,])|\d+,\d{2}(?![\d.,])"
"""A sum as much of Europe writes it: dots between thousands, a comma before the cents
("3.388,72", "12,50"); "1,250" is an English thousand."""
MONEY_SUM = re.compile(rf"[£$€]\s?(?:{CONTINENTAL_SUM}|\d[\d,]*(?:\.\d+)?)")
"""A sum written with its currency sign ("£1,240", "€17.64", "€ 3.388,72")."""
_MONEY = re.compile(r"[£$€¥]\s?\d|\b\d[\d.,]*\s?(?:GBP|USD|EUR|pence|p)\b")
_DECIBELS = re.compile(r"\d\s?dB", re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3])[:.]([0-5]\d)(?![\d.]|:\d\d\d)")
_STREET = re.compile(r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][\w'.-]*\s+){1,3}(?:Rd|Road|St|Street|Ave|"
                     r"Avenue|Ln|Lane|Dr|Drive|Ct|Court|Way|Close|Cres|Crescent|Pl|Place|"
                     r"Blvd|Boulevard|Hwy|Highway|Terrace|Tce|Sq|Square|Pike|Trail)\b")
"""A street address ("2290 Brill Rd", "14 Harbour Lane")."""
_HOURLY = re.compile(r"\d\s*(?:/|per\s+|an?\s+|p/)\s*(?:hr|hour|h)\b", re.IGNORECASE)
_RATE = re.compile(r"\d\s*(?:/|per\s+|p/)\s*(?:day|d|week|wk|night|month|mo|year|yr|annum|km|mile|"
                   r"kg|unit|item|person|head|visit|session)\b", re.IGNORECASE)
"""A rate by its shape: "$31.85/hr" is an hourly rate, "€18 per night" a nightly one."""
_DOSE = re.compile(r"\d\s?(?:ml|mL|mg|mcg|µg|g|iu|IU|units?|tabs?|tablets?|caps(?:ules?)?|drops?|"
                   r"puffs?|sachets?)\b")
"""A dose by its shape: "1.4 ml", "250 mg", "2 tablets"."""
_KINDS = ((_MONEY, "cost price fee charge amount"),
          (_DOSE, "dose amount"),
          (_DECIBELS, "decibel loud noise"),
          (_STREET, "address street"),
          (_HOURLY, "rate hourly"),
          (_RATE, "rate"))
"""Values whose shape says what they are, and the words that ask for them: a money amount is
a cost or a fee whether or not its line says so ("a half plot is £48.00 a year")."""
_PARTS_OF_DAY = ((5, "morning"), (12, "afternoon"), (17, "evening"), (22, "night"))


def kind_words(text: str) -> tuple[str, ...]:
    """The stems of the words a text's values answer by their shape: a code ("R19"), money,
    a loudness in dB, and the part of the day of a clock time ("17:35" is evening)."""
    words = [w for pattern, said in _KINDS if pattern.search(text) for w in said.split()]
    if any(_CODE.fullmatch(word.strip("()[]{}<>,;:'\"")) for word in text.split()):
        words.append("code")
    for clock in _CLOCK.finditer(text):
        hour = int(clock.group(1))
        words.append(next((part for start, part in reversed(_PARTS_OF_DAY) if hour >= start),
                          "night"))
    return tuple(stems(" ".join(words))) if words else ()


_FAMILY = 5
"""Stems this long that begin one another are one word family ("suppli" for supplies,
"supplier"): Snowball keeps a noun and its verb apart."""


_DERIVED = re.compile(r"(?:er|or|ur|ment|ion|al|ee|ant|ent|ship)$")
"""Suffixes that make a noun of a verb, as Snowball leaves them: "leader" of lead, "failur"
(failure, failures) of fail (failed), "manag" and "management"."""


def has_word(stem: str, stem_set: frozenset[str]) -> bool:
    """`stem` is in `stem_set`, or a word of its family is: stems of five letters or more
    that begin one another, or a stem and the same stem with a noun-making suffix."""
    if stem in stem_set:
        return True
    return any(_family(stem, s) for s in stem_set)


def _family(a: str, b: str) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if not long.startswith(short):
        return False
    if len(short) >= _FAMILY:
        return True
    return len(short) >= 3 and bool(_DERIVED.fullmatch(long[len(short):]))


def shared_words(words: Iterable[str], stem_set: frozenset[str]) -> set[str]:
    return {w for w in words if has_word(w, stem_set)}
