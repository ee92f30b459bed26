"""Single facts written in code, configuration and markup, found by the name they are
written under (no model call).

Three shapes state one value under a name a question says in its own words:

- a setting (`assignments`): `DEFAULT_POLL_SECONDS := 360` answers "the default polling
  interval, in seconds"; the name's words (cut at `_`, case changes and dots) must all be
  said by the question, as stems, abbreviations (`max` for maximum) or the words a short
  name stands for (`desc`); a unit word in the name (seconds) need not be said;
- an element's field (`markup`): `<ele>112</ele>` of the `<wpt>` whose `<name>` says
  "Summit - Goonhilly Downs gate" answers "the elevation of the Goonhilly summit
  waypoint"; the element is picked by what the question says of it (`described`);
- a command line's option (`command_options`): `install -m 0640 ... app.conf` answers
  "the mode app.conf is installed with"; the question must name the line's file or
  command, and a one-letter flag must be the first letter of the word asked.

In each, the name must say what the question asks (its head noun, `asked_label`), the
question's other words must be mostly in the document, the question must not already say
the value, and two readings that differ give nothing (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from .asked import asked_label, label_words
from .assignments import Setting, is_reference, name_words, settings
from .code_records import Span, code_records
from .command_options import command_options
from .dates import said_dates
from .described import abbreviates, named_words, pick_record, question_codes, stems_of
from .doc_titles import name_says
from .markup import element_records
from .naming import entities, says, written_forms
from .record_units import Unit
from .units import STOP, normalise, stems

__all__ = ["CodeFact", "code_fact"]

_UNIT_WORDS = frozenset(stems(
    "seconds secs sec ms millis milliseconds minutes mins hours hrs days weeks bytes kb mb "
    "gb kib mib gib percent pct"))
"""A name's unit word (`TIMEOUT_SECONDS`) says how its value is counted, not what it is."""
_ASKING = frozenset(stems(
    "which what who whom whose when where how many much value set given default say said "
    "file"))
_FILE = re.compile(r"(?<![\w.-])[\w-]+(?:\.[A-Za-z][\w-]*)+(?![\w-])")
_RELATIVE = re.compile(r"(?<=\w)\s+(?:where|which|that|who|whom|whose)\s+(.*)$", re.IGNORECASE)
"""A clause describing the thing by another ("in the village where the lunch stop is")."""
_OPENING_LINES = 2
_OPENING_CHARS = 400
_MIN_SAID_SHARE = 0.5
"""Share of the question's other words the document must say."""
_NAME_STEM = 4
_BOUND_ASKED = {
    "min": frozenset(stems("smallest minimum min lowest least fewest shortest")),
    "max": frozenset(stems("largest maximum max highest most longest biggest greatest"))}
_NOTE_SAID = 2
_NOTE_SHARE = 2 / 3
_BOUND_WORDS = frozenset().union(*_BOUND_ASKED.values(), stems("allowed permitted possible"))
_BOUND_NOTE = {"min": re.compile(r"\bmin(?:imum)?\.?:?\s+(?P<value>-?[\w.]+)", re.IGNORECASE),
               "max": re.compile(r"\bmax(?:imum)?\.?:?\s+(?P<value>-?[\w.]+)", re.IGNORECASE)}
_RANGE_NOTE = re.compile(r"\brange:?\s+(?P<min>-?[\w.]+)\s*(?:-|to|\.\.)\s*(?P<max>-?[\w.]+)",
                         re.IGNORECASE)
"""A setting's note giving the bounds it may be set to: `# min 64kB`, `# range 30s-1d`."""


@dataclass(frozen=True)
class CodeFact:
    """The value read, the name it is under, the question's words that say that name, and
    the span cited (its line, or its element)."""

    value: str
    label: str
    asked_as: str
    doc_id: str
    start: int
    end: int
    opening: tuple[int, int] | None = None
    """The document's opening lines, cited too when they name what the question names and
    the cited span does not (the `<gpx>` root of a waypoint, a build file's title); or the
    line the value was read from when the cited one names it (`default = "m5.large"` of
    the `variable "size"` that `instance_type = var.size` names)."""


