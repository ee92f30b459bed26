"""An answer the runtime copied from a record's field ("carrier: CMA CGM" from a CSV row),
checked against the record's own text in the store rather than against the spans cited: the
field says what is asked, and the record (with its header, heading and the document's title)
says the value and every entity the question names."""

from __future__ import annotations

import re

from ..corpus.asked import label_says
from ..corpus.dates import day_row_date, said_dates, same_date
from ..corpus.doc_titles import document_names, file_words
from ..corpus.evidence import contains, entities, normalise
from ..corpus.grid_tables import column_value_said
from ..corpus.marc import marc_view
from ..corpus.naming import says, written_forms
from ..corpus.positional import glued_values, positional_fields
from ..corpus.typed_values import asked_kind
from .answers.kinds import only_intended
from .answers.persons import asks_who, names_asked_role
from .context import AgentAnswer, RunContext

__all__ = ["copied_field_holds", "verify_extract"]


def copied_field_holds(rc: RunContext, question: str, answer: AgentAnswer) -> bool:
    """A field the runtime copied from a record ("carrier: CMA CGM" from a CSV row): checked
    against the record's own text in the store (the value and every entity the question
    names in it, the field's name in it or in its table's header before it)."""
    copied = answer.extra.get("extracted")
    if not isinstance(copied, dict) or not copied.get("field"):
        return False
    # The field is not what is asked ("Room" for a phone extension), unless its text names
    # someone under the role asked ("notes: Quizmaster: Odile Fontaine").
    # A field named in the question's own words was matched to them by the runtime.
    field_words = re.findall(r"\w+", normalise(str(copied["field"])))
    # A value of the kind the question asks (`typed_values`: an amount for "what price").
    typed = asked_kind(question)
    doc = next((d for d in rc.store.documents(rc.session_id) if d.id == copied["doc_id"]), None)
    if doc is None:
        return False
    text = rc.store.text(doc)
    if not ((typed is not None and typed[0] == copied["field"])
            or label_says(question, str(copied["field"]), text[copied["start"]:copied["end"]])
            or (field_words and set(field_words) <= set(re.findall(r"\w+", normalise(question))))
            or (asks_who(question) and names_asked_role(question, answer.text))):
        return False
    # A chain's answer is about the last entity it reached, not the question's own.
    links = copied.get("bridges") or []
    # The heading cited with the record names what the record does not (the bill's address),
    # as the document's title does for all of it (as for any cited unit; a chain's record
    # must name its bridge itself); the line naming a grid's month says the date its row
    # gives by day number alone.
    above, dated = copied.get("heading"), copied.get("dated")
    # The file's name says what the whole file is too ("the postgresql sample config").
    named_above = [document_names(text) if not links else "",
                   "" if links else _name_only(question, doc.source, text),
                   text[above[0]:above[1]] if above else ""]
    record, header = text[copied["start"]:copied["end"]], text[:copied["start"]]
    if only_intended(question, record):
        return False  # "Landlord to replace hob": the record's date is not when it was
    # A MARC record writes its fields' tags; their names ("barcode") are the format's.
    if (marc := marc_view(text, copied["start"], copied["end"])) is not None:
        record, header = marc[0], "\n".join([header, *marc[1]])
    return verify_extract(question, answer.text, record, header,
                          str(links[-1]) if links else None,
                          above="\n".join(part for part in named_above if part),
                          dated=text[dated[0]:dated[1]] if dated else "")


def _name_only(question: str, source: str, text: str) -> str:
    """The words of the file's name, when the entities of the question it says are said
    nowhere in the file's text ("the postgres sample config" of `postgresql.conf.sample`):
    an entity the text does say must be cited where it says it (a feed's title over the
    episode the answer is from)."""
    name = normalise(file_words(source))
    by_name = [e for e in entities(question) if any(says(name, f) for f in written_forms(e))]
    whole = normalise(text)
    if any(any(says(whole, f) for f in written_forms(e)) for e in by_name):
        return ""
    return name


def verify_extract(question: str, answer: str, record_text: str, header: str,
                   chain_end: str | None = None, above: str = "", dated: str = "") -> bool:
    """A field copied from a record is grounded when its value is in the record, with every
    entity the question names (for a multi-hop answer: the last entity its chain reached)
    in it or in the heading above it, and the field's name is in the record or in the text
    before it (a CSV or markdown table's header). A date the record gives by its day number
    alone ("13 FR") is said with the line naming its month (`dated`: "NOVEMBER 2026")."""
    key, _, value = answer.partition(": ")
    # A QIF transaction writes "PBallindooley Men's Shed": its values, read apart, say it.
    said = "\n".join([record_text, *glued_values(record_text)])
    norm = normalise(f"{above}\n{said}" if above else said)
    # A value folded over lines in the text (iCalendar, vCard, mail headers: "Fee £25.\n
    # 00.") is read back unfolded.
    if not value or not (contains(norm, normalise(value))
                         or re.sub(r"\s", "", normalise(value)) in re.sub(r"\s", "", norm)):
        return False
    named = [normalise(chain_end)] if chain_end else entities(question)
    if any(not any(says(norm, form) for form in written_forms(e))
           and not _day_row_says(record_text, dated, e)
           and not column_value_said(e, record_text, header) for e in named):
        return False
    # A nested record's field is named by its path ("data.MAX_BATCH_SIZE"): its last step
    # is the key written in the text.
    key = normalise(key.rsplit(".", 1)[-1])
    # A positional format's field is named by its documentation, not by the text.
    return key in norm or key in normalise(header) or (
        key in ("time", "when") and _CLOCK.fullmatch(value.strip()) is not None) or (
        key in positional_fields(record_text))


_CLOCK = re.compile(r"(?:[01]?\d|2[0-3])[:.h]?[0-5]\d(?:\s?[ap]\.?m\.?)?", re.IGNORECASE)
"""A clock time: what a grid's cell gives for "what time" with no column named (the field
is the kind of value asked, not a name the text writes)."""


def _day_row_says(row: str, dated: str, entity: str) -> bool:
    """The row opens with the entity's day number (and the date's weekday, if it writes
    one) and the line naming its month says the entity's month (`dates.day_row_date`)."""
    asked = said_dates(entity)
    if not dated or len(asked) != 1 or asked[0][:2] != (0, len(entity)) or asked[0][2][0] is None:
        return False
    found = day_row_date(row, dated)
    return found is not None and same_date(asked[0][2], found)
