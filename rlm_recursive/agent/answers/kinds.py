"""The kind of value a question asks for, and whether an answer is of that kind, judged from
the value's shape and the label over it, never from a list of names:
- "who" wants a person or a role-holder. An organisation ("Forest Row Sports", "Bury &
  District Camera Club") answers only a question that asks for one ("who supplies ...",
  "which company ..."); a title, summary or event-name line ("SUMMARY:...") names no one;
- a phone number for "phone", "mobile", "number for <someone>", "<someone>'s number"; an
  extension for "extension", "bleep" (a time "08:30" in a line naming the fixtures
  secretary is no number for them);
- a date or time for "when", a number for "how many";
- a sum standing alone for "how much", "price", "premium", "insured" (a reference code's
  digits are no sum); a percentage for "what %"; some digits not measuring anything ("8 kg")
  for "flight no.", "ticket number", "exit code"; a weekday or a date for "which day".
"""

from __future__ import annotations

import re

from ...corpus.evidence import contains, entities, normalise, shared_words, stems, values
from ...corpus.units import Unit
from .labelled import only_a_person_for_a_topic, other_fields_only, other_side, without_times
from .measures import QP_ESCAPE, measure_fits, names_place, states_count

__all__ = ["asks_org", "asks_person", "asks_who", "change_side", "fits_kind", "fits_kind_in",
           "named_as_reference", "names_asked_role", "names_person", "says_act"]

_WHO = re.compile(r"^\s*(?:(?:can|could)\s+you\s+)?(?:tell\s+me\s+|remind\s+me\s+)?(?:"
                  r"who(?:m|se)?\b|(?:to|from|by|with)\s+whom\b|(?:the\s+)?name\s+of\b|"
                  r"what(?:['’]s|\s+is|\s+was)\s+the\s+name\s+of\b|(?:which|what)\s+"
                  r"(?:[\w-]+\s+){0,2}(?:person|people|member|officer|engineer|nurse|doctor|"
                  r"admin|administrator|manager|technician|colleague|agent|staff|judge|"
                  r"chair(?:person|man|woman)?|tester|mechanic|inspector|clerk|driver|pilot|"
                  r"teacher|tutor|surgeon|solicitor|barrister|referee|umpire|steward|captain|"
                  r"witness|midwife|carer|coach|instructor|assessor|surveyor|receptionist|"
                  r"supervisor|secretary|treasurer|employee)\b)",
                  re.IGNORECASE)
"""The question asks for a person (its opening says so: a "who" further on is a clause,
"the extension of the person who manages ...")."""


def asks_who(question: str) -> bool:
    """The question asks for a person: "who ...", "which person", "name of the crew
    member ...", "which engineer ..."."""
    return _WHO.search(question) is not None


_ORG_NOUNS = re.compile(
    r"\b(?:compan(?:y|ies)|firm|business|organi[sz]ation|supplier|contractor|vendor|"
    r"provider|team|club|side|charity|school|shop|store|manufacturer|maker|brand|carrier|"
    r"insurer|bank|agency|group|band|society|venue|sponsor|landlord|host|winner|opponent|"
    r"caterer|builder|publisher|operator|hirer|tenant|customer|client)s?\b", re.IGNORECASE)
"""Nouns an organisation may fill ("which firm", "who is the supplier")."""
_ORG_VERBS = frozenset(stems(
    "supplies provides hosts makes manufactures produces organises runs sponsors owns "
    "operates publishes builds insures delivers funds sells stocks booked hires rents leases "
    "installs services maintains repairs cleans caters prints ships carries handles employs "
    "contracts won loses beat leads tops plays finished represents issues bills invoices "
    "charges pays audits manages uses holds"))
"""Acts a firm, a club or a team does as well as a person ("who supplies the pontoons")."""
_SKIP = frozenset("is was are were will would has have had does did do should can could "
                  "the a an currently now still".split())


def asks_person(question: str) -> bool:
    """A "who" question whose answer must be a person or a role-holder (not a firm)."""
    return asks_who(question) and not asks_org(question)


