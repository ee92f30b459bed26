"""What a question picks out, beyond its named entities, that the unit holding its answer
must say: the contrast word among siblings ("the east kiln" when the text has the north and
south kilns), the thing asked for ("how many vials", "bleep number"). And the words a
question clips ("erg" for "ergometer"), a hint between equal units.
"""

from __future__ import annotations

import re

from .glossary import glossed
from .units import STOP, Unit, consonants_of, has_word, stems

__all__ = ["CONTRAST_WORDS", "LABEL_KINDS", "asked_clause", "asked_head", "asked_label",
           "asked_phrase",
           "asked_things", "clipped", "label_says", "label_words", "measure_asked",
           "object_head", "qualifiers", "siblings"]

_CONTRASTS = tuple(frozenset(stems(words)) for words in (
    "north south east west northeast northwest southeast southwest", "upper lower middle",
    "front rear", "inner outer", "indoor outdoor", "full half quarter", "single double triple",
    "junior senior", "adult child", "male female", "summer winter", "upstairs downstairs",
    "primary secondary replica standby"))
"""Words that tell siblings apart ("the north kiln", "a half plot", "senior crews"). Words
of time and temperature are left out: "each night", "the warm fridge" say how, not which."""
CONTRAST_WORDS = frozenset().union(*_CONTRASTS)
_SUPERLATIVES = frozenset(stems(
    "oldest youngest eldest fastest slowest largest smallest biggest tallest shortest longest "
    "heaviest lightest highest lowest earliest latest newest cheapest dearest"))
"""A superlative picks one thing: a text that marks which ("oldest rider, 79") must be
cited for it, not a line about another (the fastest veteran)."""


def qualifiers(question: str, text_stems: frozenset[str]) -> set[str]:
    """The question's words that pick one of several siblings the text has ("east" when it
    has the north and south kilns): the unit holding the answer must say them. A word with
    no sibling in the text is not required (the text may paraphrase it)."""
    asked = set(stems(question)) - set(asked_label(question))  # "max replicas": the thing
    out: set[str] = set()
    for words in _CONTRASTS:
        said = words & asked
        if said and (words - said) & text_stems:
            out |= said
    # "the oldest rider" where the text marks one as the oldest: that one is asked of.
    return out | (asked & _SUPERLATIVES & text_stems)


def siblings(question: str, text_stems: frozenset[str]) -> set[str]:
    """The siblings, in the text, of the question's contrast words ("south" for "north")."""
    asked = set(stems(question))
    return {w for words in _CONTRASTS if words & asked for w in (words - asked) & text_stems}


_KIND_WORDS = r"(?:number|no|code|id|ref|reference)"
_ASKED_THING = re.compile(
    rf"\bhow\s+(?:many|much)\s+([a-z][\w-]*)|\b([a-z][\w-]*)\s+{_KIND_WORDS}\b",
    re.IGNORECASE)


def asked_things(question: str) -> list[str]:
    """What the question asks for, which the unit holding the answer must say: the noun of
    "how many vials" / "how much deposit", the kind before "number" or "code" ("bleep
    number": a signature's extension and mobile are not the bleep)."""
    out = []
    for match in _ASKED_THING.finditer(question):
        words = stems(match.group(1) or match.group(2))
        if words and words[0] not in ("number", "code"):
            out.append(words[0])
    return out


def clipped(words: list[str], stem_set: frozenset[str]) -> list[str]:
    """Words the unit says in full that the question clips ("erg" for "ergometer", "lab"
    for "laboratory"): a hint between equal units, never enough on its own."""
    return [w for w in words if len(w) >= 3
            and any(s.startswith(w) and len(s) >= len(w) + 3 for s in stem_set)]


_WORD = re.compile(r"[A-Za-z][\w'’.-]*")
_NP_END = frozenset((
    "the a an of for on in at to from by with per is are was were be been do does did has "
    "have had can could will would should got get gets that which who when where after "
    "before during since between this these those its their our my your his her "
    "came come comes went goes gave took "
    # the same words in the languages records are kept in ("data wpłaty | za obiady")
    "de del della di du des da für von vom zum zur pour para por voor för av til fra za dla "
    "na od przez der dem den das").split())
