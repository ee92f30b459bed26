"""Counting what a document writes as a code its key defines: "how many doses were refused"
over a chart whose key says "R = refused" and whose grid rows hold "R" in day cells.

A key is a line of two or more "CODE = meaning" (or "CODE - meaning") pairs ("R = refused
S = asleep", "Forma: P - przelew, G - gotówka"). The question asks for a code when every
content word of one of its meanings is among its words, or their English (the longest such
meaning; two alike would be a guess). When one field of the records holds two or more of
that key line's codes (a register's payment column), the count is of the records holding the
code there. Else it is of the cells that hold the code in the grid rows (lines ending in a
run of short cells: codes, initials) of the documents the question names, or of the records
the rest of its plan selects there (less the counted noun: the cells are the doses, the
days). Each cell is one thing counted, however many share a line; the word itself, in a
note or in the key, is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.glossary import glossed
from ...corpus.records import Layout, Record
from ...corpus.tally import TallyPlan, select
from ...corpus.word_stems import stems, words
from .draft import count_draft
from .scope import FRAME_WORDS, head_unit

__all__ = ["CodeCount", "code_count", "coded_question"]

_PAIR = re.compile(r"(?<!\S)([A-Z]{1,3}|[-*+/?])(?:\s{0,3}=\s{0,3}|\s+[-–]\s+)([A-Za-z][^=\n]*?)"
                   r"(?=\s{2,}|\s*$|\s*[,;]\s*(?:[A-Z]{1,3}|[-*+/?])(?:\s{0,3}=|\s+[-–]\s))",
                   re.MULTILINE)
"""A key's pair: "R = refused", or "P - przelew", set apart by two spaces or a comma ("P =
presencial, C = correo postal, S = sede electrónica")."""
_ONE_PAIR = re.compile(r"^\s*(?:[A-Z]{1,3}|[-*+/?])(?:\s{0,3}=\s{0,3}|\s+[-–]\s+)\S")
"""A line of a key written down the page: it opens with its code ("   J  = needs repair")."""
_KEY_LABEL = re.compile(r"^\W*([^\W\d][\w .]{0,30}?)\s*:")
"""What a key line's codes are of, before its first pair ("ZAPŁATA:", "Forma:")."""
_ASIDE = re.compile(r"\([^()]*\)")
_NEGATED = re.compile(r"\b(?:no|not|non|never|without|nil)\b|n['’]t\b", re.IGNORECASE)
_PAYMENT_WAYS = frozenset(stems("cash card transfer cheque debit"))
_PAYING = frozenset(stems("pay paid paying payment"))
_COUNTED = re.compile(r"\bhow\s+many\s+((?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s+(?:were|was|are|is|did|do|"
                      r"does|have|has|had|came|went|got|in|on|at|from|of|for|with|by|that|which|"
                      r"who)\b", re.IGNORECASE)
"""The noun phrase a count asks for: the things counted, which the code's cells are."""
_MARKING = frozenset(stems("code coded marked flagged labelled labeled entered recorded logged"))
"""Words saying how the thing is written ("coded R"), not what the records say."""
_CELL = 3
"""A grid cell holds a code or initials: at most this many characters."""
_MIN_CELLS = 4
_PREFIX = 5
"""Two word stems sharing this many first letters are one word ("refus-al", "refus-ed")."""


@dataclass
class CodeCount:
    """The cells holding the code the question asks for, and where it was counted."""

    code: str
    meaning: str
    total: int
    docs: list[str]
    rows: list[tuple[str, int, int]]
    """(doc_id, start, end) of the grid rows (or records) that hold the code."""
    column: str | None = None
    """The records' field that holds the key's codes, when counted by records."""

    def describe(self) -> str:
        key = f"(the key: {self.code} = {self.meaning})"
        if self.column is not None:
            return (f"items with {self.column}={self.code} {key} in {len(self.docs)} "
                    f"document(s)")
        return f"cells holding {self.code!r} {key} in the grid rows of {len(self.docs)} document(s)"


