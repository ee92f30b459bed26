"""Sections: a heading is context for the lines under it.

People name a thing once, in a heading, and then write about it without naming it again:
"2. Lift replacement, Ashdown Building" / "Tenders close on 30 April."; an email whose
subject is "Field trip to Malham Cove" / "The cost of the trip is £18.50". A question about
"the Ashdown lift" must still find that line. A heading is
- an email's `Subject:` line (its value);
- a markdown heading (`# ...`);
- a settings file's section header (`[kiln.north]` over the `key = value` lines below it,
  read as "kiln north");
- a document's first line when it is short and not a record, row or log line (its title);
- a short line after a blank line (or the start) that is followed by text and ends with no
  sentence punctuation: "Bay A", "1. Roof repairs at the Calder Library"; not when the line
  after it is of its kind (a list's first item).
Its scope runs to the next heading. A letter or an email has an author too (its `From:`
name, else the name signed under "Kind regards,"): there "I", "me" and "my" name them
("... and me (group E)", "my own mobile is ..."). `scopes_for` gives, for a slice of a
document, the heading in force at its start, every heading inside it and the author, for
`split_units`.
"""

from __future__ import annotations

import bisect
import functools
import re

from .blocks import blocks, header_text, shape

__all__ = ["FIRST_PERSON", "Heading", "Scope", "author", "heading_over", "headings",
           "scopes_for", "title"]

Heading = tuple[int, int, str]
"""(start, end) of the heading's line in the document, and its text (normalised later)."""
Scope = tuple[int, str, str]
"""(offset in a slice, heading, author) from that offset on."""

FIRST_PERSON = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b")
_FROM = re.compile(r"^From:\s*\"?([^\"<\n@]+?)\"?\s*(?:<[^>\n]*>)?\s*$", re.MULTILINE)
_SIGN_OFF = re.compile(
    r"^\s*(?:kind|best|warm|many)?\s*(?:regards|wishes|thanks|yours\s+(?:sincerely|"
    r"faithfully|truly)|sincerely|cheers|best)\s*,?\s*\n\s*([A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)"
    r"{0,3})\s*$", re.MULTILINE | re.IGNORECASE)

_MAX_CHARS = 80
_MAX_WORDS = 12
_TITLE_CHARS = 120
_TITLE_WORDS = 20
_SUBJECT = re.compile(r"^subject\s*:\s*(\S.*)$", re.IGNORECASE)
_MARKDOWN = re.compile(r"^#{1,6}\s+(\S.*)$")
_SETTINGS_SECTION = re.compile(r"^\[([A-Za-z][\w .:-]{0,60})\]$")
_NUMBERING = re.compile(r"^(?:\d{1,2}[.)]|[A-Z][.)]|[IVX]+\.)\s+")
_NOT_HEADING = re.compile(
    r"(?:^\s*[\w][\w ./()-]{0,40}:\s+\S)"  # a `Key: value` line
    r"|\t| \| |^\s*\||,\S+,"  # a table's row
    r"|^\s*(?:\d{4}-\d\d-\d\d|[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:|\[|<\d|\{)"  # a log line, JSON
    r"|^\s*[-*•]\s")  # a bullet
_RULE = re.compile(r"\s*([=\-*_~#+])\1{7,}\s*")
_LABEL_DASH = re.compile(r"\s(?:[—–]|-{1,2})\s")
"""A label and a dash ("Bed 3 — empty"): an entry of a board, a heading only as a title."""


_FIRM_END = re.compile(r"(?i)(?<=\w)\s+(?:inc|ltd|co|corp|llc|plc|pty|gmbh|bv|sa|ag|srl)\.$")


def _shaped(line: str, title: bool) -> bool:
    body = line.strip()
    # A document's first line may be a long banner ("REGISTER OF BURIALS in the Churchyard
    # of ST OSWIN, UPPER HAMBLETT, in the Diocese of Wexcombe").
    chars, words = (_TITLE_CHARS, _TITLE_WORDS) if title else (_MAX_CHARS, _MAX_WORDS)
    if not body or len(body) > chars or len(body.split()) > words:
        return False
    if title:  # "BELLBIRD HEADS SURF LIFE SAVING CLUB INC.": a firm's name, no sentence
        body = _FIRM_END.sub("", body)
    if (body[-1] in ".,;:!?" or body[0].islower() or _NOT_HEADING.search(body)
            or not re.search(r"[^\W\d_]", body)):
        return False  # a sentence, a field, a row; a rule of dashes or equals names nothing
    return title or not _LABEL_DASH.search(body)


