"""A question read in the documents' own abbreviations.

Records abbreviate what people spell out: a brew log writes "OG 1.048" for the original
gravity, a field book heads its column "RL" for the reduced level, a scan report says
"412 CCA" for cold cranking amps. Someone asks in full words, or the other way round ("the KB
elevation" over a header saying "KELLY BUSHING ELEVATION"). Every later step (search, the
look-ups, the extractive answer, the grounding check) matches words, so the question is
rewritten once, before them, into the form the documents use:

- a run of the question's words whose initials are an abbreviation the documents write in
  capitals becomes that abbreviation, when a line of the documents says both (a legend: "RL =
  reduced level", a header: "BHT .DEGC 71.5 : BOTTOM HOLE TEMPERATURE"); or, for a run of
  three words or more (or two naming a measure: "heart rate") that the documents never say,
  nor its last word, when they write its abbreviation beside a number ("tested 412 CCA",
  "HR 88");
- an abbreviation of three capitals or more in the question that the documents never write
  ("LAS") becomes the one run of capitalised words there whose initials it is ("Log ASCII
  Standard").

Anything less certain is left as asked: a question is never rewritten into a guess.
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["as_written"]

_CAPS = re.compile(r"(?<![\w.-])[A-Z]{2,5}(?![\w-])")
"""An abbreviation as records write it: two to five capitals standing alone."""
_QUESTION_WORD = re.compile(r"[A-Za-z]+")
_RUN_WORDS = (2, 3, 4)
_FUNCTION_WORDS = frozenset(
    "a all an and any are as at be been but by can could did do does each every few for from "
    "get got had has have how in into is it its many more most much not of on one or out over "
    "some than that the their them then there these they this those to took too under up "
    "very was were what when where which who whom whose why will with would".split())
"""Words no abbreviation spells: a run holding one is no name of a thing."""


@dataclass(frozen=True)
class _Corpus:
    """The documents as one text, in lower case for fast searching (when lowering keeps
    every offset), and the capitals they write."""

    text: str
    lower: str | None
    written: frozenset[str]

    @classmethod
    def of(cls, texts: Iterable[str]) -> _Corpus:
        text = "\n".join(texts)
        lower = text.lower()
        return cls(text, lower if len(lower) == len(text) else None,
                   frozenset(_CAPS.findall(text)))

    def search(self, pattern: str) -> Iterator[re.Match[str]]:
        """Matches of a pattern written in lower case, in any case, starting a word (the
        pattern opens with a literal: a leading `\\b` would stop the fast literal scan)."""
        text = self.lower if self.lower is not None else self.text
        flags = 0 if self.lower is not None else re.IGNORECASE
        return (m for m in re.finditer(pattern, text, flags)
                if m.start() == 0 or not text[m.start() - 1].isalnum())

    def lines_saying(self, pattern: str) -> list[str]:
        """The lines holding a match of `pattern` (lower case, matched in any case)."""
        out = []
        for match in self.search(pattern):
            start = self.text.rfind("\n", 0, match.start()) + 1
            end = self.text.find("\n", match.end())
            out.append(self.text[start:len(self.text) if end < 0 else end])
        return list(dict.fromkeys(out))


_READ: OrderedDict[object, _Corpus] = OrderedDict()
_KEEP = 2
"""Sessions whose reading is kept: a run asks one question, a conversation several."""


def as_written(question: str, texts: Iterable[str], sources: Iterable[str] = (),
               key: object = None) -> str:
    """`question` with its spelled-out runs and abbreviations in the documents' own form
    (see the module docstring); the question itself when nothing is certain. `sources`:
    the documents' file names, whose parts ("the LAS file") name a file, not a thing.
    `key`: what identifies these texts (their ids and content hashes): their reading is
    kept for the next question on the same texts."""
    corpus = _READ.get(key) if key is not None else None
    if corpus is None:
        corpus = _Corpus.of(texts)
        if key is not None:
            _READ[key] = corpus
            while len(_READ) > _KEEP:
                _READ.popitem(last=False)
    if not corpus.written:
        return question
    named = {part.upper() for source in sources for part in re.split(r"[\W_]+", source)}
    question = _abbreviated(question, corpus)
    return _spelled_out(question, corpus, corpus.written | named)


def _abbreviated(question: str, corpus: _Corpus) -> str:
    """Runs of lower-case words whose initials the documents write in capitals."""
    found = list(_QUESTION_WORD.finditer(question))
    out, at, i = [], 0, 0
    while i < len(found):
        for size in sorted(_RUN_WORDS, reverse=True):
            run = found[i:i + size]
            if len(run) < size or not _plain(question, run):
                continue
            initials = "".join(m.group()[0] for m in run).upper()
            phrase = question[run[0].start():run[-1].end()]
            after = found[i + size].group() if i + size < len(found) else ""
            if initials in corpus.written and _stands_for(phrase, initials, corpus, after):
                out.append(question[at:run[0].start()] + initials)
                at, i = run[-1].end(), i + size
                break
        else:
            i += 1
    return "".join(out) + question[at:]


def _plain(question: str, run: list[re.Match[str]]) -> bool:
    """Adjacent lower-case content words (the question's first may be capitalised): a name
    ("Gold Leaf") or "of the" is no run."""
    gaps = (question[a.end():b.start()] for a, b in itertools.pairwise(run))
    first = re.search(r"[A-Za-z]", question)
    return all(g in (" ", "-") for g in gaps) and all(
        (m.group().islower() or (first is not None and m.start() == first.start()
                                 and m.group()[1:].islower()))  # the question's first word
        and len(m.group()) > 1 and m.group().lower() not in _FUNCTION_WORDS for m in run)


_UNDEFINED_RUN = 3
"""Words (and capitals) an abbreviation no line defines must have: two letters are chance,
unless the run names a measure ("heart rate" over "HR 88", "original gravity" over "OG
1.048")."""
_MEASURES = frozenset(
    "count density flow gravity index level load output pressure rate ratio saturation "
    "score speed temperature time value volume weight".split())


def _stands_for(phrase: str, initials: str, corpus: _Corpus, after: str = "") -> bool:
    """Whether the documents' `initials` stand for `phrase` (see the module docstring).
    `after`: the question's word after the phrase; the documents writing the abbreviation
    before it ("AP contact" for "accounts-payable contact") say what it stands for."""
    words = re.split(r"[\s-]+", phrase.lower())
    pattern = r"[\s-]+".join(map(re.escape, words)) + r"\b"
    said = re.compile(r"\b" + pattern, re.IGNORECASE)
    abbreviation = rf"(?<![\w-]){initials}(?![\w-])"
    lines = corpus.lines_saying(pattern)
    if lines:
        return any(_defines(said, abbreviation, line) and _only_run(phrase, initials, line)
                   for line in lines)
    number = r"\d[\d.,]*"
    # Written before the question's next word ("PO no." for "purchase order no."), even
    # where another document uses the last word ("order") in another sense.
    if after and after.lower() not in _FUNCTION_WORDS and re.search(
            rf"{abbreviation}[ -]{re.escape(after)}\b", corpus.text, re.IGNORECASE):
        return True
    if next(corpus.search(re.escape(words[-1])), None) is not None:
        return False  # "maximum load" over "Max load": the words are there, shortened
    measured = words[-1] in _MEASURES
    return (len(initials) >= _UNDEFINED_RUN or measured) and re.search(
        rf"{number}\s?{abbreviation}|{abbreviation}\s?[:=]?\s?{number}", corpus.text) is not None


_DEFINED_WITHIN = 40
"""Chars between an abbreviation and its words on a line that defines it: a legend ("RL =
reduced level"), a header ("BHT .DEGC 71.5 : BOTTOM HOLE TEMPERATURE"). A row's far cells
("BB ... bull bought from Penrhos Farm") define nothing."""


def _defines(said: re.Pattern[str], abbreviation: str, line: str) -> bool:
    spans = [m.span() for m in said.finditer(line)]
    return any(max(a, c) - min(b, d) <= _DEFINED_WITHIN
               for a, b in (m.span() for m in re.finditer(abbreviation, line))
               for c, d in spans)


def _only_run(phrase: str, initials: str, line: str) -> bool:
    """No other run of words on the line has the same initials: "Belgian Blue bull bought
    (BB)" defines the breed, not "bull bought"."""
    found = [m.group().lower() for m in _QUESTION_WORD.finditer(line)]
    runs = {" ".join(found[i:i + len(initials)]) for i in range(len(found))
            if "".join(w[0] for w in found[i:i + len(initials)]) == initials.lower()}
    return runs == {" ".join(phrase.lower().replace("-", " ").split())}


def _spelled_out(question: str, corpus: _Corpus, written: frozenset[str]) -> str:
    """Abbreviations the documents never write, as their one spelled-out run there."""
    for abbreviation in dict.fromkeys(_CAPS.findall(question)):
        if abbreviation in written or len(abbreviation) < _UNDEFINED_RUN:
            continue
        run = r"\b" + r"[ -]".join(f"(?:{c}[a-z]+|{c}[A-Z]+)" for c in abbreviation) + r"\b"
        spelled = {" ".join(m.group().lower().replace("-", " ").split())
                   for m in re.finditer(run, corpus.text)}
        if len(spelled) == 1:
            question = re.sub(rf"(?<![\w-]){abbreviation}(?![\w-])", spelled.pop(), question)
    return question
