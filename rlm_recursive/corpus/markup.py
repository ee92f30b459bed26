"""Documents of nested markup elements (XML exports, and HTML-ish text as long as it is
mostly tags): one record per element of the repeated kind (each `<Invoice>` of a batch,
each `<book>` of a catalogue), its fields named by the element paths and attributes below
it, and an `element` field saying its name (`CreditNote`).

An invoice's gross amount sits three elements down (`<Totals><Gross>549.54</Gross>`) and
its customer two (`<Customer><Name>...`): "the gross amount on the invoice to Harriet
Oduya" is the `Totals.Gross` of the invoice whose `Customer.Name` says her. An attribute is
a field of its element (`Customer.account`, the record's own `number`); a path met twice (an
invoice's lines) keeps its first value under its name and numbers the others
(`Lines.Line.Description.2`). Namespace prefixes are dropped; the tags are read with a
tolerant scanner, not a validating parser, so a document that is not well formed (HTML's
unclosed `<br>`) is read as far as it nests.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["element_records"]

Span = tuple[int, int, dict[str, str]]

_TAG = re.compile(r"<(?P<close>/)?(?P<name>[A-Za-z_][\w:.-]*)(?P<attrs>(?:\s+[^<>]*?)?)"
                  r"(?P<empty>/)?>")
_SKIP = re.compile(r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<![A-Za-z][^>]*>", re.DOTALL)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_ATTR = re.compile(r"([A-Za-z_][\w:.-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_MIN_RECORDS = 2
_MARKUP_SHARE = 0.6
"""Share of a document's non-blank lines that must start with a tag."""


@dataclass
class _Element:
    name: str
    start: int
    attrs: dict[str, str]
    depth: int
    end: int = -1
    text: list[str] = field(default_factory=list)
    children: list[_Element] = field(default_factory=list)


def _plain(text: str) -> str:
    """Text as a reader sees it: HTML that was escaped or in CDATA (a feed entry's `<p>`,
    `<strong>`) without its tags, its entities as characters."""
    if "<" in text:
        text = html.unescape(_HTML_TAG.sub(" ", text))
    return " ".join(text.split())


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _parse(text: str) -> list[_Element]:
    """Every element of the text, in document order, with its children and own text."""
    masked = _SKIP.sub(lambda m: " " * len(m.group(0)), text)
    # A CDATA section is its element's text, read as such (an RSS item's HTML body).
    cdata = [(m.start(), m.group(1)) for m in _CDATA.finditer(text)]
    found: list[_Element] = []
    stack: list[_Element] = []
    pos = 0
    for m in _TAG.finditer(masked):
        inner = " ".join(body for at, body in cdata if pos <= at < m.start())
        if stack and (chunk := _plain(html.unescape(masked[pos:m.start()]) + inner)):
            stack[-1].text.append(chunk)
        pos = m.end()
        name = _local(m.group("name"))
        if m.group("close"):
            # Close the nearest open element of that name; elements left open inside it
            # (HTML's `<br>`, `<p>`) end where it ends.
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].name == name), None)
            if at is None:
                continue
            for element in stack[at:]:
                element.end = m.end()
            del stack[at:]
            continue
        attrs = {_local(k): html.unescape(a if a is not None else b)
                 for k, a, b in _ATTR.findall(m.group("attrs"))}
        element = _Element(name, m.start(), attrs, len(stack))
        found.append(element)
        if stack:
            stack[-1].children.append(element)
        if m.group("empty"):
            element.end = m.end()
        else:
            stack.append(element)
    for element in stack:
        element.end = len(text)
    return found


def _fields(element: _Element) -> dict[str, str]:
    """The element's attributes and the text and attributes of every element below it,
    named by their path from it."""
    out: dict[str, str] = {}

    def put(key: str, value: str) -> None:
        value = " ".join(value.split())
        if not value:
            return
        n, name = 1, key
        while name in out:
            n += 1
            name = f"{key}.{n}"
        out[name] = value

    def walk(node: _Element, path: str) -> None:
        for key, value in node.attrs.items():
            put(f"{path}.{key}" if path else key, value)
        if path and node.text:
            put(path, " ".join(node.text))
        for child in node.children:
            walk(child, f"{path}.{child.name}" if path else child.name)

    walk(element, "")
    return out


def element_records(text: str) -> list[Span] | None:
    """One (start, end, fields) per element of the shallowest kind that repeats under one
    parent and holds fields of its own, when the document is written in markup; else
    None."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or sum(line.startswith("<") for line in lines) < _MARKUP_SHARE * len(lines):
        return None
    elements = _parse(text)
    by_parent: Counter[tuple[int, str]] = Counter()
    for parent in elements:
        for child in parent.children:
            if child.children or child.attrs:
                by_parent[(id(parent), child.name)] += 1
    repeated = {name for (_, name), n in by_parent.items() if n >= _MIN_RECORDS}
    kinds = [e for e in elements if e.name in repeated and (e.children or e.attrs)]
    if not kinds:
        return None
    depth = min(e.depth for e in kinds)
    # The repeated kind's siblings are records too (a batch's credit note beside its
    # invoices), each saying what it is.
    parents = [e for e in elements if any(c.depth == depth and c in kinds for c in e.children)]
    records = [(c.start, c.end, {"element": c.name} | _fields(c)) for p in parents
               for c in p.children if c.children or c.attrs]
    return records if len(records) >= _MIN_RECORDS else None
