"""Hops through records, as chains (no model call): the record a question describes by what
it says (`corpus.described`), the record linked to the one it pins by a date or code
(`corpus.linked_records`), the person heading another item of a value the question's
line names (`corpus.role_heads`), a DNS name's CNAME chain to its address
(`corpus.zone_chains`), the keyed record it names (`corpus.record_fields`), a
setting in code (`corpus.code_facts`), and a grid's cell (`corpus.grid_cells`)."""

from __future__ import annotations

from ...corpus.asked import asked_label
from ...corpus.code_facts import code_fact
from ...corpus.described import described_field
from ...corpus.grid_cells import grid_cell
from ...corpus.grid_columns import column_link
from ...corpus.grid_links import grid_link
from ...corpus.line_fields import line_field
from ...corpus.line_links import line_link
from ...corpus.linked_records import linked_field
from ...corpus.record_fields import record_field
from ...corpus.role_heads import role_head
from ...corpus.typed_values import typed_value
from ...corpus.zone_chains import resolved_address
from ...store import Store
from ...types import SpanRef
from ..answers.extractive import Extract
from .chain import Chain

__all__ = ["code_value", "described_record", "grid_crossing", "grid_hop", "keyed_field",
           "line_value", "linked_line", "linked_record", "record_hop", "resolved_name",
           "role_heading", "typed_line_value"]


def _docs(store: Store, session_id: str) -> list[tuple[str, str]]:
    return [(doc.id, store.text(doc)) for doc in store.documents(session_id)]


def _field_chain(doc_id: str, span: tuple[int, int], above: tuple[int, int] | None,
                 answer: str, field: str) -> Chain:
    """One hop's answer copied from `span`, citing it and the lines above that name what
    it does not (a record's heading, a block's opening line)."""
    ref = SpanRef(doc_id=doc_id, start=span[0], end=span[1])
    heading = SpanRef(doc_id=doc_id, start=above[0], end=above[1]) if above else None
    return Chain(Extract(answer, ref, field=field, heading=heading), [],
                 [ref, *([heading] if heading else [])])