def _key_lines(text: str) -> list[tuple[str, dict[str, str]]]:
    """Each key of a document: a line of two or more pairs, or a run of two or more lines
    of one pair each ("Condition codes:" over "  G = good" and "  R = needs repair"); the
    label it opens with, before its first pair, or the line over the run ("ZAPŁATA:  G =
    gotówka ...": what the codes say of a record, its payment; "" when none), and its codes
    with their meanings."""
    out: list[tuple[str, dict[str, str]]] = []
    run: dict[str, str] = {}
    over = ""
    for line in [*text.splitlines(), ""]:
        pairs = _PAIR.findall(line)
        if len(pairs) == 1 and _ONE_PAIR.match(line) and pairs[0][0] not in run:
            run[pairs[0][0]] = pairs[0][1].strip()
            continue
        if len(run) >= 2:
            label = _KEY_LABEL.match(_ASIDE.sub("", over)) if over.rstrip().endswith(":") else None
            out.append((label.group(1).strip() if label else "", run))
        run, over = {}, line
        if len(pairs) < 2:
            continue
        label = _KEY_LABEL.match(line)
        said = label is not None and line.find(":") < line.find(pairs[0][1])
        out.append((label.group(1) if said and label else "",
                    {code: meaning.strip() for code, meaning in pairs}))
    return out


def _key(text: str) -> dict[str, str]:
    """The codes a document's key lines define, with their meanings."""
    return {code: meaning for _, pairs in _key_lines(text) for code, meaning in pairs.items()}


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) >= _PREFIX and len(b) >= _PREFIX and a[:_PREFIX] == b[:_PREFIX])


def _means(asked: str, word: str) -> bool:
    """The question's stem says the key's word, or its English ("gotówka": cash)."""
    return _same(asked, word) or asked in glossed((word,), stems)


def _asked(question: str, key: dict[str, str]) -> tuple[str, str, set[str]] | None:
    """The code one of whose meanings the question says in full, the longest such meaning
    ("excused absence" over "absent"), and the question's stems that said it; None when
    two codes tie (a guess)."""
    asked = [s for w, s in zip(words(question), stems(question), strict=True)
             if w not in FRAME_WORDS]
    found: list[tuple[int, str, str, set[str]]] = []
    for code, meaning in key.items():
        # "G - gotówka (sekretariat, KP)": the aside says where, not what the code is.
        for part in re.split(r"\s*/\s*|\s+or\s+|,", _ASIDE.sub(" ", meaning)):
            if _NEGATED.search(part) and not _NEGATED.search(question):
                continue  # "no repair needed" is not what "needing repair" asks
            need = [s for w, s in zip(words(part), stems(part), strict=True)
                    if w not in FRAME_WORDS]
            if need and all(any(_means(q, n) for q in asked) for n in need):
                said = {q for q in asked for n in need if _means(q, n)}
                found.append((len(need), code, meaning, said))
                break
    found.sort(key=lambda f: -f[0])
    if not found or (len(found) > 1 and found[1][0] == found[0][0]):
        return None
    return found[0][1:]


def _grid_rows(text: str, start: int = 0) -> list[tuple[int, int, list[str]]]:
    """Lines ending in a run of at least four short cells (codes, initials) after their
    label ("08:00", "Shah, Priya"), with no key pairs; each with the cells of that run."""
    out = []
    offset = start
    for line in text.splitlines(keepends=True):
        run: list[str] = []
        for cell in reversed(line.split()):
            if len(cell) > _CELL:
                break
            run.append(cell)
        if sum(c != "|" for c in run) >= _MIN_CELLS and "=" not in line:
            out.append((offset, offset + len(line.rstrip("\n")), run[::-1]))
        offset += len(line)
    return out


