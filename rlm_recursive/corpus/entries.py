"""Documents of headed `key = value` entries: `@type{id, key = {value}, ...}` (BibTeX,
BibLaTeX and the reference exports that copy them) and `[section]` blocks of `key = value`
lines (INI, desktop entries, TOML tables): one record per entry, its fields named by key,
with `kind` (the entry's type or the section's name) and `id` (the citation key).

"The DOI of Nagase and Dunnett's paper" is the `doi` of the entry whose `author` and
`title` say it. A braced value may run over lines and hold braces of its own (`{The {SuDS}
Manual}`); they are read as the text they protect, TeX's escapes (`\\&`, `\\%`) as the
characters.
"""

from __future__ import annotations

import re

__all__ = ["entry_records"]

Span = tuple[int, int, dict[str, str]]

_BIB_HEAD = re.compile(r"^[ \t]*@(?P<kind>[A-Za-z]+)[ \t]*[{(][ \t]*(?P<id>[^,\s{}()]*)[ \t]*,?",
                       re.MULTILINE)
_BIB_KEY = re.compile(r"\s*,?\s*(?P<key>[A-Za-z][\w:.-]*)\s*=\s*")
_SECTION = re.compile(r"^[ \t]*\[(?P<name>[^\]\n]{1,80})\][ \t]*$", re.MULTILINE)
_SETTING = re.compile(r"^[ \t]*(?P<key>[A-Za-z_][\w .-]{0,40}?)[ \t]*[=:][ \t]*(?P<value>.*?)"
                      r"[ \t]*$")
_IGNORED = frozenset(("comment", "preamble", "string"))
_MIN_RECORDS = 2
_SECTION_SHARE = 0.8
"""Share of the non-blank, non-comment lines under sections that must be `key = value`."""


def _braced(text: str, at: int) -> int:
    """The index just past the brace group that opens at `at` (or the text's end)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "{" and text[i - 1:i] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1:i] != "\\":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _tex(value: str) -> str:
    value = re.sub(r"\\([&%$#_{}])", r"\1", value)
    return " ".join(value.replace("{", "").replace("}", "").split())


def _bib_fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    pos = 0
    while (m := _BIB_KEY.match(body, pos)) is not None:
        at = m.end()
        if body[at:at + 1] == "{":
            end = _braced(body, at)
            value = body[at + 1:end - 1]
        elif body[at:at + 1] == '"':
            end = body.find('"', at + 1)
            end = len(body) if end < 0 else end + 1
            value = body[at + 1:end - 1]
        else:
            bare = re.match(r"[^,}\n]*", body[at:])
            end = at + (bare.end() if bare else 0)
            value = body[at:end]
        if (text := _tex(value)):
            fields.setdefault(m.group("key").lower(), text)
        pos = end
    return fields


def _bib_records(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _BIB_HEAD.finditer(text):
        kind = m.group("kind").lower()
        opener = text.find("{", m.start(), m.end())
        if kind in _IGNORED or opener < 0:
            continue
        end = _braced(text, opener)
        fields = {"kind": kind} | ({"id": m.group("id")} if m.group("id") else {})
        out.append((m.start() + len(m.group(0)) - len(m.group(0).lstrip()), end,
                    fields | _bib_fields(text[m.end():end - 1])))
    return out


def _section_records(text: str) -> list[Span]:
    heads = list(_SECTION.finditer(text))
    out: list[Span] = []
    lines = settings = 0
    for head, nxt in zip(heads, [*heads[1:], None], strict=False):
        stop = nxt.start() if nxt is not None else len(text)
        fields = {"kind": head.group("name").strip()}
        end = head.end()
        for line in text[head.end():stop].splitlines(keepends=True):
            body = line.strip()
            if body and not body.startswith(("#", ";")):
                lines += 1
                if (m := _SETTING.match(line.rstrip("\r\n"))) and m.group("value"):
                    settings += 1
                    fields.setdefault(m.group("key").strip(), m.group("value").strip(" \"'"))
            end += len(line)
        out.append((head.start(), len(text[:end].rstrip()), fields))
    return out if lines and settings >= _SECTION_SHARE * lines else []


def entry_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per `@type{...}` entry or `[section]`, when the document is
    written as such entries; else None."""
    for read in (_bib_records, _section_records):
        found = read(text)
        if len(found) >= _MIN_RECORDS and sum(len(f) > 1 for _, _, f in found) >= (
                _MIN_RECORDS):
            return found
    return None