"""Words that end the noun phrase a question asks for ("max replicas | the ledger api")."""
_ADVERBS = frozenset("so now still yet currently already".split())
"""Words that end the phrase after it ("average | so far") and are passed over before it
("what's | still open")."""
_DETERMINERS = frozenset("the a an our my your their his her its this that".split())
_NOT_NOUN_LEAD = frozenset((
    "who whom whose when where why how is are was were do does did can could will would "
    "should has have had tell give list show find name describe summarise summarize explain "
    "count please yes no").split())
"""A question starting so names no thing up front ("Who ...", "Tell me ...")."""
LABEL_KINDS = frozenset(stems("number no code id ref reference setting value result "
                               "detail details information info figure entry name"))
"""Words that say a value's shape, not which value ("serial number", "batch size setting"):
the word before them says which."""
_MODIFIERS = frozenset(stems("max maximum min minimum total current new old latest last first "
                             "next main average mean typical annual daily"))
"""Words that say which of a thing's values, not what the thing is: "max replicas" is not
any maximum (`MAX_BATCH_SIZE`)."""
_POLITE = re.compile(
    r"^\s*(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?(?:tell|give|show|find)\s+"
    r"(?:me|us)|please\s+(?:tell|give|show|find)\s+(?:me|us)|(?:do|does)\s+(?:you|anyone)\s+"
    r"know|i(?:['’]d|\s+would)\s+like\s+to\s+know|tell\s+me)\s*,?\s*", re.IGNORECASE)
"""A polite opening before the question proper ("Could you tell me what ...")."""
_NAME_WORD = re.compile(r"[A-Z][a-z][\w'’-]*")
_FINITE = frozenset("is are was were do does did has have had can could will would should "
                    "gets got".split())
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z])|(?<=\b[a-z])(?=[A-Z][a-z])")
"""Where camelCase starts a word ("maxReplicas", "iPhone"), not inside a short term ("pH",
"eGFR")."""
_TOPIC = re.compile(r"^[^:?]{1,40}:\s+(?=(?:what|which|who|how|when|where)\b)", re.IGNORECASE)
"""A topic the question is put under before it asks ("ledgerline: which port ...")."""


_HOW_MEASURED = {"old": "age", "tall": "height", "high": "height", "heavy": "weight",
                 "deep": "depth", "wide": "width", "far": "distance"}
"""The measure "how <adjective>" asks, as a label names it ("Age: 94" for "how old")."""


def measure_asked(question: str) -> str | None:
    """The measure a "how <adjective>" question asks, as a label names it: "age" for "How
    old was ...", "height" for "how tall"."""
    match = re.match(r"\W*how\s+(\w+)", _POLITE.sub("", question), re.IGNORECASE)
    return _HOW_MEASURED.get(match.group(1).lower()) if match else None


_TOPIC_WORDS = 6
_ASKING_START = re.compile(r"\s*(?:who|whose|whom|what|which|when|where|why|how|is|are|was|were|"
                           r"do|does|did|can|could|has|have|had)\b", re.IGNORECASE)
_DASHED_ASK = re.compile(r"\s(?:[—–]|--?)\s+((?:what|which|who|how|when|where)\b[^—–]*)$",
                        re.IGNORECASE)


_NAME_AFTER_DASH = re.compile(r"^([^?]*?\S)\s+[-–—]\s+(?:[A-Z][\w'’.-]*\s*){1,4}$")
"""Keywords, a spaced dash and a name of capitalised words only ("importe - Pazos Uxía")."""


def asked_clause(question: str) -> str:
    """The clause that asks: in "Whose mailbox got knocked down on January 6th — what's the
    address?", the question after the dash (the clause before it says whose)."""
    found = _DASHED_ASK.search(question)
    if found is None:
        # "data wpłaty - Kowalska Zofia": keywords, then a dash and whose they are.
        named_after = _NAME_AFTER_DASH.match(question)
        return named_after.group(1) if named_after else question
    # After a question of its own, or a name ("Oakes Family Dental - what is their balance?");
    # "The brew that used yeast from brew 311 - what OG did it reach?" describes what "it"
    # is, and the whole asks.
    before = question[:found.start()].split()
    named = len(before) <= _TOPIC_WORDS and before[0][:1].isupper() and not any(
        w.lower() in _FINITE or w.lower() in ("that", "which", "who", "whose") or (
            w.islower() and w.endswith("ed")) for w in before)
    return found.group(1) if _ASKING_START.match(question) or named else question


