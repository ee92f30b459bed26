"""The countable unit of a corpus and its fields, inferred from the text, whatever its format.

Each document is read as the format it is written in, detected from a sample of its lines:
a JSON array of objects or YAML records (`corpus.structured`), JSON lines (keys), CSV and
TSV (header columns), logfmt (`key=value`), syslog (`host app[pid]: <level>`), web access
logs (the Common and Combined Log Formats that Apache, nginx and Python's http.server write:
client, time, method, path, status, bytes, referer, user_agent), Squid's native access log
(`proxy_log`: fields by position, named as Squid's documentation names them), bracketed logs
(`LEVEL [service]`), `Key: value` blocks, or free prose (one item per line or paragraph). A
record is one unit (a line, a row, a block) with the fields it marks; `key=value` pairs
inside any line count as fields too. Layouts whose records nest are read by their own
readers: calendar and card components (`contentlines`), pipe segments, crontab jobs, markup
elements (`markup`: an XML batch's invoices), an SQL dump's inserted rows (`sqldump`), a
Gherkin feature's scenarios and example rows (`gherkin`), a DNS zone file's resource
records (`zone_records`), level-numbered lines (`levels`: a
GEDCOM tree's people and families), `@type{...}` or `[section]` entries (`entries`) and
MARC 21 records in their mnemonic text form (`marc`: a catalogue's books), per-host console
output (`console`: a playbook run's outcome and recap lines); in
prose, the rows of markdown tables and of aligned tables under a rule line (`rows`), several
tables a document, each row with its own header's fields.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from .adif import adif_records
from .blocks import blocks
from .console import console_records
from .contentlines import component_records
from .crontab import crontab_records
from .delimited import SAMPLE_LINES, SHARE, delimited_rows, table_delimiter
from .doc_titles import document_subject, document_title
from .entries import entry_records
from .events import event_fields, event_records
from .exposition import exposition_records, is_exposition
from .gherkin import feature_records
from .grid_tables import grid_rows
from .items import MARKDOWN_HEADING, Item, heading_path, line_spans, split_items
from .levels import level_records
from .list_entries import list_entries
from .log_lines import (
    LOGFMT,
    access_fields,
    bracketed_fields,
    json_fields,
    logfmt_fields,
    syslog_fields,
)
from .marc import marc_records
from .markup import element_records
from .proxy_log import squid_fields
from .qif import qif_records
from .rows import pipe_rows, ruled_rows, table_rows
from .sections import Heading, headings
from .segments import segment_records
from .sqldump import dump_records
from .structured import structured_records
from .zone_records import zone_records

__all__ = ["Format", "Layout", "Record", "detect_format", "line_pairs", "read_layout"]

Format = Literal["json", "yaml", "jsonl", "csv", "tsv", "logfmt", "syslog", "access",
                 "squid", "bracketed", "keyvalue", "prose", "contentlines", "segments", "crontab",
                 "markup", "levels", "entries", "sql", "feature", "events", "marc", "console",
                 "zone", "adif", "qif"]

_KEY_LINE = re.compile(r"^[ \t]*(?P<key>[A-Za-z][\w .·-]{0,30}?)[ \t]*(?::|\.{3,}|…+)[ \t]+"
                       r"(?P<value>\S.{0,200}?)[ \t]*$")
"""A `Key: value` line, or a form's dotted leader ("Pes brut .........   6.050 kg"); a key
may hold a Catalan middle dot ("Parcel·la")."""
SECTIONED_CHARS = 1_000_000
"""Documents up to this size have their headings read for look-ups (about 0.3 s a
million characters; a larger file is a log or a dump, whose lines no heading names)."""
_BLOCK_SHARE = 0.8
"""Share of a document's blocks whose header must hold a `Key: value` line."""
_OPEN_KEY = re.compile(r"\n[ \t]*[A-Za-z][\w .-]{0,30}:[ \t]*$")
"""A record's last line, a key whose value is on the lines that follow."""
@dataclass(frozen=True)
class Record(Item):
    """One countable unit: an item (`doc_id[start:end]`) and the fields it marks."""

    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class Layout:
    """The records of a corpus, the format of each document and every field's values."""

    records: list[Record]
    formats: dict[str, Format]
    fields: dict[str, Counter[str]]
    titles: dict[str, str] = field(default_factory=dict)
    subjects: dict[str, str] = field(default_factory=dict)
    """Words of a prose document's opening block, past its first lines, that none of its
    later records says ("BISCUIT" on a printout's `Patient:` line): whom it is all about."""
    """Each document's name and first lines: what a question calls it ("the mail log", "the
    tessera changelog" when its third line says "changes to tessera")."""
    sections: dict[str, tuple[Heading, ...]] = field(default_factory=dict)
    """Each document's headings (`sections.headings`), for documents up to
    `SECTIONED_CHARS`: "C. PAYMENTS RECEIVED — OCTOBER 2025" over a register's rows says
    what each row is."""

    @property
    def unit(self) -> str:
        """What one record is, in words ("line", "row", "record", "paragraph")."""
        kinds = Counter(_UNIT[f] for f in self.formats.values())
        return kinds.most_common(1)[0][0] if kinds else "line"