def described_record(store: Store, session_id: str, question: str,
                     docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The asked field of the one record the question describes by what it says ("the
    call point of the week the beacon was not flashing"), citing the record; None when no
    one record is picked or two readings differ."""
    found = described_field(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    record = SpanRef(doc_id=found.doc_id, start=found.unit.start, end=found.unit.end)
    # The field is named as the question names it ("employee number" for "Emp. no"): the
    # label was matched to those words here, by abbreviation or a form the text declares.
    return Chain(Extract(f"{found.label}: {found.value}", record,
                         field=found.asked_as or found.label), [], [record])


def linked_record(store: Store, session_id: str, question: str,
                  docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The asked field of the record linked, by the words they share, to the one record the
    question pins by a date or code ("the engineer who repaired the fault logged on 23
    June"); the shared words are the chain's bridge (the answer's record says them)."""
    linked = linked_field(question, docs if docs is not None else _docs(store, session_id))
    if linked is None:
        return None
    found, pinned = linked.found, linked.pinned
    record = SpanRef(doc_id=found.doc_id, start=found.unit.start, end=found.unit.end)
    return Chain(Extract(f"{found.label}: {found.value}", record,
                         field=found.asked_as or found.label), [linked.bridge],
                 [record, SpanRef(doc_id=pinned.doc_id, start=pinned.start, end=pinned.end)])


def role_heading(store: Store, session_id: str, question: str,
                 docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The person under the asked role ("Judge A. Brennan") heading another item of a value
    the question's line names; the record cited runs from that heading to the item, and the
    value is the chain's bridge."""
    found = role_head(question, asked_label(question),
                      docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    record = SpanRef(doc_id=found.doc_id, start=found.heading[0], end=found.item[1])
    start, end, doc_id = found.bridge
    return Chain(Extract(f"{found.role}: {found.name}", record, field=found.role),
                 [found.value], [record, SpanRef(doc_id=doc_id, start=start, end=end)])


def keyed_field(store: Store, session_id: str, question: str,
                docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The asked field of the keyed record the question names ("freddie lindsay UPN",
    "turnout egton bridge"), wherever in the record it is written, citing the record."""
    found = record_field(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    # The field is named as the question names it ("confirmation number" for "Conf."),
    # for grounding to check against what is asked.
    return _field_chain(found.doc_id, (found.unit.start, found.unit.end), found.context,
                        f"{found.label}: {found.value}", found.asked_as or found.label)


def code_value(store: Store, session_id: str, question: str,
               docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The value a setting, a markup element's field or a command line's option gives for
    what the question asks (`corpus.code_facts`), citing its line or element."""
    names = {doc.id: doc.source for doc in store.documents(session_id)}
    found = code_fact(question, docs if docs is not None else _docs(store, session_id), names)
    if found is None:
        return None
    return _field_chain(found.doc_id, (found.start, found.end), found.opening,
                        f"{found.label}: {found.value}", found.asked_as or found.label)


def grid_crossing(store: Store, session_id: str, question: str,
                  docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The cell where the grid row the question names crosses the column it asks ("the
    first 12B from Mill Lane on Sundays"), citing the row and the header and heading above
    the grid."""
    found = grid_cell(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    row = SpanRef(doc_id=found.doc_id, start=found.row.start, end=found.row.end)
    tops = [span for span in (found.grid.heading, found.grid.header) if span]
    above = (SpanRef(doc_id=found.doc_id, start=min(a for a, _ in tops),
                     end=max(b for _, b in tops)) if tops else None)
    dated = (SpanRef(doc_id=found.doc_id, start=found.dated[0], end=found.dated[1])
             if found.dated else None)
    return Chain(Extract(f"{found.label}: {found.value}", row, field=found.asked_as,
                         heading=above, dated=dated), [],
                 [row, *(ref for ref in (above, dated) if ref)])


def grid_hop(store: Store, session_id: str, question: str,
             docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The asked column of the row another grid keys by a code of the row the question
    names ("the phone of the branch holding the overdue copy of <title>"), or the asked
    row's cell in the column a line heads with the code of the line the question describes
    (a sample's pH, `grid_columns`): the code is the chain's bridge; the row reached
    (with the line naming its columns) and the row named are cited."""
    docs = docs if docs is not None else _docs(store, session_id)
    found = grid_link(question, docs) or column_link(question, docs)
    if found is None:
        return None
    doc_id, row, grid = found.reached
    ref = SpanRef(doc_id=doc_id, start=row.start, end=row.end)
    heads = found.heads or grid.header
    header = SpanRef(doc_id=doc_id, start=heads[0], end=heads[1]) if heads else None
    named_doc, named_start, named_end = found.named
    named = SpanRef(doc_id=named_doc, start=named_start, end=named_end)
    return Chain(Extract(f"{found.label}: {found.value}", ref, field=found.label,
                         heading=header), [found.code],
                 [ref, *([header] if header else []), named])


def line_value(store: Store, session_id: str, question: str,
               docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The labelled field ("size=231775", "Reading 031477 kWh") of the one line the
    question names by an address or a code, or by the words it says that its sibling lines
    do not (`corpus.line_fields`), citing the line."""
    found = line_field(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    return _field_chain(found.doc_id, (found.start, found.end), found.context,
                        f"{found.label}: {found.value}", found.asked_as)


def linked_line(store: Store, session_id: str, question: str,
                docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The sender or recipient of the message a log line describes ("who sent the e-mail
    that bounced ..."), read from a line sharing its id (`corpus.line_links`): the id is
    the chain's bridge, and both lines are cited."""
    found = line_link(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    ref = SpanRef(doc_id=found.doc_id, start=found.line[0], end=found.line[1])
    described = SpanRef(doc_id=found.doc_id, start=found.described[0], end=found.described[1])
    links = [ref] if described == ref else [ref, described]
    return Chain(Extract(f"{found.label}: {found.value}", ref, field=found.label),
                 [found.bridge], links)


def typed_line_value(store: Store, session_id: str, question: str,
                     docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The one value of the asked kind (a step's time, a version, a due date) on the line
    the question's words pick, where no label names it (`corpus.typed_values`)."""
    found = typed_value(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    if not found.label:
        return None  # grounding reads a copied field as "label: value"
    return _field_chain(found.doc_id, (found.start, found.end), found.above,
                        f"{found.label}: {found.value}", found.kind)


def resolved_name(store: Store, session_id: str, question: str,
                  docs: list[tuple[str, str]] | None = None) -> Chain | None:
    """The address a host the question names resolves to in a zone file, through its CNAME
    records (`corpus.zone_chains`): each canonical name is a bridge, and every record
    followed is cited (the last alias, which names the address record's owner in full, as
    the heading over it)."""
    found = resolved_address(question, docs if docs is not None else _docs(store, session_id))
    if found is None:
        return None
    refs = [SpanRef(doc_id=found.doc_id, start=a, end=b) for a, b in found.records]
    heading = refs[-2] if len(refs) > 1 else None
    return Chain(Extract(f"address: {found.value}", refs[-1], field="address",
                         heading=heading), list(found.through), [refs[-1], *refs[:-1]])


def record_hop(store: Store, session_id: str, question: str) -> Chain | None:
    """The address a zone's name resolves to, else the record linked to the one the
    question pins by a date or code, else the record
    the question describes, else the role heading another of its items, else the keyed
    record the question names, else the setting, element or option in code that says it,
    else the cell where a grid row crosses the asked column, else that column of the
    row another grid keys by the named row's code, else the labelled field of the
    line the question names, else the sender or recipient on a line sharing an id with the
    line it describes, else the one value of the asked kind on the line its words pick. (Two
    hops through a name,
    `two_hops.two_hop`, are tried by search and iterative before this is called.)"""
    docs = _docs(store, session_id)  # read once for the ten look-ups
    return (resolved_name(store, session_id, question, docs)
            or linked_record(store, session_id, question, docs)
            or described_record(store, session_id, question, docs)
            or role_heading(store, session_id, question, docs)
            or keyed_field(store, session_id, question, docs)
            or code_value(store, session_id, question, docs)
            or grid_crossing(store, session_id, question, docs)
            or grid_hop(store, session_id, question, docs)
            or line_value(store, session_id, question, docs)
            or linked_line(store, session_id, question, docs)
            or typed_line_value(store, session_id, question, docs))
