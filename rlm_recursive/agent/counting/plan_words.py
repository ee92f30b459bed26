"""What the words of a counting question do, beyond naming values: the clauses a negation
governs ("not in service", "except the high ones", "other than Leeds"), the quantity an
aggregate sums or averages ("the total monthly rent", "the average odometer_km"), and the
collection the question names as a whole ("in the mail log", "does the fleet have").

Positions are word indexes in `tally.words(question)`; `routing.count_draft` turns them into
a plan. Also the participles and reduced relative clauses that make a bridge ("the person
chairing the panel", "the building Owen Fairweather manages"), shared by routing and the
runtime's chain. Nothing here calls a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...corpus.aggregate import Operation, clock_fields, numeric_fields
from ...corpus.dates import MONTH_WORD
from ...corpus.records import Layout
from ...corpus.tally import Comparison
from ...corpus.units import STOP
from ...corpus.word_stems import names_key, stems, words

__all__ = ["BRIDGE_VERB", "EVENT_TIME", "Aggregation", "Stated", "aggregation", "collection",
           "comparisons", "key_positions", "negated_scopes", "owner_words", "particles",
           "stated_comparisons", "uncompared_comparisons", "word_offsets", "written_negations"]

EVENT_TIME = re.compile(
    r"\b(?:on|in|during|for|at)\s+the\s+(?:day|night|morning|afternoon|evening|week|weekend|"
    r"date|shift|occasion|visit|trip|event)\s+(?:when\s+|that\s+)?(?=(?:the|a|an|his|her|"
    r"their|our|(?-i:[A-Z])[\w'’-]+)\s+\w+)", re.IGNORECASE)
"""A time named by what happened then ("on the day the beach had to be closed"): a bridge
to the line saying it, whose block names the day."""
BRIDGE_VERB = (
    r"(?:running|housing|managing|owning|leading|hosting|operating|supervising|overseeing|"
    r"handling|responsible\s+for|in\s+charge\s+of|assigned\s+to|based\s+in|located\s+in"
    # Any participle that takes an object: "the person chairing the panel"; not the
    # prepositions that end in -ing ("the code for the room during an emergency").
    r"|(?!(?:during|including|excluding|regarding|concerning|according|pending|barring|"
    r"considering|notwithstanding|excepting)\b)[a-z]{3,}ing"
    r"(?=\s+(?:the|a|an|this|that|his|her|their|our|its)\b|\s+(?-i:[A-Z])[\w-]*\s)"
    # A reduced relative clause, a name and its verb: "the building Owen Fairweather manages".
    r"|(?-i:(?=(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}\s+"
    r"(?!(?:is|was|has|does|goes)\b)[a-z]{2,}(?:s|ed)\b)))")
"""What follows a noun phrase and makes it a bridge, beside a relative pronoun (case-blind
but for the name of a reduced relative clause)."""

_WORD = re.compile(r"[A-Za-z0-9]+")  # the same words as tally.words
_NEGATION = re.compile(
    r"\b(?:not|except(?:\s+for)?|excluding|excluded|without|other\s+than|apart\s+from|"
    r"aside\s+from|besides|never|no|non|(?:are|is|were|was|do|does|did|has|have|had)n['’]t)"
    r"\b[\s-]*", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;?!.]|\s[/–—-]\s|\s(?:and|but|or|which|that|who)\s",
                         re.IGNORECASE)
"""Where a negation's clause ends: a stop, a conjunction, or a slash or dash set apart
("not usable / sent to recycling": the second wording is no part of what is negated)."""
_AGGREGATE = re.compile(r"\b(total|sum|combined|overall|average|mean|median|"
                        r"(?:lowest|smallest|minimum)|(?:highest|largest|maximum))\b",
                        re.IGNORECASE)
_OPERATION: dict[str, Operation] = {
    "total": "sum", "sum": "sum", "combined": "sum", "overall": "sum", "average": "mean",
    "mean": "mean", "median": "median", "lowest": "min", "smallest": "min", "minimum": "min",
    "highest": "max", "largest": "max", "maximum": "max"}
_PREPOSITION = frozenset("of for across in on from at per by over among to with".split())
_COLLECTION = re.compile(
    r"\b(?:in|across|within|throughout|over|on)\s+(?:the\s+|our\s+|this\s+|that\s+)?"
    r"(?P<a>(?:[\w-]+\s+){0,2}[\w-]+)\s*[?.!]*\s*$"
    r"|\b(?:does|do|did)\s+(?:the|our|this|that)\s+(?P<b>(?:[\w-]+\s+)?[\w-]+)\s+"
    r"(?:have|hold|contain|list|show|record|keep)\b", re.IGNORECASE)


def word_offsets(question: str) -> list[tuple[int, int]]:
    """(start, end) of each word `tally.words` returns, in order."""
    return [m.span() for m in _WORD.finditer(question)]


def _positions(question: str, start: int, end: int) -> set[int]:
    return {i for i, (a, b) in enumerate(word_offsets(question)) if a >= start and b <= end}


def negated_scopes(question: str) -> list[set[int]]:
    """For each negation, the word positions it governs: up to the end of its clause."""
    scopes = []
    for match in _NEGATION.finditer(question):
        stop = _CLAUSE_END.search(question, match.end())
        scope = _positions(question, match.end(), stop.start() if stop else len(question))
        scopes.append(scope)
    return scopes


def written_negations(question: str) -> list[tuple[str, set[int]]]:
    """Each negation with the word it governs, as a record could write it ("no objection",
    "not applicable", "never collected"), and the positions of its negation words."""
    out = []
    for match in _NEGATION.finditer(question):
        following = re.match(r"[A-Za-z][\w'’-]*", question[match.end():])
        if following is not None:
            at = _positions(question, match.start(), match.end())
            out.append((f"{match.group().strip()} {following.group()}".lower(), at))
            if re.fullmatch(r"not|\w+n['’]t", match.group().strip(), re.I):
                # "were not charged for" is written "no charge" as often as "not charged".
                out.append((f"no {following.group()}".lower(), at))
    return out


def negation_words(question: str) -> set[int]:
    """The positions of the negation words themselves ("not", "other than", "aren't")."""
    out: set[int] = set()
    for match in _NEGATION.finditer(question):
        out |= _positions(question, match.start(), match.end())
    return out


@dataclass(frozen=True)
class Aggregation:
    """A sum/average the question asks for: the operation, the numeric field, and the
    words that name the quantity (consumed: they are not filters)."""

    op: Operation
    key: str
    words: frozenset[int]


def aggregation(question: str, layout: Layout) -> Aggregation | None:
    """"What is the total monthly rent ...": a numeric field the question names after an
    aggregate word. Not when the word belongs to the field's own name ("the sum insured"),
    nor when no numeric field is named ("the total on invoice 7")."""
    cue = _AGGREGATE.search(question)
    if cue is None:
        return _counted_field(question, layout)
    q_words = [question[a:b].lower() for a, b in word_offsets(question)]
    cue_at = next(i for i, (a, _) in enumerate(word_offsets(question)) if a >= cue.start())
    best: tuple[float, int, int, str] | None = None
    for key in numeric_fields(layout):
        # A field named by a sentence's words ("the order total should be", from a test
        # step) is named by its content words, never by a "the" the question also says.
        key_words = [k for k in words(key) if k not in STOP]
        if not key_words or any(names_key(k, cue.group(1)) for k in key_words):
            continue  # "sum insured", "total amount" as a field's own name: a look-up
        # "the total monthly rent": the field after the cue; "how many nights ..., in
        # total": anywhere, when the cue ends the question.
        start = cue_at + 1 if cue_at + 1 < len(q_words) else 0
        # "the total yearly premium": a rate ("yearly") names a field only as itself
        # ("monthly_rent"), not the field its stem begins (a premium is no `acquired_year`).
        at = {k: i for i, w in enumerate(q_words[start:], start) for k in key_words
              if w not in STOP and names_key(k, w) and (k == w or not w.endswith("ly"))}
        named = set(at)
        if not named:
            continue
        # "the total lag across all partitions": the field named nearest the cue is summed.
        score = (len(named) / len(key_words), len(named), -min(at.values()), key)
        if best is None or score > best:
            best = score
    if best is None:
        return None
    key = best[3]
    # The quantity's words: from the cue to the first preposition ("total cost | in GBP of
    # incidents"), and the field's own words wherever they are.
    measure = {cue_at}
    for i in range(cue_at + 1, len(q_words)):
        if q_words[i] in _PREPOSITION:
            break
        measure.add(i)
    measure |= key_positions(q_words, key)
    return Aggregation(_OPERATION[cue.group(1).lower()], key, frozenset(measure))


_HOW_MANY_NOUN = re.compile(r"\bhow\s+many\s+([A-Za-z][\w-]*)", re.IGNORECASE)


def _counted_field(question: str, layout: Layout) -> Aggregation | None:
    """"How many children were covered ...": the counted noun is a numeric field's whole
    name ("children" of a food bank's visits), so its values are summed over the records
    the rest selects, not the records counted. A field the noun only begins ("visits" of
    `visits_ytd`) is another quantity."""
    match = _HOW_MANY_NOUN.search(question)
    if match is None:
        return None
    noun = stems(match.group(1))
    keys = [key for key in numeric_fields(layout)
            if [stems(k) for k in words(key) if k not in STOP] == [noun]]
    if len(keys) != 1:
        return None
    offsets = word_offsets(question)
    measure = frozenset(i for i, (a, _) in enumerate(offsets) if match.start() <= a < match.end())
    return Aggregation("sum", keys[0], measure)


def collection(question: str, layout: Layout) -> tuple[set[int], list[str]]:
    """The collection the question names as a whole ("in the mail log", "does the fleet
    have"), when every one of its words is in a document's name or title line: its word
    positions and the documents it selects."""
    match = _COLLECTION.search(question)
    if match is None:
        return set(), []
    group = "a" if match.group("a") else "b"
    span = match.span(group)
    names = [w for w in re.findall(r"[A-Za-z0-9]+", match.group(group).lower())
             if w not in ("the", "a", "an", "log", "file", "files", "document", "documents")]
    if not names:
        return set(), []
    docs = []
    for doc_id, title in layout.titles.items():
        have = set(stems(title))
        if all(stems(w) and stems(w)[0] in have for w in names):
            docs.append(doc_id)
    if not docs:
        return set(), []
    return _positions(question, *span), docs


def key_positions(q_words: list[str], key: str) -> set[int]:
    """Where the question's words name field `key` (`germ_pct`: "germination percentage")."""
    return {i for i, w in enumerate(q_words) if any(names_key(k, w) for k in words(key))}


_NUM = r"(?P<cur{k}>[£$€])?\s?(?P<n{k}>\d[\d,]*(?:\.\d+)?)"
_UNIT = r"(?:\s*(?P<unit{k}>%|percent\b|[a-z]+\b))?"
_COMPARE = re.compile(
    r"\b(?P<op>under|below|less\s+than|fewer\s+than|lower\s+than|over|above|more\s+than|"
    r"greater\s+than|higher\s+than|longer\s+than|shorter\s+than|at\s+least|at\s+most|"
    r"up\s+to)\s+(?:the\s+)?" + _NUM.format(k="")
    + _UNIT.format(k="")
    # "5.2 m or higher", "£40 or less": the comparison after its number.
    + r"|(?<![\w.,])" + _NUM.format(k="2") + _UNIT.format(k="2")
    + r"\s+or\s+(?P<after>more|higher|above|over|greater|longer|less|lower|below|fewer|under|"
    r"shorter|better|worse)\b"
    # "between 20 and 30 kg": both ends, inclusive.
    # (Not days of a month: "between 10 and 16 August" is a date range.)
    + r"|\bbetween\s+" + _NUM.format(k="3") + r"(?:\s*(?P<unit3>%|[a-z]+\b))??\s+and\s+"
    + _NUM.format(k="4") + r"(?![\d.,]*\d)(?!(?:st|nd|rd|th)?\s+" + MONTH_WORD + r"\b)"
    + _UNIT.format(k="4"), re.IGNORECASE)
_OPS: dict[str, str] = {"under": "<", "below": "<", "less than": "<", "fewer than": "<",
                        "lower than": "<", "over": ">", "above": ">", "more than": ">",
                        "greater than": ">", "higher than": ">", "longer than": ">",
                        "shorter than": "<", "at least": ">=",
                        "at most": "<=", "up to": "<="}
_OR_AFTER: dict[str, str] = {"more": ">=", "higher": ">=", "above": ">=", "over": ">=",
                             "greater": ">=", "longer": ">=", "less": "<=", "lower": "<=",
                             "below": "<=", "fewer": "<=", "under": "<=", "shorter": "<=",
                             # a score's ("averaging 180 or better"; a race time is asked
                             # "or faster")
                             "better": ">=", "worse": "<="}
_PERCENT = ("pct", "percent", "perc", "pc")
_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60,
            "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600,
            "hours": 3600}
"""A time unit a question compares with, in seconds."""


@dataclass(frozen=True)
class Stated:
    """A comparison as the question writes it, before any field is found for it: the
    operator, the number, its unit ("%", "m", "kg", "£" for a price) and where it is said."""

    op: str
    value: float
    unit: str
    start: int
    end: int


def stated_comparisons(question: str) -> list[Stated]:
    """Every numeric comparison the question states: "under £40", "over 2 s", "5.2 m or
    higher", "at least 60 percent", "between 20 and 30 kg" (two: >= 20 and <= 30)."""
    out = []
    for m in _COMPARE.finditer(question):
        if m.group("op"):
            ends = [(_OPS[" ".join(m.group("op").lower().split())], "", "")]
        elif m.group("after"):
            ends = [(_OR_AFTER[m.group("after").lower()], "2", "2")]
        else:
            ends = [(">=", "3", "4"), ("<=", "4", "4")]
        for op, k, unit_k in ends:
            unit = (m.group(f"cur{k}") or m.group(f"cur{unit_k}") or m.group(f"unit{k}")
                    or m.group(f"unit{unit_k}") or "")
            value = float(m.group(f"n{k}").replace(",", ""))
            # "under $1,500 complete": a currency is the unit; the word after is no unit.
            end = m.end(f"n{k}") if m.group("op") and m.group("cur") else m.end()
            out.append(Stated(op, value, unit.lower(), m.start(), end))
    return out


def uncompared_comparisons(question: str, compared_at: set[int]
                           ) -> tuple[list[Stated], set[int]]:
    """The stated comparisons no field took (none of their words among `compared_at`), and
    the positions of their words."""
    out: list[Stated] = []
    at: set[int] = set()
    for said in stated_comparisons(question):
        span = _positions(question, said.start, said.end)
        if span and not span & compared_at:
            out.append(said)
            at |= span
    return out, at


def comparisons(question: str, layout: Layout) -> list[tuple[Comparison, set[int]]]:
    """"germinated at under 60%", "took over 2 s": a numeric field compared with a number,
    and the word positions that say it (the field's words, the comparison, the number and
    its unit). The field is the one the number's unit names ("500 ms": dur_ms), else the
    numeric one the question names nearest before the comparison, else the one it names
    right after it ("under £40 a bottle"), else (a percentage) the one field whose name
    says percent; none: nothing."""
    q_words = [question[a:b].lower() for a, b in word_offsets(question)]
    numeric = numeric_fields(layout)
    named = {key: key_positions(q_words, key) for key in numeric}
    out = []
    for said in stated_comparisons(question):
        at = _positions(question, said.start, said.end)
        first, last = min(at), max(at)
        # A field named before the comparison is its subject unless other words come between
        # ("how many depth samples have a gamma ray above 100": the gamma ray, not DEPT).
        nearest = {key: max(p for p in ps if p < first) for key, ps in named.items()
                   if any(p < first for p in ps)}
        before = [(near, key) for key, near in nearest.items()
                  if not any(w not in STOP and w.isalpha() for w in q_words[near + 1:first])]
        after = [(min(p for p in ps if p > last), key) for key, ps in named.items()
                 if any(last < p <= last + 3 for p in ps)]
        unit = said.unit
        percent = [k for k in numeric if any(w in _PERCENT for w in words(k))]
        measured = [k for k in numeric if unit.isalpha() and key_positions([unit], k)]
        clocks = clock_fields(layout) if unit in _SECONDS else []
        if measured and len(clocks) == 1 and _titled(question, clocks[0], layout) > max(
                _titled(question, k, layout) for k in measured):
            measured = []  # the feed's durations, not another document's MIN column
        if not measured and len(clocks) == 1:
            # "run longer than 45 minutes" over durations "00:47:05": in seconds.
            out.append((Comparison(field=clocks[0], op=said.op,  # type: ignore[arg-type]
                                   value=said.value * _SECONDS[unit], clock=True), at))
            continue
        if len(measured) == 1:  # "took more than 500 ms": dur_ms
            key = measured[0]
        elif before:
            key = max(before)[1]
        elif after:
            key = min(after)[1]
        elif unit in ("%", "percent") and len(percent) == 1:
            key = percent[0]
        else:
            continue
        # "under 60 and ...": the next word is not its unit, when the records of the field
        # say it ("above 100 GAPI" over rows of bare numbers: the curve's unit).
        if unit.isalpha() and unit != "percent" and not key_positions([unit], key) and any(
                re.search(rf"\b{re.escape(unit)}\b", r.text, re.IGNORECASE)
                for r in layout.records if key in r.fields):
            at.discard(max(at))
        out.append((Comparison(field=key, op=said.op, value=said.value),  # type: ignore[arg-type]
                    at | named[key]))
    return out


def _titled(question: str, key: str, layout: Layout) -> int:
    """How many of the question's words the titles of the documents holding `key` say."""
    asked = set(stems(question))
    docs = {r.doc_id for r in layout.records if key in r.fields}
    return max((len(asked & set(stems(layout.titles.get(d, "")))) for d in docs), default=0)


_OWNER = re.compile(
    r"\b(?:did|does|do|has|have|had|will|would|can)\s+the\s+"
    r"(?P<s>(?:[a-z][\w'’-]*\s+){1,3})(?=(?:back|away|out|off|up|down)?\s*(?:[?.!,]|$|"
    r"(?:to|from|in|on|at|for|with|by|of|as|into|under|per|during|since|between)\b))"
    r"|\bthe\s+(?P<p>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)['’]s\s", re.IGNORECASE)


def owner_words(question: str) -> set[int]:
    """Positions of the words that name the collection as a whole, as the subject of the
    question's verb ("how many 404s did the library catalogue send back": the catalogue
    sent them all) or as the owner of the counted things ("the seed bank's accessions"):
    in lower case only (a name, "the Leeds branch", is something records may mark)."""
    out: set[int] = set()
    for match in _OWNER.finditer(question):
        if match.group("s"):
            subject = match.group("s").split()
            if len(subject) < 2:
                continue  # "did the catalogue send": the last word is the verb
            start = match.start("s")
            end = start + len(" ".join(subject[:-1]))  # the last word is the verb
        else:
            start, end = match.start("p"), match.end("p") + 2  # with its "'s"
        if question[start:end].islower():
            out |= _positions(question, start, end)
    return out


_PARTICLES = frozenset(("back", "away", "off", "down"))
_NOT_VERBS = frozenset("a an the my our your his her their its this that of in on at to from "
                       "with by for".split())
_CLAUSE_GOES_ON = _PREPOSITION | frozenset("and or but the a an this last yesterday today".split())


def particles(question: str) -> set[int]:
    """The particle of a phrasal verb that ends its clause ("did the catalogue send back?",
    "sent back to the GP"), not a word of what is counted ("back pain", "the back office")."""
    ws = words(question)
    return {i for i, w in enumerate(ws) if w in _PARTICLES and i > 0
            and ws[i - 1] not in _NOT_VERBS and (i + 1 == len(ws) or ws[i + 1] in _CLAUSE_GOES_ON)
            } | {i for i, w in enumerate(ws) if w == "place" and i > 0 and ws[i - 1] in _TAKE}


_TAKE = frozenset("take takes took taken taking".split())
"""Before "place": the verb "take place" ("appointments that took place in theatre")."""
