"""Prometheus's text exposition format, as a `/metrics` scrape is saved: `# HELP` and
`# TYPE` lines, then one sample a line, `name{label="value",...} number [timestamp]`.

A sample's fields are its labels, the metric's name (`metric`) and its number (`value`).
A state set (node_exporter's `node_systemd_unit_state`, OpenMetrics' StateSet) writes one
sample per possible state of each thing, 1 for the state it is in and 0 for every other:
only the samples valued 1 say something holds ("nginx.service is failed"); the zeros say it
does not, so they are no records of that state (counting `state="failed"` over every
sample counted each unit once, failed or not).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from .items import line_spans

__all__ = ["exposition_records", "is_exposition", "sample_fields", "state_set_zeros"]

_SAMPLE = re.compile(r"^(?P<metric>[A-Za-z_:][\w:]*)(?:\{(?P<labels>[^{}]*)\})?[ \t]+"
                     r"(?P<value>[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|Inf|NaN))"
                     r"(?:[ \t]+-?\d+)?[ \t]*$")
_LABEL = re.compile(r'(?P<key>[A-Za-z_]\w*)="(?P<value>(?:[^"\\]|\\.)*)"')
_TYPE = re.compile(r"^#[ \t]+TYPE[ \t]+[A-Za-z_:][\w:]*[ \t]+\w+", re.MULTILINE)
_SHARE = 0.6


def sample_fields(line: str) -> dict[str, str] | None:
    """The fields of one sample line, or None for another line."""
    match = _SAMPLE.match(line.strip())
    if match is None:
        return None
    fields = {m.group("key"): m.group("value") for m in _LABEL.finditer(match["labels"] or "")}
    return {**fields, "metric": match["metric"], "value": match["value"]}


def is_exposition(text: str) -> bool:
    """A scrape: `# TYPE` lines, and most of the other lines are samples."""
    if _TYPE.search(text) is None:
        return False
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return bool(lines) and sum(sample_fields(line) is not None for line in lines) >= (
        _SHARE * len(lines))


def state_set_zeros(samples: Sequence[dict[str, str]]) -> set[int]:
    """The indexes of the samples that are a state set's zeros: of a metric valued only 0
    and 1, the samples of each thing (the labels but one) where exactly one is 1."""
    by_metric: dict[str, list[int]] = defaultdict(list)
    for i, fields in enumerate(samples):
        by_metric[fields["metric"]].append(i)
    zeros: set[int] = set()
    for indexes in by_metric.values():
        if len(indexes) < 2 or any(samples[i]["value"] not in ("0", "1") for i in indexes):
            continue
        labels = set().union(*(samples[i].keys() for i in indexes)) - {"metric", "value"}
        for state in sorted(labels):
            groups: dict[tuple, list[int]] = defaultdict(list)
            for i in indexes:
                rest = tuple(sorted((k, v) for k, v in samples[i].items()
                                    if k not in (state, "value")))
                groups[rest].append(i)
            if all(len(g) >= 2 and sum(samples[i]["value"] == "1" for i in g) == 1
                   for g in groups.values()):
                zeros |= {i for g in groups.values() for i in g if samples[i]["value"] == "0"}
                break
    return zeros


def exposition_records(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """Each line of a scrape with its fields (a comment line has none), less the zeros of
    its state sets."""
    lines = [(a, b, sample_fields(text[a:b])) for a, b in line_spans(text)]
    samples = [(k, f) for k, (_, _, f) in enumerate(lines) if f is not None]
    zeros = {samples[i][0] for i in state_set_zeros([f for _, f in samples])}
    return [(a, b, f or {}) for k, (a, b, f) in enumerate(lines) if k not in zeros]
