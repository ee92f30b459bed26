"""SQL dumps (mysqldump, pg_dump, SQLite's `.dump`): one record per row a dump inserts, its
fields named by the table's columns, with `table` saying whose row it is.

A dump names its columns once, in `CREATE TABLE t (...)` or in the insert itself
(`INSERT INTO t (a, b) VALUES ...`), and then writes rows as literal tuples, many to a
statement (`VALUES (...),(...);`), or as tab-separated lines under `COPY t (a, b) FROM
stdin;` up to `\\.`. "The accession number of the oil lamp" is the `accession_no` of the
`objects` row whose `title` says it, not the raw tuple a text search finds. Strings may
hold commas, brackets and doubled or backslashed quotes; `NULL` (and COPY's `\\N`) is no
value. Each record spans its tuple (or its COPY line), so it is cited where it is written.
"""

from __future__ import annotations

import re

__all__ = ["dump_records"]

Span = tuple[int, int, dict[str, str]]

_NAME = r"(?:`[^`]+`|\"[^\"]+\"|\[[^\]]+\]|[A-Za-z_][\w$]*)"
_QUALIFIED = rf"(?P<table>{_NAME}(?:\s*\.\s*{_NAME})*)"
_CREATE = re.compile(rf"\bCREATE\s+(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                     rf"{_QUALIFIED}\s*\(", re.IGNORECASE)
_INSERT = re.compile(rf"\b(?:INSERT|REPLACE)\s+(?:(?:IGNORE|OR\s+\w+)\s+)?INTO\s+{_QUALIFIED}"
                     r"\s*(?:\((?P<columns>[^()]*)\)\s*)?VALUES\s*", re.IGNORECASE)
_COPY = re.compile(rf"^COPY\s+{_QUALIFIED}\s*(?:\((?P<columns>[^()]*)\))?\s+FROM\s+stdin\b"
                   r"[^\n]*\n", re.IGNORECASE | re.MULTILINE)
_TOKENS = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|[(),]", re.DOTALL)
"""A string (skipped whole: it may hold brackets and commas), a bracket or a comma."""
_OPEN = re.compile(r"\s*\(")
_COMMA = re.compile(r"\s*,")
_STATEMENT_LINE = re.compile(
    r"^\s*(?:--|/\*|\*|\)|$|(?:CREATE|DROP|ALTER|LOCK|UNLOCK|SET|BEGIN|COMMIT|START|PRAGMA|"
    r"INSERT|REPLACE|COPY|SELECT|GRANT|REVOKE|USE|COMMENT|VACUUM|ANALYZE|TRUNCATE|DELETE|"
    r"UPDATE|DELIMITER|END|\\\.)\b)|[,(;]\s*$", re.IGNORECASE)
"""A line of a dump outside its rows: a comment, a statement's first line, a column of a
table's definition, a bracket's end."""
_DUMP_SHARE = 0.8
_CONSTRAINT = frozenset("primary key unique constraint index foreign check fulltext spatial "
                        "exclude".split())
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "", "\\": "\\", "'": "'", '"': '"'}
_MIN_RECORDS = 2


def _unquote(name: str) -> str:
    """A name without its quotes; a qualified one keeps its last part (`public.loans`)."""
    last = re.findall(_NAME, name)[-1]
    return last[1:-1] if last[:1] in "`\"[" else last


def _closing(text: str, at: int) -> int:
    """The index of the bracket that closes the one before `at` (strings skipped), or -1."""
    depth = 1
    for m in _TOKENS.finditer(text, at):
        if m.group(0) == "(":
            depth += 1
        elif m.group(0) == ")":
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _split_top(body: str) -> list[str]:
    """The comma-separated parts of a bracket's body, not splitting inside strings or
    nested brackets (`enum('a','b')`, `decimal(10,2)`)."""
    parts, depth, start = [], 0, 0
    for m in _TOKENS.finditer(body):
        token = m.group(0)
        depth += token == "("
        depth -= token == ")"
        if token == "," and depth == 0:
            parts.append(body[start:m.start()])
            start = m.end()
    parts.append(body[start:])
    return [p.strip() for p in parts if p.strip()]


def _columns(definition: str) -> list[str]:
    """The column names a `CREATE TABLE` body defines (constraints are not columns)."""
    names = []
    for part in _split_top(definition):
        head = re.match(_NAME, part)
        if head and head.group(0).lower() not in _CONSTRAINT:
            names.append(_unquote(head.group(0)))
    return names


def _value(literal: str) -> str | None:
    literal = literal.strip()
    if not literal or literal.upper() == "NULL":
        return None
    if literal[0] in "'\"" and literal[-1] == literal[0] and len(literal) >= 2:
        quote = literal[0]
        inner = literal[1:-1].replace(quote * 2, quote)
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), inner)
    if literal[:2].lower() in ("x'", "b'"):  # binary literals say nothing to a reader
        return None
    return literal


