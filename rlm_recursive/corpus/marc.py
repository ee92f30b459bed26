"""MARC 21 records written as text, one field a line: MarcEdit's mnemonic form (`.mrk`),
which LC's MARCMaker and pymarc's text writer also write.

    =020  \\\\$a9780000000002$q(paperback)$c£9.50
    =245  10$aA history of lamps /$cby J. Wick.
    =852  \\\\$aXYZ$bNorth branch$h621.32 WIC

A record is a block of `=TAG  indicators$asubfield$bsubfield…` lines between blank lines.
Its fields are named by what MARC 21 defines each tag's subfield to be (020 $a → ISBN,
with the kind $q qualifies it as, "ISBN (paperback)"; 245 $a → title, 852 $b → branch
location, 876 $p → barcode…): a question asks "the ISBN of <title>", not "the 020 $a".
The punctuation cataloguing rules put at a subfield's end (" /", " :", " ;", a closing
full stop) is not the value's; a subject's subdivisions are
joined as catalogues display them ("Knitting -- Patterns"). Of the leader and the fixed
fields, only the kind of thing described is read (`type of material`: the leader's "am" is
a book), which is what a question calls it ("the lighthouses book").

Local fields (9XX and X9X) mean what each library makes them mean, so they are named only
by what the file itself says: a declaration in its opening comments ("order no. in 980
$a"), a label the subfield writes ("Supplier: …"), or a value whose kind is sure (the
14-digit item barcode of the library Codabar layout). Anything else keeps its tag and
code as its name (`949$c`): a field read wrongly would be worse than one read literally.
"""

from __future__ import annotations

import functools
import re

from .levels import put_numbered

__all__ = ["marc_records", "marc_view"]

Span = tuple[int, int, dict[str, str]]

_FIELD = re.compile(r"^=(?P<tag>LDR|\d{3})[ \t]{1,2}(?P<body>.*?)[ \t]*$")
_DELIMITER = re.compile(r"[$‡]")
_DELIMITER_CODE = re.compile(r"[$‡][a-z0-9]")
_DECLARED = re.compile(r"(?P<label>[A-Za-z][A-Za-z .'’/-]{1,40}?)\s+(?:in|=|:|->|→)\s+"
                       r"(?P<tag>\d{3})\s*[$‡](?P<code>[a-z0-9])\b")
"""A file's note of what its own field holds ("order no. in 980 $a")."""
_INLINE_LABEL = re.compile(r"^(?P<label>[A-Za-z][A-Za-z .'’-]{1,30}?)\s*:\s+(?P<value>\S.*)$")
_ITEM_BARCODE = re.compile(r"3\d{13}")
"""A library item barcode (Codabar's 14 digits, type digit 3 for an item)."""
_SHARE = 0.9
"""Share of a record block's lines that must be MARC fields."""
_MIN_RECORDS = 2