_UNIT: dict[str, str] = {"json": "record", "yaml": "record", "jsonl": "line", "csv": "row",
                         "tsv": "row", "logfmt": "line", "syslog": "line", "access": "request",
                         "squid": "request", "zone": "record",
                         "bracketed": "line", "keyvalue": "record", "prose": "item",
                         "contentlines": "record", "segments": "segment", "crontab": "job",
                         "markup": "record", "levels": "record", "entries": "entry",
                         "sql": "row", "feature": "scenario", "events": "event",
                         "marc": "record", "console": "line", "adif": "contact",
                         "qif": "transaction"}


def detect_format(text: str, name: str = "") -> Format:
    """The format a document is written in, from a sample of its lines (a JSON or YAML
    collection of records, or a layout whose records span lines, as a whole); `name` is its
    file name."""
    whole = _whole_records(text, name)
    return whole[0] if whole is not None else _line_format(text)


_WholeFormat = Literal["json", "yaml", "contentlines", "segments", "crontab", "markup",
                      "levels", "entries", "sql", "feature", "marc", "console", "zone",
                      "adif", "qif"]


def _whole_records(text: str, name: str) -> tuple[_WholeFormat, list[tuple[int, int, dict[
        str, str]]]] | None:
    """The records of a document read by its own grammar (a JSON/YAML collection, calendar
    or card components, pipe segments, a crontab's jobs, markup elements, level-numbered
    lines, `@type{...}` or `[section]` entries), if it is written in one."""
    structured = structured_records(text, name)
    if structured is not None:
        return structured
    for fmt, read in (("sql", dump_records), ("feature", feature_records),
                      ("contentlines", component_records),
                      ("segments", segment_records),
                      ("crontab", crontab_records), ("zone", zone_records),
                      ("markup", element_records),
                      ("levels", level_records), ("entries", entry_records),
                      ("marc", marc_records), ("console", console_records),
                      ("adif", adif_records), ("qif", qif_records)):
        found = read(text)
        if found is not None:
            return fmt, found  # type: ignore[return-value]
    return None


