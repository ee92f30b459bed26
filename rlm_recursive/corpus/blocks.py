"""Blocks: a record written over several lines, whose header lines name what the rest is about.

Many layouts name a thing once, at the top of a block of lines, and then give its details
without naming it again: a lab message names the patient in one segment and lists results
in the segments after it; a commit names its hash, author and date, then its message and
changed files; a calendar event names its summary and organiser, then its description; a
caption file numbers and times each cue, then gives its words. Nothing here knows those
formats by name. A document is read as blocks when
- one kind of line (its *shape*: its first token, or the whole line when short, digits and
  long hex runs made generic) recurs at least three times, never on two lines in a row,
  and is the first kind of line in the document that recurs so (the *start marker*:
  "commit <hash>", "MSH|", "BEGIN:VEVENT", a cue number; never a `key = value` setting,
  a comment or an indented line, and a `Key: value` line only when asked: a thread's
  "From:");
- the line after the marker is of one kind in most blocks (a structure, not prose that
  happens to start several lines with "The").
A block runs from its marker to the next marker (or to the end of the document, or to a
line of the marker's closing kind: "END:..." after "BEGIN:..."). Its *header lines* are its
lines of a kind that occurs exactly once in most blocks (the patient segment, `Author:`,
`SUMMARY:`), its marker included, unless they hold a sentence (a description); the others
(results, message lines, stat lines, the description) are its body, about what the header
names.

`blocks(text)` gives every block of a document (empty when it is not read as blocks);
`header_text(text, block)` the header lines joined, for matching a question's names.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["Block", "block_at", "blocks", "header_text", "lines_of", "shape"]

_MIN_BLOCKS = 3
_MOST = 0.8
"""Of the blocks: how many must agree on the kind of line after the marker, and hold a
header kind exactly once."""
_SHORT_LINE = 24
"""Chars: a line this short with no space is its own shape ("BEGIN:VEVENT", "17")."""
_HEADER_LINE_CHARS = 240
"""A header line longer than this is cut when read as a header (a long segment)."""
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b")
_DIGITS = re.compile(r"\d+")
_FIRST_TOKEN = re.compile(r"[^\s|:=;,]*[|:=;,]?")
_SETTING = re.compile(r"^[A-Za-z_][\w.-]{0,40}[ \t]*=")
"""A `key = value` line: a setting, never a block's marker (a settings file repeats
`host =` in every section)."""
_FIELD = re.compile(r"^[\w][\w ./()-]{0,40}:\s+\S")
"""A `Key: value` line: a block's marker only when asked (`keyed`)."""
_PROSE = re.compile(r"[a-z]{2}[.!?](?:\s|$)")
"""A sentence's end: a line that says something (an event's description) is body, not
header, even when every block has one."""
_COMMENT = re.compile(r"^\s*(?:#|//|;|--\s)")
_PAGE = re.compile(r"(?i)^\W*(?:page|pg\.?|p\.|sheet|folio)\s*\d+(?:\s*(?:of|/)\s*\d+)?\W*$")
"""A page's number ("Page 114", "- Page 2 of 5 -"): where a printout's page broke, which
opens no record (a register's entries run across pages)."""


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    """Offsets in the document: its marker line's start, and its last line's end."""
    header: tuple[tuple[int, int], ...]
    """(start, end) of each header line, in order, the marker line first."""


def shape(line: str) -> str:
    """The kind of a line: its first token (to and with its first `|`, `:`, `=`, `;` or
    `,`), or the whole line when short and without spaces or separators; digits and long
    hex runs made generic ("commit h", "OBX|", "BEGIN:VEVENT", "9", "9:9:9,9"); "" for a
    blank line."""
    body = line.strip()
    if not body:
        return ""
    if len(body) > _SHORT_LINE or re.search(r"[\s|,;=]", body):
        body = _FIRST_TOKEN.match(body).group() or body.split()[0]
        rest = line.strip()[len(body):].split()
        if rest and _HEX.fullmatch(rest[0]):
            body += " h"  # "commit <hash>": the hash is the marker's value
    return _DIGITS.sub("9", _HEX.sub("h", body))


