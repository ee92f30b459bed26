"""Texts cut into the units answers are read from: paragraphs of `Key: value` lines kept
whole (records), other paragraphs cut into logical lines (hard-wrapped prose joined back)
and lines into sentences, each with the heading, author, lead line, table header and
document title in force over it (`Unit`)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

from .reading import reading_text
from .sections import FIRST_PERSON
from .speakers import TURN_CHARS, speaker, strip_speaker
from .units import FULL_STOP, SENTENCE_END, Unit
from .wrapping import ENTRY, KEY_VALUE, TABULAR, logical_lines

__all__ = ["split_units"]

_COMMENT = re.compile(r"^\s*[;#]")
"""A settings file's comment line: it neither makes nor breaks a record."""
_ENTRY_CHARS = 400
_PRONOUN_OPENS = re.compile(r"\s*(?:He|She|His|Her|Hers|They|Their|Its)\b")


def split_units(texts: Sequence[str],
                scopes: Sequence[Sequence[tuple[int, str, str]]] | None = None,
                titles: Sequence[str] | None = None) -> list[Unit]:
    """Each text cut into paragraphs; a paragraph of `Key: value` lines stays whole (a
    record), others are cut into lines, and lines into sentences. `scopes[i]`: the headings
    over text i and its author, (offset in it, heading, author), from
    `sections.scopes_for`; `titles[i]`: the title of text i's document."""
    units = _split(texts)
    if titles:
        units = [replace(u, title=titles[u.source]) if u.source < len(titles) else u
                 for u in units]
    if not scopes:
        return units
    out = []
    for unit in units:
        heading, writer = _scope_at(scopes[unit.source] if unit.source < len(scopes) else [],
                                    unit.start)
        speaks = bool(writer) and bool(FIRST_PERSON.search(unit.text))
        out.append(replace(unit, scope=heading,
                           author=unit.author or (writer if speaks else "")))
    return out


def _scope_at(scopes: Sequence[tuple[int, str, str]], offset: int) -> tuple[str, str]:
    found = ("", "")
    for at, heading, writer in scopes:
        if at > offset:
            break
        found = (heading, writer)
    return found


def _split(texts: Sequence[str]) -> list[Unit]:
    units: list[Unit] = []
    for index, source in enumerate(texts):
        text = reading_text(source)  # the words a reader sees, at the source's offsets
        for para in re.finditer(r"[^\n]+(?:\n[^\n]+)*", text):
            lines = para.group().split("\n")
            keyed = sum(bool(KEY_VALUE.match(line)) for line in lines)
            comments = sum(bool(_COMMENT.match(line)) for line in lines)
            # A record: `Key: value` lines, perhaps under one heading line ("[kiln.north]").
            if (2 <= keyed >= len(lines) - 1 - comments and len(lines) <= 14
                    and len(para.group()) <= 800):
                units.append(Unit(index, para.start(), para.end(), para.group(), record=True))
                continue
            previous: int | None = None  # where the paragraph's last sentence starts
            in_para = len(units)
            header = _table_header(lines)
            leads = _leads(lines)
            starts = list(itertools.accumulate((len(x) + 1 for x in lines),
                                               initial=para.start()))
            for start, end in logical_lines(text, para.start(), lines):
                if header and start > para.start() and TABULAR.search(text[start:end]):
                    units.append(Unit(index, start, end, text[start:end], header=header))
                    continue
                line, pos, first = text[start:end], 0, len(units)
                pieces = [p for p in SENTENCE_END.split(line) if p.strip()]
                for piece in SENTENCE_END.split(line):
                    at = line.find(piece, pos)
                    pos = at + len(piece)
                    # A list's number ("12." of "12. BAKEWELL TART") says nothing alone.
                    if piece.strip() and not _MARKER.fullmatch(piece.strip()):
                        units.append(Unit(index, start + at, start + pos, piece))
                # A sentence whose clauses a semicolon joins ("The vaccine arrives on 9 June;
                # 420 doses are expected") is a unit as well as its clauses.
                pos = 0
                for sentence in FULL_STOP.split(line):
                    at = line.find(sentence, pos)
                    pos = at + len(sentence)
                    if ";" in sentence.rstrip(" ;") and sentence.strip():
                        units.append(Unit(index, start + at, start + pos, sentence))
                    # "Dr Amelia Crane is back on Monday. Her room is number 12.": a sentence
                    # that opens with a pronoun is about the one before it; the two are a
                    # unit as well.
                    if previous is not None and _PRONOUN_OPENS.match(sentence):
                        units.append(Unit(index, previous, start + pos,
                                          text[previous:start + pos]))
                    previous = start + at if sentence.strip() else previous
                # A labelled entry ("Bed 7 — Mrs Whitlock, 70. Heparin at 900 units/hr.") is
                # about its label throughout: the whole entry is a unit too.
                # So is a line of notes under a diary's timed entry (`_leads`).
                if len(pieces) > 1 and len(line) <= _ENTRY_CHARS and (
                        ENTRY.match(line) or leads[bisect.bisect_right(starts, start) - 1]):
                    units.append(Unit(index, start, end, line))
                elif (who := speaker(line)) and len(line) <= TURN_CHARS:
                    # A speaker's turn in a transcript is about one thing: whole, it is a
                    # unit too, and "I" in it is the speaker.
                    units[first:] = [_spoken_by(u, who) for u in units[first:]]
                    if len(pieces) > 1:
                        units.append(_spoken_by(Unit(index, start, end, line), who))
            # "Stock check this morning:" over "wards ...... 34 vials recovered": the line
            # that introduces a list says what its items are about.
            if any(leads):
                units[in_para:] = [
                    replace(u, lead=lead) if (lead := leads[bisect.bisect_right(
                        starts, u.start) - 1]) else u for u in units[in_para:]]
    return units


