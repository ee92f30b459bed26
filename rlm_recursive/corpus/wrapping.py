"""Hard-wrapped lines joined back into the logical lines they were written as.

A line that starts in lower case continues the one before it, and so does any line after a
long prose line that stops mid-sentence, unless it starts a new entry, record, row, log line,
or list item. `split_units` (corpus/units.py) cuts its units from these logical lines.
"""

from __future__ import annotations

import re

__all__ = ["ENTRY", "KEY_VALUE", "LEADER", "TABULAR", "logical_lines"]

_SETTING = re.compile(r"^\s*[A-Za-z_][\w.-]{0,40}[ \t]*=[ \t]*[^\s=]")
"""A settings file's `key = value` line (INI, TOML, .properties): a field, like `Key: value`."""
KEY_VALUE = re.compile(r"^\s*[\w][\w ./()-]{0,40}:\s+\S|" + _SETTING.pattern)
ENTRY = re.compile(r"^\s*(?:[-*•]\s+|\d{1,3}[.)]\s+|[A-Z][\w'.]*(?:\s+[\w'.&]+){0,3}\s+"
                    r"[—–]\s(?!\s*\d)|[A-Z][\w'.]*(?:\s+[\w'.&]+){0,3}\s+-{1,2}\s(?!\s*\d))")
"""An entry of a list or board: a bullet, a number, or a label and a dash ("Bed 7 — ..."; not
a range's, "31 - 60")."""
_LABELLED = re.compile(r"^\s*[A-Z][\w'.]*(?:\s+[\w'.&]+){0,3}\s+(?:[—–]|-{1,2})\s(?!\s*\d)")
"""A label and a dash ("Bed 7 — ", "Rhys Pemberton — "): what follows is about the label."""


def logical_lines(text: str, offset: int, lines: list[str]) -> list[tuple[int, int]]:
    """Hard-wrapped prose joined back: a line that starts in lower case continues the one
    before it ("... keeps its door\ncode at 9310-57"), and so does any line after a long
    prose line that stops mid-sentence ("Luis Abara is the Finance\nDirector."), unless it
    starts a new entry, record or log line. Logs, rows and list items stand alone."""
    spans: list[tuple[int, int]] = []
    previous, in_entry, bullet = "", False, -1
    for line in lines:
        end = offset + len(line)
        # A table's row never continues the row above ("remark | ..." starts in lower case).
        tabular = bool(TABULAR.search(line) or TABULAR.search(previous))
        indent = len(line) - len(line.lstrip())
        if spans and ((line[:1].islower() and not tabular and not _SETTING.match(line))
                      or _wrapped(previous, line)
                      or ((in_entry or 0 <= bullet < indent) and _carries_entry(line))):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((offset, end))
            # (A banner in capitals, "WILLOWBROOK CATTERY - BOARDING BOOK (winter 2026)",
            # is a title, no entry the next line carries on.)
            in_entry = bool(_LABELLED.match(line)) and not _BANNER.match(line)
            # A bullet's lines indented under its text carry it on ("- 15.15  Dr Hale,
            # Mill House. Upright\n   (1931). Tuned to A440 ..."), whatever its gutters.
            # (Not a timed entry's: a programme's session line keeps its talks apart.)
            bullet = indent if _BULLET.match(line) else -1
        previous = line
        offset = end + 1
    return spans


_BANNER = re.compile(r"^\s*[A-Z]{2,}(?:\s+[A-Z&]{2,})+\s+[-—–]+\s+[A-Z]{2,}[^.!?]*$")
"""A title line in capitals on both sides of its dash, with no sentence's end."""
_BULLET = re.compile(r"^\s*[-*•]\s+\S")
"""A bullet opening a list item, whose indented lines below carry it on."""


def _carries_entry(line: str) -> bool:
    """A line under a labelled entry ("Rhys Pemberton — Energy Lead. Office: ...") that is
    not itself a new entry, record, row or log line: it goes on describing that entry."""
    return not (ENTRY.match(line) or _NEW_LINE.match(line) or KEY_VALUE.match(line)
                or TABULAR.search(line) or len(_GUTTER.findall(line)) >= _ROW_GUTTERS)


_GUTTER = re.compile(r"\S {2,}(?=\S)")
_ROW_GUTTERS = 3
"""Gutters of two spaces or more on a line from which it is a fixed-width row ("3 Mill Gdns
  Mrs Hale  F/B  £16  pd cash" under a day's heading), no note carrying an entry on."""


TABULAR = re.compile(r"\t| \| |^\s*\||,(?!\d{3}\b)\S+,")
"""A table's row: tabs, pipes, or CSV cells (not the thousands of "£38,400, up from")."""
_NEW_LINE = re.compile(r"^\s*(?:\d{4}-\d\d-\d\d|[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:|\[|<\d|\{|#)")


def _wrapped(previous: str, line: str) -> bool:
    """`previous` is prose cut at the margin and `line` carries its sentence on. A label
    and its value across a leader ("Adult day ticket ....... £4.60") is a line of a list,
    whole; so is a list's item under an item at the same indent that opens, like it, with
    a number ("  20 chicken thighs, skinless" / "  3 leeks, sliced")."""
    prose = (len(previous) >= 40 and previous.count(" ") >= 5
             and not previous.rstrip().endswith((".", "!", "?", ":", ";", '"', ")"))
             and not TABULAR.search(previous) and not LEADER.search(previous))
    return prose and not (ENTRY.match(line) or _NEW_LINE.match(line)
                          or KEY_VALUE.match(line) or TABULAR.search(line)
                          or LEADER.search(line) or _next_item(previous, line))


LEADER = re.compile(r"[^\s.](?:[ \t]*(?:\.[ \t]?){3,}[ \t]*|[ \t]*…+[ \t]*|[ \t]{2,})[^\s.]")
"""A label, a leader of dots or a wide gap, and a value: "Fenwick Zone weekly .... £17.50",
"Hospital    0712". What the value is, its label on the same line says."""


def _next_item(previous: str, line: str) -> bool:
    """`line` is the next item of an indented list `previous` is an item of: the same
    indent, and both open with a number (a quantity, a count)."""
    indent = len(line) - len(line.lstrip())
    return (indent > 0 and indent == len(previous) - len(previous.lstrip())
            and line.lstrip()[:1].isdigit() and previous.lstrip()[:1].isdigit())
