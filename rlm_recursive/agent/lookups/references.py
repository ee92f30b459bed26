"""A reference hop: the passage a question describes refers to something (a code, a quoted
value) that is spelled out elsewhere in the same document, and what is asked is there, not
in the passage.

Schedules, feature files, dumps and feeds say a thing once in full and then refer to it:
a policy page lists the endorsement codes that apply to its property and the endorsements'
wording comes at the end; a test scenario applies a promo code that a table further down
defines; a loans row gives an object's accession number and the objects table describes
it. No line says both. So, with no model call:

1. the scope: the line that says every entity the question names (or, naming none, most
   words of its bridge) and most of its other words, widened to its paragraph and then
   to its section (between rule lines) when the narrower one refers to nothing;
2. its references: codes (letters with digits, "WELCOME-BACK") and quoted values that the
   question does not give and that the same document says again outside the scope (not
   names: a name beside the thing asked about is another thing, "Ingrid's mobile" is not
   the mobile of the manager her line mentions; a code is the thing's own);
3. for each, the question asked again about it (the bridge, or the question's entities,
   replaced by the reference) and answered extractively from outside the scope, from a
   line of the same document that the reference opens (where it is defined). Of the
   answers, the one whose passage (and whose
   reference's line in the scope) says most of the question's words; a tie says nothing.

The answer names the reference as its bridge and cites the scope, so grounding checks the
value against the passage that says the reference. None when no reference answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.dates import said_dates
from ...corpus.evidence import best_units, entities, normalise, stems, values
from ...corpus.records import Layout
from ...corpus.unit_split import split_units
from ...store import Store
from ...types import SpanRef
from ..answers.clauses import answer_clause
from ..answers.extractive import Extract, extract
from ..answers.kinds import asks_when
from .bridges import GENERIC_HEAD, bridge_span
from .chain import Chain

__all__ = ["follow_reference", "references"]

_RULE = re.compile(r"^\s*([=_*~#-])\1{4,}\s*$", re.MULTILINE)
"""A line drawn across the page: where a section of a plain-text document ends."""
_BLANK = re.compile(r"\n[ \t]*\n")
_CODE = re.compile(r"(?<![\w.-])(?:(?=[\w./-]*[A-Za-z])(?=[\w./-]*\d)[A-Za-z0-9][\w./-]*"
                   r"[A-Za-z0-9]|[A-Z]{2,}(?:-[A-Z0-9]+)+)(?![\w-])")
"""A code: letters and digits together ("E12", "CVM.1999.006", "LO-2026-002"), or capitals
joined by hyphens ("WELCOME-BACK")."""
_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,40})[\"”]")
"""A quoted value (not single quotes: a dump quotes every string it holds)."""
_MAX_REFERENCES = 12
_LINES = 3
"""The lines that best match the question, each tried as a scope."""
_MAX_LOOKUPS = 12
"""Extractive look-ups a question may spend on references (each a search)."""
_MIN_SHARE = 0.5
"""Of the bridge's words (a question naming no entity), how many its scope line must say."""


