"""What names a document: its file name and first lines (its title), what a question may
call a machine format its name need not say ("the proxy log"), and the subject of a prose
printout: the names its opening block gives that no later entry repeats ("Patient:
BISCUIT" over a clinical history), whom the whole document is about."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from .word_stems import stems

__all__ = ["document_subject", "document_title", "file_words", "name_says"]

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
