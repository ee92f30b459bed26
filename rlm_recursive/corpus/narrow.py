"""An answer line narrowed to the one value the question asks for.

A line that answers often holds other values beside the asked one, and an answer naming
them is no answer (the sibling's price, the old price, the other modes' run times, the
years a record covers beside the year it is closed until). Whatever the document's format,
a line says which value is which in a few ways, and `narrowed` reads them in turn:
- labels: "Price: £179.99   Rating: 3.4 / 5", "Weight ....... 2.4 kg", "(ID 7750)": the
  value after the label the question asks for;
- asides in brackets: an old value ("(was £229.99)") and a sibling's value ("(V9 PLUS: up
  to 90 min)") are not this entity's current one, unless the question asks for them;
- a list aligned with its label's list ("Run time (eco / standard / boost) ... 45 / 28 /
  7 min"): the item in the place of the one the question names;
- a preposition the question puts before what it asks ("until what year"): the value the
  line puts after that same word ("CLOSED until 2047", not the dates 1950-1971).
What is left must hold one value of the kind asked (a year for "what year", an amount of
money for a price): with several the question cannot tell apart, there is no answer (None).
A line holding at most one value is returned as it is.
"""

from __future__ import annotations

import re

from .asked import asked_phrase, label_says
from .naming import entities, values
from .units import MONEY_SUM, normalise, stems

__all__ = ["CLOCK_ASKED", "MONEY_ASKED", "TIME_TAKEN", "TIME_TAKEN_ASKED", "narrowed",
           "narrowed_in_line"]

_LABEL = re.compile(
    r"(?:^|(?<=\s)|(?<=[;|•·]))"
    r"(?P<label>[A-Za-z][\w'’&/.-]*(?:(?<!\.)[ ][A-Za-z][\w'’&/.-]*|(?<=\.)[ ][a-z][\w'’&/.-]*)"
    r"{0,3}(?:\s*\([^()]{1,60}\))?)"
    r"(?:\s*:\s+|\s*\.{3,}\s*|\s*…+\s*)")
"""A label opening a line or a stretch of it ("Price: ", "Weight .....", "Rating: "); a
sentence's end is no word of it ("Ride leader: Tamsin Rowe. Sweep: ...")."""
_SENTENCE_END = re.compile(r"(?<=[a-z]{3})\.\s+(?=[A-Z])")
"""Where a labelled value's sentence ends: "Sweep: Gareth Penrose. Route card v2 ..."."""
_ASIDE = re.compile(r"\(([^()]*)\)")
_OLD = re.compile(r"^\s*(?:was|previously|formerly|originally|rrp|before|down from|"
                  r"reduced from|old)\b", re.IGNORECASE)
_ASKS_OLD = re.compile(r"\b(?:was|previous(?:ly)?|old|original(?:ly)?|before|used to|"
                       r"formerly|rrp)\b", re.IGNORECASE)
_NAMED_ASIDE = re.compile(r"^\s*(?P<name>[^:]{1,40}?)\s*:\s+(?P<rest>.+)$")
_LABELLED_ASIDE = re.compile(r"^\s*(?P<label>[A-Za-z][\w.-]{0,15})\s+(?P<value>\S*\d\S*)\s*$")
_NAMING_ASIDE = re.compile(r"^[A-Z0-9][^()]{0,60}$")
"""An aside that names something: it opens as a name or a code does ("Kestrel Dental Lab")."""
_SLASHED = re.compile(r"[^\s/]+(?:\s*/\s*[^\s/]+)+")
_PREPOSITION = re.compile(r"\b(until|till|since|from|before|after|by)\s+(?:what|which|when)\b",
                          re.IGNORECASE)
_WHEN_LAST = re.compile(r"^\s*when\b.*\b([A-Za-z][a-z]{2,})\W*$", re.IGNORECASE)
"""A "when" question's last word ("when was the patch test redone"): the act whose date is
asked, written before it on a line of two dates ("14/08/25 neg · redone 27/01/26 neg")."""
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b|\b(?:until|since)\s+when\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d/.,])(?:1[5-9]\d\d|20\d\d)(?![\d/]|[.,]\d)")
_NOT_A_SUM = (r"centre|center|code|band|grade|type|category|ref|reference|id|no|number|list|"
              r"slip|status|date|day|form|request|method|policy|terms|scale|period|run|award|"
              r"rise|review|point|structure")
