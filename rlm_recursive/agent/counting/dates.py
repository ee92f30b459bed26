"""Conditions on a record's dates and empty fields, read from a counting question's words:
"published before 2012", "since September", "returned after the due date" (a date field
compared with a date, or with another date field of the same record), and "haven't come
back yet", "with no end date" (a field left blank).

The field a condition is on is the one the question names, by its own words or a verb of
its family ("come back" → `returned_on`, "born" → `BIRT`); a bare "before 2012" with no
field named is on the documents' first date field (the date the record is of).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from ...corpus.dates import MONTH_WORD, MONTHS, DateCondition, date_of, said_dates
from ...corpus.records import Layout, Record
from ...corpus.tally import FieldFilter, blank_tables, left_blank
from ...corpus.word_stems import phrase_regex, stems
from .scope import titled_documents

__all__ = ["blank_fields", "date_conditions", "date_fields", "inside_fields", "key_stems"]

_TOKEN = re.compile(r"[^\W_]+")
"""A word as `word_stems.words` splits them ("Ó Briain" is two): positions are shared."""
_GENERIC = frozenset(stems("date on at time day dt d when of the"))
"""Words of a field's name that do not tell which date it is."""
_FAMILIES = {stems(k)[0]: frozenset(stems(v)) for k, v in {
    "back": "return returned", "return": "back", "born": "birth birt", "birth": "born birt",
    "die": "death deat died", "died": "death deat", "death": "deat died",
    "taken": "out borrow loan issu", "borrow": "out loan issu", "lent": "out loan issu",
    "join": "joined member", "ship": "dispatch sent", "sent": "ship dispatch",
    "publish": "year published", "due": "due", "written": "author writer creator",
    "wrote": "author writer creator", "posted": "author poster", "authored": "author"}.items()}
"""A question's verb and the words a field's name uses for it ("came back": returned_on,
"born": BIRT): a small general table, not one file's labels."""
_OPS = {"before": "<", "prior": "<", "earlier": "<", "until": "until", "till": "until",
        "after": "after", "later": "after", "since": ">=", "from": ">="}
_BY_NAME_ONLY = frozenset(("from",))
""""from" bounds a date only with a year or month after it ("from the HTS batch" is no date)."""
_NEGATION = frozenset(("not", "never", "t", "no", "without", "unreturned"))
_EMPTY = frozenset(("blank", "empty", "missing", "unset"))
_TAIL = frozenset(("yet", "still", "been", "be", "come", "came", "gone", "brought", "got",
                   "in", "as", "so", "far", "the", "a", "any", "an", "is", "are", "left"))
_REACH = 4
_DETERMINERS = frozenset(("the", "their", "its", "his", "her", "a", "an"))
_DATE_SHARE = 0.6


def date_fields(records: list[Record]) -> list[str]:
    """Fields whose values (mostly) state dates, in the order records write them."""
    seen: dict[str, list[int]] = {}
    for record in records:
        for key, value in record.fields.items():
            if value.strip():
                tally = seen.setdefault(key, [0, 0])
                tally[0] += date_of(value) is not None
                tally[1] += 1
    return [k for k, (dated, total) in seen.items()
            if dated >= 2 and dated >= _DATE_SHARE * total]


def _tokens(question: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(question)]


def key_stems(key: str) -> tuple[str, ...]:
    """The stems of a field's name, its camel-case and dotted parts apart (`PaymentTerms`:
    payment, term; `BIRT.PLAC`: birt, plac)."""
    return stems(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key))


def _named_by(key: str, word: str) -> int:
    """How a question word names a field: 2 by a word of its name, 1 by a word of the
    word's family ("back" for `returned_on`), 0 not at all."""
    own = set(key_stems(key)) - _GENERIC
    stem = stems(word)[0] if stems(word) else word
    return 2 if stem in own else int(bool(own & _FAMILIES.get(stem, frozenset())))


def _best_named(keys: list[str], word: str) -> list[str]:
    """The fields a word names best (by their own word before a family's)."""
    ranked = [(_named_by(k, word), k) for k in keys]
    top = max((rank for rank, _ in ranked), default=0)
    return [k for rank, k in ranked if rank and rank == top]