def _opening(question: str, text: str, start: int, end: int) -> tuple[int, int] | None:
    """The document's first lines, when the span does not name every entity the question
    names and they do."""
    span = normalise(text[start:end])
    missing = [e for e in entities(question)
               if not any(says(span, form) for form in written_forms(e))]
    if not missing:
        return None
    lines = [m for m in re.finditer(r"[^\n]*\S[^\n]*", text[:_OPENING_CHARS])][:_OPENING_LINES]
    if not lines or lines[-1].end() > start:
        return None
    head = normalise(text[:lines[-1].end()])
    if all(any(says(head, form) for form in written_forms(e)) for e in missing):
        return (lines[0].start(), lines[-1].end())
    return None


def _name_said(name: str, question: str) -> set[str] | None:
    """The question's stems that say each word of the name (a unit word aside), or None
    when one is not said; a name of only unit words says nothing."""
    q_stems = set(stems(question))
    q_words = [w.lower() for w in re.findall(r"[A-Za-z]+", question)]
    used: set[str] = set()
    for word in name_words(name):
        if word in STOP:
            continue
        if word.isdigit():
            if not re.search(rf"(?<!\d){word}(?!\d)", question):
                return None
            continue
        forms = label_words(word)
        hit = (forms & q_stems) or {stems(w)[0] for w in q_words
                                    if abbreviates(word, w) and stems(w)}
        if hit:
            used |= hit
        elif not forms & _UNIT_WORDS:
            return None
    return used or None


def _says_asked(used: set[str], question: str) -> bool:
    """The name says what the question asks for (its head or the word before it)."""
    wanted = asked_label(question)
    return not wanted or any(w in used for w in wanted)


def _about(question: str, text: str, used: set[str], name: str = "") -> bool:
    """The document is about what the question names: its names, codes and file names
    all said, and half of its other words at least (by the text or its file's name)."""
    text_stems = stems_of(text)
    lowered = text.lower()
    if any(w not in text_stems and not name_says(name, w, _NAME_STEM)
           for w in named_words(question)):
        return False
    if any(code.lower() not in lowered for code in question_codes(question)):
        return False
    if any(name.lower() not in lowered for name in _FILE.findall(question)):
        return False
    # A bound asked ("the smallest ... allowed") is read from a note, not said of the file.
    rest = set(stems(question)) - used - STOP - _ASKING - _BOUND_WORDS
    said = sum(1 for w in rest if w in text_stems or name_says(name, w, _NAME_STEM))
    return said >= _MIN_SAID_SHARE * len(rest)


def _asked_as(question: str, used: set[str]) -> str:
    return " ".join(w for w in re.findall(r"[A-Za-z][\w'’-]*", question)
                    if set(stems(w)) & used)


def _one(found: list[tuple[tuple[int, ...], CodeFact]]) -> CodeFact | None:
    """The best-scored reading, when every reading scored as well gives its value."""
    if not found:
        return None
    best = max(score for score, _ in found)
    top = {normalise(fact.value): fact for score, fact in found if score == best}
    if len(top) != 1:
        return None
    fact = next(iter(top.values()))
    # `instance_type = var.reporting_instance_type` says where the value is, not what it is.
    return None if is_reference(fact.value) else fact


_BREAK = re.compile(r"\n[ \t]*\n|^[ \t]*\[[^\]\n]+\][ \t]*$", re.MULTILINE)
"""Where a block of settings starts or ends: a blank line or a `[section]` header."""


def _block(text: str, start: int) -> str:
    """The lines around the one at `start` up to a blank line or a section header on
    either side (the section header itself is the setting's parent)."""
    begin = max((m.end() for m in _BREAK.finditer(text, 0, start)), default=0)
    after = _BREAK.search(text, start)
    return text[begin:after.start() if after else len(text)]


