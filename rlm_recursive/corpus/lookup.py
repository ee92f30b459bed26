"""Looking a record up by what the question says of it, and reading the field it asks for.

A manifest, a JSON array or a register names a thing in one field and gives its settings in
others, lines apart: "max replicas the ledger api can autoscale to" is the `maxReplicas` of
the record whose other fields say ledger-api and HorizontalPodAutoscaler; no one line holds
both. `lookup` picks
- the fields whose name says what is asked (`asked.label_says`: `maxReplicas`, not
  `MAX_BATCH_SIZE`);
- among records with such a field, the one whose values say the question's other words, all
  but one of each three ("prod" may stand for production), and more of them than any other
  record says (a tie between records is no answer), and every word that tells it from its
  siblings ("east" when there is a north wing: `asked.qualifiers`); among equals, the
  record that says them in more of its fields (the Deployment named ledger-worker, not the
  job run under the ledger-worker account);
- of its asked fields, the one whose name shares most of the question's words (`maxReplicas`
  over `minReplicas` for "max replicas"); a tie between two values is no answer.
A "when" or "where" question names no thing it asks for: the field is the one whose name says
every word of the question that names a field somewhere ("when did J. Okoro join" is the
`joined` of the row naming him, "when did he die" no `EMIG.DATE`), and a date, or a place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .asked import CONTRAST_WORDS, LABEL_KINDS, asked_phrase, label_says, label_words, qualifiers
from .dates import MONTHS, has_month
from .described import question_codes
from .naming import HONORIFICS
from .records import Record
from .sections import Heading, heading_over
from .units import has_word, normalise, shared_words, stems

__all__ = ["another_kind", "lookup", "says_rest"]

_WH_HINTS = {"when": frozenset(stems("date time year day month")),
             "where": frozenset(stems("place address location city town venue"))}
"""What the field a "when"/"where" question asks for says (its name, or a date's shape)."""
_DATE = re.compile(r"\d{4}-\d\d-\d\d|\b\d{1,2}\s+[A-Za-z]{3,9}\s+\d{4}\b|\b\d{4}\b|"
                   r"\d{1,2}:\d\d")
_PROPER = re.compile(r"(?<=[\w,;:] )[A-Z][\w'’.-]*")
"""A capitalised word inside a question: a name, which a record must say, never a
paraphrase."""
_OWNED = re.compile(r"([\w-]+)['’]s?\s+([\w-]+)")
"""An owner and what it owns ("Hollis's mother", "the treasurer's work email")."""
_RELATIONS = frozenset(stems(
    "mother father parent parents son daughter child children brother sister sibling husband "
    "wife spouse partner grandmother grandfather uncle aunt cousin niece nephew widow boss "
    "manager owner deputy assistant"))
"""What an owner's word may name: another person ("Kenneth's mother" is not in Kenneth's
record)."""
_DESCRIBED = re.compile(r"((?:[\w'’-]+\s+){1,3})(?=[\w-]+['’]s?\s)")
"""The words that describe an owner, before its name ("theatre group" in "the theatre group
treasurer's work email")."""


_QUALIFIER = re.compile(r"\(([^()]*[A-Za-z][^()]*)\)\s*$")
"""A field name's own kind, in brackets at its end ("phone (home)")."""
_MAX_POOL = 400
"""Records a look-up weighs word by word, those holding most of the question's words."""


def _wh(question: str) -> str | None:
    """"when" or "where" asked, first or after a topic ("The hearing aid ... - where had it
    been found?")."""
    match = re.match(r"(?:[^?]*\s[-–—:]\s+)?\s*(when|where)\b", question, re.IGNORECASE)
    return match.group(1).lower() if match else None


def _rest(question: str, phrase: set[str], said_anywhere: frozenset[str]) -> list[str]:
    """The question's words a record must say, beyond the thing asked. The words before an
    owner ("the theatre group treasurer's ...") describe it, and one no record and no title
    says is a paraphrase, left out; a name never is."""
    described = set(stems(" ".join(_DESCRIBED.findall(question)))) - set(
        stems(" ".join(_PROPER.findall(question))))
    return [w for w in dict.fromkeys(stems(question)) if w not in phrase
            and (w not in described or has_word(w, said_anywhere))]


def says_rest(question: str, record: Record, text: str, above: str = "") -> bool:
    """The record (its values or field names) says every word of the question beyond the
    thing asked that its document `text` says anywhere: the member's row holding their name
    is still not the one the question means when it names a belt sander another row
    says. The document's title (`above`) says its words of every record ("St Oswin's" of a
    register's entries)."""
    lowered = text.lower()
    # Neither a title ("Mrs") nor the word asking a measure ("how old") names the record.
    asking = set(stems(" ".join(re.findall(r"(?i)\bhow\s+(\w+)", question)))) | HONORIFICS
    other = [w for w in dict.fromkeys(stems(question)) if w not in set(asked_phrase(question))
             and w not in asking and w[:4] in lowered]
    said = label_words(" ".join([*record.fields.values(), *record.fields, above]))
    return shared_words(other, said) == set(other)


def _months(question: str) -> dict[int, frozenset[str]]:
    """The months the question names by name ("October", "in May"), and their stems."""
    found = {}
    for word in re.findall(r"[A-Za-z]+", question):
        month = MONTHS.get(word.lower())
        if month and (len(word) > 3 or word[0].isupper()) and word.lower() != "mar":
            found[month] = frozenset(stems(word))
    return found


def _context(record: Record, headings: tuple[Heading, ...],
             months: Mapping[int, frozenset[str]]) -> frozenset[str]:
    """What a record says by where it stands and how it dates: the heading in force over
    it ("C. PAYMENTS RECEIVED — OCTOBER 2025" over a register's row), and a month the
    question names that one of its dates falls in (05/10/25 says October)."""
    over = heading_over(headings, record.start)
    heading = over[2] if over else ""
    dated = [words for month, words in months.items() if has_month(record.text, month)]
    # A table's header line read as a heading names its columns, no row ("SHARD DEPTH").
    return (label_words(heading) - label_words(" ".join(record.fields))).union(*dated)


def _said(record: Record, question: str = "") -> frozenset[str]:
    """The words of the record's values, and the name of each field the question gives
    with its value ("partition 3" of a row whose PARTITION is 3, "bay 2")."""
    # The value ends the name: "boat Curlew III" does not give the boat Curlew.
    named = [key for key, value in record.fields.items() if value.strip() and re.search(
        r"\b" + r"\W+".join(map(re.escape, re.findall(r"[A-Za-z]+", key)))
        + r"\s+(?:no\.?\s*|#\s*)?" + re.escape(value.strip())
        + r"(?![\w.]|(?-i:\s+[A-Z0-9]))", question, re.IGNORECASE)
        and re.search(r"[A-Za-z]", key)]
    # "69,3" kWh says no "3" (of "kas 3"): a number's decimal part is no word of its own.
    values = [_DECIMAL.sub(r"\1\2", v) for v in record.fields.values()]
    return label_words(" ".join([*values, *named]))


_DECIMAL = re.compile(r"(?<![\d.,])(\d+)[.,](\d+)(?![\d.,])")
"""A number with one decimal point or comma ("69,3", "14.5"), read as one token."""


def another_kind(question: str, phrase: set[str], key: str, record: Record) -> bool:
    """The field is another thing of the asked name: the question says what kind it asks
    ("hardback ISBN", "work phone") and neither the field's name nor the record says it,
    while the name qualifies itself, in brackets, as a kind the question does not say
    ("ISBN (paperback)", "phone (home)"); or another field says that kind with the name
    ("police ... ref 26/44519" beside the record's own Ref)."""
    # "police reference" where the record's Ref is its own and its notes say "police 13/11,
    # ref 26/44519": the question's kind word is said with the label in another field.
    own = label_words(key)
    kinds = {w for w in phrase if w not in own and w not in LABEL_KINDS}
    if kinds and own & phrase and any(
            kinds <= (words := label_words(value)) and own & words
            for other, value in record.fields.items() if other != key):
        return True
    qualified = _QUALIFIER.search(key)
    if qualified is None:
        return False
    said = label_words(" ".join([key, *record.fields.values()]))
    asked = frozenset(stems(question))
    return (any(not has_word(w, said) for w in phrase)
            and any(not has_word(w, asked) for w in stems(qualified.group(1))))


def _asked_keys(question: str, record: Record, phrase: set[str], pool_labels: frozenset[str],
                ) -> tuple[list[str], set[str]]:
    """The record's fields that may hold what is asked, and the question's words they
    name (left out of what the record must say)."""
    filled = {k: v for k, v in record.fields.items() if v.strip()}
    wh = _wh(question)
    if phrase:
        keys = [k for k in filled if label_says(question, k)
                and not another_kind(question, phrase, k, record)]
        asked = asked_phrase(question)
        if not keys and len(asked) > 1 and asked[-1] in LABEL_KINDS:
            # "the CIRIA report number": a field called `number` in a record that says
            # CIRIA ("PayPal ref no.": one whose value is PayPal, a word though camel case).
            said = " ".join(filled.values())
            values = label_words(said) | frozenset(stems(said))
            if any(has_word(w, values) for w in asked[:-1]):
                keys = [k for k in filled if asked[-1] in label_words(k)]
        return keys, phrase
    if wh is None:
        return [], phrase
    values = label_words(" ".join(filled.values()))
    named = {w for w in stems(question) if has_word(w, pool_labels) and not has_word(w, values)}
    hints = _WH_HINTS[wh]
    # A column named by the question word itself ("Where found" for "where was the guitar
    # left") says what is asked, whatever verb the question uses.
    keys = [k for k, v in filled.items()
            if all(has_word(w, label_words(k)) for w in named)
            and (re.match(rf"(?i)\s*{wh}\b", k) or (named and (
                label_words(k) & hints or (wh == "when" and _DATE.search(v)))))]
    return keys, named


def _sibling_says(record: Record, pool: list[Record], missing: set[str], matched: set[str]
                  ) -> bool:
    """Another record says, in the same field, what this one says of the question and a
    word this one lacks: an "orbital sander" row is not the "belt sander" one, though it
    says sander and belt is one word in four."""
    for key, value in record.fields.items():
        own = label_words(value)
        says = {w for w in matched if has_word(w, own)}
        if not says or not missing:
            continue
        for other in pool:
            theirs = other.fields.get(key)
            if other is not record and theirs and theirs != value:
                words = label_words(theirs)
                if all(has_word(w, words) for w in says) and any(
                        has_word(w, words) for w in missing):
                    return True
    return False


def lookup(question: str, records: Iterable[Record], titles: Mapping[str, str] | None = None,
           sections: Mapping[str, tuple[Heading, ...]] | None = None
           ) -> tuple[Record, str] | None:
    """The record the question picks out and the name of its field that answers it, or None
    (see the module docstring); `titles` are the documents' titles by doc_id, `sections`
    their headings."""
    # "TF3YXA frequency", a query of keywords: the code names the record, not the field.
    codes = [c for c in question_codes(question) if re.search(r"\d", c)]
    phrase = set(asked_phrase(question)) - set(stems(" ".join(codes)))
    if not phrase and _wh(question) is None:
        return None
    titles = titles or {}
    everything = [r for r in records if len(r.fields) >= 2]
    lowered = {id(r): r.text.lower() for r in everything}
    corpus = "\n".join(lowered.values())
    # Words are stemmed for the records that may fit only (a log holds 50,000 lines): a
    # record whose text, field names and title hold too few of the question's words (their
    # first letters) cannot.
    base = [w for w in dict.fromkeys(stems(question)) if w not in phrase]
    need = max(1, len(base) - len(base) // 3 - 1)
    hits: list[tuple[int, Record]] = []
    for r in everything:
        hay = " ".join([lowered[id(r)], *r.fields, titles.get(r.doc_id, "")]).lower()
        if (n := sum(w[:4] in hay for w in base)) >= need:
            hits.append((n, r))
    hits.sort(key=lambda pair: -pair[0])
    if len(hits) > _MAX_POOL:
        cut = hits[_MAX_POOL][0]
        if hits[0][0] == cut:
            return None  # the question's words fit too many records alike to pick one
        hits = [pair for pair in hits if pair[0] > cut]
    pool = [r for _, r in hits]
    said_by = {id(r): _said(r, question) for r in pool}
    # A document's title says what all its records are about ("the tool library"); a word
    # a record says (the first record's name in a title's first lines) tells none apart.
    def in_corpus(word: str, text: str = corpus) -> bool:
        """A word of the stem's ("library" for librari) begins there: "fellsingers" says
        no singer, "ground" no group."""
        start = word[:-1] if word.endswith("i") and len(word) > 4 else word
        return re.search(r"\b" + re.escape(start), text) is not None

    # A word describing the owner is a paraphrase when the record's own document never
    # says it ("the theatre group" of a contacts file; a CI log's "group" is not its).
    docs = {r.doc_id for r in pool}
    doc_text = {d: "\n".join(lowered[id(r)] for r in everything if r.doc_id == d)
                for d in docs}

    # A column header among the title's lines names fields, not what the document is about.
    keys = label_words(" ".join({k for r in everything for k in r.fields}))
    about = {doc: frozenset(w for w in label_words(title) if not in_corpus(w) and w not in keys)
             for doc, title in titles.items()}
    asked_months = _months(question)
    for record in pool:
        said_by[id(record)] |= about.get(record.doc_id, frozenset()) | _context(
            record, (sections or {}).get(record.doc_id, ()), asked_months)
    said_in = {d: frozenset(w for w in base if in_corpus(w, doc_text[d])).union(
        about.get(d, frozenset())) for d in docs}
    pool_labels = label_words(" ".join({k for r in everything for k in r.fields}))
    # "the east wing printer" where the text has a north wing: east must be said.
    picked = qualifiers(question, frozenset(w for w in CONTRAST_WORDS if w in corpus))
    scored: list[tuple[tuple[int, int], Record, list[str]]] = []
    for record in pool:
        keys, asked = _asked_keys(question, record, phrase, pool_labels)
        if not keys:
            continue
        other = _rest(question, asked, said_in[record.doc_id])
        said = said_by[id(record)]
        matched = shared_words(other, said)
        owned = set(stems(" ".join(m[1] for m in _OWNED.findall(question)))) & _RELATIONS - asked
        if (not other or not picked <= said or shared_words(owned, said) != owned
                or len(other) - len(matched) > len(other) // 3
                or _sibling_says(record, [r for r in everything if any(
                    w[:4] in lowered[id(r)] for w in set(other) - matched)],
                                 set(other) - matched, matched)):
            continue
        fields_saying = sum(any(has_word(w, label_words(v)) for w in matched)
                            for v in record.fields.values())
        scored.append(((len(matched), fields_saying), record, keys))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None  # two records fit the question as well: which one is not known
    _, record, keys = scored[0]
    asked = frozenset(stems(question)) | _WH_HINTS.get(_wh(question) or "", frozenset())

    def says(key: str) -> tuple[int, int]:  # the asked phrase's words first ("value of")
        words = label_words(key)
        return len(words & phrase), len(words & asked)

    # A field whose value the question gives ("booking B-7709") names the record, no answer.
    keys = [k for k in keys if normalise(record.fields[k]) not in normalise(question)]
    if not keys:
        return None
    ranked = sorted(keys, key=says, reverse=True)
    values = {record.fields[k] for k in ranked if says(k) == says(ranked[0])}
    return (record, ranked[0]) if len(values) == 1 else None
