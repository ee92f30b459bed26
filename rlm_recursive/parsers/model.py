"""The parsed form of one file (seed 003 §14): canonical text, page map, structure, identity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHECKPOINT_INTERVAL",
    "PAGE_SEPARATOR",
    "PARSER_VERSION",
    "Parsed",
    "TextBuilder",
]

PARSER_VERSION = "rlm-parsers-1"
"""Bumped whenever any parser's canonical text could change for the same input (§14.7)."""
PAGE_SEPARATOR = "\f\n"
"""Joins the pages of a paged document: a form feed on a line of its own after each page."""
CHECKPOINT_INTERVAL = 10_000
"""Characters between two offset checkpoints (char → byte of the canonical UTF-8)."""


@dataclass
class Parsed:
    """One file, parsed. Offsets are Python str indices into `text`."""

    text: str
    format: str
    """pdf, docx, html, markdown, csv, code or text."""
    raw_sha256: str
    encoding: str | None = None
    """The detected encoding of a text file (None for PDF and DOCX)."""
    pages: list[tuple[int, int, int]] = field(default_factory=list)
    """(page, start_char, end_char) per page, 1-based; empty for formats without pages."""
    headings: list[dict[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    line_endings: str = "lf"
    """"lf" when the parser writes the text; "as-is" when a text file's own are kept."""
    parser_version: str = PARSER_VERSION

    @property
    def page_count(self) -> int | None:
        return len(self.pages) if self.pages else None

    def meta(self) -> dict[str, Any]:
        """Structure metadata in the shape of seed 003 §14.5, with §14.6's checkpoints."""
        return {
            "version": "1.0",
            "parser_version": self.parser_version,
            "format": self.format,
            "raw_sha256": self.raw_sha256,
            "encoding": self.encoding,
            "line_endings": self.line_endings,
            "page_separator": PAGE_SEPARATOR if self.pages else None,
            "pages": [{"page_num": p, "start_char": s, "end_char": e} for p, s, e in self.pages],
            "headings": self.headings,
            "tables": self.tables,
            "warnings": self.warnings,
            "offsets": offset_checkpoints(self.text),
        }


def offset_checkpoints(text: str, interval: int = CHECKPOINT_INTERVAL) -> dict[str, Any]:
    """Every `interval` characters, the byte offset in the UTF-8 text (§14.6)."""
    points, byte = [], 0
    for char in range(0, len(text), interval):
        points.append({"char": char, "byte": byte})
        byte += len(text[char : char + interval].encode("utf-8", "surrogatepass"))
    return {"char_length": len(text), "byte_length": byte, "checkpoint_interval": interval,
            "checkpoints": points}


class TextBuilder:
    """Appends blocks (one per line group) and records heading and table spans as it goes."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.headings: list[dict[str, Any]] = []
        self.tables: list[dict[str, Any]] = []

    def block(self, text: str) -> tuple[int, int]:
        """Append one block and a newline; return its span (without the newline)."""
        text = text.strip("\n")
        start = self.length
        self.parts.append(text + "\n")
        self.length += len(text) + 1
        return start, start + len(text)

    def heading(self, level: int, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            return
        start, end = self.block(title)
        self.headings.append({"type": "section", "title": title, "level": level,
                              "start_char": start, "end_char": end})

    def table(self, rows: list[list[str]]) -> None:
        rows = [[" ".join(cell.split()) for cell in row] for row in rows]
        rows = [row for row in rows if any(row)]
        if not rows:
            return
        start, end = self.block("\n".join(" | ".join(row) for row in rows))
        self.tables.append({"start_char": start, "end_char": end, "rows": len(rows),
                            "cols": max(len(row) for row in rows)})

    def text(self) -> str:
        return "".join(self.parts)
