"""A bridge's record: the answer read from the block the bridge's line is in.

Many exports are a run of blocks that each open with the same kind of line: a git log
(`commit <hash>`, then `Author:`, `Date:` and the message), an HL7 batch (`MSH|...`, then
`PID|`, `PV1|`, `OBX|`), an iCalendar file (`BEGIN:VEVENT` ... ), a mailbox (`From:`). The
line a question's bridge describes ("the bug a harbour master in Fowey reported", "the
patient whose HbA1c was 71") sits in one block, and what is asked about it ("who authored
the fix", "the NHS number") is another line of the same block: its header, its patient
segment. No name links the two lines, only the block. So, when `chain.follow` finds no
chain of names:

1. the units that match the bridge (strictly, or holding every value it gives);
2. the block around the unit (`corpus.blocks`: a repeated start marker, "commit <hash>",
   "MSH|", "BEGIN:VEVENT");
3. the block's line that says what the rest of the question asks for: a line whose key
   says it ("Author:" for "who authored") before one that only holds its words; a
   delimited line gives the cell that holds them ("WARD 4^SIDE ROOM 3" in `PV1|...`).
   A tie between lines says nothing (None).

The answer is an `Extract` of the whole block, `field` the line (or cell) that says what is
asked, so grounding checks the value, the key and the question's own entities in the block.
No model call; None when the document has no blocks or the block does not say.
"""

from __future__ import annotations

import re

from ...corpus.blocks import block_at, blocks
from ...corpus.evidence import best_units, has_word, values
from ...corpus.records import Layout
from ...corpus.units import Unit, normalise, stems
from ...store import Store
from ...types import SpanRef
from ..answers.extractive import Extract
from ..answers.windows import window_units, windows
from .bridges import GENERIC_HEAD, bridge_spans, tightest
from .chain import Chain, unit_ref
from .joins import follow_join
from .references import follow_reference

__all__ = ["block_around", "bridge_units", "follow_block"]

_KEY = re.compile(r"([A-Za-z][\w-]*)(?=[|:;= ]|$)")
"""A line's key: the word it opens with, before a delimiter ("commit ab03e5c", "MSH|",
"BEGIN:VEVENT", "From: ...")."""
_FIELD = re.compile(r"^\s*([A-Za-z][\w .-]{0,30}?)(?:;[^:\n]*)?\s*[:=]\s*\S")
"""A `Key: value` line (`ORGANIZER;CN=...:mailto:...` too): its key says what it holds."""
_CELLS = re.compile(r"[|\t]")
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)+\b")


def block_around(text: str, at: int) -> tuple[int, int] | None:
    """The block of `text` that holds offset `at` (`corpus.blocks`: the one detection of
    blocks), or None."""
    block = block_at(text, at, keyed=True)
    if block is None:
        return None
    following = [b.start for b in blocks(text, keyed=True) if b.start > block.start]
    return block.start, following[0] if following else len(text)


def bridge_units(store: Store, session_id: str, bridge: str
                 ) -> list[tuple[SpanRef, Unit]]:
    """The units that match the bridge: strictly, else those holding every value it gives
    ("71" and "HbA1c" for "the patient whose HbA1c was 71"), best first."""
    found = windows(store, session_id, bridge)
    units = window_units(found)
    matched = [u for _, u in best_units(bridge, units, 3)]
    wanted = _value_forms(bridge)
    if not matched and wanted:
        matched = [u for _, u in best_units(bridge, units, 5, strict=False)
                   if all(form.search(u.norm) for form in wanted)]
    return [(unit_ref(found, u), u) for u in matched]


_SPANS = {"hour": "h|hr", "minute": "min|m", "second": "s|sec", "day": "d", "week": "w|wk"}
_SPAN_WORD = re.compile(rf"\s+({'|'.join(_SPANS)})s?\b")


def _value_forms(bridge: str) -> list[re.Pattern[str]]:
    """Each value the bridge gives, as a text may write it: a number of hours, minutes or
    days is also written short ("3 hour troponin" is the "(3h)" sample)."""
    norm = normalise(bridge)
    forms: list[re.Pattern[str]] = []
    for value in values(bridge):
        value = normalise(value)
        at = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", norm)
        span = _SPAN_WORD.match(norm, at.end()) if at else None
        short = rf"|{re.escape(value)}\s?(?:{_SPANS[span.group(1)]})\b" if span else ""
        forms.append(re.compile(rf"(?<!\w)(?:{re.escape(value)}(?!\w){short})"))
    return forms