MONEY_ASKED = re.compile(
    # A "when" question asks a date, whatever sum it names ("when is the rent due"); "how
    # many" counts ("how many orders were refunded").
    r"^(?!\s*(?:when|what\s+(?:date|day|time)|which\s+(?:date|day)|how\s+many)\b).*?(?:"
    r"\bhow\s+much\b[^?]*\b(?:paid|pay|pays|payout|spent|spend|owe[ds]?|owing|charged?|"
    r"charges|costs?|refund\w*|reimburs\w*|earn\w*|compensat\w*|worth|bill|invoice[ds]?|"
    r"quoted?|ask(?:s|ed|ing)?|grant(?:s|ed)?|award(?:s|ed)?|request(?:s|ed|ing)?)\b|"
    r"\bwhat\s+(?:did|does|do|will|would)\b[^?]*\b(?:pay|charge|cost)\b|"
    r"\b(?:what(?:['’]s|\s+is|\s+was)\s+the\s+quote\s+for)\b|"
    # A word of a name ("the fare-sync worker") asks no sum, nor does "in charge".
    r"(?<![\w-])(?<!in\s)(?:price[ds]?|cost(?:s|ing)?|fees?|fares?|premiums?|payout|"
    r"compensation|refund|rent|salary|wages?|charges?)(?![\w-])"
    rf"(?!\s+(?:{_NOT_A_SUM})\b))", re.IGNORECASE | re.DOTALL)
"""A sum of money is asked: "how much ... paid / for", "the price", "what did she pay" (not
the "cost centre" or "pay date" a money word names, nor "when is the rent due")."""
_MONEY = re.compile(r"[£$€¥]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:GBP|USD|EUR)\b")
_CHANGE = re.compile(r"\bfrom\s+\S*\d\S*\s+(?:to|until)\s+\S*\d|\d\S*\s*(?:→|->)\s*\S*\d")
_PLACE_WORDS = frozenset(stems("mode setting level speed tier class size option"))


_MONEY_ASKED = re.compile(r"\bhow\s+much\b|\b(?:price|cost|charge|fee|fare|quote|quoted|"
                          r"premium)s?\b(?!\s+(?:code|ref|id|no|number)\b)", re.IGNORECASE)


def narrowed(question: str, text: str) -> str | None:
    """`text` narrowed to the value the question asks for (see the module docstring); None
    when it holds several values of the kind asked that nothing tells apart."""
    line = text.strip()
    if "\n" in line:
        own = _entity_line(question, line)
        return text if own is None else narrowed(question, own)
    if len(_figures(question, line)) < 2:
        return text
    label, part = _asked_segment(question, line)
    part = re.sub(r"\([^()]*$", " ", part)  # an aside a cut left open says nothing whole
    part = _asides_dropped(question, part)
    part = _aligned(question, label, part)
    if part is None:
        return None
    if (match := _PREPOSITION.search(question)) is not None:
        after = re.search(rf"\b{match.group(1)}\s+(\S+)", part, re.IGNORECASE)
        if after is not None and any(c.isdigit() for c in after.group(1)):
            part = after.group(0)
    if (last := _WHEN_LAST.match(question)) is not None:
        after = re.search(rf"\b{re.escape(last.group(1))}\w*\s+(\S*\d\S*)", part, re.IGNORECASE)
        if after is not None:
            part = after.group(0)
    if (part := _word_picked(question, part)) is None:
        return None
    if not label and CLOCK_ASKED.search(question):
        part = _clock_time(question, part) or part
    if _undecided(question, part):
        return None
    if part == line or (_MONEY_ASKED.search(question) and MONEY_SUM.search(line)
                        and not MONEY_SUM.search(part)):
        return text  # a sum is asked: "(quote Q-118)" beside "£1,240" is its reference
    # The label stays with its value: a record's field is checked by its name (`verify_extract`).
    named = re.sub(r"\s*\([^()]*\)", "", label).strip()
    if named and f"{named} {part}" in line:
        return f"{named} {part}"  # written so ("(Box 4)"): quoted as the line says it
    return " ".join((f"{named}: {part}" if named and label in line else part).split())


