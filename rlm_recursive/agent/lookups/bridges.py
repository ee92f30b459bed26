"""Where the bridge is in a multi-hop question: the noun phrase with its relative clause or
participle ("the director who leads the East Quay refurbishment"), a free relative
("whoever is playing the lead"), or a role ("the deputy safeguarding lead"). Pure question
text; `chain` looks the bridge up in the corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from ...corpus.evidence import Unit, entities, has_word, stems
from ..counting.plan_words import BRIDGE_VERB

__all__ = ["GENERIC_HEAD", "bridge_span", "bridge_spans", "role_spans", "tightest"]

T = TypeVar("T")
_BRIDGE = re.compile(
    r"\b(?:the|a|an)\s+(?:(?!(?:the|a|an|of|for|to|in)\b)[\w-]+\s+){0,3}?[\w-]+\s+"
    rf"(?:(?:who|that|which|whose|where)\b|{BRIDGE_VERB})|\b(?:who|what)(?:so)?ever\b",
    re.IGNORECASE)
"""A noun and its relative clause or participle, or a free relative ("whoever is playing
the lead")."""
GENERIC_HEAD = re.compile(r"\b(the|a|an)\s+(?:person|people|one|someone|member\s+of\s+staff)\b"
                          r"|\b(?:who|what)(?:so)?ever\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?::|;|\s[-–—]\s)")
"""Where a clause ends inside a question: "... where the test crashed: which line?"."""
_LATER_ASK = re.compile(r"(?:\s[-–—]\s+|:\s+|[.?!]\s+)(?:(?:on|in|at|for|from|by|to)\s+)?"
                        r"(?:what|which|who|whom|whose|when|where|how)\b", re.IGNORECASE)
_CUTS = 6
_FUNCTION = frozenset("the a an of in on at for to with by from her his their its my our your "
                      "and or".split())
"""How many trailing words a "does <bridge> <verb> ..." question may have after its bridge."""
_DO = re.compile(r"\b(?:does|do|did)\b", re.IGNORECASE)


def bridge_span(question: str) -> tuple[int, int] | None:
    """Where the bridge (noun phrase and its clause) is in the question, past its opening:
    the longest of `bridge_spans`."""
    return max(bridge_spans(question), key=lambda span: span[1], default=None)


def bridge_spans(question: str) -> list[tuple[int, int]]:
    """Where the bridge may end. It runs to the question's end, or to
    a clause's (a colon, a dash). In "What extension does <bridge> have?" the main verb and
    what follows it come after the bridge, and where the verb is is not known ("does the
    woman who gave the tart recipe use in her pasties"): each cut of the last `_CUTS` words
    that leaves the clause its verb and a word after it, longest first (`tightest`)."""
    body = question.rstrip(" ?.!")
    # A bridge opens the question when the question proper follows it ("The customer whose
    # contact is now Brenda Voss - what is their balance?", "The donor who ...: on which
    # date ...").
    opens = _LATER_ASK.search(body) is not None
    match = next((m for m in _BRIDGE.finditer(body) if m.start() > 0 or opens), None)
    if match is None:
        return []
    stop = _CLAUSE_END.search(body, match.end())
    body = body[:stop.start()] if stop else body
    words = list(re.finditer(r"\s+(\S+)", body[match.end():]))
    # "the man who runs" says no more than "runs": a relative clause needs its verb and a
    # word after it, a participle ("chairing") a word after it.
    least = 2 if _RELATIVE_END.search(match.group()) else 1
    if not _DO.search(body[:match.start()]):
        return [(match.start(), len(body))] if len(words) >= least else []
    ends = []
    for kept in range(len(words) - 1, max(len(words) - 1 - _CUTS, least - 1), -1):
        # A cut never splits a name ("the East Quay") nor leaves a bridge that ends in a
        # function word ("... recipe use in her").
        if words[kept].group(1)[0].isupper():
            break
        end = match.end() + words[kept].start()
        if words[kept - 1].group(1).lower() not in _FUNCTION:
            ends.append(end)
    return [(match.start(), end) for end in ends]


def tightest(question: str, spans: list[tuple[int, int]],
             matched: Callable[[tuple[int, int]], list[T]], unit_of: Callable[[T], Unit]
             ) -> tuple[tuple[int, int], int, list[T]] | None:
    """Of the bridge's possible ends (longest first), the longest some unit matches: the
    rest of the question starts after it ("does the woman who gave the tart recipe | use
    in her pasties"). The bridge itself is cut back past the words its best unit does not
    say (a main verb a longer end took in: "the man who gave the potato tip | put").
    Returns the bridge's span, where the rest starts, and the units matched."""
    for at, span in enumerate(spans):
        found = matched(span)
        if not found:
            continue
        said = unit_of(found[0]).stem_set
        rest = span[1]
        for shorter in spans[at + 1:]:
            if any(has_word(w, said) for w in stems(question[shorter[1]:span[1]])):
                break
            span = (span[0], shorter[1])
        return span, rest, found
    return None


_RELATIVE_END = re.compile(r"(?:who|that|which|whose|where|ever)$", re.IGNORECASE)


_ROLE = re.compile(r"\bthe\s+((?:(?!(?:the|of|for|to|in|on|at|a|an)\b)[a-z][\w-]*\s+){1,4})",
                   re.IGNORECASE)


def role_spans(question: str) -> list[tuple[int, int]]:
    """A question that names no one may describe them by role: "Which room does the deputy
    safeguarding lead take clinics in?". The spans after "the" of two to five words, longest
    first (where the role ends is not known; the look-up decides)."""
    if entities(question):
        return []
    body = question.rstrip(" ?.!")
    spans: list[tuple[int, int]] = []
    for match in _ROLE.finditer(body + " "):
        words = list(re.finditer(r"\S+", match.group(1)))
        starts = match.start()
        for count in range(len(words), 1, -1):
            # A role ends in its noun: "the newly elected" describes, it names no one.
            if not _NOT_NOUN.search(words[count - 1].group()):
                spans.append((starts, match.start(1) + words[count - 1].end()))
    return spans


_NOT_NOUN = re.compile(r"(?:ed|ing|ly)$", re.IGNORECASE)