def asks_org(question: str) -> bool:
    """The question may be answered by an organisation: it asks for a role one may fill
    ("who is the supplier") or who did what firms do ("who supplies ...", "who booked ...")."""
    role, verb = _asked_role(question)
    if role:
        return bool(_ORG_NOUNS.search(" ".join(role)))
    return bool(verb) and bool(set(stems(verb)) & _ORG_VERBS)


_ROLE_END = frozenset("at for of in on to from with by who that which when this".split())


def _asked_role(question: str) -> tuple[list[str], str]:
    """After "who": the role asked ("who is the presiding officer for ..." → presiding
    officer), else the act ("who refereed ..." → refereed)."""
    match = re.search(r"\bwho(?:m|se)?\b\s*(.*)", question, re.IGNORECASE)
    if match is None:
        return [], ""
    words = re.findall(r"[A-Za-z][\w-]*", match.group(1))
    if len(words) >= 2 and words[0].lower() in ("is", "was", "are", "were", "will", "would") \
            and words[1].lower() in ("the", "a", "an", "our", "their"):
        role = []
        for word in words[2:5]:
            if word.lower() in _ROLE_END:
                break
            role.append(word)
        return role, ""
    acts = [w for w in words if w.lower() not in _SKIP]
    return [], acts[0] if acts else ""


def says_act(question: str, unit: Unit, named: list[str]) -> bool:
    """The unit holding a "who" answer says something of what is asked, beyond the entities
    the question names: a line naming both teams of a match but no referee answers no
    "who refereed". True when the question has no words beside its entities."""
    named_stems = set(stems(" ".join(named)))
    topic = [w for w in dict.fromkeys(stems(question)) if w not in named_stems]
    return not topic or bool(shared_words(topic, unit.stem_set))


_ORG_ENDS = frozenset(stems(
    "club clubs society association sports sport fc afc cc rfc united athletic athletics "
    "rovers wanderers rangers dynamos reserves city town albion academicals ltd limited plc "
    "inc llc llp co corp corporation company companies group partners partnership trust "
    "council committee board authority agency department dept services solutions systems "
    "holdings industries bank school college university academy hospital surgery practice "
    "clinic church chapel players singers choir band orchestra guild union league "
    "federation institute foundation charity network studio studios works hotel inn arms "
    "cafe restaurant bar shop store stores market garage motors builders engineering "
    "plumbing electrical logistics transport foods farm dairy brewery bakery pharmacy "
    "team"))
"""The last word of an organisation's name ("Forest Row Sports", "Dunmore Plumbing")."""
_PLACE_ENDS = frozenset(stems(
    "rec ground grounds park field fields common green lane road street avenue close way "
    "hall centre center room building house meadow site wharf quay dock estate wing ward "
    "floor block gate station"))
"""The last word of a place's name ("Hartfield Rec", "Garden Room")."""
_CALENDAR = frozenset(stems(
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december jan feb mar apr jun jul aug "
    "sep sept oct nov dec"))
_THING_LABELS = frozenset(stems(
    "summary title subject event location venue place address room category categories "
    "status type class topic heading project item product uid url mailto dtstart dtend "
    "date time tzid"))
"""Labels whose value names a thing, not a person: a calendar entry's SUMMARY is its title."""
_ROLES = frozenset(stems(
    "officer adviser advisor manager director captain engineer oiler bosun mate master "
    "lead leader chair chairman chairwoman secretary treasurer steward warden keeper clerk "
    "nurse sister matron doctor consultant registrar porter technician supervisor "
    "coordinator administrator admin operator fitter electrician deputy head judge referee "
    "umpire author reviewer organiser organizer owner contact president presenter speaker "
    "adjudicator examiner invigilator assessor inspector auditor marshal compere instructor "
    "coach trainer tutor teacher lecturer convenor surveyor solicitor"))
"""What a role-holder is called ("the fixtures secretary", "the duty manager")."""
_LABEL = re.compile(r"(?:^|(?<=[\s;|,:]))([A-Za-z][A-Za-z_-]*(?:[ \t][a-z][a-z_-]*){0,2})[ \t]*"
                    r"(?:=|:(?!//))")
