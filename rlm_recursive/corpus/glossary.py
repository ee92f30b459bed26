"""Record labels in other languages, read as the English words a question asks with.

People keep their records in their own language and ask in English: a Swedish ringing log
heads its column "Vikt" for the weight, a Dutch ledger notes "factuurnr" for the invoice
number, a German log writes "km-Stand" for the odometer. Matching is by words, so a label
word of another language also says the English words of its meaning. The list holds the
words records use as labels (`data/glossary.toml`: German, Dutch, French, Spanish, Italian,
Portuguese, the Nordic, Slavic, Baltic and Finno-Ugric languages, Romanian, Turkish, Catalan,
Welsh, Greek and Japanese written in Latin letters), never a word that is also an English
word ("Art" is a species in Swedish and art in English, "lid" a member in Dutch): such a word
keeps its English sense.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from importlib import resources

__all__ = ["glossed", "with_english"]


def _meanings() -> dict[str, str]:
    with resources.files(__package__).joinpath("data/glossary.toml").open("rb") as f:
        return dict(tomllib.load(f)["meanings"])


_MEANINGS: dict[str, str] = _meanings()
"""English words, and the labels of other languages that mean them."""


@functools.cache
def _glossary(stem: Callable[[str], Sequence[str]]) -> dict[tuple[str, ...], frozenset[str]]:
    """Each label's stems (a compound's in order: "km-Stand"), and the English stems of its
    meaning (stemmed as units are)."""
    out: dict[tuple[str, ...], frozenset[str]] = {}
    for english, labels in _MEANINGS.items():
        for label in labels.split():
            key = tuple(stem(label))
            if key:
                out[key] = out.get(key, frozenset()) | frozenset(stem(english))
    return out


def glossed(words: Iterable[str], stem: Callable[[str], Sequence[str]]) -> frozenset[str]:
    """The English stems the given stems (in order) mean, when they are labels of another
    language, a word or a compound of two ("km-Stand": odometer)."""
    table = _glossary(stem)
    said = list(words)
    out: frozenset[str] = frozenset()
    for at, word in enumerate(said):
        for key in ((word,), tuple(said[at:at + 2])):
            out |= table.get(key, frozenset())
    return out


@functools.cache
def _english_of(stem: Callable[[str], Sequence[str]]) -> dict[str, str]:
    """Each label's stem, and the English words of its meaning as written."""
    return {words[0]: english for english, labels in _MEANINGS.items()
            for label in labels.split() if len(words := stem(label)) == 1}


_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def with_english(text: str, stem: Callable[[str], Sequence[str]]) -> str:
    """`text` with the English words of each label of another language written after it
    ("Vikt: 10.9" → "Vikt weight: 10.9"), for readers that look for an English label
    beside a value."""
    table = _english_of(stem)

    def add(match: re.Match[str]) -> str:
        english = next((table[w] for w in stem(match.group()) if w in table), None)
        return f"{match.group()} {english}" if english else match.group()

    return _WORD.sub(add, text)
