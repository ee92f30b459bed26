"""Gherkin feature files (Cucumber, Behave, SpecFlow): one record per scenario, per row of a
scenario outline's `Examples:` table, and per row of a step's data table.

A scenario says its facts in steps with quoted values: `Then the delivery charge should be
"7.50"` is the field `the delivery charge should be` = `7.50` of the scenario named "Scottish
Highlands postcodes pay the Highlands rate", tagged and under the `Rule:` it sits in. An
outline's steps hold placeholders (`"<discount>"`) that each example row fills: each row is
a record with the row's cells and the steps read with them. A step's data table (a
catalogue under `Given`) gives a record per row, named by the table's header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["feature_records"]

Span = tuple[int, int, dict[str, str]]

_FEATURE = re.compile(r"^[ \t]*(?:Feature|Ability|Business Need):", re.MULTILINE)
_BLOCK = re.compile(r"^[ \t]*(?P<kind>Scenario Outline|Scenario Template|Scenario|Example|"
                    r"Background|Rule|Examples|Scenarios|Feature):[ \t]*(?P<name>.*?)[ \t]*$")
_STEP = re.compile(r"^[ \t]*(?:Given|When|Then|And|But|\*)[ \t]+(?P<text>.+?)[ \t]*$")
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_ROW = re.compile(r"^[ \t]*\|(?P<cells>.*)\|[ \t]*$")
_TAGS = re.compile(r"^[ \t]*(@\S+(?:[ \t]+@\S+)*)[ \t]*$")
_MIN_SCENARIOS = 2


@dataclass
class _Scenario:
    start: int
    name: str
    kind: str
    context: dict[str, str]
    steps: list[str] = field(default_factory=list)
    end: int = 0


def _step_fields(steps: list[str]) -> dict[str, str]:
    """Each quoted value of a step under the step's words before it (`the delivery charge
    should be` = `7.50`); a step with no quoted value is a field `step`."""
    out: dict[str, str] = {}
    for text in steps:
        pos, found = 0, False
        for m in _QUOTED.finditer(text):
            key = " ".join(text[pos:m.start()].split()) or "value"
            value = m.group(1) if m.group(1) is not None else m.group(2)
            out.setdefault(key, value)
            pos, found = m.end(), True
        if not found:
            n = sum(k.startswith("step") for k in out) + 1
            out[f"step.{n}" if n > 1 else "step"] = text
    return out


def _cells(line: str) -> list[str]:
    m = _ROW.match(line)
    return [c.strip() for c in m.group("cells").split("|")] if m else []


def _filled(step: str, row: dict[str, str]) -> str:
    """An outline's step with a row's cells in place of its `<placeholders>`."""
    return re.sub(r"<([^<>]+)>", lambda m: row.get(m.group(1), m.group(0)), step)


def _table_records(lines: list[tuple[int, int, str]], at: int, fields: dict[str, str],
                   fill: list[str] | None) -> tuple[list[Span], int]:
    """The rows of the table from line `at` (its header first): one record each; `fill`
    (an outline's steps) read with each row's cells in place of the placeholders."""
    header = _cells(lines[at][2])
    out: list[Span] = []
    i = at + 1
    while i < len(lines) and _ROW.match(lines[i][2]):
        cells = _cells(lines[i][2])
        row = {k: v for k, v in zip(header, cells, strict=False) if k and v}
        steps = _step_fields([_filled(s, row) for s in fill]) if fill is not None else {}
        out.append((lines[i][0], lines[i][1], fields | steps | row))
        i += 1
    return out, i


def feature_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per scenario, example row and data-table row, when the text
    is a Gherkin feature file with at least two scenarios; else None."""
    if not _FEATURE.search(text):
        return None
    lines = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[^\n]*", text)
             if m.group(0).strip()]
    context: dict[str, str] = {}
    tags: list[str] = []
    current: _Scenario | None = None
    records: list[Span] = []
    scenarios = 0

    def close() -> None:
        # An outline's records are its example rows; a background's, its tables' rows.
        if current is not None and current.kind in ("Scenario", "Example"):
            records.append((current.start, current.end,
                            current.context | _step_fields(current.steps)))

    i = 0
    while i < len(lines):
        start, end, line = lines[i]
        if line.lstrip().startswith("#"):
            i += 1
            continue
        if (tagged := _TAGS.match(line)) is not None:
            tags += tagged.group(1).split()
        elif (block := _BLOCK.match(line)) is not None:
            kind, name = block.group("kind"), block.group("name")
            if kind in ("Examples", "Scenarios") and current is not None:
                fields = current.context | ({"examples": name} if name else {})
                rows, i = _table_records(lines, i + 1, fields, current.steps)
                records += rows
                continue
            close()
            if kind in ("Feature", "Rule"):
                context = {k: v for k, v in context.items() if kind == "Rule" and k == "feature"}
                context[kind.lower()] = name
                current = None
            else:
                scenarios += kind != "Background"
                head = {"scenario" if kind != "Background" else "background": name} if name else {}
                current = _Scenario(start, name, kind, context | head | (
                    {"tags": " ".join(tags)} if tags else {}), end=end)
            tags = []
        elif current is not None and (step := _STEP.match(line)) is not None:
            current.steps.append(step.group("text"))
            current.end = end
        elif current is not None and _ROW.match(line):
            rows, i = _table_records(lines, i, current.context, None)
            records += rows
            current.end = lines[i - 1][1]
            continue
        i += 1
    close()
    if scenarios < _MIN_SCENARIOS:
        return None
    return sorted(records, key=lambda r: r[0])