"""A label before its value ("SUMMARY:", "Judge: ", "site phone:", "CN=")."""
_WORD = r"(?:[A-Z][a-z]{0,2}\.|[A-Z][\w'’-]*)"
_RUN = re.compile(rf"(?<![\w'’.-]){_WORD}(?:[ \t]+(?:(?:&|and|of|de|da|van|von|del|la|le|bin|"
                  rf"al)[ \t]+)?{_WORD})*")
"""A run of capitalised words ("Celia Marsden", "Dr. A. Crane", "Bury & District Camera
Club"); a full stop after a longer word ends it."""
_TITLED = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Sir|Dame|Rev|Revd|Capt|Cllr|Sister|"
                     r"Nurse)\b\.?", re.IGNORECASE)
_LEAD = re.compile(r"^\s*(?:the\s+answer\s+is|answer)\s*[:\-]?\s*", re.IGNORECASE)


def _persons_text(text: str) -> list[str]:
    """The lines of `text` with every value under a label of things cut out (a SUMMARY or
    TITLE names an event, not who runs it), as the pieces left."""
    out: list[str] = []
    for line in text.split("\n"):
        at, skipping = 0, False
        for match in _LABEL.finditer(line):
            if set(stems(match.group(1))) & _THING_LABELS:
                if not skipping:
                    out.append(line[at:match.start()])
                at, skipping = match.end(), True
            elif skipping:  # the next label ends the thing's value
                at, skipping = match.start(), False
        if not skipping:
            out.append(line[at:])
    return [piece for piece in out if piece.strip()]


def _possible_person(run: str, whole: bool, org_ok: bool) -> bool:
    """A capitalised run that may be a person's name: not an organisation's (unless one
    may answer), a place's, a day or month, or a short code."""
    words = run.split()
    last = stems(words[-1])
    if _TITLED.match(run) and len(words) > 1:
        return True
    if last and last[-1] in (_PLACE_ENDS | _CALENDAR):
        return False
    if last and last[-1] in _ORG_ENDS and not org_ok:
        return False
    if any(c.isdigit() for c in run) or (len(words) == 1 and run.isupper()):
        return False  # "KO", "H2", "BL9 8AU", "ORGANIZER": a code or a label, no name
    # One capitalised word opening a sentence is sentence case, unless it is all there is.
    return len(words) > 1 or whole


_KEY_CHAIN = re.compile(r"(?:[A-Za-z][\w .-]{0,30}[:;=][ \t]*)+$")
"""The keys right before a value ("ORGANIZER;CN=", "DESCRIPTION:Judge: ", a record's
"organizer.cn: ")."""


def _other_role(question: str, before: str) -> bool:
    """The keys right before a name call it another role than the one asked: "ORGANIZER;CN=
    Imran Siddiqui" is no judge; "Judge: Celia Marsden" is. Prose is not judged so ("her
    deputy is Tomasz Wilk" answers who is covering)."""
    keys = _KEY_CHAIN.search(before)
    if keys is None:
        return False
    roles = set(stems(keys.group())) & _ROLES
    role, act = _asked_role(question)
    asked = stems(" ".join(role) or act)
    # Only a role asked is told from another ("judging" a judge); "who found the leak" asks
    # an act any crew member's key ("Oiler: J. Dela Cruz") may hold.
    return (bool(roles) and bool(shared_words(asked, _ROLES))
            and not shared_words(asked, frozenset(roles)))


_LABELLED_NAME = re.compile(rf"([A-Za-z][\w -]{{0,30}}):[ \t]*{_WORD}(?:[ \t]+{_WORD})+")


def names_asked_role(question: str, text: str) -> bool:
    """The text gives a name under a label saying the role or act asked ("Judge: Celia
    Marsden" for "who is judging ...")."""
    role, act = _asked_role(question)
    asked = stems(" ".join(role) or act)
    return bool(asked) and any(shared_words(asked, frozenset(stems(m.group(1))))
                               for m in _LABELLED_NAME.finditer(text))


