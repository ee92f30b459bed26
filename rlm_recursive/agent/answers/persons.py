"""Who a question asks for, and whether an answer names one: "who" wants a person or a
role-holder ("which judge", "the tester"), an organisation answers only a question asking for
one ("who supplies …", "which company …"), and a title or event-name line names no one. A
person's name is read from its shape (capitalised runs, titles, initials), never from a list
of names."""

from __future__ import annotations

import re

from ...corpus.evidence import normalise, shared_words, stems
from ...corpus.naming import HONORIFICS
from ...corpus.units import Unit

__all__ = ["CALENDAR_WORDS", "asks_org", "asks_person", "asks_who", "names_asked_role",
           "names_person", "says_act"]

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


_NEEDS_IDENTIFIER = re.compile(
    r"[?.!]\s+(?:i\s+(?:need|want)|(?:please\s+)?(?:give|send|tell)\s+me)\s+(?:the|their|"
    r"his|her)\s+(?:[\w-]+\s+){0,2}(?:number|no|id|code|ref|reference)\b", re.IGNORECASE)
"""A sentence after the question saying what is wanted is an identifier ("Who has it out?
I need the member number"): the person's number, not a name."""


def asks_who(question: str) -> bool:
    """The question asks for a person: "who ...", "which person", "name of the crew
    member ...", "which engineer ..." (unless a later sentence asks for their number)."""
    return _WHO.search(question) is not None and _NEEDS_IDENTIFIER.search(question) is None


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
CALENDAR_WORDS = frozenset(stems(
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
    if last and last[-1] in (_PLACE_ENDS | CALENDAR_WORDS):
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
    # The role asked, said in capitals, is no one's name ("Harbour Head", an address, for
    # "who is the head chef").
    role = frozenset(stems(" ".join(_asked_role(question)[0])))
    body = _LEAD.sub("", answer.strip())
    for value in _persons_text(body):
        named = False  # a name stands here (a role word beside it is its label, no answer)
        for match in _RUN.finditer(value):
            # "Mr Ravi Mistry" is the Ravi Mistry the question names, not someone new.
            run = re.sub(r"^(?:The|A|An|Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+", "",
                         match.group().rstrip(".’'"))
            # A role word ends no name ("Harbour Head"); before one it is a title ("Chef
            # Ivo Kellow").
            if run and set(stems(run.split()[-1])) & role:
                continue
            while run and len(run.split()) > 1 and set(stems(run.split()[0])) & role:
                run = run.split(" ", 1)[1]
            if not run or run.lower() in ("the", "a", "an") or normalise(run) in said:
                continue
            # A label ("Name:") or a number's mark ("No. 1096") names no one; nor do the
            # words after a house number ("3 Orchard Mews").
            if (re.match(r"[ \t]*:", value[match.end():]) or re.fullmatch(r"(?i)nos?\.?", run)
                    or re.search(r"(?:^|[\s,])\d{1,4}[A-Za-z]?,?\s+$", value[:match.start()])):
                continue
            # "Doris May FELLOWES" is the Doris Fellowes the question names (a middle name
            # aside), not whom it asks.
            parts = normalise(run).split()
            if len(parts) > 2 and re.search(rf"\b{re.escape(parts[0])}\s+{re.escape(parts[-1])}\b",
                                            said):
                continue
            # "C. Duckworth" is the "Ms Duckworth" the question names by title and surname
            # (a namesake is refused, never given).
            if len(parts) > 1 and re.search(
                    rf"\b(?:{'|'.join(HONORIFICS)})\.?\s+{re.escape(parts[-1])}\b", said):
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