def _says(line: str, asked: set[str]) -> tuple[int, str]:
    """How well a line says what is asked (its key's words count double), and the part
    that says it: the line, or its cell that holds the asked words."""
    field = _FIELD.match(line)
    key_words = frozenset(stems(field.group(1))) if field else frozenset()
    line_words = Unit(0, 0, len(line), line).own_stems
    score = sum(2 if has_word(word, key_words) else 1 if has_word(word, line_words) else 0
                for word in asked)
    part = line.strip()
    if not key_words and _CELLS.search(line):
        cells = [c for c in _CELLS.split(line)
                 if any(has_word(w, frozenset(stems(c))) for w in asked)]
        if len(cells) == 1:
            part = cells[0].strip()
    return score, part


def _asked_line(text: str, block: tuple[int, int], skip: SpanRef, asked: set[str],
                who: bool) -> tuple[int, int, str] | None:
    """The block's one line that best says what is asked (not the bridge's own lines)."""
    best: list[tuple[int, int, int, str]] = []
    at = block[0]
    for line in text[block[0]:block[1]].splitlines(keepends=True):
        start, at = at, at + len(line)
        if (start < skip.end and skip.start < at) or not line.strip():
            continue
        score, part = _says(line, asked)
        if score and (not who or _NAME.search(line)):
            best.append((score, start, start + len(line.rstrip()), part))
    best.sort(key=lambda b: -b[0])
    if not best or (len(best) > 1 and best[1][0] == best[0][0]):
        return None
    return best[0][1:]


def _answer(text: str, block: tuple[int, int], line: tuple[int, int, str]) -> str:
    """"key: value" for grounding's record check: the line itself when it is one, else the
    line's first word (an HL7 segment's name) and the cell."""
    start, end, part = line
    whole = text[start:end].strip()
    field = _FIELD.match(whole)
    if field and part == whole:
        # "TEL;type=CELL:07700 900739" (a key's parameters, no space) is "TEL: 07700 900739".
        return f"{field.group(1).strip()}: {whole[field.end() - 1:].strip()}"
    key = _KEY.match(whole)
    return f"{key.group(1)}: {part}" if key else part


def follow_block(store: Store, session_id: str, question: str, layout: Layout | None
                 ) -> Chain | None:
    """The answer read from the block the question's bridge is in, else from the record
    the bridge's record points to (`joins`), else where the passage the question describes
    refers to (`references`), or None."""
    return (_from_block(store, session_id, question, layout)
            or follow_join(question, layout)
            or follow_reference(store, session_id, question, layout))


def _from_block(store: Store, session_id: str, question: str, layout: Layout | None
                ) -> Chain | None:
    # "does <bridge> <verb> ...": where the bridge ends (`chain.tightest`).
    chosen = tightest(question, bridge_spans(question), lambda span: bridge_units(
        store, session_id, GENERIC_HEAD.sub(r"\1", question[span[0]:span[1]])),
        lambda unit: unit[1])
    if chosen is None:
        return None
    span, after, units = chosen
    bridge = GENERIC_HEAD.sub(r"\1", question[span[0]:span[1]])
    rest = f"{question[:span[0]]} {question[after:]}"
    asked = set(stems(rest)) - set(stems(bridge))
    if not asked:
        return None
    docs = {d.id: d for d in store.documents(session_id)}
    for ref, _ in units:
        text = store.text(docs[ref.doc_id])
        block = block_around(text, ref.start)
        if block is None or ref.end > block[1]:
            continue
        line = _asked_line(text, block, ref, asked, bool(_WHO.match(question)))
        if line is None:
            continue
        found = Extract(_answer(text, block, line),
                        SpanRef(doc_id=ref.doc_id, start=block[0], end=block[1]),
                        field=line[2])
        return Chain(found, [], [ref, SpanRef(doc_id=ref.doc_id, start=line[0], end=line[1])])
    return None