_ROLE_END = re.compile(r"(?:er|or|ist|ain|ant|ent|ian|chair|head|lead|officer)$")


def _bare_role(rest: list[str], written: list[str]) -> list[str]:
    """The role a "who was" names without an article, up to a preposition: an abbreviation
    ("PC"), or words ending in a role noun ("patrol captain"); [] for anything else ("who was
    late on Monday")."""
    out: list[str] = []
    for word in rest:
        if word in _NP_END or word in STOP:
            break
        out.append(word)
    if not out or len(out) == len(rest) or len(out) > 3:
        return []
    last = written[len(out) - 1]
    return out if (last.isupper() and len(last) >= 2) or _ROLE_END.search(out[-1]) else []


def _asked_words(question: str) -> list[str]:
    """The words of the noun phrase a question asks for, as written: "What's the cost
    centre on ..." → cost centre; "which mobile carrier was ..." → mobile carrier; "max
    replicas the ledger api ..." → max replicas; "what was Mochi's blood glucose result" →
    blood glucose result; "Who is the presiding officer for ..." → presiding officer; [] for
    other who/when/where questions and imperatives."""
    if topic := _TOPIC.match(question):  # "ledgerline: which port is ...": a topic first
        question = question[topic.end():]
    question = asked_clause(question)
    question = _POLITE.sub("", question)  # "Can you tell me what race number ..."
    written = _WORD.findall(question)
    words = [w.lower().rstrip(".") for w in written]
    if words and words[0] in ("in", "on", "at", "for", "from", "by", "to") and len(words) > 1:
        words = words[1:]  # "in which tessera version ..."
    if not words:
        return []
    # Asked with "what"/"which": a name after the asked noun is whose it is. In a query of
    # keywords ("date Natural England granted the licence") it may be the asked thing's own.
    questioned = False
    if words[0] in ("who", "who's", "who’s"):
        # "Who is the presiding officer for ...": the role names the thing asked; a plain
        # "who supplies ..." names none.
        rest = words[1:] if words[0] != "who" else words[2:] if words[1:2] in (
            ["is"], ["was"], ["are"], ["were"]) else []
        if rest and rest[0] != "the" and (role := _bare_role(rest, written[-len(rest):])):
            return role  # "Who was patrol captain on the day ...", "who was PC on ..."
        if not rest or rest[0] != "the":
            return []
        words = rest[1:]
    elif words[0] in ("what", "which", "what's", "what’s", "whats"):
        questioned = True
        words = words[1:]
        if words and words[0] in ("is", "are", "was", "were"):
            words = words[1:]
        if words and words[0] in _DETERMINERS:
            words = words[1:]
    elif words[0] == "how" and len(words) > 1 and words[1] in ("much", "many"):
        words = words[2:]
    elif (measure := measure_asked(question)) is not None:
        return [measure]  # "How old was ...": the age
    elif words[0] in _NOT_NOUN_LEAD:
        return []
    elif words[0] in _DETERMINERS and len(words) > 1:
        if any(w in _FINITE for w in words):
            return []  # "The credit note from ... was raised ...": a statement first
        words = words[1:]  # "the treasurer's work email address?": a bare noun phrase
    out: list[str] = []
    first = len(written) - len(words)  # where `words` starts among the written words
    for at, word in enumerate(words):
        if word in _ADVERBS and not out:
            continue
        if word in _NP_END | _ADVERBS or len(out) == 4 or (out and _participle(words, at)):
            break
        # "what race number Neil Haworth was riding with": a name after the asked noun is
        # whose it is, not the noun (an acronym, "total VAT", goes on).
        here = written[first + at]
        if (out and questioned and _NAME_WORD.fullmatch(here) and not here.endswith(("'s", "’s"))
                and not _NAME_WORD.fullmatch(written[first + at - 1])):
            break  # (a run of names, "the Fellwater Trust report", or "Piotr Kowalski's", goes on)
        if word.endswith(("'s", "’s")):  # "Mochi's blood glucose result": the owner
            out = []
            continue
        out.append(word)
    return out