def _bound(question: str, setting: Setting, used: set[str]) -> Setting | None:
    """The setting with the bound the question asks for as its value ("the smallest
    work_mem allowed" is the `# min 64kB` of its note, not its default); unchanged when no
    bound is asked or the name says it (`min_wal_size`); None when its note gives none."""
    q_stems = set(stems(question)) - used
    asked = [b for b, words in _BOUND_ASKED.items() if words & q_stems]
    if not asked:
        return setting
    if len(asked) > 1:
        return None
    bound = asked[0]
    if set(stems(" ".join(name_words(setting.name)))) & _BOUND_ASKED[bound]:
        return setting
    found = {m.group("value") for m in _BOUND_NOTE[bound].finditer(setting.note)} | {
        m.group(bound) for m in _RANGE_NOTE.finditer(setting.note)}
    if len(found) != 1:
        return None
    # The note is cited with the line, for the bound to be read in what is cited.
    return replace(setting, value=found.pop(), end=setting.note_end or setting.end)


_SETTING_WORDS = frozenset(stems("setting settings option parameter value default config "
                                 "configuration file sample"))


def _note_said(setting: Setting, question: str, name: str) -> set[str] | None:
    """The question's words that the setting's note and name say, when the question
    describes the setting instead of naming it ("the setting that limits how much temp file
    space each process may use" is `temp_file_limit`, noted "limits per-process temp file
    space"): two at least, and two thirds of the words the file's name does not say."""
    if asked_label(question) and not set(asked_label(question)) <= _SETTING_WORDS:
        return None
    words = set(stems(question)) - STOP - _ASKING - _SETTING_WORDS - _BOUND_WORDS
    words = {w for w in words if not name_says(name, w, _NAME_STEM)}
    said = words & (stems_of(setting.note) | set(stems(" ".join(name_words(setting.name)))))
    if len(said) < _NOTE_SAID or len(said) < _NOTE_SHARE * len(words):
        return None
    return said


def _setting_facts(question: str, doc_id: str, text: str, name: str = ""
                   ) -> list[tuple[tuple[int, ...], CodeFact]]:
    q_stems = set(stems(question))
    matched = []
    found = settings(text)
    named = {s.start for s in found if _name_said(s.name, question) is not None}
    for setting in found:
        used = _name_said(setting.name, question)
        if used is not None and not _says_asked(used, question):
            continue
        # A setting described by its note only when the question names none.
        if used is None and not named and setting.note:
            used = _note_said(setting, question, name)
        if used is None:
            continue
        if (bounded := _bound(question, setting, used)) is None:
            continue
        setting = bounded
        # The keys and section above it say which; else the block of lines it is in (its
        # comments, a sibling `label = ...`); a file's title comment tells none apart.
        parents = stems_of(" ".join(setting.parents)) & q_stems - used
        block = stems_of(_block(text, setting.start)) & q_stems - used
        # A brace block's opening line and the lines down to the setting (its
        # `description = ...`) say which record it is a field of; they are cited with it.
        if setting.block is not None:
            block |= stems_of(text[setting.block[0]:setting.start]) & q_stems - used
        matched.append((setting, used, parents, parents | block))
    if not matched:
        return []
    # Only the question's words that some of the settings' places say and others do not
    # tell them apart ("kiln" over every kiln's section says none).
    contexts = [set(context) for *_, context in matched]
    telling = set().union(*contexts) - set.intersection(*contexts)
    return [((len(used), len(parents & telling), len(context & telling)),
             CodeFact(setting.value, setting.name, _asked_as(question, used), doc_id,
                      setting.block[0] if setting.block else setting.start, setting.end,
                      setting.source))
            for setting, used, parents, context in matched]


def _option_facts(question: str, doc_id: str, text: str, name: str = ""
                  ) -> list[tuple[tuple[int, ...], CodeFact]]:
    wanted = asked_label(question)
    lowered = question.lower()
    out = []
    for option in command_options(text):
        named = [t for t in (*option.targets, option.command)
                 if re.search(rf"(?<![\w.-]){re.escape(t.lower())}(?![\w-])", lowered)]
        if not named or not wanted:
            continue
        if len(option.flag) == 1:  # `-m`: the first letter of the word asked
            head = next((w for w in re.findall(r"[a-z]+", lowered)
                         if stems(w)[:1] == [wanted[0]]), "")
            if not head.startswith(option.flag.lower()):
                continue
            used = {wanted[0]}
        elif (used := _name_said(option.flag, question)) is None or not _says_asked(
                used, question):
            continue
        out.append(((len(used), len(named)),
                    CodeFact(option.value, f"{option.command} -{option.flag}",
                             _asked_as(question, used), doc_id, option.start, option.end)))
    return out