def _line_format(text: str) -> Format:
    spans = line_spans(text)[:SAMPLE_LINES]
    if not spans:
        return "prose"
    if is_exposition(text):  # a Prometheus scrape: its labels are `key="value"` pairs
        return "logfmt"
    lines = [text[a:b] for a, b in spans]
    need = SHARE * len(lines)

    def share(test: object) -> int:
        return sum(bool(test(line)) for line in lines)  # type: ignore[operator]

    if share(json_fields) >= need:
        return "jsonl"
    if (delimiter := table_delimiter(text)) is not None:
        return "tsv" if delimiter == "\t" else "csv"
    if share(syslog_fields) >= need:
        return "syslog"
    if share(access_fields) >= need:
        return "access"
    if share(squid_fields) >= need:
        return "squid"
    if share(bracketed_fields) >= need:
        return "bracketed"
    if share(lambda line: len(LOGFMT.findall(line)) >= 2) >= need:
        return "logfmt"
    if share(event_fields) >= need:
        return "events"
    if share(_KEY_LINE.match) >= 0.5 * len(lines) and re.search(r"\n[ \t]*\n|^-{3,}$", text,
                                                                 re.MULTILINE):
        return "keyvalue"
    return "prose"


def _doc_records(doc_id: str, text: str, fmt: Format) -> list[Record]:
    if fmt in ("csv", "tsv"):
        rows = delimited_rows(text, table_delimiter(text) or ("\t" if fmt == "tsv" else ",")) or []
        return [Record(doc_id, a, b, text[a:b], f) for a, b, f in rows]
    if fmt == "prose" and (found := _block_records(doc_id, text)):
        return found
    if fmt == "keyvalue" or fmt == "prose":
        piped = pipe_rows(text)
        spans = {(a, b) for a, b, _ in piped}  # a markdown table's rule is a rule too
        found = [*piped, *(r for r in ruled_rows(text) if r[:2] not in spans)]
        # An aligned table read by its columns' positions (a header between full rules),
        # where no rule under the header or bars made it a table already.
        found += [r for r in grid_rows(text)
                  if not any(a < r[1] and r[0] < b for a, b, _ in found)]
        rows = [Record(doc_id, a, b, text[a:b], f) for a, b, f in sorted(
            found, key=lambda r: r[:2])]
        out = list(rows)
        headings = [(m.start(), len(m.group(1)), m.group(2))
                    for m in MARKDOWN_HEADING.finditer(text)]
        headings = headings if len(headings) >= 2 else []
        for item in list_entries(table_rows(split_items([(doc_id, text)]))):
            if any(r.start < item.end and item.start < r.end for r in rows):
                continue  # a table's rows are its records
            fields: dict[str, str] = {}
            if fmt == "keyvalue":
                for line in item.text.splitlines():
                    for key, value in line_pairs(line):
                        fields.setdefault(key, value)
            else:
                fields = logfmt_fields(item.text)
                if (path := heading_path(headings, item)) is not None:
                    fields.setdefault("section", path)
            last = out[-1] if out else None
            if (fmt == "keyvalue" and last is not None and not fields and last not in rows
                    and _OPEN_KEY.search(last.text)):
                # "Description:" and its text on the lines below (an event log export): the
                # text is the record's, not a record of its own.
                out[-1] = Record(doc_id, last.start, item.end, text[last.start:item.end],
                                 last.fields)
                continue
            out.append(Record(doc_id, item.start, item.end, item.text, fields))
        # Entries run together by their indented lines (a tracking export's events under
        # each "Order:" block) are told apart by the blocks their key lines open.
        # (Counted by the records giving fields: a register's page numbers are none.)
        if fmt == "keyvalue" and (_fielded(found := _block_records(doc_id, text))
                                  > _fielded(out)):
            return found
        return out
    if fmt == "events":
        # A report's rows under a header that names every column (a print farm's "Job
        # Start Printer ... Fil(g)") are named by it, not as generic cells.
        named = {(a, b): f for a, b, f in grid_rows(text)}
        return [Record(doc_id, a, b, text[a:b], {**named[(a, b)], **{
            k: v for k, v in f.items() if not _GENERIC_CELL.fullmatch(k)}}
            if (a, b) in named else f) for a, b, f in event_records(text)]
    if fmt == "logfmt" and is_exposition(text):
        return [Record(doc_id, a, b, text[a:b], f) for a, b, f in exposition_records(text)]
    parse = {"jsonl": json_fields, "syslog": syslog_fields, "access": access_fields,
             "squid": squid_fields, "bracketed": bracketed_fields, "logfmt": logfmt_fields}[fmt]
    records = []
    for a, b in line_spans(text):
        line = text[a:b]
        found = parse(line)
        fields = found if found is not None else logfmt_fields(line)
        records.append(Record(doc_id, a, b, line, fields))
    return records