def _line_at(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end


def _around(text: str, start: int, end: int, cut: re.Pattern[str]) -> tuple[int, int]:
    """The stretch of `text` between two of `cut`'s matches that holds start..end."""
    before = [m.end() for m in cut.finditer(text, 0, start)]
    after = cut.search(text, end)
    return (before[-1] if before else 0), (after.start() if after else len(text))


def _scopes(text: str, line: tuple[int, int]) -> list[tuple[int, int]]:
    """The line, its paragraph and its section, narrowest first (each once)."""
    paragraph = _around(text, *line, _BLANK)
    section = _around(text, *line, _RULE)
    return list(dict.fromkeys([line, paragraph, section]))


def references(text: str, scope: tuple[int, int], question: str) -> list[tuple[str, int]]:
    """The scope's codes and quoted values that the question does not give and the
    document says again outside the scope, with where each is."""
    said = normalise(question)
    body = text[scope[0]:scope[1]]
    inside = normalise(body)
    outside = normalise(text)
    found: dict[str, int] = {}
    for pattern in (_QUOTED, _CODE):
        for match in pattern.finditer(body):
            value = next((g for g in match.groups() if g), match.group()).strip()
            if value in found or not re.search(r"[^\W\d_]", value) or normalise(value) in said:
                continue
            whole = re.compile(rf"(?<!\w){re.escape(normalise(value))}(?!\w)")
            if len(whole.findall(outside)) > len(whole.findall(inside)):
                found[value] = scope[0] + match.start()
    return list(found.items())[:_MAX_REFERENCES]


def _said(text: str, words: set[str]) -> int:
    """How many of `words` (stems) the text says."""
    return len(words & set(stems(text)))


def _scope_lines(text: str, named: list[str], wanted: set[str]) -> list[tuple[int, int]]:
    """The lines that say every entity named (else at least half the bridge's words), the
    ones saying most of `wanted` first."""
    lines = []
    at = 0
    for raw in text.split("\n"):
        start, at = at, at + len(raw) + 1
        if (all(normalise(e) in normalise(raw) for e in named) if named
                else wanted and _said(raw, wanted) >= len(wanted) * _MIN_SHARE):
            lines.append((start, start + len(raw)))
    return sorted(lines, key=lambda line: -_said(text[line[0]:line[1]], wanted))


def _asked_about(question: str, span: tuple[int, int] | None, described: tuple[str, str],
                 reference: str) -> list[str]:
    """The question asked about the reference: in the bridge's place. With no bridge, in
    the place of the run of words the scope says ("what % off does the promo code used in
    the bug-4412 scenario give" is "what % off does the WELCOME-BACK give"), then without
    the words of the scope's line and the reference's ("who made the object ... on loan to
    the Holburne" is "who made the object ... CVM.1999.006"): the look-up is drawn to the
    reference, not back to the scope. `described`: the scope's text, and those two lines."""
    if span is not None:
        return [f"{question[:span[0]]}{reference}{question[span[1]:]}"]
    words = question.rstrip(" ?.!").split()
    forms = []
    for text in described:
        said = set(stems(text))
        cut = [at for at, word in enumerate(words) if said & set(stems(word))]
        if not cut:
            continue
        forms.append(" ".join([*words[:cut[0]], reference, *words[cut[-1] + 1:]]))
        forms.append(" ".join([*(w for at, w in enumerate(words) if at not in cut),
                               reference]))
    return list(dict.fromkeys(forms))


def follow_reference(store: Store, session_id: str, question: str, layout: Layout | None
                     ) -> Chain | None:
    """The answer read where the passage the question describes points to, or None."""
    named = entities(question)
    span = bridge_span(question)
    bridge = GENERIC_HEAD.sub(r"\1", question[span[0]:span[1]]) if span else question
    if not named and span is None:
        return None
    texts = {d.id: store.text(d) for d in store.documents(session_id)}
    look = _LookUp(store, session_id, question, layout, texts, span)
    for doc_id, text in texts.items():
        for line in _scope_lines(text, entities(bridge) if span else named,
                                 set(stems(bridge)))[:_LINES]:
            # The narrowest scope that refers to anything decides: a paragraph's other
            # codes are other things', once the line itself gives one. (Names are no
            # references: "Ingrid's mobile" is not the mobile of the manager her line
            # mentions; a code is the thing's own.)
            for scope in _scopes(text, line):
                if refs := references(text, scope, question):
                    found = look.best(doc_id, line, scope, refs)
                    if found is not None:
                        return found
                    break
    return None


@dataclass
class _LookUp:
    """One question's look-ups through references (at most `_MAX_LOOKUPS` extractions)."""
    store: Store
    session_id: str
    question: str
    layout: Layout | None
    texts: dict[str, str]
    span: tuple[int, int] | None
    done: int = 0

    def best(self, doc_id: str, line: tuple[int, int], scope: tuple[int, int],
             refs: list[tuple[str, int]]) -> Chain | None:
        """The best answer reached through one of the scope's references (None on a tie
        between different answers): the one whose passage and whose reference's line say
        most of the question's words."""
        text = self.texts[doc_id]
        wanted = set(stems(self.question))
        ranked: list[tuple[int, str, Extract]] = []
        for reference, at in refs:
            said = f"{text[slice(*line)]} {text[slice(*_line_at(text, at))]}"
            forms = _asked_about(self.question, self.span, (text[slice(*scope)], said),
                                 reference)
            answer = next((found for asked in forms if (
                found := self._outside(asked, doc_id, scope, reference)) is not None), None)
            # A definition may say its code once, a sentence before the value ("W5  Tidal
            # limit. The dinghy must be back ... 2 hours after high water"): its sentences
            # are read for the question without the code.
            answer = answer or _read(text, doc_id, reference, forms[-1].removesuffix(
                reference).strip()) if forms else answer
            if answer is not None:
                where = self.texts[answer.ref.doc_id]
                passage = where[slice(*_around(where, answer.ref.start, answer.ref.end, _BLANK))]
                ranked.append((_said(passage, wanted) + _said(said, wanted), reference,
                               answer))
        ranked.sort(key=lambda item: -item[0])
        if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]
                          and ranked[1][2].answer != ranked[0][2].answer):
            return None
        _, reference, answer = ranked[0]
        return Chain(answer, [reference], [SpanRef(doc_id=doc_id, start=scope[0],
                                                   end=scope[1])])

    def _outside(self, asked: str, doc_id: str, scope: tuple[int, int], reference: str
                 ) -> Extract | None:
        """The extractive answer to `asked` when it is read outside the scope, in a passage
        that says the reference, and gives a value `asked` does not."""
        if self.done >= _MAX_LOOKUPS:
            return None
        self.done += 1
        answer = extract(self.store, self.session_id, asked, self.layout)
        if not isinstance(answer, Extract):
            return None
        ref = answer.ref
        if ref.doc_id == doc_id and ref.start < scope[1] and scope[0] < ref.end:
            return None  # the scope's own line answers nothing it did not already
        if not set(values(answer.answer)) - set(values(asked)):
            return None
        # A reference's own header line gives its date, not what is asked of it
        # ("TK-3-051   2026-11-16" for the yield of the repeat).
        new = set(values(answer.answer)) - set(values(asked)) - {normalise(reference)}
        if new and all(said_dates(v) for v in new) and not asks_when(self.question):
            return None
        # A code is followed to where it is defined: the same document, a line or a row it
        # opens ("E12  Unoccupancy ...", "| WELCOME-BACK | 15% |") and the lines that carry
        # it on, not any line that happens to mention it (another ticket's "refund from
        # HD-7704 not received").
        if ref.doc_id != doc_id or not any(
                start <= ref.start and ref.end <= end
                for start, end in _definitions(self.texts[doc_id], reference)):
            return None
        return answer


