"""QIF, the Quicken Interchange Format banks and money programs export: a `!Type:Bank` (or
`Cash`, `CCard`, `Invst`, `Oth A`, `Oth L`) line, then one transaction per run of lines,
each line a one-letter code and its value (`D01/04/2025`, `T-1,150.00`, `PMulraney
Properties Ltd`, `N001212`), each transaction closed by a `^` line.

A transaction's fields are named as the format's documentation names them, in words: `D` is
its date, `T` its amount, `P` the payee, `N` the cheque number (or a reference: "ATM",
"POS"), `M` the memo, `L` the category, `C` whether it cleared. The names are not in the
text, so grounding asks `qif_fields` for them (as for other positional formats).
"""

from __future__ import annotations

import re

__all__ = ["qif_fields", "qif_records"]

_TYPE = re.compile(r"^!Type:\w", re.MULTILINE)
_END = re.compile(r"^\^[ \t]*$", re.MULTILINE)
_NAMES = {"D": "date", "T": "amount", "U": "amount", "P": "payee", "N": "cheque number",
          "M": "memo", "L": "category", "C": "cleared", "A": "address"}
"""The documentation's names of a bank transaction's codes; split lines (`S`, `E`, `$`)
and others keep their code."""
_MIN_RECORDS = 2


def _fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in body.splitlines():
        line = line.strip()
        if len(line) < 2 or line.startswith("!"):
            continue
        name = _NAMES.get(line[0])
        if name is not None:
            fields.setdefault(name, line[1:].strip())
    return fields


def qif_records(text: str) -> list[tuple[int, int, dict[str, str]]] | None:
    """Each transaction of a QIF export as (start, end, fields), or None for another text."""
    typed = _TYPE.search(text)
    if typed is None:
        return None
    start = text.find("\n", typed.start()) + 1
    out = []
    for end in _END.finditer(text, start):
        body = text[start:end.start()]
        lead = len(body) - len(body.lstrip())
        fields = _fields(body)
        if len(fields) >= 2:
            out.append((start + lead, end.end(), fields))
        start = end.end() + 1
        if (bang := text.find("\n!", end.end())) >= 0 and bang < text.find("\n^", end.end()):
            start = text.find("\n", bang + 1) + 1  # a new `!Type:` or `!Account` block
    return out if len(out) >= _MIN_RECORDS else None


def qif_fields(record_text: str) -> dict[str, str] | None:
    """The fields of one QIF transaction's text (closed by `^`), or None."""
    if _END.search(record_text) is None:
        return None
    fields = _fields(record_text)
    return fields if len(fields) >= 2 and "date" in fields else None
