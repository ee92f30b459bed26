"""Words as counting and matching compare them: lowercased, stemmed the English way
("errors" → error, "fire alarms" → fire alarm), with the short forms people write in
column names, and a phrase as the pattern that finds it in any inflection."""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from .glossary import glossed

__all__ = ["NOT_VALUES", "STEMMER", "names_key", "phrase_regex", "stems", "words"]

_WORD = re.compile(r"[^\W_]+")
"""Letters of any alphabet ("electrónica" is one word) and digits."""
STEMMER = snowballstemmer.stemmer("english")
_CANON = {"err": "error", "crit": "critic", "inform": "info", "dbg": "debug", "emerg": "emerg",
          "warning": "warn"}
"""Stems that name the same thing (log level spellings)."""
NOT_VALUES = frozenset("a an the of and or to in on at for is are was be yes no none true "
                        "false null n a na".split())


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


_SHORT_FORMS = {"pct": "percent", "perc": "percent", "qty": "quantity", "amt": "amount",
                "avg": "average", "temp": "temperature", "dur": "duration", "cnt": "count",
                "wt": "weight", "dist": "distance", "num": "number", "no": "number",
                "g": "gram", "kg": "kilogram", "km": "kilometre", "mi": "mile",
                "min": "minute", "mins": "minute", "sec": "second", "secs": "second",
                "ms": "millisecond", "hrs": "hour", "h": "hour", "pc": "percent"}
"""Short forms people write in column names (`germ_pct`, `seed_g`, `dur_ms`), as the words
a question uses for them."""
_PREFIX = 4
"""A column name's word this long that begins a question's word names it (`germ` for
"germinated", `temp` for "temperature")."""


def names_key(key_word: str, word: str) -> bool:
    """A word of a field's name (`germ`, `pct`) names a question's word ("germinated",
    "percentage"): the same stem, a short form of it, or a prefix of four letters or more."""
    key_word, word = key_word.lower(), word.lower()
    if _stem(key_word) == _stem(word) or _glossed(key_word, word):
        return True
    full = _SHORT_FORMS.get(key_word)
    if full is not None:
        return word.startswith(full[:max(len(full) - 1, 4)])
    return len(key_word) >= _PREFIX and not key_word.isdigit() and word.startswith(key_word)


def _glossed(key_word: str, word: str) -> bool:
    """A label word of another language means the question's word ("Distância": distance)."""
    return _stem(word) in glossed((_stem(key_word),), stems)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word[-1:] == "s" and word[:-1].isdigit():
        return word[:-1]  # a number's plural names the number ("404s" are 404 statuses)
    stem = STEMMER.stemWord(word)
    return _CANON.get(stem, stem)


@lru_cache(maxsize=65536)
def stems(text: str) -> tuple[str, ...]:
    """The text's words, lowercased and stemmed."""
    return tuple(_stem(w) for w in words(text))


def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A phrase by its stems: each word may take any ending ("alarm" finds "alarms")."""
    parts = []
    for word in words(phrase):
        # The stem is not always a prefix ("retry" → "retri"): keep what the two share.
        stem = STEMMER.stemWord(word)
        shared = next((i for i, (a, b) in enumerate(zip(word, stem, strict=False))
                       if a != b),
                      min(len(word), len(stem)))
        root = word[:shared]
        parts.append(rf"\b{re.escape(word)}\b" if len(root) < 3 else rf"\b{re.escape(root)}\w*")
    return re.compile(r"[\W_]+".join(parts), re.IGNORECASE)
