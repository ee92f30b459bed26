"""An answer the runtime copied from a record's field ("carrier: CMA CGM" from a CSV row),
checked against the record's own text in the store rather than against the spans cited: the
field says what is asked, and the record (with its header, heading and the document's title)
says the value and every entity the question names."""

from __future__ import annotations

import re

from ..corpus.asked import label_says
from ..corpus.doc_titles import file_words
from ..corpus.evidence import entities, normalise
from ..corpus.marc import marc_view
from ..corpus.naming import says, written_forms
from ..corpus.sections import title
from ..corpus.typed_values import asked_kind
from .answers.extractive import verify_extract
from .answers.kinds import only_intended
from .answers.persons import asks_who, names_asked_role
from .context import AgentAnswer, RunContext

__all__ = ["copied_field_holds"]


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
    if not ((typed is not None and typed[0] == copied["field"])
            or label_says(question, str(copied["field"]))
            or (field_words and set(field_words) <= set(re.findall(r"\w+", normalise(question))))
            or (asks_who(question) and names_asked_role(question, answer.text))):
        return False
    doc = next((d for d in rc.store.documents(rc.session_id) if d.id == copied["doc_id"]), None)
    if doc is None:
        return False
    text = rc.store.text(doc)
    # A chain's answer is about the last entity it reached, not the question's own.
    links = copied.get("bridges") or []
    # The heading cited with the record names what the record does not (the bill's address),
    # as the document's title does for all of it (as for any cited unit; a chain's record
    # must name its bridge itself); the line naming a grid's month says the date its row
    # gives by day number alone.
    above, dated = copied.get("heading"), copied.get("dated")
    # The file's name says what the whole file is too ("the postgresql sample config").
    named_above = [title(text) if not links else "",
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