@functools.lru_cache(maxsize=32)
def headings(text: str) -> tuple[Heading, ...]:
    """Every heading of a document, in order (see the module docstring); in a document
    read as blocks (`corpus.blocks`), each block's header lines are its one heading, from
    its start to its last header line."""
    found = blocks(text)
    if not found:
        return _line_headings(text)
    # Blocks are in document order and apart: a heading's block is found by bisection, and
    # the plain headings over each block by a running pointer (a file of 20,000 sections
    # took minutes when each heading scanned every block).
    starts = [b.start for b in found]
    out: list[Heading] = []
    for heading in _line_headings(text):
        at = bisect.bisect_right(starts, heading[0]) - 1
        block = found[at] if at >= 0 and heading[0] <= found[at].end else None
        if block is None:
            out.append(heading)
        elif not any(a <= heading[0] < z for a, z in block.header):
            # A heading inside a block's body (a comment line over some of its fields) is
            # read under the block's header.
            out.append((heading[0], heading[1], _BLOCK + heading[2]))
    plain = sorted((h for h in out if not h[2].startswith(_BLOCK)), key=lambda h: h[1])
    last_over, taken = None, 0
    for block in found:
        while taken < len(plain) and plain[taken][1] <= block.start:
            last_over, taken = plain[taken][2], taken + 1
        if not block.header:
            continue
        # The title over the blocks ("Weirside Rowing Club" over its numbered sections)
        # stays in force inside each of them.
        title = f"{last_over} / " if last_over is not None else ""
        out.append((block.start, block.header[-1][1],
                    _BLOCK + title + header_text(text, block)))
    out.sort()
    # A heading in a block's body says what it says under the block's header.
    block_starts = set(starts)
    named = ""
    for i, (start, end, heading) in enumerate(out):
        if not heading.startswith(_BLOCK):
            named = ""
        elif start in block_starts:
            named = heading.removeprefix(_BLOCK)
        elif named:
            out[i] = (start, end, f"{_BLOCK}{named} / {heading.removeprefix(_BLOCK)}")
    return tuple((a, b, h.removeprefix(_BLOCK)) for a, b, h in out)


_BLOCK = "\0"
"""Marks a block's heading while they are gathered (no line heading starts with it)."""


def _line_headings(text: str) -> tuple[Heading, ...]:
    out: list[Heading] = []
    lines, pos = [], 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line), line))
        pos += len(line) + 1
    first = next((i for i, (_, _, line) in enumerate(lines) if line.strip()), None)
    for i, (start, end, line) in enumerate(lines):
        follows = i + 1 < len(lines) and bool(lines[i + 1][2].strip())
        # A banner framed by rule lines (`=====` over and under it) is set off as by blank
        # lines; a line under a rule that runs on into others is a row or an item.
        framed = bool(i > 0 and _RULE.fullmatch(lines[i - 1][2]) and follows
                      and _RULE.fullmatch(lines[i + 1][2]))
        after_blank = i == 0 or not lines[i - 1][2].strip() or framed
        if (subject := _SUBJECT.match(line.strip())) is not None:
            out.append((start, end, subject.group(1)))
        elif (markdown := _MARKDOWN.match(line.strip())) is not None:
            out.append((start, end, markdown.group(1)))
        elif (section := _SETTINGS_SECTION.match(line.strip())) is not None:
            out.append((start, end, re.sub(r"[._]", " ", section.group(1))))
        # A banner framed by rules is set apart as a title is ("C. PAYMENTS RECEIVED —
        # OCTOBER 2025": its dash is no board's entry).
        elif ((follows or i == first) and after_blank
              and _shaped(line, title=i == first or framed)
              and not (follows and _first_item(line, lines[i + 1][2]))):
            out.append((start, end, _NUMBERING.sub("", line.strip())))
    return tuple(out)


def _first_item(line: str, following: str) -> bool:
    """`line` opens a list rather than heading it: the line after it is of its kind (the
    same indent and shape: "  20 chicken thighs" over "  3 leeks, sliced")."""
    return (len(line) - len(line.lstrip()) == len(following) - len(following.lstrip())
            and shape(line) == shape(following))


@functools.lru_cache(maxsize=32)
def author(text: str) -> str:
    """Who wrote a letter or an email: the `From:` name of its header, else the name
    signed under its sign-off; "" for other documents, and for a thread or a file of
    several letters (more than one sender or sign-off: whose "I" a line is is not known)."""
    senders = {m.group(1).strip() for m in _FROM.finditer(text) if m.group(1).strip()}
    signed = {m.group(1).strip() for m in _SIGN_OFF.finditer(text)}
    if len(senders) > 1 or len(signed) > 1:
        return ""
    head = _FROM.search(text[:2000])
    if head is not None and head.group(1).strip():
        return head.group(1).strip()
    return next(iter(signed), "")


def heading_over(found: tuple[Heading, ...], offset: int) -> Heading | None:
    """Of a document's headings (`headings`), the one in force at `offset`: the last that
    ends there or before."""
    at = bisect.bisect_right([h[0] for h in found], offset) - 1
    while at >= 0 and found[at][1] > offset:
        at -= 1
    return found[at] if at >= 0 else None


def scopes_for(text: str, start: int, end: int) -> list[Scope]:
    """For the slice `text[start:end]`: (offset in the slice, heading, author) of the
    heading in force at its start (offset -1: it is above the slice) and of each heading
    inside it."""
    writer = author(text)
    out: list[Scope] = [(-1, "", writer)] if writer else []
    for h_start, _, heading in headings(text):
        if h_start >= end:
            break
        if h_start < start:
            out = [(-1, heading, writer)]
        else:
            out.append((h_start - start, heading, writer))
    return out


def title(text: str) -> str:
    """The document's title: its first heading, when that is on its first line."""
    found = headings(text)
    # A report's title may be centred ("          Halvorsen Plumbing & Drain LLC").
    return found[0][2] if found and not text[:found[0][0]].strip() else ""
