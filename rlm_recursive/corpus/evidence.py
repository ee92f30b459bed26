"""Is an answer backed by the text it cites? Pure text checks, no model and no store.

An answer is supported when
- its values (numbers, codes, names) occur in the cited text, compared after normalising
  case, Unicode (NFC), dashes and thousands separators;
- most of its new content words (those the question did not already say) occur there too,
  compared by English stem ("retries" matches "retry");
- one unit of the cited text (a sentence, a line, or a short `Key: value` block) holds the
  answer and every entity the question names (itself, in the heading it is under, or as
  "I"/"me" of the letter's one author): a value written beside another entity is not an
  answer about this one; with no entity named, the head of the question's for/of/at phrase
  ("the bleep for the cardiology consultant") must be in it; so must the question's
  contrast word when the text has its sibling ("the east kiln" beside the north kiln;
  `asked`); a label list's line must name the thing asked in its label (`leaders`);
- it is not mostly the question said back.

What a text names (`values`, `entities`, `names`) is read in `naming`. `best_units` is the
extractive side: the units that best match the question, each holding
every entity the question names.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .asked import (
    asked_head,
    asked_things,
    clipped,
    object_head,
    qualifiers,
    siblings,
)
from .leaders import label_fits
from .naming import contains, entities, names, says, values
from .row_values import unnamed_row_value
from .unit_asked import (
    asked_beside_name,
    need_words,
    needed,
    says_asked_itself,
)
from .unit_split import split_units
from .units import STOP, Unit, has_word, normalise, shared_words, stems

__all__ = ["Support", "Unit", "best_units", "check_support", "contains", "entities", "has_word",
           "is_echo", "leans_on_scope", "named_after", "names", "normalise", "qualifiers",
           "says_own", "shared_words", "siblings", "split_units", "stems", "values"]

_ECHO_LEAD = re.compile(r"^\s*(question|answer|the answer is|a)\s*[:\-]?\s*", re.IGNORECASE)
_BARE_WORDS = 2
_LABELLED = re.compile(r"^[\"']?[A-Za-z][\w ./'’()-]{0,30}[\"']?\s*[:=]\s*(\S.*)$")
"""A label and its value: "Title: ...", a registry's `"Display Name"="..."`."""
_CHOICE = re.compile(r"\b(or|either|whether|versus|vs)\b", re.IGNORECASE)
"""A question offering options: an answer naming one of them is no echo."""


