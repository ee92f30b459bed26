"""Kinds of items that span more than one line: the blocks under a heading that names them,
and the lines of one label taken with the lines that answer them.

- A heading line ("CUSTOMER REVIEWS (15)", "## Feedback") over three or more blocks between
  blank lines: each block is an item (a review with its stars, title and text), the kind
  named by the heading, up to the next heading line.
- Two labels whose lines alternate, the first's lines asking ("Q: Is it affected?" then
  "A: No."): an item is the question with its answer, so that "how many of the questions are
  answered with a plain no" judges each question with its answer.
- A labelled line's wrapped continuation (the lines under it indented further, with no
  label of their own) belongs to it.
"""

from __future__ import annotations

import re

from ...corpus.blocks import lines_of
from ...corpus.records import Record

__all__ = ["LETTER_LABELS", "continued", "paired", "section_blocks"]

LETTER_LABELS = {"q": "question", "a": "answer"}
"""One-letter labels whose word is a convention of every FAQ, not of one document."""

_MIN_BLOCKS = 3
_HEADING = re.compile(r"^(?:#{1,6}\s+\S.*|[^a-z]*[A-Z]{3}[^a-z]*)$")
"""A markdown heading, or a line of capitals (its count in brackets allowed)."""
_HEADING_WORDS = 6
_LABELLED = re.compile(r"^[ \t]*[A-Za-z][A-Za-z ()'/&.-]{0,30}?[ \t]*:")


def _is_heading(line: str) -> bool:
    # "CUSTOMER REVIEWS (15)        Sort: most recent": the heading is the first cell.
    stripped = re.split(r"\s{3,}", line.strip())[0]
    tokens = stripped.lstrip("#").split()
    # Words, not a path or a setting ("# /etc/apache2/sites-enabled/00-default.conf").
    worded = sum(bool(re.fullmatch(r"[A-Za-z][A-Za-z'&-]*", t)) for t in tokens) * 2 > len(
        tokens)
    return bool(_HEADING.match(stripped)) and len(tokens) <= _HEADING_WORDS and worded and \
        not _LABELLED.match(stripped)


def section_blocks(doc_id: str, text: str) -> list[tuple[str, list[Record]]]:
    """Each heading line over `_MIN_BLOCKS` or more blocks (between blank lines), with its
    blocks, up to the next heading line."""
    lines = lines_of(text)
    found: list[tuple[str, list[Record]]] = []
    heading: str | None = None
    blocks: list[Record] = []
    block: list[tuple[int, int, str]] = []

    def close_block() -> None:
        if block:
            start, end = block[0][0], block[-1][1]
            blocks.append(Record(doc_id, start, end, text[start:end], {}))
            block.clear()

    def close_section() -> None:
        close_block()
        if heading is not None and len(blocks) >= _MIN_BLOCKS:
            found.append((heading, list(blocks)))
        blocks.clear()

    for line in lines:
        if not line[2].strip():
            close_block()
        elif _is_heading(line[2]) and not block:
            close_section()
            heading = re.split(r"\s{3,}", line[2].strip())[0].lstrip("#").strip()
        else:
            block.append(line)
    close_section()
    return found


def continued(text: str, start: int, end: int) -> int:
    """Where a labelled line ending at `end` ends with its wrapped continuation: the lines
    right under it indented further than it, with no label of their own."""
    line_start = text.rfind("\n", 0, start) + 1
    indent = len(text[line_start:start + 1]) - len(text[line_start:start + 1].lstrip())
    while end < len(text):
        nxt_end = text.find("\n", end + 1)
        nxt_end = len(text) if nxt_end < 0 else nxt_end
        nxt = text[end + 1:nxt_end]
        if not nxt.strip() or _LABELLED.match(nxt) or \
                len(nxt) - len(nxt.lstrip()) <= indent:
            break
        end = nxt_end
    return end


def paired(first: list[Record], second: list[Record], text: str) -> list[Record] | None:
    """The first label's lines, each taken with the second label's line that follows it
    (and its continuation), when the two alternate through the document; else None."""
    # Lines that ask ("Q: Is it affected?"), not any two labels that happen to alternate
    # (a pupil's "Attendance:" then "Form tutor:").
    if len(first) != len(second) or len(first) < 2 or not all(
            ask.text.rstrip().endswith("?") for ask in first):
        return None
    items = []
    for k, (ask, answer) in enumerate(zip(first, second, strict=True)):
        following = first[k + 1].start if k + 1 < len(first) else len(text)
        if not ask.end < answer.start < following:
            return None
        end = continued(text, answer.start, answer.end)
        items.append(Record(ask.doc_id, ask.start, end, text[ask.start:end],
                            {**ask.fields, **answer.fields}))
    return items
