"""Who a code or a role in a line stands for: the last hop of a "who" question.

A log or a policy often names the person once, in a key, and uses the code or the role
everywhere else: "Watch codes: 2/E = M. Villanueva, Oiler = J. Dela Cruz" over rows like
"2000-2400 2/E DG1 HT water temp alarm"; "Contacts: Equipment Officer - Sanjay
Brennan-Whyte" beside "with the Equipment Officer's agreement". When a question asks who,
and the line that answers it names no one but holds such a code or role, the runtime reads
the key: the answer is "2/E: M. Villanueva", cited from the key's line, and its chain's
bridge is the code (grounding checks the code and the name share that line). No model call.
"""

from __future__ import annotations

import re

from ...corpus.evidence import best_units, contains, normalise, shared_words, stems, values
from ...corpus.records import Layout
from ...store import Store
from ...tools.search import search_session
from ...types import SpanRef
from ..answers.extractive import Extract, cited, extract
from ..answers.persons import asks_who
from ..answers.windows import window_units, windows
from .chain import Chain, unit_ref

__all__ = ["asks_who", "keyed_person", "line_around", "resolve_person"]

_PERSON = (r"(?:(?:[A-Z]\.\s?){1,2}[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]*[a-z][\w'’-]*)?"
           r"|[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s(?:(?:de|da|van|von|del|la|le|bin|al)\s)?"
           r"[A-Z][\w'’-]*[a-z][\w'’-]*){1,2})")
"""A person's name: initials and a surname ("M. Villanueva", "J. Dela Cruz"), or two or
three capitalised words ("Sanjay Brennan-Whyte")."""
_TITLE = r"(?:(?:[a-z][\w-]*|Dr|Mr|Mrs|Ms|Mx|Prof|Capt)\.?\s+){0,3}"
"""What may stand between a key's code and the name: a role ("chief engineer"), a title."""
_SEP = r"\s*(?:=|:|\s[-–—]|\bis\b)\s*"
_TERM = re.compile(r"(?<![\w/])(?:(?=[\w/]*[A-Za-z])[A-Za-z\d]+/[A-Za-z\d]+"
                   r"|[A-Z][\w'’.-]*[a-z0-9][\w'’-]*(?:\s[A-Z][\w'’.-]*[a-z0-9][\w'’-]*){0,3}"
                   r"|[A-Z]{2,}\d*)(?![\w/])")
"""Codes ("2/E", "C/E"), capitalised words and phrases ("Equipment Officer's")."""
_KEY_HITS = 20
_LINES_TRIED = 2


def _terms(line: str, question: str) -> list[str]:
    """The codes and capitalised phrases of `line` the question does not say, each phrase
    with its shorter runs ("Oiler" in "Oiler Found"), longest first, in order of place."""
    said = normalise(question)
    out: list[str] = []
    for match in _TERM.finditer(line):
        words = [w.removesuffix("'s").removesuffix("’s") for w in match.group().split()]
        for size in range(len(words), 0, -1):
            for start in range(len(words) - size + 1):
                term = " ".join(words[start:start + size])
                if (term not in out and not term.isdigit()
                        and not re.search(rf"(?<!\w){re.escape(normalise(term))}(?!\w)", said)):
                    out.append(term)
    return out


_ROLE_HEADS = frozenset(stems(
    "officer adviser advisor manager director captain engineer oiler bosun mate master "
    "lead leader chair secretary treasurer steward warden keeper clerk nurse sister matron "
    "doctor consultant registrar porter technician supervisor coordinator administrator "
    "admin operator fitter electrician deputy contact head"))
"""The nouns a role ends in ("Equipment Officer", "Safety Adviser", "Oiler")."""


def _role_like(term: str) -> bool:
    """A code ("2/E", "AB", "N2") or a role ("Equipment Officer"): what a key explains, and
    never the person it names."""
    if "/" in term or any(c.isdigit() for c in term) or term.isupper():
        return True
    words = stems(term)
    return bool(words) and words[-1] in _ROLE_HEADS


