"""Which field values a question names: a value in any of its written forms (without its
codes, two-word names either way round, a part of a slash list, an alias or a two-word
synonym), beside its field's name where two fields hold it."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .word_stems import NOT_VALUES, names_key, stems, words

__all__ = ["MAX_DISTINCT", "ValueMatch", "match_values"]

MAX_DISTINCT = 1000
"""A field with more distinct values than this is an identifier or free text, not a class."""


@dataclass(frozen=True)
class ValueMatch:
    """A field value the question names: which question words (`start:stop`) name it."""

    field: str
    value: str
    start: int
    stop: int
    frequency: int


_ALIASES = {"feline": "cat", "canine": "dog", "lagomorph": "rabbit", "equine": "horse",
            "bovine": "cow|cattle", "porcine": "pig", "ovine": "sheep", "avian": "bird",
            "did not attend": "no show|dna|did not show", "not attended": "no show",
            "commented out": "disabled|switched off|turned off|inactive"}
"""Words a record writes for a class (the vet's "Feline", the clinic's "Did not attend") and
the everyday words a question uses for it ("cats", "no-shows")."""
_ALIAS_STEMS = {stems(k): [stems(a) for a in v.split("|")] for k, v in _ALIASES.items()}
_PARTS = re.compile(r"\s+[/>|]\s+")
"""A value written as a path of classes ("Feline / DSH", "Hardware > Disk"): each part names
it too ("cats", "DSH")."""


_SYNONYMS = [frozenset(stems(group)) for group in (
    "denied refused rejected declined", "access entry admission", "granted allowed admitted")]
"""Words an event's outcome is written in ("ACCESS DENIED") and the everyday words a question
uses for it ("refused entry")."""
_SYNONYM_OF = {s: group for group in _SYNONYMS for s in group}
_CODE = re.compile(r"\d")


def _named_forms(value: str) -> set[tuple[str, ...]]:
    """"R07 Server Room SR-1": the name without the codes around it ("Server Room", two
    words or more); "OKAFOR Chioma": a two-word name either way round ("Chioma Okafor")."""
    tokens = value.split()
    first = next((i for i, t in enumerate(tokens) if not _CODE.search(t)), len(tokens))
    last = len(tokens) - next((i for i, t in enumerate(reversed(tokens))
                               if not _CODE.search(t)), len(tokens))
    forms = set()
    if last - first >= 2 and (first or last < len(tokens)):
        forms.add(stems(" ".join(tokens[first:last])))
    if len(tokens) == 2 and all(t.isalpha() for t in tokens):
        forms.add(stems(f"{tokens[1]} {tokens[0]}"))
    return forms


def _synonym_forms(form: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The form with each word that has synonyms said in any of them, when it has two words
    or more: one word alone is too loose ("refused" doses are not a loan "declined")."""
    out = {form}
    if len(form) < 2:
        return out
    for i, word in enumerate(form):
        for other in _SYNONYM_OF.get(word, ()):
            out |= {(*f[:i], other, *f[i + 1:]) for f in list(out)}
    return out


def _value_forms(value: str) -> set[tuple[str, ...]]:
    """The stem sequences a question may name a value by: its own, each part's, its name
    without codes, aliases and synonyms."""
    parts = _PARTS.split(value)
    forms = {stems(value)} | ({stems(p) for p in parts} if len(parts) > 1 else set())
    forms |= _named_forms(value)
    forms |= {alias for form in list(forms) for alias in _ALIAS_STEMS.get(form, ())}
    forms = {f for form in forms for f in _synonym_forms(form)}
    return {f for f in forms if f and not all(s in NOT_VALUES for s in f)}


def _value_index(fields: dict[str, Counter[str]]) -> dict[str, list[tuple[tuple[str, ...],
                                                                            str, str, int]]]:
    index: dict[str, list[tuple[tuple[str, ...], str, str, int]]] = {}
    for key, values in fields.items():
        if not 1 < len(values) <= MAX_DISTINCT:
            continue
        for value, freq in values.items():
            if len(value) < 2:
                continue
            for seq in _value_forms(value):
                index.setdefault(seq[0], []).append((seq, key, value, freq))
    return index


def match_values(question_stems: tuple[str, ...], fields: dict[str, Counter[str]]
                 ) -> list[ValueMatch]:
    """Field values the question names, at most one per question word (a field may be
    named several times: "billing, auth or search").

    Longer values win over shorter ones on the same words; a value several fields share
    goes to the field the question names, else to the one where it is most frequent.
    """
    index = _value_index(fields)
    named = set(question_stems)
    found: list[ValueMatch] = []
    for i, first in enumerate(question_stems):
        for seq, key, value, freq in index.get(first, []):
            if tuple(question_stems[i:i + len(seq)]) == seq and (
                    not _small_number(seq) or _key_beside(question_stems, i, len(seq), key)):
                found.append(ValueMatch(key, value, i, i + len(seq), freq))

    def rank(m: ValueMatch) -> tuple[int, bool, int]:
        key_named = bool(set(stems(m.field)) & named)
        return (-(m.stop - m.start), not key_named, -m.frequency)

    chosen: list[ValueMatch] = []
    used: set[int] = set()
    for m in sorted(found, key=rank):
        if used & set(range(m.start, m.stop)):
            continue
        # Every value of that field the same words name: "cats" are "Feline / DSH" and
        # "Feline / Maine Coon" (alternatives of one filter).
        chosen.extend(o for o in found if (o.field, o.start, o.stop) == (m.field, m.start,
                                                                          m.stop))
        used.update(range(m.start, m.stop))
    return sorted(chosen, key=lambda m: m.start)


def _small_number(seq: tuple[str, ...]) -> bool:
    return len(seq) == 1 and seq[0].isdigit() and len(seq[0]) <= 2


def _key_beside(question_stems: tuple[str, ...], at: int, size: int, key: str) -> bool:
    """A number as small as "2" is a value of `key` only beside the key's name ("task 2",
    "2 stars"); "disk 2" is not Task=(2)."""
    near = question_stems[max(at - 1, 0):at] + question_stems[at + size:at + size + 1]
    return any(names_key(k, w) for k in words(key) for w in near)