def names_person(question: str, answer: str) -> bool:
    """The answer names a person or a role-holder the question does not name: a
    capitalised name that is no organisation (unless the question allows one), place, day
    or code, and not under a label of things (a SUMMARY or TITLE line); or a role."""
    said = normalise(question)
    org_ok = asks_org(question)
    body = _LEAD.sub("", answer.strip())
    for value in _persons_text(body):
        named = False  # a name stands here (a role word beside it is its label, no answer)
        for match in _RUN.finditer(value):
            # "Mr Ravi Mistry" is the Ravi Mistry the question names, not someone new.
            run = re.sub(r"^(?:The|A|An|Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+", "",
                         match.group().rstrip(".’'"))
            if not run or run.lower() in ("the", "a", "an") or normalise(run) in said:
                continue
            before = value[:match.start()].rstrip()
            opens = not before or before[-1] in ".!?*-•:"
            whole = not value[match.end():].strip(" .,;()")
            named = named or whole or not opens or " " in run
            if (_possible_person(run, whole or not opens, org_ok)
                    and not _other_role(question, value[:match.start()])):
                return True
        # A role in words ("the fixtures secretary"), not a label in capitals ("ORGANIZER").
        new_roles = set(stems(re.sub(r"\b[A-Z]{2,}\b", " ", value))) - set(stems(question))
        if not named and new_roles & _ROLES:
            return True
    return False


_EXTENSION_ASKED = re.compile(r"\b(?:extension|ext|extn|bleep|pager)\b", re.IGNORECASE)
_PHONE_ASKED = re.compile(
    r"\b(?:phone|telephone|tel|mobile|landline|fax|direct\s+line|contact\s+number|"
    r"(?:call|ring|dial|text)\s+(?:on|at)?\s*(?:what|which)?\s*number)\b"
    r"|(?:['’]s|^|\b(?:the|what|which|whats|what's|what’s|your|my|his|her|their|our))"
    r"\s*number\s+(?:for|to\s+(?:call|ring|text)|of\s+(?:the\s+)?[a-z]+\s+(?:secretary|"
    r"office|desk|manager|officer))\b|['’]s\s+number\b|\bon\s+what\s+number\b",
    re.IGNORECASE)
"""A phone number is asked: "phone", "mobile", "number for the secretary", "Kerry's number",
"and on what number?" (not "account number", "number of bookings")."""
_PHONE_SHAPE = re.compile(r"(?<![\w.:/-])(?:\+\d{1,3}[ -]?)?(?:\(\d{1,5}\)[ -]?)?\d{2,6}"
                          r"(?:[ -]\d{1,6})*(?![\w:/]|\.\d)")
"""Groups of digits with one space or hyphen between them, a bracketed area code first:
not "0605 (47" nor a timetable's "0716  0801" columns."""
_CLOCK = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
_DATE_SHAPE = re.compile(r"^\d{4}-\d\d-\d\d$|^\d{1,2}-\d{1,2}-\d{2,4}$")
_EXTENSION_SHAPE = re.compile(r"(?<![\w.:/-])\d{3,6}(?![\w:/]|\.\d)")
_COUNT_WORDS = re.compile(r"\b(?:no|none|zero|one|two|three|four|five|six|seven|eight|nine|"
                          r"ten|eleven|twelve|a\s+dozen|dozens?|hundreds?|once|twice)\b",
                          re.IGNORECASE)


_VERSION_ASKED = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}version\b", re.IGNORECASE)
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+|\bv\d+\b", re.IGNORECASE)


def _phone_like(answer: str, question: str, extension: bool) -> bool:
    said = normalise(question)
    for match in _PHONE_SHAPE.finditer(answer):
        digits = re.sub(r"\D", "", match.group())
        groups = re.findall(r"\d+", match.group())
        if len(groups) > 1 and all(_CLOCK.fullmatch(g) for g in groups):
            continue  # times in a row ("0840 0940 1040"), not one number
        if (len(digits) >= 6 and not _DATE_SHAPE.match(match.group().strip())
                and digits not in re.sub(r"\D", "", said)):
            return True
    return extension and any(m.group() not in said for m in _EXTENSION_SHAPE.finditer(answer))