def _entity_line(question: str, text: str) -> str | None:
    """Of several lines, the one line that names every entity the question names and gives
    a value (a price line over its sibling's "Also available: V9 PLUS — £229.99"), when
    the lines before it do not name them all; else None."""
    named = entities(question)
    lines = [line for line in text.split("\n") if line.strip()]
    said = [i for i, line in enumerate(lines)
            if all(e in normalise(line) for e in named) and _figures(question, line)]
    if not named or len(said) != 1 or all(
            e in normalise(" ".join(lines[:said[0]])) for e in named):
        return None
    return lines[said[0]]


def _figures(question: str, text: str) -> list[str]:
    """The values with a digit that the text holds and the question does not name."""
    said = normalise(question)
    return [v for v in values(text) if any(c.isdigit() for c in v) and v not in said]


def _says_asked(question: str, label: str) -> int:
    """How well a label says what is asked: 2 when it says the asked phrase's head (its last
    word: "ID" of "MOT tester ID"), 1 another of its words, 0 none. Words are matched whole,
    by stem and run together ("runtime" is "Run time")."""
    asked = asked_phrase(question) or _role_asked(question)
    if not asked:
        return 0
    bare = re.sub(r"\([^()]*\)", " ", label)
    own = set(stems(bare))
    joined = re.sub(r"[^a-z0-9]", "", bare.lower())
    hits = [w for w in asked if w in own or (len(w) >= 5 and w in joined)]
    if asked[-1] in hits:
        return 2
    return 1 if hits and label_says(question, bare) else 0


_WHO_ROLE = re.compile(r"^\s*who\s+(?:is|was|are|were|will\s+be)\s+(?:the\s+)?"
                       r"((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)"
                       r"(?=\s+(?:on|at|for|of|in|from|with|to)\b|\s*\??\s*$)", re.IGNORECASE)
"""The role a "who" question asks ("who was sweep on the ride" → sweep): a label naming it
says which name of the line is the one asked."""


def _role_asked(question: str) -> list[str]:
    match = _WHO_ROLE.match(question)
    return stems(match.group(1)) if match else []


def _asked_segment(question: str, line: str) -> tuple[str, str]:
    """The label the question asks for and the value after it, up to the next label ("Price:
    £179.99 (was £229.99)" of "Price: ... Rating: 3.4 / 5"); ("", line) when no label of
    the line, or several alike, says what is asked."""
    inside = [m.span() for m in _ASIDE.finditer(line)]
    found = [m for m in _LABEL.finditer(line) if not any(a < m.start() < b for a, b in inside)]
    segments = [(m.group("label"), line[m.end():found[i + 1].start() if i + 1 < len(found)
                                      else len(line)]) for i, m in enumerate(found)]
    # "(ID 7750)": a label and its value inside brackets, when the line outside them does
    # not say that label itself ("Extension 5163 ... deputy (extension 5168)").
    outside = set(stems(_ASIDE.sub(" ", line)))
    for aside in _ASIDE.finditer(line):
        if (labelled := _LABELLED_ASIDE.match(aside.group(1))) is not None and not set(
                stems(labelled.group("label"))) & outside:
            segments.append((labelled.group("label"), labelled.group("value")))
    # "lab (Kestrel Dental Lab)": a word, and the name the brackets after it give it.
    for aside in _ASIDE.finditer(line):
        word = re.search(r"([A-Za-z][\w'’-]*)\s*$", line[:aside.start()])
        if word is not None and _NAMING_ASIDE.match(aside.group(1)):
            segments.append((word.group(1), aside.group(1)))
    scored = [(_says_asked(question, label), label, value) for label, value in segments]
    best = max((score for score, _, _ in scored), default=0)
    picked = [(label, value) for score, label, value in scored if score == best]
    if best == 0 or len({value.strip() for _, value in picked}) != 1:
        return "", line
    return picked[0][0], _SENTENCE_END.split(picked[0][1].strip(), maxsplit=1)[0]