def _names_someone(line: str, question: str, terms: list[str]) -> bool:
    """The line already names a person the question does not: a name that is no code or
    role and holds none ("Oiler Found" is the role "Oiler" starting a sentence)."""
    said = normalise(question)
    for match in re.finditer(_PERSON, line):
        name = match.group()
        if (_role_like(name) or normalise(name) in said
                or any(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", name) for t in terms)):
            continue
        return True
    return False


def _defined(text: str, start: int, end: int, term: str) -> tuple[str, int, int] | None:
    """The person a key at [start, end) of `text` says `term` is ("2/E = M. Villanueva",
    "Safety Adviser - Dr Lewis Mbeki", "Sanjay Brennan-Whyte (Equipment Officer)"), with
    where the name is; None when the hit is no key."""
    after = re.match(rf"(?:['’]s)?{_SEP}{_TITLE}({_PERSON})", text[end:end + 120])
    if after:
        return after.group(1), end + after.start(1), end + after.end(1)
    before = re.search(rf"({_PERSON})\s*(?:\(|,|\s[-–—])\s*(?:the\s+|our\s+)?$",
                       text[max(start - 80, 0):start])
    if before:
        offset = max(start - 80, 0)
        return before.group(1), offset + before.start(1), offset + before.end(1)
    return None


def line_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole line (or lines) holding [start, end)."""
    stop = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if stop < 0 else stop


def resolve_person(store: Store, session_id: str, question: str, chain: Chain
                   ) -> Chain | None:
    """The chain one hop on: from the code or role in the line it found to the person a
    key names for it (the key's line is the answer, the code its last bridge, the line it
    left cited); None when the question asks no "who", or no key defines a code of the
    line that is not already beside the person's name there."""
    found = chain.found
    if not asks_who(question):
        return None
    docs = {d.id: d for d in store.documents(session_id)}
    if found.ref.doc_id not in docs:
        return None
    line = store.text(docs[found.ref.doc_id])[found.ref.start:found.ref.end]
    terms = [t for t in _terms(line, question) if _role_like(t)]
    if _names_someone(line, question, terms):
        return None  # "her deputy is Tomasz Wilk": the line answers "who" itself
    for term in terms:
        hits, _, _, _ = search_session(store, session_id, term, "literal", limit=_KEY_HITS)
        for hit in hits:
            text = store.text(docs[hit.doc_id])
            if hit.doc_id == found.ref.doc_id and found.ref.start <= hit.highlight_start < \
                    found.ref.end:
                continue  # the line itself is no key to its own codes
            person = _defined(text, hit.highlight_start, hit.highlight_end, term)
            if (person is None or normalise(person[0]) in normalise(line)
                    or _role_like(person[0])):  # "Marta Quintero - Operations Director"
                continue
            name, name_start, name_end = person
            first = min(hit.highlight_start, name_start)
            start, end = line_around(text, first, max(hit.highlight_end, name_end))
            key = Extract(f"{term}: {name}", SpanRef(doc_id=hit.doc_id, start=start, end=end),
                          field=term)
            return Chain(key, [*chain.bridges, term], [*chain.links, *cited(found)])
    return None


def keyed_person(store: Store, session_id: str, question: str, layout: Layout | None,
                 chain: Chain | None, found: Extract | str | None = None) -> Chain | None:
    """`chain` taken on to the person a key names for the code or role in its line; with
    no chain, from the line that answers the question itself ("Name of the technician who
    found the door ajar?" - "0200-0600 N2 Freezer 3 door ... found ajar"): `found`, the
    caller's own `extract` of the question, else extracted here. None when the question
    asks no "who" or no key names anyone."""
    if not asks_who(question):
        return None
    if chain is not None:
        return resolve_person(store, session_id, question, chain)
    if found is None:
        found = extract(store, session_id, question, layout)
    if isinstance(found, Extract):
        return resolve_person(store, session_id, question, Chain(found, [], []))
    # A line that names no one answers no "who" for extraction: the lines that best match
    # the question, which hold its values (numbers, codes, names) and at least half its
    # other words, are tried.
    given = values(question)
    topic = [w for w in dict.fromkeys(stems(question)) if w not in set(stems(" ".join(given)))]
    seen = windows(store, session_id, question)
    for _, unit in best_units(question, window_units(seen), _LINES_TRIED, strict=False):
        if (all(contains(unit.norm, v) for v in given)
                and 2 * len(shared_words(topic, unit.stem_set)) >= len(topic)):
            line = Extract(unit.text.strip(), unit_ref(seen, unit))
            keyed = resolve_person(store, session_id, question, Chain(line, [], []))
            if keyed is not None:
                return keyed
    return None