def fits_kind_in(question: str, answer: str, unit_text: str, heading: str = "") -> bool:
    """`fits_kind` of the answer, and of the line of its unit that holds it (a clause cut
    from "ORGANIZER;CN=Imran Siddiqui" has lost the key that says he is no judge); a count
    looked up must be stated as one, in its unit under its `heading`."""
    # "45" for "how late": its line, "delay 45 min", says the kind.
    measured = None if _asks_other_kind(question) else measure_fits(question, answer, unit_text)
    if measured is not None:
        return measured
    if not fits_kind(question, answer):
        return False
    if _HOW_MANY.match(question) and not states_count(question, answer, unit_text, heading):
        return False  # "albumen print 1 item" is no count of the items closed to readers
    said = set(values(question))
    anchors = [v for v in values(answer) if v not in said]
    # The unit's heading is a line of it too: "SERIES 3 (Box 4)" over the series' records.
    lines = [line for line in f"{heading}\n{unit_text}".split("\n")
             if anchors and all(contains(normalise(line), v) for v in anchors)]
    return not lines or any(fits_kind(question, line) for line in lines)


_HOW_MANY = re.compile(r"\s*how\s+many\b", re.IGNORECASE)


def _asks_other_kind(question: str) -> bool:
    """A phone number, a person, a version or a percentage is asked: judged before any
    measure the question names ("the phone number for bookings over £500")."""
    return bool(_PHONE_ASKED.search(question) or _EXTENSION_ASKED.search(question)
                or asks_who(question) or _VERSION_ASKED.search(question)
                or _PERCENT_ASKED.search(question))


def fits_kind(question: str, answer: str) -> bool:
    """The answer holds a value of the kind asked: a person for "who" (`names_person`), a
    phone number or extension when one is asked, a count for "how many". Other questions
    are not judged here (`clauses.of_kind` sees dates and codes)."""
    if _PHONE_ASKED.search(question) or _EXTENSION_ASKED.search(question):
        return _phone_like(answer, question, bool(_EXTENSION_ASKED.search(question)))
    if asks_who(question):
        return names_person(question, answer)
    if (other_fields_only(question, answer)  # "Emp. no 00301" for "what tax code"
            or other_side(question, answer)  # "Previous rating: 4" for the rating after
            or only_a_person_for_a_topic(question, answer)):
        return False
    if _VERSION_ASKED.search(question):  # "which image version": "4.18.1", not the image
        return bool(_VERSION.search(answer))
    if _PERCENT_ASKED.search(question):  # "what % off": 15%, not the scenario's tag
        return bool(_PERCENT.search(answer))
    if (measured := measure_fits(question, answer)) is not None:
        return measured  # a weight for "how heavy", not a price; money for "paid out"
    if (placed := names_place(question, answer)) is not None:
        return placed  # "Chart Room" for "which room", not "13:45 (W) Workshop W1"
    if _HOW_MANY.match(question):
        return bool(re.search(r"\d", answer) or _COUNT_WORDS.search(answer))
    if _AMOUNT_ASKED.search(question):  # "the total yearly premium": 1,834.28, not a ref
        # A quoted-printable mail body writes "£18.50" as "=C2=A318.50": its escapes are no code.
        return bool(_AMOUNT.search(QP_ESCAPE.sub(" ", answer)))
    if _NUMBERED_ASKED.search(question):  # "flight no.": KL1697, not "the KLM flight"
        # A measure ("bags over 8 kg", "keeping 30 days") is no number of a thing.
        # A clock time or a date ("10:00" for "the case number") says when, not which.
        return any(c.isdigit() for c in _MEASURED.sub(" ", without_times(answer)))
    if _DAY_ASKED.search(question):  # a weekday or a date, not any digit (a URL's, a time)
        return bool(_CALENDAR & set(stems(answer)) or _DATE.search(answer))
    return True


_AMOUNT_ASKED = re.compile(
    r"\bhow\s+much\b(?!\s+(?:time|longer|of\b))|\b(?:price|cost|charge|fee|fare|premium|"
    r"excess|insured|worth|grant)s?\b(?!\s+(?:centre|center|code|band|type|category|ref|id|"
    r"list)\b)", re.IGNORECASE)
