"""Question words that a record spells otherwise: a month ("in October") against the dates the
records hold ("01OCT", "2026-10-01"), and a phrase the document abbreviates ("direct debits"
written "DD", where the document's key says "DD Direct Debit"); and the words no record can
hold literally: a judgement ("complain about", "report a problem") or a reported claim ("tell
residents that a road will be shut"), which only a reader of each record can decide."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...corpus.dates import MONTHS, has_month, in_year, record_years
from ...corpus.records import Layout, Record
from ...corpus.tally import FieldFilter
from ...corpus.word_stems import phrase_regex, stems, words

__all__ = ["acronym_values", "addressees", "answer_units", "code_naming", "compared_values",
           "defined_code", "judged_words", "month_words", "telling_years", "time_frames",
           "year_words"]

_CODE = re.compile(r"\b[A-Z]{2,5}\b")


_JUDGEMENT = frozenset(stems(
    "complain complains complained complaining complaint complaints praise praises praised "
    "praising criticise criticises criticised criticize criticizes criticized criticism "
    "recommend recommends recommended problem problems concern concerns unhappy dissatisfied "
    "disappointed satisfied pleased rude unhelpful helpful friendly unfriendly excellent "
    "terrible awful poor"))
"""Words of a judgement on what a record says: whether a comment complains is read, not
matched ("the cafe" is in praise too)."""
_CLAIM = re.compile(
    r"\b(?:tell|tells|told|say|says|said|state|states|stated|announce[sd]?|warn(?:s|ed)?|"
    r"report(?:s|ed)?|claim(?:s|ed)?|mention(?:s|ed)?|suggest(?:s|ed)?|inform(?:s|ed)?|"
    r"notif(?:y|ies|ied)|advise[sd]?|explain(?:s|ed)?)(?:\s+[A-Za-z0-9]+){0,2}\s+that\b",
    re.IGNORECASE)
"""A reported claim ("posts that tell residents that a road will be shut"): the records say
it in their own words, so no phrase of the question must stand in them."""


def judged_words(question: str, taken: set[int]) -> list[int]:
    """Positions of the words that make counting a judgement of each record: an evaluative
    word ("complain", "problem") no field value took, or the verb of a reported claim."""
    ws = words(question)
    q_stems = stems(question)
    # "Please count ..." asks politely; it is no "pleased" (they share a stem).
    out = [i for i, s in enumerate(q_stems) if s in _JUDGEMENT and i not in taken
           and ws[i].lower() not in ("please", "pls", "plz")]
    for match in _CLAIM.finditer(question):
        verb = len(words(question[:match.start()]))
        if verb not in taken and verb < len(ws):
            out.append(verb)
    return sorted(set(out))


_COMPARED = re.compile(r"\b(?:below|above|(?:lower|higher|less|more|fewer|greater|worse|better)"
                       r"\s+than)\b(?![\s\w]{0,12}?\d)", re.IGNORECASE)


def compared_values(question: str, said: set[int]) -> list[int]:
    """Positions of a comparison with no number ("working below his target grade", "scored
    higher than last term"): one value of each record weighed against another, which no
    word of the text says; not one `comparisons` read ("below 60%", in `said`)."""
    out = []
    for match in _COMPARED.finditer(question):
        first = len(words(question[:match.start()]))
        at = range(first, first + len(words(match.group())))
        if not said & set(at):
            out.extend(at)
    return out


_NOW = re.compile(r"\b(?:right\s+now|at\s+(?:the|this)\s+(?:moment|time)|at\s+present|"
                  r"as\s+(?:of|at)\s+(?:now|today)|to\s+date|as\s+things\s+stand|"
                  r"(?:during|over|throughout|in)\s+the\s+(?:whole\s+|entire\s+)?"
                  r"(?:week|month|year|fortnight|period|reporting\s+period)"
                  r"(?!\s+(?:of|before|after|ending|beginning|starting|commencing|to|from)\b))\b",
                  re.IGNORECASE)
"""Also "during the week": the period the records cover as a whole, no word they say."""


def _said_at(pattern: re.Pattern[str], question: str) -> set[int]:
    """The word positions of each match of the pattern in the question."""
    out: set[int] = set()
    for match in pattern.finditer(question):
        first = len(words(question[:match.start()]))
        out |= set(range(first, first + len(words(match.group()))))
    return out


def time_frames(question: str) -> set[int]:
    """Positions of the words that say "now" ("right now", "at present", "to date"): the
    state the records hold is the current one, no word they must say."""
    return _said_at(_NOW, question)


_IN_UNIT = re.compile(
    r"(?:\b(?:in|as)\s+|\(\s*)(?:kms?|kilomet(?:re|er)s|miles|kgs?|kilos|kilograms|grams|lbs|"
    r"pounds|litres|liters|euros?|eur|gbp|usd|dollars|rands?|hours|hrs|minutes|mins|seconds|"
    r"metres|meters|percent)\b\s*\)?", re.IGNORECASE)
"""The unit an answer is asked in ("in km", "(euros)"): how the sum is written, no word a
record must say."""


def answer_units(question: str) -> set[int]:
    """Positions of the words asking for the answer's unit ("..., in km?")."""
    return _said_at(_IN_UNIT, question)


def addressees(question: str) -> set[int]:
    """Positions of the words a reported claim is told to ("tell residents that", "warn
    drivers that"): whom the records address, no field value nor phrase they must hold."""
    out: set[int] = set()
    for match in _CLAIM.finditer(question):
        first = len(words(question[:match.start()]))
        out |= set(range(first + 1, first + len(words(match.group())) - 1))
    return out


def month_words(question: str, records: list[Record], skip: set[int],
                titles: Iterable[str] = ()) -> tuple[list[int], set[int]]:
    """The months the question names that some record's date falls in, and the positions of
    their words and of the days beside them ("9-15 March": the days date the month, no
    number a record must say). "May" only capitalised: "may" is a verb. A month every
    scoped document's first lines hold ("Cycle: 09/03/26 to 15/03/26") is the period the
    document covers: it chose the document, it selects none of its items."""
    raw = re.findall(r"[^\W_]+", question)  # as `words` splits them
    heads = list(titles)
    months: list[int] = []
    at: set[int] = set()
    for i, word in enumerate(raw):
        month = MONTHS.get(word.lower())
        if i in skip or month is None or len(word) < 3 or (word == "may"):
            continue
        if any(has_month(r.text, month) for r in records):
            at |= {i, *_days_beside(raw, i)}
            if not (heads and all(has_month(head, month) for head in heads)):
                months.append(month)
    return months, at


_IN_PERIOD = frozenset(("in", "during", "throughout"))


def year_words(question: str, records: list[Record], skip: set[int]
               ) -> tuple[list[int], set[int]]:
    """"seen in 2026", "during 2025": the years some record's date falls in, and the
    positions of the year and the word before it."""
    raw = re.findall(r"[^\W_]+", question)
    years: list[int] = []
    at: set[int] = set()
    for i, word in enumerate(raw):
        if (i in skip or i == 0 or raw[i - 1].lower() not in _IN_PERIOD
                or not re.fullmatch(r"(?:19|20)\d\d", word)):
            continue
        if any(in_year(r.text, int(word)) for r in records):
            years.append(int(word))
            at |= {i - 1, i}
    return years, at


def telling_years(years: list[int], records: list[Record]) -> list[int]:
    """The years that tell the records in scope apart. A year none of them is dated outside
    selects nothing, and would drop the undated rows ("12 Mar") of a "2026" register."""
    dated = set().union(*(record_years(r.text) for r in records))
    return [y for y in years if y in dated and dated - {y}]


def _days_beside(raw: list[str], at: int) -> set[int]:
    """Positions of the day numbers (a day or a range, "9-15", "3rd") next to a month."""
    out: set[int] = set()
    for step in (-1, 1):
        j = at + step
        while 0 <= j < len(raw) and re.fullmatch(r"(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?",
                                                raw[j], re.IGNORECASE):
            out.add(j)
            j += step
    return out


def _initials(phrase: str) -> str:
    return "".join(stems(w)[0][0] for w in words(phrase)).upper()


def defined_code(phrase: str, records: Iterable[Record]) -> str | None:
    """The code the records use for a phrase of two or more words, when one record defines
    it beside the phrase ("DD Direct Debit", "Direct Debit (DD)") and at most that one
    record spells the phrase out."""
    if len(words(phrase)) < 2:
        return None
    pattern = phrase_regex(phrase)
    saying = [r for r in records if pattern.search(r.text)]
    if len(saying) != 1:
        return None
    text = saying[0].text
    for match in pattern.finditer(text):
        near = text[max(match.start() - 8, 0):match.start()] + " " + text[
            match.end():match.end() + 8]
        for code in _CODE.findall(near):
            if code == _initials(phrase):
                return code
    return None


_LINKS = frozenset("in of and for to on".split())
"""Small words an initialism keeps ("work in progress": WIP, "out of stock": OOS)."""
_MIN_INITIALS = 3
_TAG = re.compile(r"[@#\[\](){}<>:]")


def acronym_values(question: str, layout: Layout, taken: set[int], frame: frozenset[str]
                   ) -> tuple[list[FieldFilter], set[int]]:
    """"tagged as work in progress" over records tagged "@wip": a run of two to four of the
    question's content words (`frame`: the words that are none) whose three or more
    initials are a word of one field's values (a tag, a code), as a condition that the
    field holds it, and the run's positions."""
    ws = words(question)
    out: list[FieldFilter] = []
    used: set[int] = set()
    for start in range(len(ws)):
        for size in (4, 3, 2):
            at = set(range(start, start + size))
            run = ws[start:start + size]
            if (len(run) < size or at & (taken | used) or run[0] in _LINKS
                    or run[-1] in _LINKS or any(w in frame and w not in _LINKS for w in run)):
                continue
            initials = "".join(w[0] for w in run if not w.isdigit())
            if len(initials) < _MIN_INITIALS:
                continue  # two letters are too many things ("main residence": "Mr")
            holding = [k for k, values in layout.fields.items()
                       if any(initials in _TAG.sub(" ", v).lower().split() for v in values)]
            if len(holding) == 1:
                out.append(FieldFilter(field=holding[0], value=initials))
                used |= at
    return out, used


_CODE_NAME = 3
"""Words before a code in brackets that may be its everyday name ("no seed time (NT)")."""


def code_naming(question: str) -> set[str]:
    """The stems of the words just before each bracket of the question: the everyday name
    of the code it gives there ("seed time" of "no seed time (NT)")."""
    out: set[str] = set()
    for bracket in re.finditer(r"\(", question):
        before = words(question[:bracket.start()])[-_CODE_NAME:]
        out |= set(stems(" ".join(before)))
    return out