def _through_another(question: str, picked: Unit, units: list[Unit]) -> bool:
    """The question describes the element through another one ("the water stop in the
    village where the lunch pub is"): a word of its relative clause that the picked element
    does not say, another does. That is a hop, not this element's own description."""
    clause = _RELATIVE.search(question)
    if clause is None:
        return False
    words = set(stems(clause.group(1))) - STOP - _ASKING
    own = stems_of(picked.text)
    return any(w not in own and w in stems_of(u.text) for u in units if u is not picked
               for w in words)


def _element_facts(question: str, doc_id: str, text: str, name: str = ""
                   ) -> list[tuple[tuple[int, ...], CodeFact]]:
    """The asked field of the record the question describes, among a markup file's
    elements or each group of a Python module's records (`code_records`)."""
    markup = element_records(text)
    groups = [markup] if markup is not None else code_records(text)
    return [found for records in groups for found in _record_facts(question, doc_id, text,
                                                                    records)]


def _record_facts(question: str, doc_id: str, text: str, records: list[Span]
                  ) -> list[tuple[tuple[int, ...], CodeFact]]:
    units = [Unit(doc_id, start, end, tuple((path, value, start, end)
                                            for path, value in fields.items()),
                  text[start:end]) for start, end, fields in records]
    counts: dict[str, int] = {}
    for _, _, fields in records:
        for path in fields:
            counts[path] = counts.get(path, 0) + 1
    must = named_words(question)
    codes = question_codes(question)
    out = []
    for path, n in counts.items():
        if 2 * n < len(records) or path == "element":
            continue
        used = _name_said(path.rsplit(".", 1)[-1], question)
        if used is None or not _says_asked(used, question):
            continue
        words = set(stems(question)) - used - STOP - _ASKING - must
        picked = pick_record(units, words, must - used, [], codes)
        if picked is None:
            continue
        unit, said = picked
        if _through_another(question, unit, units):
            continue
        value = next((v for label, v, _, _ in unit.fields if label == path), "")
        if value:
            out.append(((len(used), len(said)),
                        CodeFact(value, path, _asked_as(question, used), doc_id,
                                 unit.start, unit.end)))
    return out


_DATE_ASKED = re.compile(r"\b(?:what|which)\s+(?:day|date)\b", re.IGNORECASE)


def _date_only(question: str, fact: CodeFact) -> CodeFact:
    """The date of a value that also gives a clock time (`Thu, 02 Jul 2026 06:00:00
    +0000`), when the question asks a date: the time is not what is asked."""
    if not _DATE_ASKED.search(question):
        return fact
    dates = said_dates(fact.value)
    if len(dates) != 1:
        return fact
    start, end, _ = dates[0]
    return replace(fact, value=fact.value[start:end])


def code_fact(question: str, docs: Iterable[tuple[str, str]],
              names: Mapping[str, str] | None = None) -> CodeFact | None:
    """The one value a setting, an element's field or a command's option gives for what
    the question asks (see the module), or None. `names` gives each document's file name,
    which says what the document is ("the postgres sample config")."""
    found = []
    for doc_id, text in docs:
        name = (names or {}).get(doc_id, "")
        for read in (_setting_facts, _element_facts, _option_facts):
            for score, fact in read(question, doc_id, text, name):
                if normalise(fact.value) in normalise(question):
                    continue
                if _about(question, text, set(stems(fact.asked_as)), name):
                    opening = fact.opening or _opening(question, text, fact.start, fact.end)
                    found.append((score, replace(fact, opening=opening)))
    best = _one(found)
    return _date_only(question, best) if best else None