_NAMES: dict[str, dict[str, str]] = {
    "001": {"": "control number"},
    "003": {"": "control number identifier"},
    "010": {"a": "LCCN"},
    "020": {"a": "ISBN", "c": "price", "z": "invalid number"},
    "022": {"a": "ISSN"},
    "024": {"a": "standard identifier"},
    "028": {"a": "publisher number", "b": "publisher number source"},
    "035": {"a": "system control number"},
    "040": {"a": "cataloguing source", "b": "language of cataloguing",
            "c": "transcribing agency", "d": "modifying agency",
            "e": "description conventions"},
    "041": {"a": "language"},
    "050": {"a": "LC classification", "b": "LC item number"},
    "082": {"a": "Dewey classification"},
    "100": {"a": "author", "d": "dates associated with the name", "e": "relator term",
            "q": "fuller form of name"},
    "110": {"a": "corporate author"},
    "111": {"a": "meeting"},
    "130": {"a": "uniform title"},
    "240": {"a": "uniform title"},
    "245": {"a": "title", "b": "subtitle", "c": "statement of responsibility",
            "n": "part number", "p": "part name", "h": "medium"},
    "246": {"a": "variant title"},
    "250": {"a": "edition"},
    "260": {"a": "place of publication", "b": "publisher", "c": "publication date"},
    "300": {"a": "extent", "b": "illustrations", "c": "dimensions",
            "e": "accompanying material"},
    "336": {"a": "content type"},
    "337": {"a": "media type"},
    "338": {"a": "carrier type"},
    "490": {"a": "series", "v": "volume number"},
    "500": {"a": "note"},
    "504": {"a": "bibliography note"},
    "505": {"a": "contents"},
    "520": {"a": "summary"},
    "521": {"a": "audience"},
    "600": {"a": "subject"},
    "610": {"a": "subject"},
    "611": {"a": "subject"},
    "630": {"a": "subject"},
    "650": {"a": "subject"},
    "651": {"a": "subject"},
    "655": {"a": "genre"},
    "700": {"a": "contributor", "e": "relator term"},
    "710": {"a": "corporate contributor"},
    "830": {"a": "series", "v": "volume number"},
    "852": {"a": "institution", "b": "branch location", "c": "shelving location",
            "h": "call number", "i": "item part", "j": "shelving control number",
            "p": "barcode", "t": "copy number", "x": "nonpublic note", "z": "public note"},
    "856": {"u": "URL"},
    "876": {"a": "item number", "c": "cost", "l": "temporary location", "p": "barcode",
            "t": "copy number"},
}
"""What MARC 21 defines each tag's subfields to hold, in the words a question uses; no two
names of a field share their asking word ("ISBN" and "qualifying information", not "ISBN
qualifier"), or a question asking it would get two values."""
_CODES = frozenset((("336", "b"), ("337", "b"), ("338", "b")))
"""Subfields that repeat their field's term as a code ("txt" for text)."""
_NAMES["877"] = _NAMES["878"] = _NAMES["876"]
_MATERIAL = {"a": "book", "t": "book", "c": "score", "d": "score", "e": "map", "f": "map",
             "g": "video", "i": "sound recording", "j": "music recording", "k": "picture",
             "m": "computer file", "o": "kit", "p": "mixed materials", "r": "object"}
"""The leader's type of record (position 06): what a question calls the thing described."""
_PUBLICATION = {"1": {"a": "place of publication", "b": "publisher", "c": "publication date"},
                "4": {"c": "copyright date"}}
"""264 by its second indicator: publication (1) or copyright (4) statements."""
_SUBDIVISIONS = frozenset("vxyz")
"""A subject heading's form, general, period and place subdivisions: part of its value."""


def _local(tag: str) -> bool:
    return tag.startswith("9") or tag[1] == "9"


def _bare(value: str) -> str:
    """A subfield's value without the punctuation cataloguing rules end it with ("Rivers of
    iron /", "Marrow, Eluned,", "2019."); an abbreviation keeps its stop ("2nd ed.")."""
    value = value.replace("{dollar}", "$").strip()
    value = re.sub(r"[\s/:;=,]+$", "", value)
    if value.endswith(".") and not re.search(r"(?:^|[\s(])[A-Za-z]{1,3}\.$", value):
        value = value[:-1].rstrip()
    return value


def _subfields(body: str) -> tuple[str, list[tuple[str, str]]]:
    """A data field's indicators and its (code, value) subfields, or its whole value
    (code "") when it is a control field."""
    parts = _DELIMITER.split(body)
    if len(parts) == 1:
        return "", [("", parts[0].replace("\\", " ").strip())]
    indicators = parts[0].replace("\\", " ")
    return indicators, [(p[:1], p[1:]) for p in parts[1:] if p[:1]]


def _declared(preamble: str) -> dict[tuple[str, str], str]:
    """The file's own notes of what a field holds ("order no. in 980 $a")."""
    out = {}
    for line in preamble.splitlines():
        for part in re.split(r"[;,]", line.lstrip("#/!*; \t")):
            if (m := _DECLARED.fullmatch(part.strip().rstrip("."))) is not None:
                out[(m.group("tag"), m.group("code"))] = m.group("label").strip()
    return out


