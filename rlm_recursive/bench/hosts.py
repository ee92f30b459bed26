"""Host texts for the suite: the kinds of document a fact hides in, written in different ways
so no strategy can be tuned to one layout: flowing prose, a table of unrelated rows, the text
a PDF extractor gives (running headers, page footers, hyphenated line breaks), and a log."""

from __future__ import annotations

import random
from collections.abc import Callable

from .sniah import filler_sentence

__all__ = ["HOSTS", "host_text"]

_COLUMNS = ("ref", "site", "region", "units", "checked")
_SITES = ("north depot", "river yard", "east annex", "harbour shed", "south gate", "hill store")


def _prose(rng: random.Random, length: int, facts: list[str]) -> str:
    parts: list[str] = []
    size = sum(map(len, facts)) + len(facts)
    while size < length:
        sentence = filler_sentence(rng) + (" " if rng.random() > 0.15 else "\n\n")
        parts.append(sentence)
        size += len(sentence)
    for fact in facts:
        parts.insert(rng.randint(0, len(parts)), fact + " ")
    return "".join(parts)


def _table(rng: random.Random, length: int, facts: list[str]) -> str:
    rows = [" | ".join(_COLUMNS)]
    size = len(rows[0])
    while size < length:
        row = " | ".join((f"R-{rng.randint(10000, 99999)}", rng.choice(_SITES),
                          rng.choice(("N", "S", "E", "W")), str(rng.randint(1, 900)),
                          rng.choice(("yes", "no"))))
        rows.append(row)
        size += len(row) + 1
    for fact in facts:  # facts sit in a remarks row, as tables often carry them
        rows.insert(rng.randint(1, len(rows)), f"remark | {fact}")
    return "\n".join(rows) + "\n"


def _pdf(rng: random.Random, length: int, facts: list[str]) -> str:
    """Text as a PDF extractor leaves it: short lines, words hyphenated across lines, a
    running header and a page footer every 40 lines. Facts are never split."""
    body = _prose(rng, length, [f"\x00{i}\x00" for i in range(len(facts))])
    lines, line, page, out = [], "", 1, []
    for word in body.split(" "):
        if word.startswith("\x00"):
            if line:
                lines.append(line)
            lines.append(facts[int(word.strip("\x00\n"))])
            line = ""
            continue
        if len(line) + len(word) > 68:
            if len(word) > 7 and rng.random() < 0.3:
                cut = len(word) // 2
                lines.append(f"{line} {word[:cut]}-".strip())
                line = word[cut:]
                continue
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    for i, text in enumerate(lines):
        if i % 40 == 0:
            out.append(f"ANNUAL OPERATIONS REVIEW {'—'} CONFIDENTIAL")
        out.append(text)
        if i % 40 == 39:
            out.append(f"Page {page}")
            out.append("\f")
            page += 1
    return "\n".join(out) + "\n"


def _log(rng: random.Random, length: int, facts: list[str]) -> str:
    lines: list[str] = []
    size = 0
    while size < length:
        line = (f"2026-02-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:"
                f"{rng.randint(0, 59):02d}:00 INFO [{rng.choice(('sched', 'sync', 'io'))}] "
                f"{filler_sentence(rng)}")
        lines.append(line)
        size += len(line) + 1
    for fact in facts:
        lines.insert(rng.randint(0, len(lines)), f"2026-02-14 09:00:00 NOTICE [memo] {fact}")
    return "\n".join(lines) + "\n"


HOSTS: dict[str, Callable[[random.Random, int, list[str]], str]] = {
    "prose": _prose, "table": _table, "pdf": _pdf, "log": _log}


def host_text(kind: str, rng: random.Random, length: int, facts: list[str]) -> str:
    """About `length` characters of the `kind` of text, holding every fact whole."""
    return HOSTS[kind](rng, length, facts)