"""A sum of money is asked: "how much is ...", "the premium", "insured for", "worth" (not
the "cost centre" or "fee code" a money word names)."""
_AMOUNT = re.compile(r"(?<![A-Za-z\d.-])\d[\d,]*(?:\.\d+)?(?![\d-]|\.\d)")
"""A number standing alone ("£1,834.28", "500", "7.50"), not the digits inside a code
("CVM.1934.017", "HMW-HOME-0925", "KL1697")."""
_NUMBERED_ASKED = re.compile(
    r"\b(?:no\.|number|code|ref(?:erence)?|id)(?!\s+of\b)(?=\W|$)", re.IGNORECASE)
"""A numbered thing is asked: "flight no.", "ticket number", "exit code" (not "the number
of ...", which counts)."""
_DAY_ASKED = re.compile(r"\b(?:which|what)\s+day\b", re.IGNORECASE)
_DATE = re.compile(r"\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
                   r"|\b\d{1,2}\.\d{1,2}\.\d{2,4}\b")
"""A date in digits (beside `_CALENDAR`: "6 April" holds a month's name)."""
_PERCENT_ASKED = re.compile(r"%|\bper\s*cent(?:age)?\b|\bpercentage\b", re.IGNORECASE)
_PERCENT = re.compile(r"\d\s*(?:%|per\s*cent\b|pc\b)", re.IGNORECASE)
_MEASURED = re.compile(
    r"\d[\d,.]*\s*(?:kg|g|lbs?|km|m|cm|mm|mi|miles|mph|kph|l|ml|gb|mb|kb|tb|mins?|minutes|"
    r"h|hrs?|hours|days?|weeks?|months?|years?|nights?|x|percent|%)(?!\w)", re.IGNORECASE)
"""A number with its unit of measure: an amount, not the number of a thing."""


_CHANGE = re.compile(r"\bfrom\s+(?:v|version\s+)?(\w[\w.:/-]*?)\s+to\s+(?:v|version\s+)?"
                     r"(\w[\w.:/-]*\w|\w)(?=[\s,;)]|\.?$|\.\s)", re.IGNORECASE)
"""A change from one value to another: "Bump numpy from 2.1.1 to 2.1.2"."""
_NEW_SIDE = re.compile(r"\bto\s+(?:which|what)\b|\b(?:new|newer|now|latest|current)\b",
                       re.IGNORECASE)
_OLD_SIDE = re.compile(r"\bfrom\s+(?:which|what)\b|\b(?:old|older|previous|before|originally|"
                       r"earlier)\b", re.IGNORECASE)
_REFERENCE = re.compile(r"\b(?:from|since|than|vs\.?|versus)\s+(?:the\s+)?$")


def change_side(question: str, answer: str) -> str | None:
    """An answer that names both values of a change ("from 2.1.1 to 2.1.2") names two
    candidates: the one the question picks ("to which version" → 2.1.2, "the old version"
    → 2.1.1), else None (no answer). An answer with no such change comes back whole."""
    change = next((m for m in _CHANGE.finditer(answer)
                   if any(c.isdigit() for c in m.group(1))
                   and any(c.isdigit() for c in m.group(2))), None)
    if change is None:
        return answer
    said = normalise(question)
    if contains(said, normalise(change.group(1))) or contains(said, normalise(change.group(2))):
        return answer  # the question names one side: the answer is about the other
    if _NEW_SIDE.search(question) and not _OLD_SIDE.search(question):
        return change.group(2)
    if _OLD_SIDE.search(question) and not _NEW_SIDE.search(question):
        return change.group(1)
    return None


def named_as_reference(question: str, unit_text: str) -> bool:
    """Each entity the question names is in the unit only as what something is measured
    from ("Rise of 23 ng/L from 0h sample", "up 4 since 2019"): its values are the change,
    not the entity's own."""
    norm = normalise(unit_text)
    named = [e for e in entities(question) if contains(norm, e)]
    if not named:
        return False
    for entity in named:
        spots = [m.start() for m in re.finditer(re.escape(entity), norm)]
        if not all(_REFERENCE.search(norm[max(0, at - 12):at]) for at in spots):
            return False
    return True