def _name(tag: str, indicators: str, code: str, value: str,
          declared: dict[tuple[str, str], str]) -> tuple[str, str] | None:
    """The subfield's name and value (see the module), or None for machine data (fixed
    fields, the numeric control subfields: a term's source, linkage); of the leader, only
    the kind of thing the record describes ("book", "map", "score")."""
    if tag == "LDR":
        kind = _MATERIAL.get(value[6:7], "")
        return ("type of material", "serial" if value[7:8] == "s" else kind) if kind else None
    if (tag, code) in declared:
        return declared[(tag, code)], value
    if (tag in ("005", "006", "007", "008") or code.isdigit()
            or (tag, code) in _CODES):
        return None
    names = _PUBLICATION.get(indicators[1:2], {}) if tag == "264" else _NAMES.get(tag, {})
    if code in names:
        return names[code], value
    if _local(tag):
        if (labelled := _INLINE_LABEL.match(value)) is not None:
            return labelled.group("label").strip(), labelled.group("value")
        if _ITEM_BARCODE.fullmatch(value):
            return "barcode", value
    return f"{tag}${code}" if code else tag, value


def _qualifier(tag: str, subfields: list[tuple[str, str]]) -> str | None:
    """What kind of the book an ISBN is for (020 $q: "paperback", "v. 2"), which names it:
    a paperback's ISBN is no answer for the hardback's."""
    if tag != "020":
        return None
    said = [_bare(v).strip("() ") for c, v in subfields if c == "q"]
    return "; ".join(q for q in said if q) or None


def _record(lines: list[tuple[int, int, str]], declared: dict[tuple[str, str], str]
            ) -> dict[str, str]:
    fields: dict[str, str] = {}
    for _, _, line in lines:
        m = _FIELD.match(line)
        if m is None:
            continue
        tag = m.group("tag")
        indicators, subfields = _subfields(m.group("body"))
        heading = tag.startswith("6") and any(c in _SUBDIVISIONS for c, _ in subfields)
        kind = _qualifier(tag, subfields)
        for at, (code, raw) in enumerate(subfields):
            if kind is not None and code in "aq":
                if code == "a" and (value := _bare(raw)):
                    put_numbered(fields, f"ISBN ({kind})", value)
                continue
            if heading and code in _SUBDIVISIONS:
                continue  # joined to the heading's first subfield below
            value = _bare(raw)
            if heading and at == 0:
                value = " -- ".join([value, *(_bare(v) for c, v in subfields[1:]
                                              if c in _SUBDIVISIONS and _bare(v))])
            named = _name(tag, indicators, code, value, declared) if value else None
            if named is not None and named[1]:
                put_numbered(fields, *named)
    return fields


def _blocks(text: str) -> list[list[tuple[int, int, str]]]:
    """The text's blocks of non-blank lines, each line with its span."""
    out: list[list[tuple[int, int, str]]] = [[]]
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        if body.strip():
            out[-1].append((pos, pos + len(body), body))
        elif out[-1]:
            out.append([])
        pos += len(raw)
    return [block for block in out if block]


@functools.lru_cache(maxsize=8)
def marc_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per MARC record of a text written in the mnemonic form,
    else None. Lines before the first record (an export's notes) are no record's."""
    if "\n=" not in text and not text.startswith("="):
        return None
    blocks = _blocks(text)
    records: list[list[tuple[int, int, str]]] = []
    preamble = []
    for block in blocks:
        fielded = [line for line in block if _FIELD.match(line[2])]
        if len(fielded) >= _SHARE * len(block) and len(fielded) >= 2:
            records.append(fielded)
        elif records:
            return None  # prose between records: not a MARC file
        else:
            preamble.extend(line for _, _, line in block)
    if len(records) < _MIN_RECORDS:
        return None
    declared = _declared("\n".join(preamble))
    return [(lines[0][0], lines[-1][1], _record(lines, declared)) for lines in records]


def marc_view(text: str, start: int, end: int) -> tuple[str, frozenset[str]] | None:
    """The MARC record within `text[start:end]` as a catalogue displays it (each subfield's
    delimiter and code a space: "$aRivers" says "Rivers"), and the names this reader gives
    its fields (the format names them, "barcode"; the text writes only tags); None when
    the span holds no MARC record."""
    for a, b, fields in marc_records(text) or []:
        if start <= a and b <= end:
            return _DELIMITER_CODE.sub(" ", text[start:end]), frozenset(fields)
    return None
