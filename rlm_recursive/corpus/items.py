"""Items of a corpus: the units a question counts or classifies (lines, records, paragraphs,
or the pieces between a delimiter), detected from the text or given."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .chunking import ChunkStrategy, chunk_ranges

__all__ = ["MARKDOWN_HEADING", "Item", "ItemKind", "detect_item_kind", "heading_path", "line_spans",
           "split_items"]

ItemKind = Literal["lines", "records", "paragraphs", "delimiter"]

_DELIMITER_LINE = re.compile(r"^[ \t]*(-{3,}|={3,}|\*{3,}|#{3,}|~{3,})[ \t]*$", re.MULTILINE)
_BLANK_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Item:
    """One item: `doc_id[start:end]` with surrounding whitespace trimmed."""

    doc_id: str
    start: int
    end: int
    text: str


def detect_item_kind(text: str) -> tuple[ItemKind, str | None]:
    """The item kind a text is written in, and its delimiter line if it uses one.

    A line such as `---` repeated at least twice marks delimited records; indented
    continuation lines mark multi-line records; blank lines between most multi-line blocks
    mark paragraphs; anything else is one item per line.
    """
    delimiters = Counter(m.group(1) for m in _DELIMITER_LINE.finditer(text))
    if delimiters:
        mark, seen = delimiters.most_common(1)[0]
        if seen >= 2:
            return "delimiter", mark
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "lines", None
    indented = sum(line[:1] in (" ", "\t") for line in lines)
    if 0 < indented < len(lines) and lines[0][:1] not in (" ", "\t"):
        return "records", None
    breaks = len(_BLANK_BREAK.findall(text))
    # Paragraphs hold several lines each; a blank line between every line is still lines.
    if breaks and len(lines) >= 2 * (breaks + 1):
        return "paragraphs", None
    return "lines", None


def _ranges(text: str, kind: ItemKind, delimiter: str | None) -> list[tuple[int, int]]:
    if kind == "lines":
        return chunk_ranges(text, ChunkStrategy(type="lines", line_count=1))
    if kind == "paragraphs":
        return chunk_ranges(text, ChunkStrategy(type="paragraphs"))
    if kind == "delimiter":
        pattern = r"^[ \t]*" + re.escape(delimiter or "---") + r"[ \t]*$\n?"
        return chunk_ranges(text, ChunkStrategy(type="delimiter", delimiter=f"(?m){pattern}",
                                                regex=True))
    # records: a line that does not start with whitespace opens one; indented lines continue.
    return chunk_ranges(text, ChunkStrategy(type="delimiter", delimiter=r"(?m)\n(?=[^ \t\n])",
                                            regex=True))


def split_items(
    docs: Iterable[tuple[str, str]], kind: ItemKind | Literal["auto"] = "auto",
    delimiter: str | None = None,
) -> list[Item]:
    """Every non-blank item of every (doc_id, text), in order, delimiters left out."""
    items = []
    for doc_id, text in docs:
        chosen, mark = (kind, delimiter) if kind != "auto" else detect_item_kind(text)
        for start, end in _ranges(text, chosen, mark if chosen == "delimiter" else None):
            piece = text[start:end]
            if chosen == "delimiter":  # each segment ends with its delimiter line: cut it
                marks = list(_DELIMITER_LINE.finditer(piece))
                if marks and not piece[marks[-1].end():].strip():
                    piece = piece[: marks[-1].start()]
            lead, trail = len(piece) - len(piece.lstrip()), len(piece.rstrip())
            if trail > lead:
                items.append(Item(doc_id, start + lead, start + trail, piece[lead:trail]))
    return items


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank line."""
    spans, pos = [], 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            spans.append((pos, pos + len(body)))
        pos += len(line)
    return spans


MARKDOWN_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
"""A Markdown heading: what the lines under it are about ("### Security" in a changelog)."""


def heading_path(headings: list[tuple[int, int, str]], item: Item) -> str | None:
    """The headings over an item, outermost first, as a path ("Changelog / [2.6.1] /
    Security": a question names any part); None for a heading itself or no heading."""
    path: list[tuple[int, str]] = []
    for start, level, title in headings:
        if start > item.start:
            break
        if start == item.start:
            return None
        path = [(lv, t) for lv, t in path if lv < level] + [(level, title)]
    return " / ".join(t.replace(" / ", " - ") for _, t in path) if path else None