def code_count(question: str, layout: Layout, texts: list[tuple[str, str]], plan: TallyPlan,
               unknown: list[str] | None = None) -> CodeCount | None:
    """The count of the code the question asks for in the grid rows of its documents (and
    of the records the rest of its plan selects there), else in the cells of its lines (a
    register's "Forma" column, a log's incident type); None when no key defines one code
    the question asks for, or nothing holds it. `unknown`: the question's words no record
    holds: the code's meaning must say them all."""
    scoped = [(d, t) for d, t in texts if not plan.docs or d in plan.docs]
    for _, text in scoped:
        asked = _asked(question, _key(text))
        if asked is None:
            continue
        code, meaning, said = asked
        docs = [d for d, t in scoped if _key(t).get(code) == meaning]
        # "how many days was Maja late": the cells are the days; her name picks the rows.
        head = head_unit(question)
        said |= set(stems(words(question)[head])) if head is not None else set()
        if counted := _COUNTED.search(question):  # "how many first aid treatments were ..."
            said |= set(stems(counted.group(1)))
        # "paid by BLIK" over "ZAPŁATA:  B = BLIK": the key's label says the payment; a
        # way of paying ("przelew": bank transfer) says it too.
        label, line_codes = next(((label, set(pairs)) for label, pairs in _key_lines(text)
                                  if pairs.get(code) == meaning), ("", {code}))
        said |= set(stems(label)) | glossed(stems(label), stems)
        if glossed(stems(meaning), stems) & _PAYMENT_WAYS:
            said |= _PAYING
        if unknown and not set(stems(" ".join(unknown))) <= said | _MARKING:
            return None  # "letters from schools": the key says nothing of schools
        rest = plan.model_copy(update={
            "docs": docs, "phrases": [p for p in plan.phrases
                                      if not set(stems(p)) & (said | _MARKING)]})
        # A register's column of the key's codes ("fiz.": K, B, U) is its records' field.
        found = _code_records(layout, docs, rest, code, line_codes)
        if found is not None and found[1]:
            column, held = found
            return CodeCount(code, meaning, len(held), docs,
                             [(r.doc_id, r.start, r.end) for r in held], column)
        parts = _parts(layout, texts, docs, rest)
        rows = [(d, a, b, cells) for d, part_start, part in parts
                for a, b, cells in _grid_rows(part, part_start)]
        total = sum(cells.count(code) for *_, cells in rows)
        if total:
            return CodeCount(code, meaning, total, docs,
                             [(d, a, b) for d, a, b, cells in rows if code in cells])
        lines = [(d, a, b) for d, part_start, part in parts
                 for a, b in _cell_lines(part, part_start, code)]
        if not lines:
            return None
        return CodeCount(code, meaning, len(lines), docs, lines)
    return None


def _code_records(layout: Layout, docs: list[str], rest: TallyPlan, code: str,
                  key: set[str]) -> tuple[str, list[Record]] | None:
    """The records (of those the rest of the plan selects) whose code field holds the code:
    the one field holding two or more of its key line's codes ("zapł." holds G, K and B of "ZAPŁATA:
    G = gotówka  K = karta  B = BLIK"; the work done, "kod", holds a G for buttons)."""
    scoped = [r for r in layout.records if r.doc_id in docs]
    held: dict[str, set[str]] = {}
    for record in scoped:
        for field, value in record.fields.items():
            if value in key:
                held.setdefault(field, set()).add(value)
    # One field holds two or more of the line's codes: a chart whose day columns all hold
    # them is counted cell by cell (its grid rows), not by one column.
    fields = [f for f, codes in held.items() if code in codes and len(codes) >= 2]
    if len(fields) != 1 or sum(len(codes) >= 2 for codes in held.values()) > 1:
        return None
    chosen = scoped if _whole(rest) else select(scoped, rest)
    return fields[0], [r for r in chosen if r.fields.get(fields[0]) == code]


def _cell_lines(text: str, start: int, code: str) -> list[tuple[int, int]]:
    """The lines holding the code as a cell of its own (two spaces or the line's edge on
    each side: " 1410  R   female caught in rip"), not a key's line."""
    cell = re.compile(rf"(?:^|(?<=\s\s)){re.escape(code)}(?=\s{{2,}}|\s*$)")
    out, offset = [], start
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        if "=" not in body and cell.search(body):
            out.append((offset, offset + len(body)))
        offset += len(line)
    return out


def _whole(rest: TallyPlan) -> bool:
    """The plan says nothing beyond its documents: they are counted whole."""
    return rest.model_copy(update={"docs": [], "every": False}).empty


def _parts(layout: Layout, texts: list[tuple[str, str]], docs: list[str], rest: TallyPlan
           ) -> list[tuple[str, int, str]]:
    """The text counted: the documents whole when the plan says nothing else, else the
    records it selects in them."""
    if _whole(rest):
        return [(d, 0, t) for d, t in texts if d in docs]
    chosen: list[Record] = list(select(layout.records, rest))
    return [(r.doc_id, r.start, r.text) for r in chosen]


def coded_question(question: str, layout: Layout, texts: list[tuple[str, str]]
                   ) -> CodeCount | None:
    """The code count a counting question's own plan supports (none when the plan leaves
    words no record holds, or a negation: those are judged)."""
    draft = count_draft(question, layout)
    if draft.negated or draft.rank_key or draft.aggregate:
        return None
    return code_count(question, layout, texts, draft.plan, draft.unknown)
