"""Keyed records: the repeated parts of a document that each open with a line of one kind
(their *key line*), whatever the format calls them.

A web server's config opens each site with `<VirtualHost …>` and names it on the next line;
a batch of folios, reports or count sheets repeats a banner and a `Guest :`, `PUPIL:` or
`WARD:` line per record; an outline repeats `** ` headings; a bill gives each fuel a
capitalised heading. Nothing here knows those formats by name. A kind of line (its *shape*,
`blocks.shape`, with any capitalised heading counted as one kind) keys records when
- it recurs, on lines that differ, at one indentation;
- each record it opens starts after a blank line, a rule or the document's start (the lines
  just above the key line that every record repeats, a banner or an opening tag, belong to
  the record), or it is a markup heading or tag, which opens its record wherever it is;
- its records are more than single lines (lines are read as lines elsewhere).
A record runs to the next one's start. The last one ends at its closing tag, at a heading of
its level or above, or before a part (after a blank line) that opens with a kind of line no
earlier record has (a trailing "Notes" section is not the last site's or ward's).

Several kinds may key a document (a count sheet's `WARD:` sections and the capitalised
sub-headings in each): each gives its own group of records, and a reader asks them all.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from .blocks import lines_of, shape
from .record_units import Unit, line_fields

__all__ = ["keyed_records", "preamble"]

_RULE = re.compile(r"\s*([=\-*_~#+─━═])\1{9,}\s*")
_HEADING = re.compile(r"(\*+|#+)\s")
"""An outline's or markdown's heading: its level is its marker's length."""
_TAG = re.compile(r"<([A-Za-z][\w:-]*)")
_CAPITAL_HEADING = re.compile(r"[A-Z][A-Z&'’-]{2,}(?:\s|$|[—–-])")
"""A line opening with a capitalised word (not a `LABEL:`): a section heading, whatever
its word."""
_TITLE = re.compile(r"[^\d\n]{1,40}")
"""A heading: a short line without figures ("Notes", "YOUR TARIFF IS ENDING")."""
_MAX_GROUPS = 12
_MAX_KEYS = 400
"""A kind of line recurring more often than this is a log's or a list's lines, not records."""


def _kind(line: str, comments: bool = False) -> str | None:
    """The kind of line that may key records, or None (blank lines, rules and, in a file
    with `#` comments, comments key none)."""
    body = line.strip()
    if not body or _RULE.fullmatch(line):
        return None
    indent = len(line) - len(line.lstrip())
    if (heading := _HEADING.match(body)) is not None:
        if comments and body.startswith("#"):
            return None
        return f"{indent}:{heading.group(1)}"
    kind = shape(line)
    if _CAPITAL_HEADING.match(body) and not kind.endswith(":"):
        kind = "CAPS"
    return f"{indent}:{kind}"


def _context_kind(line: str) -> str:
    """A line's kind for lining records up above their key lines (rules by their mark)."""
    if (rule := _RULE.fullmatch(line)) is not None:
        return "rule" + rule.group(1)
    return _kind(line) or ""


def _opens_anywhere(kind: str) -> bool:
    body = kind.split(":", 1)[1]
    return bool(_HEADING.match(body + " ") or body.startswith("<"))


def _lead(lines: list[tuple[int, int, str]], keys: list[int]) -> int | None:
    """How many lines above each key line belong to its record (the banner or opening tag
    every record repeats), or None when the records do not start after a blank line, a
    rule or the document's start."""
    lead = 0
    while True:
        above = [k - lead - 1 for k in keys]
        if any(a < 0 or not lines[a][2].strip() or (n and a <= keys[n - 1])
               for n, a in enumerate(above)):
            break
        kinds = {_context_kind(lines[a][2]) for a in above}
        if len(kinds) != 1:
            break
        lead += 1
    for key in keys:
        before = key - lead - 1
        if before >= 0 and lines[before][2].strip() and not _RULE.fullmatch(lines[before][2]):
            return None
    return lead


def _last_end(lines: list[tuple[int, int, str]], start: int, key: int, kind: str,
              seen: set[str]) -> int:
    """The last line of the last record (see the module)."""
    tag = _TAG.match(lines[start][2].strip())
    heading = _HEADING.match(kind.split(":", 1)[1] + " ")
    end = key
    for i in range(key + 1, len(lines)):
        body = lines[i][2].strip()
        if tag is not None and body.startswith(f"</{tag.group(1)}"):
            return i
        if heading is not None and _closes(body, heading.group(1)):
            break
        # A heading after a blank line, of a kind no earlier record has: a part of its own.
        if (body and i > 0 and not lines[i - 1][2].strip() and tag is None
                and _context_kind(lines[i][2]) not in seen and _TITLE.fullmatch(body)):
            break
        if body:
            end = i
    return end


def _heading_end(lines: list[tuple[int, int, str]], key: int, stop: int, kind: str) -> int:
    """An outline's record ends before the next heading of its level or above."""
    heading = _HEADING.match(kind.split(":", 1)[1] + " ")
    if heading is None:
        return stop
    for i in range(key + 1, stop + 1):
        if _closes(lines[i][2].strip(), heading.group(1)):
            return i - 1
    return stop