_GENERIC_CELL = re.compile(r"cell\d+")
"""The name an event line's cell gets when nothing names its column."""


def _block_records(doc_id: str, text: str) -> list[Record]:
    """One record per block of a prose document whose header names its fields (a commit's
    `Author:` and `Date:` under `commit <hash>`), when most blocks have such a header: what a
    question counts is the commit, not the lines of its message. Blocks with no fields (the
    sections of a results page, a chat export's days) leave paragraphs, rows and lines."""
    for keyed in (False, True):
        out = []
        for block in blocks(text, keyed):
            fields: dict[str, str] = {}
            for a, b in block.header:
                for key, value in line_pairs(text[a:b]):
                    fields.setdefault(key, value)
            out.append(Record(doc_id, block.start, block.end, text[block.start:block.end],
                              fields))
        # Blocks opened by a `Key: value` line (a tracking export's "Consignment: ...") are
        # records when most give two fields or more: a thread's "From:" alone is no record.
        fielded = sum(len(r.fields) >= 1 + keyed for r in out)
        if out and fielded >= _BLOCK_SHARE * len(out):
            return out
    return []


def _fielded(records: list[Record]) -> int:
    return sum(bool(r.fields) for r in records)


_PAIR_START = re.compile(r"[ \t]{2,}(?=[A-Za-z][\w.-]*(?: [\w.-]+){0,3}:[ \t]+\S)")
"""Where a line's next `Key: value` pair starts, past a gutter ("Reference: KY-1   Weight:
1.84 kg   Pieces: 1")."""


def line_pairs(line: str) -> list[tuple[str, str]]:
    """The `Key: value` pairs of a header line, one or several set apart by gutters."""
    pairs = []
    for part in _PAIR_START.split(line):
        m = _KEY_LINE.match(part)
        if m:
            pairs.append((m.group("key").strip(), m.group("value").strip()))
    return pairs


def read_layout(docs: Iterable[tuple[str, str]], names: dict[str, str] | None = None
                ) -> Layout:
    """Every record of every (doc_id, text), and the values each field takes; `names` are
    the documents' source names."""
    records: list[Record] = []
    formats: dict[str, Format] = {}
    titles: dict[str, str] = {}
    subjects: dict[str, str] = {}
    values: dict[str, Counter[str]] = defaultdict(Counter)
    texts = dict(docs)
    for doc_id, text in texts.items():
        name = (names or {}).get(doc_id, "")
        whole = _whole_records(text, name)
        if whole is not None:
            formats[doc_id] = whole[0]
            found = [Record(doc_id, a, b, text[a:b], f) for a, b, f in whole[1]]
        else:
            formats[doc_id] = _line_format(text)
            found = _doc_records(doc_id, text, formats[doc_id])
        # A table's first rows are records, not what the document is about: its title
        # ends at its header ("2025-05-31" of the latest activity is no period it covers).
        top = min((r.start for r in found), default=len(text)) if formats[doc_id] in (
            "csv", "tsv") else len(text)
        titles[doc_id] = document_title(name, text[:top], formats[doc_id])
        subjects[doc_id] = document_subject(text, formats[doc_id],
                                            ((r.start, r.text) for r in found))
        records.extend(found)
        for record in found:
            for key, value in record.fields.items():
                values[key][value] += 1
    sections = {doc_id: headings(text) for doc_id, text in texts.items()
                if len(text) <= SECTIONED_CHARS}
    return Layout(records, formats, dict(values), titles, subjects, sections)