def lines_of(text: str) -> list[tuple[int, int, str]]:
    """Each line of a text: (start, end, line)."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line), line))
        pos += len(line) + 1
    return out


def _marker(kinds: list[str], lines: list[tuple[int, int, str]], keyed: bool) -> str | None:
    """The first kind of line that recurs as a start marker (see the module docstring)."""
    counts = Counter(k for k in kinds if k)
    tried: set[str] = set()
    for kind, (_, _, line) in zip(kinds, lines, strict=True):
        if not kind or kind in tried or counts[kind] < _MIN_BLOCKS:
            continue
        tried.add(kind)
        if (_SETTING.match(line.strip()) or _COMMENT.match(line) or line[:1].isspace()
                or (not keyed and _FIELD.match(line)) or _PAGE.match(line)):
            continue  # a setting, a comment, an indented line: inside a block, not its start
        at = [i for i, k in enumerate(kinds) if k == kind]
        if 2 * sum(bool(_PROSE.search(lines[i][2])) for i in at) >= len(at):
            continue  # paragraphs that open alike ("The ..."): prose, not records
        after = Counter(next((kinds[j] for j in range(i + 1, len(kinds)) if kinds[j]), "")
                        for i in at)
        after.pop("", None)  # the last block may end the document
        (follower, agree), = after.most_common(1) or [("", 0)]
        # A log's lines, a list's items, a transcript's turns are followed by their like:
        # one line each, not blocks.
        if follower and follower != kind and agree >= _MOST * after.total():
            return kind
    return None


def _table(lines: list[tuple[int, int, str]]) -> bool:
    """Most lines hold one number (two or more) of commas or tabs: a CSV or TSV table,
    whose rows are records of their own (`corpus.records`), not blocks."""
    filled = [line for _, _, line in lines if line.strip()]
    for sep in (",", "\t"):
        counts = Counter(line.count(sep) for line in filled)
        count, n = counts.most_common(1)[0] if counts else (0, 0)
        if count >= 2 and n >= _MOST * len(filled):
            return True
    return False


def _closing(marker: str) -> str | None:
    """"END:VEVENT" closes what "BEGIN:VEVENT" opens."""
    match = re.fullmatch(r"(?i)(begin)([:\s_-].*)", marker)
    if match is None:
        return None
    return ("END" if match.group(1).isupper() else "end") + match.group(2)


@functools.lru_cache(maxsize=32)
def blocks(text: str, keyed: bool = False) -> tuple[Block, ...]:
    """Every block of the document, in order; () when it is not read as blocks. With
    `keyed`, a `Key: value` line may open blocks (a mail thread's `From:`): to find the
    block a known line is in, not to read its header as what its body is about (a mail's
    `To:` names its reader, not its subject)."""
    lines = lines_of(text)
    kinds = [shape(line) for _, _, line in lines]
    marker = None if _table(lines) else _marker(kinds, lines, keyed)
    if marker is None:
        return ()
    closing = _closing(marker)
    spans: list[list[int]] = []  # line indices of each block
    current: list[int] | None = None
    for i, kind in enumerate(kinds):
        if kind == marker:
            # Comment lines right above a marker introduce its block (a crontab's job).
            lead = i
            while lead > 0 and kinds[lead - 1] and _COMMENT.match(lines[lead - 1][2]):
                lead -= 1
            if current is not None and lead < i:
                del current[len(current) - (i - lead):]
            current = list(range(lead, i + 1))
            spans.append(current)
        elif current is not None:
            current.append(i)
            if closing is not None and kind == closing:
                current = None
    if (len(spans) > 1 and sum(bool(kinds[i]) for i in spans[-1]) == 1
            and not re.search(r"\w", lines[spans[-1][0]][2])):
        spans.pop()  # a rule closing the last record opens none
    once = Counter()
    for span in spans:
        counted = Counter(kinds[i] for i in span if kinds[i])
        once.update(k for k, n in counted.items() if n == 1)
    header_kinds = {k for k, n in once.items() if n >= _MOST * len(spans)} | {marker}
    out = []
    for span in spans:
        while len(span) > 1 and not kinds[span[-1]]:
            span.pop()  # trailing blank lines belong to no block
        header = tuple((lines[i][0], lines[i][1]) for i in span if kinds[i] in header_kinds
                       and (closing is None or kinds[i] != closing)
                       and (kinds[i] == marker or not _PROSE.search(lines[i][2])))
        out.append(Block(lines[span[0]][0], lines[span[-1]][1], header))
    return tuple(out)


def header_text(text: str, block: Block) -> str:
    """The block's header lines, each cut to a readable length, joined by " / "."""
    # A marker that is a rule (`=====`) says nothing of what the block is about.
    return " / ".join(text[a:b].strip()[:_HEADER_LINE_CHARS] for a, b in block.header
                      if re.search(r"[^\W_]", text[a:b]))


def block_at(text: str, offset: int, keyed: bool = False) -> Block | None:
    """The block that holds `offset`, if the document is read as blocks."""
    return next((b for b in blocks(text, keyed) if b.start <= offset <= b.end), None)