def _closes(body: str, marker: str) -> bool:
    """The line is a heading of the marker's level or above ("* Teaching" after "** …")."""
    other = _HEADING.match(body)
    return (other is not None and other.group(1)[0] == marker[0]
            and len(other.group(1)) <= len(marker))


def _closed(lines: list[tuple[int, int, str]], key: int, tag: str, stop: int) -> int:
    """The line that closes a tag's record (or the last line before the next record)."""
    for i in range(key + 1, stop):
        if lines[i][2].strip().startswith(f"</{tag}"):
            return i
    return _trimmed(lines, key, stop - 1)


def _trimmed(lines: list[tuple[int, int, str]], start: int, end: int) -> int:
    while end > start and not lines[end][2].strip():
        end -= 1
    return end


def _spans(lines: list[tuple[int, int, str]], kind: str, keys: list[int]
           ) -> list[tuple[int, int]] | None:
    """Each record's first and last line, or None when the kind keys no records."""
    lead = 0 if _opens_anywhere(kind) else _lead(lines, keys)
    if lead is None:
        return None
    starts = [k - lead for k in keys]
    spans: list[tuple[int, int]] = []
    tag = _TAG.match(lines[starts[0]][2].strip())
    for n, (start, key) in enumerate(zip(starts, keys, strict=True)):
        if tag is not None:  # `<Location …>` … `</Location>`, whatever follows
            end = _closed(lines, key, tag.group(1), starts[n + 1] if n + 1 < len(starts)
                          else len(lines))
        elif n + 1 < len(starts):
            end = _trimmed(lines, start, starts[n + 1] - 1)
        else:
            seen = {_context_kind(lines[i][2]) for s, e in spans for i in range(s, e + 1)}
            end = _last_end(lines, start, key, kind, seen)
        spans.append((start, _heading_end(lines, key, end, kind)))
    if sum(e - s + 1 for s, e in spans) < 2 * len(spans):
        return None  # one line each: lines, not records
    return spans


def _cut(spans: list[tuple[int, int]], starts: set[int]) -> list[tuple[int, int]]:
    """Records of capitalised headings end where a record of a surer kind starts (a
    sheet's `AREA:` part): "RESULTS" of one area does not run into the next area."""
    return [(s, min([e, *(b - 1 for b in starts if s < b <= e)])) for s, e in spans]


def _unit(doc_id: str, text: str, lines: list[tuple[int, int, str]], start: int, end: int
          ) -> Unit:
    body = [lines[i] for i in range(start, end + 1) if lines[i][2].strip()]
    fields = tuple(f for s, e, line in body for f in line_fields(s, e, line))
    return Unit(doc_id, body[0][0], body[-1][1], fields, text[body[0][0]:body[-1][1]])


@functools.lru_cache(maxsize=16)
def keyed_records(doc_id: str, text: str) -> list[list[Unit]]:
    """The groups of records of a document, one for each kind of key line (see the module),
    each record with the labelled parts of its lines (`record_units.line_fields`)."""
    lines = lines_of(text)
    # Indented `#` lines are a config's or a script's comments: there `#` opens no heading.
    comments = any(line[:1].isspace() and line.lstrip().startswith("#") for _, _, line in lines)
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, (_, _, line) in enumerate(lines):
        if (kind := _kind(line, comments)) is not None:
            by_kind[kind].append(i)
    groups: dict[tuple[int, ...], tuple[str, list[tuple[int, int]]]] = {}
    candidates = [(kind, keys) for kind, keys in by_kind.items()
                  if 2 <= len(keys) <= _MAX_KEYS
                  and len({lines[k][2].strip() for k in keys}) >= 2]
    for kind, keys in candidates[:_MAX_GROUPS * 4]:
        spans = _spans(lines, kind, keys)
        # Two kinds that cut the same records (`<VirtualHost` and the `ServerName` under
        # it) are one group.
        if spans is not None and (starts := tuple(s for s, _ in spans)) not in groups:
            groups[starts] = (kind, spans)
        if len(groups) >= _MAX_GROUPS:
            break
    surer = {s for starts, (kind, _) in groups.items() if not kind.endswith(":CAPS")
             for s in starts}
    # A kind only some records have ("French" in three pupils' reports of five) cuts
    # records that run over two: the group whose starts another, larger one has is dropped.
    return [[_unit(doc_id, text, lines, s, e)
             for s, e in (_cut(spans, surer) if kind.endswith(":CAPS") else spans)]
            for starts, (kind, spans) in groups.items()
            if not any(len(other) > len(starts) and set(starts) <= set(other)
                       for other in groups)]


def preamble(text: str, group: list[Unit]) -> str:
    """What the document says before its first record (a bill's account and address, a
    batch's client): it is about every record."""
    return text[:group[0].start] if group else ""