def _row(columns: list[str], values: list[str | None], table: str) -> dict[str, str]:
    names = columns if len(columns) == len(values) else [
        f"column_{i + 1}" for i in range(len(values))]
    return {"table": table} | {n: v for n, v in zip(names, values, strict=True)
                               if v is not None and v.strip()}


def _tuples(text: str, at: int) -> list[tuple[int, int, list[str | None]]]:
    """The literal tuples of one `VALUES` list from `at` to its statement's end."""
    out = []
    pos = at
    while True:
        m = _OPEN.match(text, pos)
        if m is None:
            return out
        close = _closing(text, m.end())
        if close < 0:
            return out
        body = text[m.end():close]
        out.append((m.end() - 1, close + 1, [_value(p) for p in _split_top(body)]
                    if body.strip() else []))
        sep = _COMMA.match(text, close + 1)
        if sep is None:
            return out
        pos = sep.end()


def _copy_rows(text: str, columns: list[str], table: str, at: int) -> list[Span]:
    """The tab-separated lines of a `COPY ... FROM stdin` block, up to its `\\.` line."""
    out = []
    for line in re.finditer(r"[^\n]*", text[at:]):
        start, end = at + line.start(), at + line.end()
        if line.group(0).rstrip("\r") == "\\.":
            break
        if not line.group(0).strip():
            continue
        cells = [None if c == "\\N" else re.sub(r"\\(.)", lambda m: _ESCAPES.get(
            m.group(1), m.group(1)), c) for c in line.group(0).rstrip("\r").split("\t")]
        out.append((start, end, _row(columns, cells, table)))
    return out


def dump_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per row the dump inserts, when the text is an SQL dump with
    at least two rows; else None."""
    if "INSERT" not in text.upper() and "COPY" not in text.upper():
        return None
    defined: dict[str, list[str]] = {}
    for m in _CREATE.finditer(text):
        close = _closing(text, m.end())
        if close > 0:
            defined[_unquote(m.group("table")).lower()] = _columns(text[m.end():close])
    records: list[Span] = []
    for m in _INSERT.finditer(text):
        table = _unquote(m.group("table"))
        named = m.group("columns")
        columns = ([_unquote(c.strip()) for c in named.split(",")] if named
                   else defined.get(table.lower(), []))
        records += [(a, b, _row(columns, values, table)) for a, b, values in
                    _tuples(text, m.end()) if values]
    for m in _COPY.finditer(text):
        table = _unquote(m.group("table"))
        named = m.group("columns")
        columns = ([_unquote(c.strip()) for c in named.split(",")] if named
                   else defined.get(table.lower(), []))
        records += _copy_rows(text, columns, table, m.end())
    records.sort(key=lambda r: r[0])
    if len(records) < _MIN_RECORDS or not _is_dump(text, records):
        return None
    return records


def _is_dump(text: str, records: list[Span]) -> bool:
    """Outside its rows, the text is statements and comments (not prose that quotes an
    `INSERT` or two: a tutorial's rows are not its records)."""
    rest, pos = [], 0
    for start, end, _ in records:
        rest.append(text[pos:start])
        pos = max(pos, end)
    rest.append(text[pos:])
    lines = [line for line in "\n".join(rest).splitlines() if line.strip()]
    return sum(bool(_STATEMENT_LINE.search(line)) for line in lines) >= _DUMP_SHARE * len(lines)
