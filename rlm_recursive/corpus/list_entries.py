"""Paragraphs that hold a list, cut into its entries: one record per bullet, numbered
finding or time-led sitting, each with the lines indented under it."""

from __future__ import annotations

import itertools
import re

from .items import Item

__all__ = ["list_entries"]

_ENTRY = re.compile(r"^[ \t]*(?:[-*•+]|\d{1,3}[.)]|\d{1,3}(?:\.\d{1,3})+|\d{1,2}:\d\d)"
                    r"[ \t]+(?=\S)", re.MULTILINE)
"""A list entry's first line: a bullet, "3." or "2.1" (a report's numbered findings), or a
time (a cause list's or a programme's sittings, their details indented under them)."""
_OUTDENT = re.compile(r"\n(?=[ \t]*\S)")


def list_entries(items: list[Item]) -> list[Item]:
    """Paragraphs that hold a list cut into its entries (each with the lines indented under
    it) and the lines before them (a heading): one record per entry, not per paragraph."""
    out: list[Item] = []
    for item in items:
        starts = [m.start() for m in _ENTRY.finditer(item.text)]
        if not starts or (len(starts) == 1 and starts[0] == 0):
            out.append(item)
            continue
        cuts = ([0] if starts[0] > 0 else []) + starts + [len(item.text)]
        for a, b in itertools.pairwise(_outdented(item.text, cuts)):
            piece = item.text[a:b]
            lead = len(piece) - len(piece.lstrip())
            body = piece.strip()
            if body:
                out.append(Item(item.doc_id, item.start + a + lead,
                                item.start + a + lead + len(body), body))
    return out


def _outdented(text: str, cuts: list[int]) -> list[int]:
    """The cuts, and where an indented entry's text steps back left of it: the heading of
    the next room or session on a listing belongs to no entry before it."""
    out = []
    for a, b in itertools.pairwise(cuts):
        out.append(a)
        lead = len(text[a:b]) - len(text[a:b].lstrip(" \t"))
        for m in _OUTDENT.finditer(text, a, b) if lead else ():
            line = text[m.end():b]
            if len(line) - len(line.lstrip(" \t")) < lead:
                out.append(m.end())
                break
    return [*out, cuts[-1]]