def _asides_dropped(question: str, part: str) -> str:
    """The part without the asides that give another value than the one asked: an old one
    ("was £229.99") and a sibling's ("V9 PLUS: up to 90 min"). When the question names the
    sibling an aside is about, the aside is the answer."""
    named = entities(question)
    out = part
    for aside in _ASIDE.finditer(part):
        inner = aside.group(1)
        if not _figures(question, inner):
            continue
        if _OLD.match(inner):
            if _ASKS_OLD.search(question):
                return inner
            out = out.replace(aside.group(0), " ")
            continue
        sibling = _NAMED_ASIDE.match(inner)
        if sibling is None:
            if _picked_aside(question, inner, part.replace(aside.group(0), " ")):
                return inner
            continue
        owner = normalise(sibling.group("name"))
        another = _names_another(owner, question)
        if named and not another and all(e in owner for e in named) and not all(
                e in normalise(part.replace(aside.group(0), " ")) for e in named):
            return sibling.group("rest")
        if another:
            out = out.replace(aside.group(0), " ")
    return out


def _picked_aside(question: str, inner: str, outside: str) -> bool:
    """An aside giving a value for a case the question names and the rest of the line does
    not ("£65 for the term (£35 for students)" for the students' rate): it is the answer."""
    named = set(stems(" ".join(entities(question))))
    picking = set(stems(inner)) - set(stems(outside)) - named
    # The aside's value is of the kind the line's is: "(T-4, wing)" beside "2290 Brill Rd"
    # names the truck that hit the mailbox, not another address.
    kinds = {_figure_kind(v) for v in _figures(question, outside)}
    return bool(kinds & {_figure_kind(v) for v in _figures(question, inner)}) and bool(
        picking & set(stems(question)))


def _figure_kind(value: str) -> str:
    """A figure's kind by its shape: a sum, a clock time, a code of letters and digits, or
    a plain number."""
    if MONEY_SUM.search(value) or value[:1] in "£$€":
        return "money"
    if _CLOCK.search(value):
        return "clock"
    return "code" if re.search(r"[^\W\d_]", value) else "number"


def _names_another(owner: str, question: str) -> bool:
    """An aside's owner ("v9 plus") says a word the question does not: another entity."""
    said = set(stems(question)) | {w.lower() for w in re.findall(r"\w+", question)}
    return any(w not in said for w in re.findall(r"\w+", owner))


def _aligned(question: str, label: str, part: str) -> str | None:
    """A list in the value aligned with a list in its label ("eco / standard / boost" over
    "45 / 28 / 7 min"): the item in the place of the one the question names; None when the
    question names several and nothing says which; the part as it is when it names none."""
    lists = [m for m in _SLASHED.finditer(part) if any(c.isdigit() for c in m.group())]
    if len(lists) != 1:
        return part
    # With no label picked, the list before the values is theirs ("(quiet / turbo) ... 11 / 3").
    heads = _SLASHED.findall(label) or [h for h in _SLASHED.findall(part[:lists[0].start()])
                                        if not any(c.isdigit() for c in h)][-1:]
    if not heads:
        return part
    names = [n.strip(" ()[]") for n in heads[0].split("/")]
    items = [i.strip() for i in lists[0].group().split("/")]
    if len(names) != len(items):
        return part
    words = re.findall(r"[\w'-]+", question.lower())
    said = [i for i, n in enumerate(names) if n.lower() in words]
    if len(said) > 1:
        said = [i for i in said if _names_place(words, names[i].lower())]
    if not said:
        return part
    if len(said) > 1:
        return None
    match = lists[0]
    return part[:match.start()] + items[said[0]] + part[match.end():]


def _names_place(words: list[str], name: str) -> bool:
    """The question uses the word as a place in a list ("on eco mode", "in boost"), not as a
    word of an entity's name ("the standard V9")."""
    at = words.index(name)
    after = stems(words[at + 1]) if at + 1 < len(words) else []
    return (bool(after and after[0] in _PLACE_WORDS)
            or (at > 0 and words[at - 1] in ("on", "in", "at", "under")))


_WORD_VALUE = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z'’-]+)\s+(\d[\d,]*(?:\.\d+)?)"
                         r"\s?([A-Za-z%°]{1,3})(?![\w:-]|\.\w)")
"""A word and the measure after it, with its unit: "Springs 4.6 m", "Neaps 2.1 m" (not "Run
5", nor a time "Monday 10:30")."""


