"""What names a document: its file name and first lines (its title), what a question may
call a machine format its name need not say ("the proxy log"), and the subject of a prose
printout: the names its opening block gives that no later entry repeats ("Patient:
BISCUIT" over a clinical history), whom the whole document is about."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

from .dates import said_dates
from .label_values import KEYED
from .sections import title
from .word_stems import stems

__all__ = ["document_names", "document_subject", "document_title", "file_words",
           "front_fields", "name_says"]

_TITLE_LINES = 3
_HEADER_LINES = 10
"""A prose document's opening block (up to its first blank or rule line) of at most this many
lines is its header ("Patient: BISCUIT" on a printout's fourth line)."""
_BLOCK_END = re.compile(r"^\s*(?:([-=_*~#])\1{5,})?\s*$")
_KNOWN_AS = {"squid": "Squid web proxy cache access log",
             "zone": "DNS zone file of resource records"}
"""What a question may call a document of a machine format its name need not say."""


def file_words(source: str) -> str:
    """The words of a document's file name, its folders dropped (`/srv/postgresql.conf.sample`
    → "postgresql conf sample"): what a question calls the file."""
    base = re.split(r"[\\/]", source.strip())[-1]
    return " ".join(re.findall(r"[^\W_]+", base))


def name_says(name: str, word: str, shortest: int = 4) -> bool:
    """A word of the file's name says the word: `postgresql.conf.sample` says "postgres",
    "config" and "sample" (a name shortens and runs words on), each of them `shortest`
    letters at least unless said whole."""
    return any(part == word or (len(word) >= shortest and part.startswith(word))
               or (len(part) >= shortest and len(word) >= shortest and word.startswith(part))
               for part in re.findall(r"[a-z0-9]+", file_words(name).lower()))


def document_title(name: str, text: str, fmt: str) -> str:
    """The document's name, its first non-blank lines and what its format is known as."""
    heads = [line[:200] for line in text[:2000].splitlines() if line.strip()][:_TITLE_LINES]
    title = "\n".join([name, *heads]).strip()
    return f"{title}\n{_KNOWN_AS[fmt]}" if fmt in _KNOWN_AS else title


def document_subject(text: str, fmt: str, records: Iterable[tuple[int, str]]) -> str:
    """The names of a prose document's opening block, past its first lines, that none of its
    later records (`(start, text)`) says."""
    lines = text[:2000].splitlines()
    block = list(itertools.takewhile(lambda line: not _BLOCK_END.match(line), lines))
    if fmt != "prose" or not _TITLE_LINES < len(block) <= _HEADER_LINES:
        return ""
    end = sum(len(line) + 1 for line in block)
    later = set(stems("\n".join(text for start, text in records if start >= end)))
    # Names only ("BISCUIT", "Arkwright"): a header's words ("report") are no subject.
    return " ".join(w for w in re.findall(r"\b[A-Z][A-Za-z'-]+", "\n".join(block[_TITLE_LINES:]))
                    if not set(stems(w)) & later)


_FRONT_LINES = 40
"""Non-blank lines from a document's top that may hold what the whole of it is about."""
_FRONT_FIELDS = 12
_FIELD = re.compile(r"^\s*([A-Za-z][\w ./()&'-]{0,40}?)\s*(?:\.{3,}|:|=)\s+(\S.*)$")
"""A field line: a label, then a colon, an equals sign or a leader of dots, then a value
("Reg          : LK16 PZW", "WELL.   NVE 7/11-B4 ST2  :  WELL")."""


def front_fields(text: str) -> list[str]:
    """The field lines at a document's top whose label no other line of it gives: what
    the whole document is about (the well a log header names, the car a scan report's
    "Reg :" line names), said once for every line below. The top is its first lines, and
    its fields with short headings and rules between them; it ends where entries, a table
    or prose begin: a label given again (a register's "Name:" over each entry), a row of
    many cells, a line of many words that is no field."""
    lines = [line for line in text.splitlines() if line.strip() and not _COMMENT.match(line)]
    labels: dict[str, int] = {}
    for line in lines:
        if (key := _label(line)) is not None:
            labels[key] = labels.get(key, 0) + 1
    out: list[str] = []
    for at, line in enumerate(lines[:_FRONT_LINES]):
        key = _label(line)
        if key is None:
            if at < _TITLE_LINES and not out:
                continue  # the title's lines, above the fields
            if (len(line.split()) > _HEADING_WORDS
                    or len(_TABLE_GAP.split(line.strip())) >= _ROW_CELLS):
                break
            continue  # a short heading ("VEHICLE") or a rule between fields
        if labels[key] > 1:
            break
        if own := _own_names(line, text):
            out.append(own)
    return out[:_FRONT_FIELDS]


_NAME_TOKEN = re.compile(r"[A-Za-z0-9][\w/.'’-]*[A-Za-z0-9]|[A-Za-z0-9]")
_NOT_NAMES = re.compile(r"\S+@\S+|\b(?:https?|ftp)://\S+")


def _own_names(line: str, text: str) -> str:
    """The words of a field's value that the document says nowhere else: what names its
    subject ("LK16 PZW" of "Reg : LK16 PZW"). Not a date (a report's range is no subject),
    an address, nor a name said again below ("Also available: AEROLITE V9 PLUS" on a
    page about the V9)."""
    body = _NOT_NAMES.sub(" ", line)  # the whole line: a log header's value may come first
    for start, end, _ in reversed(said_dates(body)):
        body = f"{body[:start]} {body[end:]}"
    own = [t for t in _NAME_TOKEN.findall(body)
           if len(re.findall(rf"(?<![\w-]){re.escape(t)}(?![\w-])", text, re.IGNORECASE)) == 1]
    return " ".join(own)


_TABLE_GAP = re.compile(r"\s{2,}")
_ROW_CELLS = 4
_HEADING_WORDS = 5
_LABEL_WORDS = 4
_COMMENT = re.compile(r"^\s*[#;]")


def _label(line: str) -> str | None:
    """The label of a field line (of a few words: "Rhys presented the figures: ..." is a
    sentence)."""
    field = _FIELD.match(line) or KEYED.match(line.strip())
    if field is None or len(field.group(1).split()) > _LABEL_WORDS:
        return None
    return " ".join(field.group(1).lower().split())


@functools.lru_cache(maxsize=64)  # asked per window and per cited span, of the same texts
def document_names(text: str) -> str:
    """What names every line of a document, as one heading: its title and its top fields
    (`front_fields`), " / " between."""
    return " / ".join(filter(None, [title(text), *_under_title(text), *front_fields(text)]))


def _under_title(text: str) -> list[str]:
    """The lines that carry on a title on its first line, up to the first blank line or
    field (a program's banner over the event's name: "MeOS 4.1.2  Sträcktider" over "OK
    Tjädern - Klubbmästerskap ..."): the document's name as its author gave it."""
    if not title(text):
        return []
    lines = text.lstrip("\n").split("\n")[1:_TITLE_LINES]
    out = []
    for line in lines:
        if (not line.strip() or _label(line) is not None or len(line.split()) > 2 * _HEADING_WORDS
                or len(_TABLE_GAP.split(line.strip())) >= _ROW_CELLS or _RULE.fullmatch(line)):
            break
        out.append(line.strip())
    return out


_RULE = re.compile(r"\s*([=\-*_~#+])\1{3,}\s*")