def _read(text: str, doc_id: str, reference: str, asked: str) -> Extract | None:
    """The clause of the reference's one definition that best answers `asked`."""
    found = _definitions(text, reference)
    if len(found) != 1:
        return None
    start, end = found[0]
    # Its lines joined: a definition's sentence runs on over them.
    best = best_units(asked, split_units([" ".join(text[start:end].split())]), 1)
    if not best:
        return None
    answer = answer_clause(asked, best[0][1])
    if not set(values(answer)) - set(values(asked)):
        return None
    return Extract(answer, SpanRef(doc_id=doc_id, start=start, end=end))


def _definitions(text: str, reference: str) -> list[tuple[int, int]]:
    """Where the text defines the reference: each line it opens (after punctuation: "| ",
    "('"), with the lines that carry it on (indented past where the reference starts)."""
    found = []
    for match in re.finditer(rf"^([^\w\n]*){re.escape(reference)}(?![\w-])", text, re.MULTILINE):
        column = len(match.group(1))
        end = text.find("\n", match.end())
        while end >= 0:
            following = text.find("\n", end + 1)
            line = text[end + 1:len(text) if following < 0 else following]
            if not line.strip() or len(line) - len(line.lstrip()) <= column:
                break
            end = following
        found.append((match.start(), len(text) if end < 0 else end))
    return found