def _year(token: str) -> int | None:
    return int(token) if re.fullmatch(r"(?:1[5-9]|20)\d\d", token) else None


def _bound(op: str, start: date, end: date) -> tuple[str, date]:
    """The comparison with a period: before it, since it, after it, until its end."""
    return {"<": ("<", start), ">=": (">=", start), "after": (">=", end),
            "until": ("<", end)}[op]


def _period(toks: list[str], at: int, latest: int | None) -> tuple[date, date, int] | None:
    """The period named at `at` (a year, a month with or without its year) and its width."""
    year = _year(toks[at])
    if year is not None:
        return date(year, 1, 1), date(year + 1, 1, 1), 1
    month = MONTHS.get(toks[at]) if len(toks[at]) >= 3 and toks[at] != "may" else None
    if month is None:
        return None
    given = _year(toks[at + 1]) if at + 1 < len(toks) else None
    year = given or latest
    if year is None:
        return None
    end = date(year + month // 12, month % 12 + 1, 1)
    return date(year, month, 1), end, 2 if given else 1


def date_conditions(question: str, layout: Layout, taken: set[int] | None = None
                    ) -> tuple[list[DateCondition], set[int]]:
    """The date conditions the question states, and the word positions that state them
    (`taken`: positions another condition already says, which name no field here)."""
    toks = _tokens(question)
    fields = date_fields(layout.records)
    if not fields:
        return [], set()
    out: list[DateCondition] = []
    used: set[int] = set(taken or ())
    # "between April and July", "Apr-Jul 2025", "from April to May": every month between.
    out, span_at = _month_span(question, toks, fields, used, layout)
    used |= span_at
    for i, tok in enumerate(toks):
        op = _OPS.get(tok)
        if op is None or i in used:
            continue
        j = i + 1 + (toks[i + 1:i + 2] in (["to"], ["than"]))
        j += bool(toks[j:j + 1]) and toks[j] in _DETERMINERS
        if j >= len(toks):
            continue
        said = set(range(i, j))
        other = None
        period = _period(toks, j, None)
        if period is None and MONTHS.get(toks[j]) and toks[j] != "may":
            period = _period(toks, j, _latest_year(layout.records, fields))
        if period is not None:
            said |= set(range(j, j + period[2]))
        elif tok in _BY_NAME_ONLY:
            continue
        else:
            words = [k for k in toks[j:j + 3] if stems(k) and stems(k)[0] not in _GENERIC]
            named = _best_named(fields, words[0]) if words else []
            if len(named) != 1:
                continue
            other = named[0]
            said |= {j + n for n, k in enumerate(toks[j:j + 3])
                     if k in words[:1] or (stems(k) and stems(k)[0] in _GENERIC)}
        subject = _subject(question, toks, fields, said | used, other, layout, i)
        if subject is None:
            continue
        if other is not None:
            cond = DateCondition(field=subject, op="<" if op in ("<", "until") else ">",
                                 other=other)
        else:
            assert period is not None
            bound_op, bound = _bound(op, period[0], period[1])
            cond = DateCondition(field=subject, op=bound_op, value=bound)  # type: ignore[arg-type]
        out.append(cond)
        used |= said | _naming(toks, subject, said | used)
    if not out:
        day, day_at = _day_range(question, toks, fields, used, layout)
        if not day:
            day, day_at = _on_day(question, toks, fields, used, layout)
        out, used = day, used | day_at
    return out, used - set(taken or ())


def _on_day(question: str, toks: list[str], fields: list[str], taken: set[int],
            layout: Layout) -> tuple[list[DateCondition], set[int]]:
    """"... visits on 14 November 2024": one day written whole (a day and its month), on the
    date field the question names, else the first one of its documents: that day from its
    start to the next's. The year, unsaid, is the records' latest."""
    written = [(a, b, d) for a, b, d in said_dates(question) if d[0] is not None]
    if len(written) != 1:
        return [], set()
    start, end, (day, month, year) = written[0]
    year = year or _latest_year(layout.records, fields)
    try:
        first = date(year, month, day) if year else None
    except ValueError:
        first = None
    if first is None:
        return [], set()
    offsets = [m.start() for m in _TOKEN.finditer(question)]
    at = {i for i, o in enumerate(offsets) if start <= o < end}
    at |= {i - 1 for i in at if i > 0 and toks[i - 1] == "on"}
    subject = _subject(question, toks, fields, taken | at, None, layout, min(at, default=0))
    if subject is None or not at:
        return [], set()
    return [DateCondition(field=subject, op=">=", value=first),
            DateCondition(field=subject, op="<", value=first + timedelta(days=1))], at


_MONTH_NAME = f"({MONTH_WORD})"
_MONTH_SPAN = re.compile(
    rf"\b(?:(?:between|from)\s+)?{_MONTH_NAME}(?:\s*[-–]\s*|\s+(?:and|to|until|till|through)"
    rf"\s+){_MONTH_NAME}(?:,?\s+((?:19|20)\d\d))?\b", re.IGNORECASE)
"""Two months and every one between, both ends counted ("between April and July")."""


def _month_span(question: str, toks: list[str], fields: list[str], taken: set[int],
                layout: Layout) -> tuple[list[DateCondition], set[int]]:
    """"... between April and July 2025": from the first month's first day to the first day
    after the last month."""
    found = _MONTH_SPAN.search(question)
    if found is None or "may" in (found.group(1), found.group(2)):
        return [], set()  # "may" in lower case is a verb
    first = MONTHS.get(found.group(1).lower().rstrip("."))
    last = MONTHS.get(found.group(2).lower().rstrip("."))
    year = int(found.group(3)) if found.group(3) else _latest_year(layout.records, fields)
    if first is None or last is None or year is None or last < first:
        return [], set()
    end = date(year + last // 12, last % 12 + 1, 1)
    return _on_period(question, toks, fields, taken, layout, found, date(year, first, 1), end)


_DAY_RANGE = re.compile(
    r"\b(?:between\s+)?(\d{1,2})(?:st|nd|rd|th)?\s*(?:and|to|until|till|-|–)\s*"
    r"(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?(?:\s+((?:19|20)\d\d))?\b",
    re.IGNORECASE)
"""Days of one month, both ends inclusive: "between 10 and 16 August 2025", "3-9 May"."""


def _day_range(question: str, toks: list[str], fields: list[str], taken: set[int],
               layout: Layout) -> tuple[list[DateCondition], set[int]]:
    """"... between 10 and 16 August 2025": from the first day's start to the day after the
    last."""
    found = _DAY_RANGE.search(question)
    month = MONTHS.get(found.group(3).lower()) if found else None
    if found is None or month is None:
        return [], set()
    year = int(found.group(4)) if found.group(4) else _latest_year(layout.records, fields)
    try:
        first = date(year, month, int(found.group(1))) if year else None
        last = date(year, month, int(found.group(2))) if year else None
    except ValueError:
        return [], set()
    if first is None or last is None or last < first:
        return [], set()
    return _on_period(question, toks, fields, taken, layout, found, first,
                      last + timedelta(days=1))


def _on_period(question: str, toks: list[str], fields: list[str], taken: set[int],
               layout: Layout, said: re.Match[str], start: date, end: date
               ) -> tuple[list[DateCondition], set[int]]:
    """The conditions that a date is in [start, end), written at `said`, on the date field
    the question names, else the documents' first, else the one whose dates fall in the
    period (a bank export's `date`, not a heating log's `Opstået`, for "between April and
    July" when the question names neither); and the positions of its words."""
    offsets = [m.start() for m in _TOKEN.finditer(question)]
    at = {i for i, o in enumerate(offsets) if said.start() <= o < said.end()}
    subject = _subject(question, toks, fields, taken | at, None, layout, min(at, default=0))
    if subject is None or not at or at & taken:
        return [], set()

    def inside(key: str) -> int:
        return sum(start <= d < end for r in layout.records
                   if (d := date_of(r.fields.get(key, ""))) is not None)
    if not inside(subject):
        best = max(fields, key=inside, default=subject)
        subject = best if inside(best) else subject
    return [DateCondition(field=subject, op=">=", value=start),
            DateCondition(field=subject, op="<", value=end)], at


def _latest_year(records: list[Record], fields: list[str]) -> int | None:
    years = [d.year for r in records for k in fields if (d := date_of(r.fields.get(k, "")))]
    return max(years) if years else None


def _naming(toks: list[str], key: str, taken: set[int]) -> set[int]:
    return {i for i, t in enumerate(toks) if i not in taken and _named_by(key, t)}


def _subject(question: str, toks: list[str], fields: list[str], taken: set[int],
             other: str | None, layout: Layout, at: int) -> str | None:
    """The date field the condition is on: the one the question names nearest before the
    condition ("hires | came back | after"), else after it; else (a date, not another field,
    on the other side) the first date field of the documents it names."""
    free = [f for f in fields if f != other]
    named = [(p, f) for f in free for p in _naming(toks, f, taken)]
    before = [(p, f) for p, f in named if p < at]
    if before:
        return max(before)[1]
    if named:
        return min(named)[1]
    if other is not None:
        return None
    docs = set(titled_documents(question, layout))
    ordered = [k for r in layout.records if not docs or r.doc_id in docs
               for k in r.fields if k in free]
    return ordered[0] if ordered else None


def blank_fields(question: str, layout: Layout) -> tuple[list[str], set[int]]:
    """Fields the question asks to be empty ("haven't come back yet": `returned_on` left
    blank; "a blank end date"), when some record leaves them so; and the word positions."""
    toks = _tokens(question)
    out: list[str] = []
    used: set[int] = set()
    for i, tok in enumerate(toks):
        if tok not in _NEGATION and tok not in _EMPTY:
            continue
        for j in range(i + 1, min(i + 1 + _REACH, len(toks))):
            # Only a field some record leaves blank: "not come back" is `returned_on`,
            # never the `due_back` every loan fills in.
            named = _best_named([k for k in layout.fields if _named_by(k, toks[j])
                                 and _some_left_blank(layout, k)], toks[j])
            if len(named) == 1 and named[0] not in out:
                out.append(named[0])
                stop = j + 1
                while stop < len(toks) and (toks[stop] in _TAIL
                                            or stems(toks[stop])[0] in _GENERIC):
                    stop += 1
                used |= set(range(i, stop))
                break
    return out, used


def _some_left_blank(layout: Layout, key: str) -> bool:
    tables = blank_tables(layout.records, [key])
    return any(left_blank(r, key, tables) for r in layout.records)


_INSIDE = frozenset(("in", "at", "on", "from", "as", "to", "for", "by"))


def inside_fields(question: str, layout: Layout, taken: set[int], stop: frozenset[str]
                  ) -> tuple[list[FieldFilter], set[int]]:
    """"born in Ellerby", "written by the clerk": a field the question names by a word or its
    family (`BIRT.PLAC`, `author.name`) whose values hold the words after it, as part of a
    longer value ("Ellerby, Yorkshire, England", "Maureen Tilly (Clerk)"); the condition and
    its word positions (`stop`: words that end the value)."""
    toks = _tokens(question)
    out: list[FieldFilter] = []
    used: set[int] = set()
    for i in range(len(toks) - 2):
        if i in taken or toks[i + 1] not in _INSIDE:
            continue
        first = i + 2
        while first < len(toks) - 1 and toks[first] in _DETERMINERS:
            first += 1  # "written by the clerk": the value is "clerk"
        end = first
        while end < len(toks) and end not in taken and toks[end] not in stop:
            end += 1
        if end == first:
            continue
        phrase = " ".join(toks[first:end])
        pattern = phrase_regex(phrase)
        # "status on loan" where "on loan" is a whole value: a value to match, not inside one.
        whole = " ".join(toks[i + 1:end])
        holding = [k for k, values in layout.fields.items() if _named_by(k, toks[i])
                   and any(pattern.search(v) for v in values)
                   and not any(v.strip().lower() == whole for v in values)]
        named = _best_named(holding, toks[i])
        if len(named) == 1:
            out.append(FieldFilter(field=named[0], value=phrase))
            used |= set(range(i, end))
    return out, used