def _leads(lines: list[str]) -> list[str]:
    """For each line of a paragraph, the line that introduces the list it is an item of:
    a short line ending in a colon ("5.2 A deposit is payable when borrowing:") or opening
    with a clock time, over the lines indented deeper than it or marked as items; or the
    label cells of an entry whose text hangs under its own column ("Moorhead Vintage Motors
    09/02  Owner disputes ..." over lines indented to "Owner"); "" for other lines."""
    out, lead, depth, opener = [], "", 0, ""
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if lead and line.strip() and (indent > depth or _ITEM.match(line)):
            out.append(lead)
            continue
        if (hung := _hanging_label(opener, line)) is not None:
            lead, depth = hung, len(opener) - len(opener.lstrip())
            out.append(lead)
            continue
        lead, opener = "", line
        out.append("")
        # A diary's timed entry ("13:30  Mr Arjun Mehta, 7 Beech Close") over its indented
        # notes ("Cert C4410.  £75 card."): they are about whom it names.
        if ((line.rstrip().endswith(":") or _TIMED_ENTRY.match(line))
                and len(line.strip()) <= _LEAD_CHARS):
            lead, depth = line.strip(), indent
    return out


def _hanging_label(opener: str, line: str) -> str | None:
    """The cells of `opener` before the column `line` is indented to, when `line` carries
    on the opener's last column there (a gutter of two spaces before it in the opener)."""
    indent = len(line) - len(line.lstrip())
    start = len(opener) - len(opener.lstrip())
    if not line.strip() or not opener.strip() or indent <= start or indent >= len(opener):
        return None
    if opener[indent - 2:indent] == "  " and opener[indent] != " ":
        return opener[:indent].strip()
    # An opener's last cell running on past a comma ("invoice to council,") onto a line
    # typed a little off its column ("PO no. CE/FAC/2231").
    last = [m.end() for m in re.finditer(r"\S {2,}(?=\S)", opener)]
    if not last or not opener.rstrip().endswith(",") or abs(last[-1] - indent) > _OFF_COLUMN:
        return None
    return opener[:last[-1]].strip()


_MARKER = re.compile(r"(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)]")
_ITEM = re.compile(r"^\s*(?:[-*•]\s|\(?[a-z0-9]{1,2}\)\s)")

_LEAD_CHARS = 120
_OFF_COLUMN = 4
"""Places a note may sit off the column it carries on."""
_TIMED_ENTRY = re.compile(r"^\s*(?:[01]?\d|2[0-3])[:.][0-5]\d\s+\S")


def _spoken_by(unit: Unit, who: str) -> Unit:
    return replace(unit, author=who) if FIRST_PERSON.search(strip_speaker(unit.text)) else unit


def _table_header(lines: list[str]) -> str:
    """The first line of a paragraph that is a table (a markdown table with its rule line,
    or tab-separated rows of one width): its column names, tab-separated."""
    if len(lines) < 2:
        return ""
    if _PIPE_HEAD.match(lines[0]) and _PIPE_RULE.match(lines[1]):
        return "\t".join(c.strip() for c in lines[0].strip().strip("|").split("|"))
    tabs = lines[0].count("\t")
    if tabs and all(line.count("\t") == tabs for line in lines) and not re.search(
            r"\d", lines[0]):
        return lines[0]
    return ""


_PIPE_HEAD = re.compile(r"^\s*\|.+\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