def _word_picked(question: str, part: str) -> str | None:
    """In a line whose figures are a run of measures of one unit, each named by the word
    before it ("Springs 4.6 m   Neaps 2.1 m"), the one whose word the question says; None
    when the question says none of them (or several): the line gives siblings and nothing
    tells which is asked. The part as it is when it is no such line."""
    pairs = [m for m in _WORD_VALUE.finditer(part) if not set(stems(m.group(1))) & _STOPPED]
    by_unit: dict[str, list[re.Match[str]]] = {}
    for match in pairs:
        by_unit.setdefault(match.group(3).lower(), []).append(match)
    runs = [run for run in by_unit.values()
            if len(run) > 1 and len({stems(m.group(1))[0] for m in run if stems(m.group(1))})
            == len(run) and len({m.group(2) for m in run}) == len(run)]
    # Only a line of nothing but the siblings: beside other figures ("Flow 74 °C, return
    # 60 °C. Pressure 1.2 bar") the run is not what the line answers.
    if len(runs) != 1 or not set(_figures(question, part)) <= {
            normalise(m.group(2).replace(",", "")) for m in runs[0]}:
        return part
    asked = set(stems(question))
    said = [m for m in runs[0] if set(stems(m.group(1))) & asked]
    return said[0].group(0) if len(said) == 1 else None


_STOPPED = frozenset(stems("and or to from the a an of at by on in for was is are were than "
                           "about around over under up down only just"))
"""Words before a number that name nothing of it ("from 3 to 4 m", "about 12")."""


CLOCK_ASKED = re.compile(r"\b(?:what|which)\s+time\b(?!\s+(?:zone|slot|period|limit|frame))"
                         r"|\bat\s+what\s+hour\b", re.IGNORECASE)
"""A time of day asked ("at what time", not "what time zone")."""
TIME_TAKEN_ASKED = re.compile(
    r"['’]s\s+(?:(?:finish(?:ing)?|race|final|winning|total|split|lap|run(?:ning)?)\s+)?"
    r"time\b(?!\s+(?:zone|slot|off|sheet))|\b(?:finish(?:ing)?|race|winning|split|lap)\s+time\b",
    re.IGNORECASE)
"""A time taken asked ("Hanna Vik's time", "her finishing time"): a duration or a clock."""
TIME_TAKEN = re.compile(r"\d:\d\d|\d\s*(?:h|hrs?|hours?|min|mins|minutes|s|secs?|seconds)\b",
                        re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[ap]\.?m\b\.?)?(?![\d:])"
                    r"|(?<![\d:.])(?:1[0-2]|0?[1-9])(?:\.[0-5]\d)?\s?[ap]\.?m\b\.?", re.IGNORECASE)


def _clock_time(question: str, part: str) -> str | None:
    """The one clock time of a line, for "what time ...": a listing's "14:00 6011218/2026 Mr
    Daniel Corr v ..." says the time and the case it is for. None when it has none, or
    several the question does not name."""
    said = set(_CLOCK.findall(question))
    clocks = list(dict.fromkeys(c for c in _CLOCK.findall(part) if c not in said))
    return clocks[0] if len(clocks) == 1 else None


def _undecided(question: str, part: str) -> bool:
    """Several values of the kind asked are left: years for "what year", amounts of money
    for a price. Asides aside: the main text is what the line says of its subject."""
    main = _ASIDE.sub(" ", part)
    if _CHANGE.search(main):
        return False  # "from £26 to £28": grounding picks the side asked (`change_side`)
    if _ASKS_YEAR.search(question):
        return len(set(_YEAR.findall(main)) - set(_YEAR.findall(question))) > 1
    if MONEY_ASKED.search(question) and not re.search(r"\bweigh", question, re.IGNORECASE):
        return len({m.replace(" ", "") for m in _MONEY.findall(main)}) > 1
    return False


def narrowed_in_line(question: str, clause: str, unit_text: str) -> str | None:
    """A clause cut from a unit, narrowed by the whole line it was cut from: the line's
    label says which of its values is which ("Run time (eco / standard / boost) ..." over
    "up to 45 / 28 / 7 min"), and a cut may stop short of the asked value ("... tester"
    before "tester: S. Whitlock (ID 7750)"). The clause as it is when the line says no
    more; None when the line names sibling values the question picks none of ("Summer 3.8
    m and Winter 5.2 m": a clause cut at "and" holds one of them by chance)."""
    words = clause.split()
    if not words:
        return clause
    for line in unit_text.split("\n"):
        if " ".join(words[:3]) in " ".join(line.split()):
            if _word_picked(question, line) is None:
                return None
            whole = narrowed(question, line)
            if whole is not None and whole != line:
                return whole
            break
    return clause
