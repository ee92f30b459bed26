"""Scopes: the value a question asks for, on the labelled line of the section it names.

A schedule, a chart or a report often repeats the same labels for sibling things, and names
each thing once, above its lines: a policy's two property pages each list "Escape of water
..... GBP 500", under a banner and a "Risk address:" line; a medication chart lists a dose
row for each drug of each resident; a ticket gives each passenger's "Ticket number" under
that passenger's line. No one line says both the thing and the value. Here each labelled
line (`label ..... value`, `Label: value`, `label   value` across a wide gap, "Ticket number
074 ...", and each cell of a grid: its row's label and its column's header) gets its scope:
the lines that name what it is about, nearest first:
1. the first line of its paragraph (a table's header, "EXCESSES");
2. for each kind of rule line (`=====`, `-----`), the lines that open the stretch since the
   last rule of that kind above it, with the banner framed by rules, or the heading
   underlined by one, just over it;
3. the document's front (the lines before its first rule).
`scoped_value` picks the line whose label says a word of what is asked and whose line and
scope say every name the question gives and all but a third of its other words; among
those, the one that says them nearest (its own section, not the front every page shares);
a tie is no answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .asked import asked_label, label_words
from .blocks import lines_of, shape
from .label_values import KEYED, grid_cells, is_grid_header, label_value
from .leaders import label_fits
from .naming import contains, entities, written_forms
from .records import line_pairs
from .units import STOP, has_word, normalise, stems

__all__ = ["Labelled", "labelled_lines", "scoped_value"]

_RULE = re.compile(r"\s{0,12}([=\-*_~#+])\1{15,}\s*")
"""A rule across the page (not a sum's short underline)."""
_LEAD_LINES = 4
"""Lines of a stretch's opening paragraph read as its scope."""
_FRONT_LINES = 30
_BANNER_LINES = 2
_MAX_DOC_CHARS = 2_000_000
_MAX_POOL = 2_000
"""Labelled lines of a document weighed word by word for one question."""
_AMOUNT = re.compile(r"^\s*how\s+(?:much|many)\b|\b(?:amount|cost|price|total)\b", re.I)


@dataclass(frozen=True)
class Labelled:
    """A line's label and value, and the scope lines over it (level, start, end), nearest
    first: 1 its paragraph's first line, 2 and on the stretches since each rule, last the
    document's front."""

    start: int
    end: int
    label: str
    value: str
    scope: tuple[tuple[int, int, int], ...]
    column: str = ""
    """A grid cell's column header ("Wed 11"; the label is its row's)."""

    @property
    def says(self) -> str:
        """What names the value: its label, and its column's header."""
        return f"{self.label} {self.column}".strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@functools.lru_cache(maxsize=16)
def labelled_lines(text: str) -> tuple[Labelled, ...]:
    """Every labelled line (and grid cell) of a document, with its scope."""
    lines = lines_of(text)
    rules = [i for i, (_, _, line) in enumerate(lines) if _RULE.fullmatch(line)]
    rule_set = set(rules)
    # The front: what a ruled document says before its first rule; else its first
    # paragraph (a title block), never its body.
    front_end = rules[0] if rules else next(
        (i for i, (_, _, line) in enumerate(lines) if not line.strip() and i), len(lines))
    front = [i for i in range(min(front_end, _FRONT_LINES, len(lines))) if lines[i][2].strip()]
    kinds = list(dict.fromkeys(lines[r][2].strip()[0] for r in rules))
    out: list[Labelled] = []
    ruled: dict[str, list[int]] = {kind: [] for kind in kinds}  # the rules passed, by kind
    leads: dict[int, list[int]] = {}  # a stretch's opening lines, by the rule over it
    para_lead: int | None = None
    header: int | None = None
    parents: list[int] = []  # the outline over a line: less indented lines above it
    for i, (start, end, line) in enumerate(lines):
        if i in rule_set:
            ruled[line.strip()[0]].append(i)
        if not line.strip() or i in rule_set:
            para_lead, header, parents = None, None, []
            continue
        if para_lead is None:
            para_lead = i
        while parents and _indent(lines[parents[-1]][2]) >= _indent(line):
            parents.pop()
        found: list[tuple[str, str, str]] = []
        if header is not None:
            found = grid_cells(line, lines[header][2])
        if not found and is_grid_header(line) and i + 1 < len(lines) and grid_cells(
                lines[i + 1][2], line):
            header = i  # a grid's column headers: the rows under it are read by them
        elif not found and (pair := label_value(line)) is not None:
            # Pairs set apart by gutters ("Surveyor:  N. Forsyth     Valid until:  09 Jan
            # 2027") are each a label's value.
            pairs = line_pairs(line) if KEYED.match(line.strip()) else []
            found = ([(k, "", v) for k, v in pairs] if len(pairs) > 1
                     else [(pair[0], "", pair[1])])
        if found:
            scope = [(1, j) for j in reversed(parents)]
            if para_lead != i and para_lead not in parents and not _sibling(
                    lines[para_lead][2], [lines[j][2] for j in parents] + [line]):
                scope.append((1, para_lead))
            for level, kind in enumerate(kinds, start=2):
                if not (above := ruled[kind]):
                    continue
                if above[-1] not in leads:
                    leads[above[-1]] = _stretch_lead(lines, rule_set, above)
                scope += [(level, j) for j in leads[above[-1]]
                          if j < i and all(j != k for _, k in scope)]
            # The front's lines say what the whole document is about: a line of the
            # front has the others, below it too, in its scope (the customer under the
            # quote's validity).
            scope += [(len(kinds) + 2, j) for j in front
                      if (j < i or i in front) and j != i and all(j != k for _, k in scope)]
            refs = tuple((level, lines[j][0], lines[j][1]) for level, j in scope)
            out += [Labelled(start, end, label, value, refs, column)
                    for label, column, value in found]
        parents.append(i)
    return tuple(out)


def _sibling(lead: str, outline: list[str]) -> bool:
    """The paragraph's first line is a list item like one of the line's outline (the
    first passenger over the second's lines; "Adult return .... 6.40" over "Child single
    .... 1.90"), not what the paragraph is about."""
    labelled = label_value(lead) is not None and not is_grid_header(lead)
    return any(_indent(lead) == _indent(other) and (
        shape(lead) == shape(other) or (labelled and label_value(other) is not None))
        for other in outline)


def _stretch_lead(lines: list[tuple[int, int, str]], rules: set[int], above: list[int]
                  ) -> list[int]:
    """The lines opening the stretch since the last rule in `above`, with
    a banner framed by that rule and the one before it, or a heading it underlines. A
    stretch that opens with a list's first item ("1. BAKKE/INGRID") has no opening of its
    own: each item names what is under it."""
    last = above[-1]
    out: list[int] = []
    for j in range(last + 1, len(lines)):
        if j in rules or len(out) == _LEAD_LINES:
            break
        if lines[j][2].strip():
            out.append(j)
    if out and _item_runs_on(lines, rules, out[0]):
        out = []
    framed = [j for j in range(above[-2] + 1, last) if lines[j][2].strip()] if len(
        above) > 1 else []
    # A stretch of items with no opening of its own (a car's visits, under the car's banner)
    # takes a longer banner than one that opens with its own lines.
    if 0 < len(framed) <= (_BANNER_LINES if out else _LEAD_LINES):
        out = framed + out
    elif _underlined(lines, rules, last):
        out = [last - 1, *out]
    return out


def _underlined(lines: list[tuple[int, int, str]], rules: set[int], rule: int) -> bool:
    """The rule underlines a heading: one line, with a blank line or a rule (or nothing)
    over it; not the last line of the part above."""
    if rule < 1 or not lines[rule - 1][2].strip() or rule - 1 in rules:
        return False
    return rule < 2 or not lines[rule - 2][2].strip() or rule - 2 in rules


def _item_runs_on(lines: list[tuple[int, int, str]], rules: set[int], first: int) -> bool:
    """A line of the first line's shape and indent follows it before the next rule: the
    stretch is a list of items like it."""
    kind, indent = shape(lines[first][2]), _indent(lines[first][2])
    for j in range(first + 1, len(lines)):
        if j in rules:
            return False
        if lines[j][2].strip() and _indent(lines[j][2]) == indent and shape(
                lines[j][2]) == kind:
            return True
    return False


@dataclass(frozen=True)
class _Asked:
    """What a question asks of a labelled line: its words and names, and whether it wants
    an amount."""

    words: list[str]
    plain: list[str]
    named: list[str]
    amount: bool
    label: tuple[str, ...]
    """What a label must say (`asked.asked_label`)."""

    @classmethod
    def of(cls, question: str) -> _Asked:
        words = [w for w in dict.fromkeys(stems(question)) if w not in STOP]
        named = entities(question)
        named_words = set(stems(" ".join(named)))
        return cls(words, [w for w in words if w not in named_words], named,
                   _AMOUNT.search(question) is not None, asked_label(question))


class _Reader:
    """A document's lines, normalised and stemmed once; the answer's own line is read with
    its label (a grid cell's row and column say what it is)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._read: dict[tuple[int, str, str], tuple[str, frozenset[str]]] = {}

    @functools.cached_property
    def words(self) -> frozenset[str]:
        """Every word the document says."""
        return frozenset(stems(self.text))

    def read(self, start: int, end: int, label: str = "", value: str = ""
             ) -> tuple[str, frozenset[str]]:
        key = (start, label, value)
        if key not in self._read:
            # The answer's own line says what it is by its label, not by its value.
            line = self.text[start:end]
            said = f"{line.replace(value, ' ', 1) if value else line} {label}"
            self._read[key] = (normalise(said), frozenset(stems(said)) | (
                label_words(label) if label else frozenset()))
        return self._read[key]


def _scored(question: str, asked: _Asked, item: Labelled, reader: _Reader,
            scope_lines: dict[int, tuple[int, int]]
            ) -> tuple[tuple[int, int, int], tuple[int, int]] | None:
    """(missing words, how far up the words are said, label words not asked) and the span
    of the scope lines needed with it, for one labelled line; None when it cannot answer."""
    label_stems = label_words(item.says)
    # The label says a word of the question, and it or its value (a unit, a shape) what
    # is asked: "Courtesy vehicle .... 7 days" for how many days of courtesy vehicle. The
    # very word: "Scorers" is no score.
    said = label_words(f"{item.says}: {item.value}")
    if not label_stems & set(asked.plain) or (
            asked.label and not any(w in said for w in asked.label)):
        return None
    if (asked.amount and not re.search(r"\d", item.value)) or (
            not item.column and not label_fits(question, reader.text[item.start:item.end])):
        return None
    chain = [(0, item.start, item.end), *item.scope]

    def read(start: int, end: int, value: str = "") -> tuple[str, frozenset[str]]:
        if start == item.start:
            return reader.read(start, end, item.says, value)
        return reader.read(start, end)

    hits = [_said_at(chain, lambda a, b, w=w: has_word(w, read(a, b)[1])) for w in asked.plain]
    # A name the answer's own line gives as its value is not what it is about.
    name_tests = [lambda a, b, e=e: any(contains(read(a, b, item.value)[0], form)
                                        for form in written_forms(e)) for e in asked.named]
    name_hits = [_said_at(chain, says) for says in name_tests]
    missing = [w for w, hit in zip(asked.plain, hits, strict=True) if hit is None]
    # A word left unsaid must be one the document never says ("yearly" of an annual
    # premium): one it says elsewhere tells this line from the one meant ("child").
    if None in name_hits or len(missing) > len(asked.plain) // 3 or any(
            has_word(w, reader.words) for w in missing):
        return None
    # A name said only far above (the front every page shares) while a nearer heading of
    # another part says it: that part is the one meant.
    own = {a for _, a, _ in chain}
    for hit, says in zip(name_hits, name_tests, strict=True):
        if any(level < hit[0] and a not in own and says(a, b)
               for a, (level, b) in scope_lines.items()):
            return None
    used = [hit for hit in hits + name_hits if hit is not None]
    # The lines needed, cited with the line: from the first to the last (a front's line
    # below it names the customer).
    ends = {a: b for _, a, b in chain}
    span = (min([item.start, *(a for _, a in used)]),
            max([item.end, *(ends[a] for _, a in used)]))
    extra = len(label_stems - set(asked.words))
    return (len(missing), sum(level for level, _ in used), extra), span


def scoped_value(question: str, docs: Iterable[tuple[str, str]]
                 ) -> tuple[str, Labelled, tuple[int, int]] | None:
    """(doc_id, the labelled line, the span of it and the scope lines it needs) for the
    question, or None (see the module docstring). `docs`: (doc_id, text)."""
    asked = _Asked.of(question)
    if not asked.plain:
        return None
    scored = []
    for doc_id, text in docs:
        if len(text) > _MAX_DOC_CHARS:
            continue  # a log or a dump, not a page a person laid out
        items = labelled_lines(text)
        # Stems are read for the lines whose label may say a question word only (their
        # first letters); a word many lines say alike picks none out.
        pool = [item for item in items
                if any(w[:4] in item.says.lower() for w in asked.plain)]
        if len(pool) > _MAX_POOL:
            continue
        reader = _Reader(text)
        # Lines that name a part of the document for the lines under it, and how near.
        scope_lines: dict[int, tuple[int, int]] = {}
        for item in items:
            for level, a, b in item.scope:
                if a not in scope_lines or scope_lines[a][0] > level:
                    scope_lines[a] = (level, b)
        for item in pool:
            if (score := _scored(question, asked, item, reader, scope_lines)) is not None:
                scored.append((score[0], doc_id, item, score[1]))
    if not scored:
        return None
    scored.sort(key=lambda entry: entry[0])
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None  # two lines fit the question as well: which one is not known
    _, doc_id, item, span = scored[0]
    return doc_id, item, span


def _said_at(chain: list[tuple[int, int, int]], says: Callable[[int, int], bool]
             ) -> tuple[int, int] | None:
    """(level, start) of the nearest line of the chain that says it."""
    return next(((lv, a) for lv, a, b in chain if says(a, b)), None)
