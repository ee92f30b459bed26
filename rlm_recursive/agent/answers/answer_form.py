"""Is this text an answer at all? Three shapes hold the question's words, so the text backs
them, yet answer nothing, whatever the document's format:
- a record row: many delimited fields ("('CVM.1962.040','Coin hoard','Roman mints',...)", a
  CSV or tab- or pipe-separated line), most of which the question never asked. With no
  header to name its fields, a field that names what is asked labels the value after it
  ("OBX|1|NM|CRP^C reactive protein||187|mg/L|..." → 187 mg/L for the CRP result); a row
  with no such field, or several, is no answer;
- markup or macro syntax: tags (`<entry> <title type="html">`, escaped `&lt;p&gt;`), roff
  requests and escapes (`.TP`, `\\fB14\\fR`), read away as a reader sees the text
  (`corpus.reading.plain`, the one reading of syntax the search shows too). A value wrapped
  in it is the value; a passage of several lines of it is a dump, no answer;
- a metrics scrape's `# HELP` or `# TYPE` line, which describes a metric, not its value;
- a prompt echoed back: "The answer is:", "Answer:", "Quote:", "[Excerpt 1]" before the
  answer are cut off; with nothing after them there is no answer.
A date asked ("on what date was it published") is answered by the date: a clock time and
zone written after it ("Thu, 02 Jul 2026 06:00:00 +0000") are not what was asked.
"""

from __future__ import annotations

import csv
import re

from ...corpus.asked import asked_label, label_says
from ...corpus.dates import said_dates
from ...corpus.evidence import stems
from ...corpus.narrow import narrowed
from ...corpus.reading import plain

__all__ = ["as_answer", "row_fields"]

_STEM = re.compile(r"^\s*(?:\[?excerpt\s*\d*\]?|\[\d{1,2}\]|(?:the\s+)?answer(?:\s+is)?|quote|"
                   r"question|passages?)\s*[:\-]\s*", re.IGNORECASE)
"""The words of a prompt before an answer, said back by a small model."""
_DUMP_LINES = 3
"""Lines of markup in one answer: more is a passage copied whole, not an answer."""
_ROW_FIELDS = 4
_UNIT = re.compile(r"[A-Za-z%µ°][\w/%µ°.^*-]{0,9}")
"""A unit of measure in the field after a value ("mg/L", "%", "x10^9/L")."""
_NUMBER = re.compile(r"[^\w\s]?\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_FIELD_CHARS = 80
_METRIC_COMMENT = re.compile(r"^\s*#\s*(?:HELP|TYPE|UNIT)\s+[A-Za-z_:][\w:]*\b")
"""A metrics scrape's `# HELP name text` / `# TYPE name gauge` line: it describes a metric,
and its value is on another line."""


def _cut_stem(text: str) -> str:
    """The text after any prompt words said back ("The answer is: 14" → "14")."""
    while (match := _STEM.match(text)) is not None and match.end() > 0:
        text = text[match.end():]
    return text


def _has_markup(text: str) -> bool:
    """The text reads otherwise once its syntax is blanked (`corpus.reading.plain`)."""
    return plain(text) != "\n".join(" ".join(part.split()) for part in text.split("\n")
                                      if part.strip())


def row_fields(text: str) -> list[str] | None:
    """The fields of a record row, when the text is one: one line of at least four short
    fields, tab- or pipe-separated, or comma-separated with quoted values or no space after
    the commas (a SQL tuple, a CSV line; a prose list puts a space after each comma)."""
    line = text.strip()
    if "\n" in line or not line:
        return None
    line = re.sub(r"^\(\s*|\s*\)\s*[,;]?$", "", line)
    if _NUMBER.fullmatch(line):
        return None  # "1,834,280,000": one number with its thousands separated
    for sep in ("\t", "|"):
        fields = [f.strip() for f in line.strip(sep).split(sep)]
        if len(fields) >= _ROW_FIELDS and all(len(f) <= _FIELD_CHARS for f in fields):
            return fields
    quote = "'" if re.search(r"(?:^|,)\s*'", line) else '"'
    try:
        fields = next(csv.reader([line], quotechar=quote, skipinitialspace=True,
                                 doublequote=True, escapechar="\\"))
    except (csv.Error, StopIteration):
        return None
    quoted = len(re.findall(rf"(?:^|,)\s*{quote}", line))
    tight = len(re.findall(r",(?!\s)", line))
    if (len(fields) >= _ROW_FIELDS and (quoted >= 2 or tight >= _ROW_FIELDS - 1)
            and all(len(f) <= _FIELD_CHARS for f in fields)):
        return [f.strip() for f in fields]
    return None


def _rows(text: str) -> list[list[str]] | None:
    """The rows of a text made of record rows (most of its lines are), else None."""
    lines = [line for line in text.split("\n") if line.strip()]
    rows = [fields for line in lines if (fields := row_fields(line)) is not None]
    return rows if rows and 2 * len(rows) >= len(lines) else None


def _labelled_value(question: str, rows: list[list[str]]) -> str | None:
    """The value after the field of the rows that names what is asked (of several, the one
    holding most of the question's words: "Troponin T (0h)" for the 0h sample), with its
    unit when the next field is one; None when no field names it, or several alike."""
    if not asked_label(question):
        return None
    asked = set(stems(question))
    found: list[tuple[int, str]] = []
    for fields in rows:
        for at, label in enumerate(fields):
            if not label or not label_says(question, label):
                continue
            after = [f for f in fields[at + 1:] if f]
            if after and not label_says(question, after[0]):
                unit = after[1] if len(after) > 1 and _UNIT.fullmatch(after[1]) else ""
                found.append((len(asked & set(stems(label))), f"{after[0]} {unit}".strip()))
    best = {value for score, value in found if score == max(found)[0]}
    return best.pop() if len(best) == 1 else None


def as_answer(question: str, text: str) -> str | None:
    """The text as an answer: itself when it is one; narrowed (its prompt words cut off, its
    markup taken out, a row to the value a field labels as asked); None when it is no
    answer (see the module docstring)."""
    body = _cut_stem(text)
    if not body.strip() or _METRIC_COMMENT.match(body):
        return None
    if (rows := _rows(body)) is not None:
        return _labelled_value(question, rows)
    if _has_markup(body):
        marked = sum(1 for line in body.split("\n") if _has_markup(line))
        clean = plain(body)
        if marked >= _DUMP_LINES or not clean:
            return None
        return as_answer(question, clean)
    found = narrowed(question, body.strip() if body != text else text)
    return _date_only(question, found) if found is not None else None


_ASKS_DATE = re.compile(r"\b(?:date|dated)\b", re.IGNORECASE)
_ASKS_CLOCK = re.compile(r"\b(?:time|times|hour|o'?clock|timestamp)\b", re.IGNORECASE)
_CLOCK_AFTER = re.compile(
    r"(?:T|,?\s+(?:at\s+)?)\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]\.?m\.?)?"
    r"(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC|GMT|[A-Z]{3,4}\b))?(?![\w:])", re.IGNORECASE)


def _date_only(question: str, text: str) -> str:
    """The answer without the clock time written after its one date, when the question
    asks a date and no time ("On what date ..."); the text as it is otherwise."""
    if not _ASKS_DATE.search(question) or _ASKS_CLOCK.search(question):
        return text
    dates = [(start, end) for start, end, (day, _, _) in said_dates(text) if day is not None]
    if len(dates) != 1 or (clock := _CLOCK_AFTER.match(text, dates[0][1])) is None:
        return text
    return (text[:dates[0][1]] + text[clock.end():]).strip()