def asked_phrase(question: str) -> list[str]:
    """The stems of the noun phrase the question asks for ("max replicas" → max, replica)."""
    return stems(" ".join(_asked_words(question)))


_ANYONE = frozenset(stems("person people someone somebody"))


def asked_label(question: str) -> tuple[str, ...]:
    """The stems a label must say (one of them) for its value to be what the question asks
    for: the head of the asked noun phrase and the word before it ("carrier", "mobile"),
    a modifier aside ("replica" for "max replicas"; the phrase's end may be a verb the
    question runs on with, "group leader looks after"). A head that only says a shape
    ("serial number", "batch size setting") leaves the word before it to say which. ()
    when the question names no thing (who/when/where, "how much did ...")."""
    asked = asked_phrase(question)
    if _keywords(question):
        # "mx2 preference value acme-corp": a query of keywords runs on past the asked
        # thing's shape word ("value"), into the names of what it is asked of.
        kinds = [k for k, w in enumerate(asked[1:-1], 1) if w in LABEL_KINDS]
        asked = asked[:kinds[-1] + 1] if kinds else asked
    if not asked or asked[-1] in _ANYONE:  # "which person": a who, any label may name them
        return ()
    if asked[-1] in LABEL_KINDS:  # a bare "what number", "what name": its shape is checked
        return (asked[-2],) if len(asked) > 1 else ()
    return tuple(w for w in asked[-2:][::-1] if w not in _MODIFIERS or w == asked[-1])


def _keywords(question: str) -> bool:
    """The question is a query of keywords: no question word, determiner or verb ahead of
    the words it asks with."""
    words = [w.lower() for w in _WORD.findall(question)]
    return bool(words) and not (set(words) & (_NOT_NOUN_LEAD | _DETERMINERS | _FINITE | {
        "what", "which", "what's", "what’s", "whats", "in", "on", "at", "for", "of"}))


def label_says(question: str, label: str, beside: str = "") -> bool:
    """A label (a `key: value` line, a column's name and its cell) says what the question
    asks for: `MAX_BATCH_SIZE` is no "max replicas", "Room" no "phone extension", "Food
    business operator" no deadline. Its value's shape counts (a phone number says "phone").
    True when the question names no thing to check. `beside` is what the record's other
    fields say: "UPI ref no." is the "Ref / Chq no." of a row whose Mode is UPI."""
    wanted = asked_label(question)
    if not wanted:
        return True
    said = label_words(label)
    if any(has_word(w, said) or any(consonants_of(s, w) for s in said) for w in wanted):
        return True
    # "the reference number of the analysis certificate": "Certificate No." says the kind
    # of value asked and the thing it is asked of, though not "reference"; a column of a
    # table headed "No" alone says "race number" of a results sheet.
    asked = asked_phrase(question)
    rest = said - LABEL_KINDS
    if len(asked) < 2 or asked[-1] not in LABEL_KINDS or asked[-1] not in said:
        return False
    # (A value's own words: "PayPal" is one, though a label's camel case is cut in two.)
    beside_words = label_words(beside) | frozenset(stems(beside)) if beside else frozenset()
    if beside and all(has_word(w, beside_words) for w in asked[:-1]):
        return True  # the kind's qualifier is the record's value (a payment's mode)
    if not rest:  # a number's shape says "number" too: only a written "No" is a label
        return not re.search(r"\d", label)
    return bool(rest & (set(stems(question)) - set(asked)))


