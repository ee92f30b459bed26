"""Chunking strategies: exact character ranges `[start, end)` that cover the whole text."""

from __future__ import annotations

import re
from typing import Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InvalidArgs

__all__ = ["ChunkStrategy", "chunk_ranges", "cut_at_breaks"]

# `regex` rather than `re` for delimiters: its matcher honours a timeout, so a model's
# catastrophic pattern such as `(a+)+b` cannot hang the process (the same rule as search).
_PARAGRAPH_BREAK = regex.compile(r"\r?\n(?:[ \t]*\r?\n)+", regex.V0)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_DELIMITER_TIMEOUT_S = 2.0


class ChunkStrategy(BaseModel):
    """How to cut a document. `overlap` counts the strategy's own unit.

    fixed: characters; lines: lines; delimiter and paragraphs: whole segments.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["fixed", "lines", "delimiter", "paragraphs"]
    chunk_size: int | None = Field(None, ge=1, description="fixed: characters per chunk")
    line_count: int | None = Field(None, ge=1, description="lines: lines per chunk")
    delimiter: str | None = Field(None, min_length=1, description="delimiter: where to cut")
    regex: bool = Field(False, description="delimiter: treat the delimiter as a regex")
    overlap: int = Field(0, ge=0)
    max_chunks: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _check(self) -> ChunkStrategy:
        if self.type == "fixed":
            if self.chunk_size is None:
                raise ValueError("fixed chunking needs chunk_size")
            if self.overlap >= self.chunk_size:
                raise ValueError("overlap must be smaller than chunk_size")
        if self.type == "lines":
            if self.line_count is None:
                raise ValueError("lines chunking needs line_count")
            if self.overlap >= self.line_count:
                raise ValueError("overlap must be smaller than line_count")
        if self.type == "delimiter" and not self.delimiter:
            raise ValueError("delimiter chunking needs delimiter")
        return self

    def cache_key(self) -> str:
        """Identifies the chunking for the per-(document, strategy) span cache."""
        return self.model_dump_json(exclude={"max_chunks"})


def chunk_ranges(text: str, strategy: ChunkStrategy) -> list[tuple[int, int]]:
    """All chunk ranges of `text` (before `max_chunks` is applied)."""
    if not text:
        return []
    if strategy.type == "fixed":
        size, step = strategy.chunk_size or 1, (strategy.chunk_size or 1) - strategy.overlap
        starts = range(0, max(len(text) - strategy.overlap, 1), step)
        return [(start, min(start + size, len(text))) for start in starts]
    if strategy.type == "lines":
        units = [(m.start(), m.end()) for m in _LINE.finditer(text)]
        return _group(units, strategy.line_count or 1, strategy.overlap)
    if strategy.type == "paragraphs":
        return _group(_split_after(text, _PARAGRAPH_BREAK), 1, strategy.overlap)
    pattern = _delimiter_pattern(strategy.delimiter or "", strategy.regex)
    return _group(_split_after(text, pattern), 1, strategy.overlap)


def cut_at_breaks(
    ranges: list[tuple[int, int]], breaks: list[int]
) -> list[tuple[int, int]]:
    """Ranges cut where a page starts, so each lies on one page (breaks sorted ascending)."""
    if not breaks:
        return ranges
    out = []
    for start, end in ranges:
        for cut in breaks:
            if start < cut < end:
                out.append((start, cut))
                start = cut
        out.append((start, end))
    return out


def _delimiter_pattern(delimiter: str, is_regex: bool) -> regex.Pattern[str]:
    try:
        pattern = regex.compile(delimiter if is_regex else regex.escape(delimiter), regex.V0)
    except (regex.error, ValueError, OverflowError) as exc:
        raise InvalidArgs(f"invalid delimiter regex: {exc}") from exc
    if pattern.match(""):
        raise InvalidArgs("the delimiter regex matches the empty string")
    return pattern


def _split_after(text: str, pattern: regex.Pattern[str]) -> list[tuple[int, int]]:
    """Segments ending just after each delimiter match; the last one runs to the end."""
    segments, start = [], 0
    try:
        matches = list(pattern.finditer(text, timeout=_DELIMITER_TIMEOUT_S))
    except TimeoutError:
        raise InvalidArgs(
            f"the delimiter regex {pattern.pattern!r} took over {_DELIMITER_TIMEOUT_S:g}s; "
            "simplify it (avoid nested repeats like (a+)+)"
        ) from None
    for match in matches:
        if match.end() > start:
            segments.append((start, match.end()))
            start = match.end()
    if start < len(text):
        segments.append((start, len(text)))
    return segments


def _group(units: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Join consecutive units `size` at a time, each chunk repeating `overlap` earlier units."""
    if not units:
        return []
    step = max(size - overlap, 1)
    chunks = []
    for first in range(0, len(units), step):
        last = min(first + size, len(units)) - 1
        if size > 1 and first > 0 and last < first + overlap:
            break  # only repeated units remain: the previous chunk already ended the text
        start = units[max(first - (overlap if size == 1 else 0), 0)][0]
        chunks.append((start, units[last][1]))
    return chunks