@dataclass
class Support:
    """The outcome of `check_support`: supported or not, and what was missing."""

    supported: bool
    missing_values: list[str] = field(default_factory=list)
    missing_words: list[str] = field(default_factory=list)
    missing_entities: list[str] = field(default_factory=list)
    echo: bool = False
    no_text: bool = False
    off_topic: bool = False
    """The unit holding the answer shares too few of the question's words."""
    unit: Unit | None = None
    """The unit that holds the answer and the question's entities, when one does."""

    def failures(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for key in ("missing_values", "missing_words", "missing_entities"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.echo:
            out["echo"] = True
        if self.no_text:
            out["no_cited_text"] = True
        if self.off_topic and not self.missing_entities:
            out["off_topic"] = "the sentence holding the answer is not about the question"
        if not self.supported and not out:
            out["no_unit"] = "no sentence of the cited text holds the answer"
        return out


def is_echo(answer: str, question: str) -> bool:
    """Mostly the question said back: no new value, and either nothing but filler, a few new
    words among many said back, or much of the question repeated ("Venus" picks an option
    the question offers and is no echo; "WELL" for the temperature "recorded for well NVE
    7/11-B4" offers nothing)."""
    body = _ECHO_LEAD.sub("", answer.strip())
    # A legend defining the question's own abbreviation ("RL = reduced level") says what
    # it means, not its value.
    if any(_defines(body, abbr)
           for abbr in re.findall(r"(?<![\w-])[A-Z]{2,6}(?![\w-])", question)):
        return True
    if any(not contains(normalise(question), v) for v in values(body)):
        return False  # a value the question does not say ("0" is not in "500")
    asked = set(stems(question))
    words = stems(body)
    new = [w for w in words if w not in asked | {"question", "answer"}]
    labelled = _LABELLED.match(body)
    if labelled and stems(labelled.group(1)) and set(stems(labelled.group(1))) <= asked and (
            not _CHOICE.search(question)):
        return True  # "Title: 4-cyano-4'-methylbiphenyl": a label over the question's name
    if new:
        return len(words) >= 4 and len(new) <= len(words) // 4
    repeated = set(words) & asked
    # Only the question's words, one of them over and over ("the tree ... is a tree that is
    # a tree that is a tree"): a loop on the question, however little of it is said back.
    circling = max(Counter(words).values(), default=0) >= _CIRCLING
    # A bare word or two of the question said back names nothing, unless it picks one of
    # the options the question offers.
    bare = len(words) <= _BARE_WORDS and not _CHOICE.search(question)
    return not words or bare or (
        len(repeated) >= 2 and (2 * len(repeated) >= len(asked) or circling))


def _defines(body: str, abbr: str) -> bool:
    """The body spells the abbreviation out ("PC = Patrol Captain", "RL - reduced level"),
    with no value after: its words' initials are its letters ("PC: Liam Okafor" names who
    the PC is)."""
    found = re.search(rf"(?<![\w-]){re.escape(abbr)}\s*(?:=|:|-)\s*([A-Za-z][^\d]*)$", body)
    if found is None:
        return False
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z][\w'-]*", found.group(1))
                       if w.lower() not in STOP)
    return initials.lower().startswith(abbr.lower())


_CIRCLING = 3


_MIN_WORD_SHARE = 0.7
_SHORT_ANSWER = 300
"""Chars: a longer answer (a summary) is checked word by word, not against one unit."""


def check_support(answer: str, question: str, cited: Sequence[str],
                  units: list[Unit] | None = None, chain_end: str | None = None,
                  long_form: bool = False) -> Support:
    """Whether `answer` is backed by the `cited` texts (see the module docstring).

    `chain_end`: a multi-hop answer is about the last entity its chain of look-ups reached
    (the building that houses the office that runs the project): that entity must share
    the answer's unit, and the question's own entities need only occur in the cited text.
    `long_form`: a summary draws on many units, so no single one must hold it.
    """
    if is_echo(answer, question):
        return Support(False, echo=True)
    if not any(t.strip() for t in cited):
        return Support(False, no_text=True)
    whole = normalise("\n".join(cited))
    asked_norm = normalise(question)
    answer_values = values(answer)
    missing_values = [v for v in answer_values if not contains(whole, v)]
    asked = set(stems(question))
    new_words = list(dict.fromkeys(w for w in stems(answer) if w not in asked))
    cited_stems = set(stems("\n".join(cited)))
    missing_words = [w for w in new_words if w not in cited_stems]
    named = entities(question)
    if chain_end:
        absent = [e for e in named if not contains(whole, e)]
        if absent:
            return Support(False, missing_values=missing_values, missing_entities=absent)
        named = [normalise(chain_end)]
    support = Support(False, missing_values=missing_values)
    # One stray word is tolerated ("went" for "go"); the answer's unit must still hold its
    # words when it has no value.
    if len(missing_words) > max(1.0, (1 - _MIN_WORD_SHARE) * len(new_words)):
        support.missing_words = missing_words
    if support.missing_values or support.missing_words:
        return support
    if long_form or len(answer) > _SHORT_ANSWER:
        support.missing_entities = [e for e in named if not contains(whole, e)]
        # "The recap shows 10": a value of two rows among rows of other values, none named.
        support.off_topic = unnamed_row_value(answer, question, cited) is not None
        support.supported = not support.missing_entities and not support.off_topic
        return support
    # One unit must hold the answer (all its new values, else a new word), every named
    # entity, and most of the question's other words, as an extractive answer would.
    anchors = [v for v in answer_values if not contains(asked_norm, v)]
    topic = asked - set(stems(" ".join(named)))
    # A named entity already pins the unit down: one word fewer is needed beside it
    # ("Who sent invoice 8?" - "Invoice 8 from Ångström AB").
    need = needed(len(topic), bool(named))
    if chain_end:  # the question's words describe the whole chain, not its last link
        need = min(need, 1)
    head = None if named else object_head(question)
    picked = qualifiers(question, frozenset(cited_stems))
    for unit in units if units is not None else split_units(cited):
        if anchors and not all(contains(unit.norm, v) for v in anchors):
            continue
        # With no value to pin it, a prose answer's words come from one unit, most of them:
        # one shared word ("year") is not "the plot on the list of the nine years".
        if not anchors and new_words and len(shared_words(new_words, unit.stem_set)) < max(
                1, math.ceil(_MIN_WORD_SHARE * len(new_words))):
            continue
        if any(not names(unit, e) for e in named):
            support.missing_entities = [e for e in named if not names(unit, e)]
            continue
        if not picked <= unit.stem_set:
            support.missing_entities = sorted(picked - unit.stem_set)
            continue
        if anchors and (later := named_after(unit, anchors, named)):
            support.missing_entities = later
            continue
        if (not says_own(unit, topic, named) or not label_fits(question, unit.text)
                or not says_asked_itself(question, unit, named)):
            support.off_topic = True
            continue
        if (len(shared_words(topic, need_words(unit, named))) < need
                or not asked_beside_name(question, unit, named, list(topic), need)
                or not _keyed(unit, anchors, topic)
                or (head and not has_word(head, unit.stem_set))):
            support.off_topic = True
            continue
        return Support(True, unit=unit)
    if not support.missing_entities and named:
        support.missing_entities = named
    return support


def named_after(unit: Unit, anchors: list[str], named: list[str]) -> list[str]:
    """The entities a unit names only on a line after the one holding the answer, where that
    line gives a value of its own: the value is another entity's ("Price: £179.99" over
    "Also available: V9 PLUS — £229.99" is no price of the V9 PLUS). A line names what it
    is about before or on itself (a block's header), not after. Of the lines holding the
    answer, the one that leaves fewest so named."""
    lines = unit.text.split("\n")
    scope = normalise(" ".join((unit.scope, unit.author)))
    best: list[str] | None = None
    for at, line in enumerate(lines):
        if not all(contains(normalise(line), v) for v in anchors):
            continue
        before = normalise("\n".join(lines[:at + 1]))
        later = [normalise(other) for other in lines[at + 1:]]
        out = [e for e in named if not contains(before, e) and not contains(scope, e)
               and any(contains(other, e) and _own_value(other, anchors, e) for other in later)]
        if best is None or len(out) < len(best):
            best = out
    return best or []


def _own_value(line: str, anchors: list[str], entity: str) -> bool:
    """The line gives a figure of its own: not the answer's, not the entity's name's."""
    return any(any(c.isdigit() for c in v) and v not in anchors and not contains(entity, v)
               for v in values(line))


def says_own(unit: Unit, words: Iterable[str], named: list[str]) -> bool:
    """A unit under a heading or a block's header says something asked itself: an entity
    the question names or one of its words. The header names the patient and the test:
    of the lines under it the result line says "CRP", not the remark "Markedly raised".
    A header line itself answers only what the header says all of: an event's organiser
    line is no answer about its caretaker."""
    if not unit.scope or any(contains(unit.norm, e) for e in named):
        return True
    words = list(words)
    if unit.norm.strip() in normalise(unit.scope):
        # (with what its values' shapes say: "Base $31.85/hr" is an hourly rate)
        over = Unit(0, 0, len(unit.scope), unit.scope).own_stems
        if any(w not in _VALUE_WORDS and not has_word(w, over) for w in words):
            return False
    return any(has_word(w, unit.own_stems) for w in words)


_VALUE_WORDS = frozenset(stems("result reading value level figure measurement"))
"""Words that ask for a value without saying which ("the CRP result", "the first potassium
reading"): the line that holds the value need not say them."""


def leans_on_scope(question: str, unit: Unit, named: list[str]) -> bool:
    """The heading over the unit says what the question names or asks and the unit does
    not (the patient over a result line, the event over its description): it is evidence
    for the answer, and cited with it."""
    if not unit.scope:
        return False
    scope = normalise(unit.scope)
    if any(not says(unit.norm, e) and says(scope, e) for e in named):
        return True  # (a date however written: "January 6th" over "Event #14 — Jan 6 2026")
    over = frozenset(stems(unit.scope))
    return any(w in over and not has_word(w, unit.own_stems) for w in stems(question))



def _keyed(unit: Unit, anchors: list[str], topic: set[str]) -> bool:
    """In a record, the answer's values sit on a line whose key the question asks about
    ("Ward: 7" for "which ward", not "Consultant: Dr Achebe")."""
    if not unit.record or not anchors or not topic:
        return True
    lines = [line for line in unit.text.split("\n")
             if any(contains(normalise(line), v) for v in anchors)]
    return any(topic & set(stems(line)) for line in lines)


def best_units(question: str, units: Iterable[Unit], limit: int = 3, *,
               strict: bool = True) -> list[tuple[float, Unit]]:
    """The units that best match the question, best first.

    With `strict`, a unit must hold every entity the question names and 60 % of its other
    content words ("locker code" needs both words; the extractive answer); without, any
    unit sharing a word qualifies (the closest passages shown beside "not found").
    """
    pool = list(units)
    named = entities(question)
    topic = list(dict.fromkeys(stems(question)))
    named_stems = set(stems(" ".join(named)))
    plain = [w for w in topic if w not in named_stems]
    head = None if named else object_head(question)
    asked_for = asked_head(question)
    df = Counter(w for u in pool for w in shared_words(topic, u.stem_set))
    picked = qualifiers(question, frozenset().union(*(u.stem_set for u in pool)))
    things = asked_things(question)
    scored: list[tuple[float, Unit]] = []
    for unit in pool:
        # An entity named by the heading counts as said in the unit, its words too.
        headed = set(stems(" ".join(e for e in named if not contains(unit.norm, e)
                                    and names(unit, e)))) if unit.scope or unit.author else set()
        shared = [w for w in topic if has_word(w, unit.stem_set) or w in headed]
        has_entities = all(names(unit, e) for e in named)
        if strict:
            need = max(1, needed(len(plain), bool(named))) if plain else 0
            if not has_entities or len(shared_words(plain, need_words(unit, named))) < need:
                continue
            # Words of the name as the record writes it are no words of what is asked.
            if not asked_beside_name(question, unit, named, plain, need):
                continue
            if not says_own(unit, plain, named) or not label_fits(question, unit.text):
                continue
            if ((head and not has_word(head, unit.stem_set)) or not picked <= unit.stem_set
                    or not all(has_word(w, unit.stem_set) for w in things)):
                continue
            # A unit only under a heading that names the entity is weaker evidence: it must
            # say what is asked for too.
            if (asked_for and any(not contains(unit.norm, e) for e in named)
                    and not has_word(asked_for, unit.own_stems)):
                continue
            if not named and not plain:
                continue
            if not says_asked_itself(question, unit, named):
                continue
        elif not shared and not (named and any(names(unit, e) for e in named)):
            continue
        # A word said only by a heading that names an entity ("march" of "11.03.2026")
        # is in no unit's own words: counted once.
        score = sum(math.log(1 + len(pool) / max(df[w], 1)) for w in shared)
        score += 2.0 * sum(names(unit, e) for e in named)
        score += 0.5 * len(clipped([w for w in topic if w not in shared], unit.own_stems))
        # Among equals, the unit saying the question's words whole ("Emergency", not the
        # note's "emerg.") is about them; then the shorter unit is the sharper answer.
        score += 0.01 * sum(w in unit.stem_set for w in shared)
        # Among equals, rows under one heading share its names: the row saying the entity
        # itself is its own ("Scuderia Le Querce - fattura n. 43/2026"), not a sibling's.
        score += 0.01 * sum(contains(unit.norm, e) for e in named)
        scored.append((score - len(unit.text) / 10_000, unit))
    scored.sort(key=lambda pair: -pair[0])
    return scored[:limit]