_FAMILIES = {stems(label)[0]: frozenset(stems(words)) for label, words in (
    ("cell", "mobile phone"), ("mobile", "phone"), ("tel", "phone"), ("fax", "phone"),
    ("email", "mail address"), ("adr", "address"), ("addr", "address"),
    ("address", "city town place location"), ("plac", "place where city town"),
    ("date", "year day"),
    ("bday", "birthday birth born"), ("birt", "birth born"), ("birth", "born"),
    ("deat", "death die died"), ("death", "die died"), ("buri", "burial buried"),
    ("marr", "marriage married wedding"), ("emig", "emigration emigrated"),
    ("occu", "occupation job work living"), ("occupation", "job work living"),
    ("chil", "child children"), ("since", "start began join"), ("husb", "husband"),
    ("famc", "parents"),
    ("fn", "name"), ("org", "organisation company"), ("desc", "description"),
    ("gbp", "price cost value amount"), ("usd", "price cost value amount"),
    ("eur", "price cost value amount"), ("amt", "amount"), ("num", "number"),
    ("annual", "year yearly"))}
"""Words a field's name is written with, short or long ("TEL;type=CELL", `DEAT.DATE`,
`replacement_gbp`), and the words a question asks for it with (mobile, died, value): a
family of meanings, not any one file's names."""


_NUMBER_MARK = re.compile(r"(?:\b(?:no|nº|n°)\.?|#)\s*:?\s*$", re.IGNORECASE)
"""A label ending in "No." or "#" names a thing's number ("Certificate No.", "Job #"); "No.
of items" counts."""


def label_words(label: str) -> frozenset[str]:
    """A label's stems, `camelCase` and `snake_case` cut into words ("maxReplicas" → max,
    replica), with the words its value's shape answers (a phone number says "phone") and
    the words its abbreviations and terms stand for (`DEAT` → death, died)."""
    text = _CAMEL.sub(" ", label).replace("_", " ")
    own = Unit(0, 0, len(text), text).own_stems
    if _NUMBER_MARK.search(label):  # "Certificate No.", "Job #": its number
        own |= {"number"}
    own |= glossed(own, stems)  # "Vikt", "factuurnr": weight, invoice number
    extra = [_FAMILIES[w] for w in own if w in _FAMILIES]
    return own.union(*extra) if extra else own


_OBJECT = re.compile(
    r"\b(?:for|of|at)\s+(?:(?:the|a|an|our|my|your|this|today's)\s+)?"
    r"((?:[a-z][\w'-]*\s+){0,3}?[a-z][\w'-]*)"
    r"(?=\s+(?:on|in|at|of|for|to|from|with|who|that|which|when|if|before|after|during|"
    r"while|is|are|was|were)\b|\s*[?.!]?\s*$)")
"""The noun phrase a question's "for/of/at" governs: "the bleep for the cardiology consultant
on call"."""


def object_head(question: str) -> str | None:
    """With no entity named, the thing the question is about is its first "for/of/at"
    phrase, and that phrase's head noun must be said: "the bleep for the cardiology
    consultant on call" is not the registrar's bleep. None when there is no such phrase."""
    match = _OBJECT.search(question)
    if match is None:
        return None
    words = stems(match.group(1).split()[-1])
    return words[0] if words else None


_ASKED = re.compile(r"^\s*(?:what|which)\s+(?:is|are|was|were)\s+the\s+((?:[a-z][\w-]*\s+){0,2}?"
                    r"[a-z][\w-]*)\s+(?:for|of|at|on)\s", re.IGNORECASE)


def _participle(words: list[str], at: int) -> bool:
    """A verb's past participle before a preposition ends the noun phrase: "the BHT
    recorded for well B4" asks the BHT, not a record."""
    return (len(words[at]) > 4 and words[at].endswith("ed")
            and words[at + 1:at + 2] in (["for"], ["at"], ["on"], ["in"], ["by"], ["from"],
                                         ["during"], ["to"]))


def asked_head(question: str) -> str | None:
    """What "What is the X of/for ..." asks for: X's head noun, which a unit that names the
    entity only in its heading must say ("the budget for the Quarry Lane build" is not the
    phone line of its engineer). Extraction only: a table's row says its fields in the
    header."""
    match = _ASKED.search(question)
    phrase = match.group(1).split() if match else []
    if len(phrase) > 1 and _participle([*map(str.lower, phrase), "for"], len(phrase) - 1):
        phrase = phrase[:-1]
    words = stems(phrase[-1]) if phrase else []
    return words[0] if words else None
