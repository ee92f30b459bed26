"""Records written as code: a Python module's constructor calls and nested dict literals.

A module can hold a table as calls of a record class, `Stop("ST-4", "Quay Road", 12,
night=True)` under `class Stop:` with annotated fields `code: str`, `name: str`,
`minutes: int`, `night: bool` (a dataclass, a NamedTuple), or as a dict of dicts,
`{"ST-4": {"name": "Quay Road", "minutes": 12}}`. Each call or inner dict is a record:
its fields are named by the class's field names (positional arguments in order, keyword
arguments by name) or the inner dict's keys; an outer key is the field `key`. A literal
wrapped in a one-argument call (`Decimal("2.60")`) is that literal; `None` and any value
that is not a literal (a name, an expression) is no field. The module is parsed by Python's
own parser (`ast`): a text that is not Python gives nothing.
"""

from __future__ import annotations

import ast
from collections import defaultdict

__all__ = ["Span", "code_records"]

Span = tuple[int, int, dict[str, str]]
_MIN_RECORDS = 2


def _literal(node: ast.expr) -> str | None:
    """A literal's text as written in the value (`"2.60"` of `Decimal("2.60")`; not `8`
    of `time(8)`, whose value is not its argument's)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and (
            isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        node = node.args[0]
    if isinstance(node, ast.Constant) and node.value is not None and not isinstance(
            node.value, bytes):
        return str(node.value)
    return None


def _field_names(tree: ast.Module) -> dict[str, list[str]]:
    """Each class's annotated fields, in order (the order positional arguments fill)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            names = [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)
                     and isinstance(item.target, ast.Name)]
            if names:
                out[node.name] = names
    return out


def _offsets(text: str) -> list[int]:
    """Each line's start, in characters (ast's columns count UTF-8 bytes)."""
    starts, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def _span(text: str, starts: list[int], node: ast.expr) -> tuple[int, int]:
    lines = text.splitlines(keepends=True)

    def at(lineno: int, col: int) -> int:
        line = lines[lineno - 1] if lineno - 1 < len(lines) else ""
        return starts[lineno - 1] + len(line.encode()[:col].decode(errors="ignore"))

    end_line = node.end_lineno or node.lineno
    return at(node.lineno, node.col_offset), at(end_line, node.end_col_offset or 0)


def code_records(text: str) -> list[list[Span]]:
    """The groups of records a Python module writes (one group per record class, one per
    dict of dicts), each of two records at least; none for a text that is not Python."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    classes = _field_names(tree)
    starts = _offsets(text)
    groups: dict[str, list[Span]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                names := classes.get(node.func.id)):
            fields = {name: value for name, arg in zip(names, node.args, strict=False)
                      if (value := _literal(arg)) is not None}
            fields |= {kw.arg: value for kw in node.keywords
                       if kw.arg and (value := _literal(kw.value)) is not None}
            if fields:
                start, end = _span(text, starts, node)
                groups[f"class {node.func.id}"].append((start, end, fields))
        elif isinstance(node, ast.Dict) and node.values and all(
                isinstance(v, ast.Dict) for v in node.values):
            for key, inner in zip(node.keys, node.values, strict=True):
                if key is None or (outer := _literal(key)) is None:
                    continue
                assert isinstance(inner, ast.Dict)
                fields = {name: value for k, v in zip(inner.keys, inner.values, strict=True)
                          if k is not None and (name := _literal(k)) is not None
                          and (value := _literal(v)) is not None}
                if fields:
                    start, end = _span(text, starts, key)
                    groups[f"dict {id(node)}"].append(
                        (start, _span(text, starts, inner)[1], {"key": outer} | fields))
    return [records for records in groups.values() if len(records) >= _MIN_RECORDS]
