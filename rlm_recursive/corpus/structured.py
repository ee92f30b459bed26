"""Records of structured documents: a JSON array of objects (pretty-printed or not, or an
object holding one) and YAML (a list of mappings, a mapping of mappings, or a stream of
`---` documents), one record per object with its keys as fields.

Nested keys are flattened with dots (`requester.plan`); a list of values becomes one value,
its items joined with ", " (`tags`: "sms, portugal"); a list of objects gives each key's
values joined the same way (`containers.name`: "api, sidecar"). The name of the whole
collection ("tickets") is never a field: it says what the records are, not which.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Literal

import yaml

__all__ = ["StructuredFormat", "flatten", "structured_records"]

StructuredFormat = Literal["json", "yaml"]
Span = tuple[int, int, dict[str, str]]

_YAML_NAME = re.compile(r"\.ya?ml$", re.IGNORECASE)
_YAML_START = re.compile(r"\A(?:\s*#[^\n]*\n)*\s*(?:%YAML\b|---[ \t]*\n|-[ \t]+[\w\"'-]+:\s)")
"""YAML a file shows without its name: a directive, a document marker, or a list whose
first item is a mapping (`- id: 7`). `Key: value` notes alone stay notes."""
_MIN_RECORDS = 2
_DEPTH = 12


def flatten(value: object) -> dict[str, str]:
    """An object's scalar leaves as fields, nested keys joined with dots."""
    out: dict[str, list[str]] = {}
    _flatten("", value, out, 0)
    return {k: ", ".join(v) for k, v in out.items() if v}


def _flatten(prefix: str, value: object, out: dict[str, list[str]], depth: int) -> None:
    if depth > _DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            _flatten(prefix, inner, out, depth + 1)
    elif value is not None and prefix:
        text = str(value).lower() if isinstance(value, bool) else str(value).strip()
        if text:
            out.setdefault(prefix, []).append(text)


def structured_records(text: str, name: str = "") -> tuple[StructuredFormat, list[Span]] | None:
    """(format, [(start, end, fields)]) when `text` is a JSON or YAML collection of records;
    `name` is the document's file name (".yaml" says YAML when the text does not)."""
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        found = _json_records(text)
        if found is not None:
            return "json", found
    if _YAML_NAME.search(name) or _YAML_START.match(text):
        found = _yaml_records(text)
        if found is not None:
            return "yaml", found
    return None


# JSON ----------------------------------------------------------------------------------------

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[\s,]*")
_COLON = re.compile(r"\s*:\s*")


def _json_records(text: str) -> list[Span] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    start = len(text) - len(text.lstrip())
    path = _collection_path(data)
    if path is None:
        return None
    records = list(_json_elements(text, start, path))
    return records if len(records) >= _MIN_RECORDS else None


def _collection_path(data: object) -> list[str] | None:
    """Where the records are: [] for the root array, [key] for an object's array of
    objects (the largest); None when there is no collection of objects."""
    if _objects(data):
        return []
    if isinstance(data, dict):
        lists = [(len(v), k) for k, v in data.items() if _objects(v)]
        if lists:
            return [max(lists)[1]]
    return None


def _objects(value: object) -> bool:
    """A list whose items are mostly objects."""
    return (isinstance(value, list) and len(value) >= _MIN_RECORDS
            and sum(isinstance(v, dict) for v in value) * 2 > len(value))


def _json_elements(text: str, pos: int, path: list[str]) -> Iterator[Span]:
    """The spans of the array at `path` under the value at `pos`: the root array, or one
    key's array inside the root object, decoded piece by piece to keep their offsets."""
    if path:
        pos = _json_member(text, pos, path[0])
    pos += 1  # past "["
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text) or text[pos] == "]":
            return
        value, end = _DECODER.raw_decode(text, pos)
        if isinstance(value, dict):
            yield pos, end, flatten(value)
        pos = end


def _json_member(text: str, pos: int, key: str) -> int:
    """Where the value of the root object's member `key` starts."""
    pos += 1  # past "{"
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _COLON.match(text, pos).end()  # type: ignore[union-attr]
        if name == key:
            return pos
        _, pos = _DECODER.raw_decode(text, pos)


# YAML ----------------------------------------------------------------------------------------

def _yaml_records(text: str) -> list[Span] | None:
    try:
        roots = [n for n in yaml.compose_all(text, Loader=_LOADER) if n is not None]
    except yaml.YAMLError:
        return None
    mappings = [n for n in roots if isinstance(n, yaml.MappingNode)]
    if len(roots) >= _MIN_RECORDS and len(mappings) * 2 > len(roots):
        nodes = mappings  # a stream of documents, one record each (manifests)
        named = [(None, n) for n in nodes]
    elif len(roots) == 1:
        named = _yaml_collection(roots[0])
    else:
        return None
    records = []
    for label, node in named:
        fields = flatten(_plain(node, 0))
        if label and "name" not in fields:
            fields = {"name": label} | fields
        start, end = node.start_mark.index, node.end_mark.index
        end = start + len(text[start:end].rstrip())
        records.append((start, end, fields))
    return records if len(records) >= _MIN_RECORDS else None


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml_collection(root: yaml.Node) -> list[tuple[str | None, yaml.Node]]:
    """The records under one document: a list of mappings, a mapping's largest list of
    mappings, or a mapping whose values are all mappings (each named by its key)."""
    if _mapping_list(root):
        return [(None, n) for n in root.value]
    if not isinstance(root, yaml.MappingNode):
        return []
    lists = [(len(v.value), i) for i, (_, v) in enumerate(root.value) if _mapping_list(v)]
    if lists:
        return [(None, n) for n in root.value[max(lists)[1]][1].value]
    if len(root.value) >= _MIN_RECORDS and all(isinstance(v, yaml.MappingNode)
                                               for _, v in root.value):
        return [(str(k.value), v) for k, v in root.value]
    if len(root.value) == 1 and isinstance(root.value[0][1], yaml.MappingNode):
        return _yaml_collection(root.value[0][1])  # `hosts:` over a mapping of hosts
    return []


def _mapping_list(node: yaml.Node) -> bool:
    return (isinstance(node, yaml.SequenceNode) and len(node.value) >= _MIN_RECORDS
            and sum(isinstance(n, yaml.MappingNode) for n in node.value) * 2 > len(node.value))


def _plain(node: yaml.Node, depth: int) -> object:
    """A node as plain values, every scalar as the text written (no type guessing)."""
    if depth > _DEPTH:
        return None
    if isinstance(node, yaml.MappingNode):
        return {str(_plain(k, depth + 1)): _plain(v, depth + 1) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_plain(n, depth + 1) for n in node.value]
    return None if node.value in ("", "~", "null") and node.style is None else node.value
