"""Grounding: every answer leaves the core backed by the spans it cites, or as "not found".

Applied to every strategy's answer, for every provider (`run_query` calls `ground_answer`):
1. the answer is checked against the text of the spans the run cited (`corpus.evidence`);
2. when the check fails, the model is asked once more, shown the cited passages that best
   match the question and told to quote;
3. when that fails too, the sentence or line of the cited spans that best matches the
   question (holding every entity it names) is the answer, quoted;
4. else the answer is "Not found in the loaded documents", with the closest passages
   beside it (never inside it).
Computed answers (count, classify) are grounded by their plan: `extra["computed"]` says
whether the plan came from the question's words and matched at least one item.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import trajectory
from ..corpus.asked import asked_label, asked_phrase
from ..corpus.doc_titles import document_names
from ..corpus.evidence import (
    Support,
    Unit,
    best_units,
    check_support,
    contains,
    entities,
    has_word,
    is_echo,
    normalise,
    shared_words,
    split_units,
    stems,
    values,
)
from ..corpus.records import Layout
from ..corpus.sections import Scope, scopes_for
from ..errors import InvalidArgs
from ..tools.search import search_session
from ..types import SpanRef
from .answers.answer_form import as_answer
from .answers.clauses import answers_kind, labelled_as_asked
from .answers.extractive import disagree, record_at
from .answers.kinds import fits_kind, fits_kind_in
from .answers.measures import alternative_sums
from .answers.persons import asks_person, says_act
from .answers.sides import change_side, named_as_reference, other_end
from .context import AgentAnswer, RunContext
from .copied_check import copied_field_holds
from .reask import quoted_reply, reask
from .routing import has_bridge, session_layout

__all__ = ["NOT_FOUND", "Grounding", "ground_answer", "not_found_answer", "quoted_reply",
           "said_before"]

NOT_FOUND = "Not found in the loaded documents."
Method = Literal["checked", "reasked", "extractive", "computed", "not_found", "contexts"]

_CLOSEST = 3
_CLOSEST_CHARS = 300


@dataclass
class Grounding:
    """How the answer was grounded, or why it was not."""

    grounded: bool
    method: Method
    failed: dict[str, Any] = field(default_factory=dict)
    """What the first check found missing (values, words, entities, echo)."""
    closest: list[dict[str, Any]] = field(default_factory=list)
    original: str | None = None
    """The strategy's own answer, when grounding replaced it."""

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method}
        if self.failed:
            out["failed"] = self.failed
        if self.original is not None:
            out["original_answer"] = self.original[:500]
        return out


def not_found_answer(tier: Any, reason: str) -> AgentAnswer:
    """What a strategy returns when retrieval found nothing: no model is asked to answer."""
    return AgentAnswer(NOT_FOUND, tier, 0, stopped="not_found",
                       extra={"not_found": reason})


async def ground_answer(rc: RunContext, question: str, answer: AgentAnswer,
                        strategy: str = "") -> tuple[str, Grounding]:
    """The answer to return and how it is grounded (see the module docstring)."""
    computed = answer.extra.get("computed")
    if isinstance(computed, dict):
        ok = bool(computed.get("grounded"))
        failed = {} if ok else {"computed": "the count plan is not grounded in the question's "
                                            "words, or it matched no item"}
        return answer.text, _record(Grounding(ok, "computed", failed))
    if answer.extra.get("contexts") is not None and rc.settings.output_mode == "CONTEXTS":
        return answer.text, _record(Grounding(True, "contexts"))
    spans, texts, scopes, titles = await asyncio.to_thread(_cited_texts, rc)
    if answer.extra.get("not_found"):
        closest = await asyncio.to_thread(_closest, rc, question, spans, texts)
        return NOT_FOUND, _record(Grounding(False, "not_found",
                                            {"retrieval": answer.extra["not_found"]},
                                            closest, answer.text))
    # What the person said earlier in the conversation backs an answer too ("my locker code
    # is ..."), checked like a cited span; only the documents are quoted or shown as closest.
    said = await asyncio.to_thread(said_before, rc)
    pool = texts + said
    pool_units = split_units(pool, scopes, titles)
    units = [u for u in pool_units if u.source < len(texts)]
    bridges = answer.extra.get("bridges") or []
    chain_end = str(bridges[-1]) if bridges else None
    long_form = strategy == "map-reduce"  # a summary of every chunk, not one sentence's fact
    # A record row, markup or the prompt said back is no answer, though the text backs its
    # words: narrowed to the value it wraps, else nothing to check (`answer_form`).
    original = answer.text
    shaped = answer.text if long_form else as_answer(question, answer.text)
    if shaped is not None and shaped != answer.text:
        answer = dataclasses.replace(answer, text=shaped)
    first = (check_support(answer.text, question, pool, pool_units, chain_end, long_form)
             if shaped is not None else Support(False))
    # A value under a label that is not what is asked ("MAX_BATCH_SIZE: 800" for the max
    # replicas, the "Room" cell for a phone extension) is backed by the text, yet no answer.
    layout = (await session_layout(rc))[0] if asked_label(question) else None
    # The runtime's own copy (small models): taken when the model's answer is not backed,
    # or names none of the values the line holding the question's entities gives.
    ours = answer.extra.get("extraction")
    copy = as_answer(question, str(ours["answer"])) if isinstance(ours, dict) else None
    if isinstance(ours, dict) and copy is not None and (not first.supported or disagree(
            answer.text, copy, question)):
        runtime = AgentAnswer(copy, answer.tier, 0, extra={"extracted": ours})
        links = ours.get("bridges") or []
        end = str(links[-1]) if links else None
        ours_support = check_support(runtime.text, question, pool, pool_units, end)
        # The model's own answer, backed by a line that says more of what is asked than the
        # runtime's ("20 chicken thighs" beside "600 ml chicken stock"), is not overruled.
        says_more = (first.supported and _says_more(question, first.unit, ours_support.unit)
                     and _of_asked_kind(question, answer.text, first.unit, chain_end))
        # A copy from the end of a chain of look-ups must still be what is asked ("04:40
        # nightly" is no port, whichever job the chain reached).
        if not says_more and (((ours_support.supported and (not links or ours_support.unit is None
                                          or answers_kind(question, ours_support.unit))
              and _labelled(question, runtime.text, ours_support.unit, spans, layout))
             or await asyncio.to_thread(copied_field_holds, rc, question, runtime))
                and _of_asked_kind(question, runtime.text, ours_support.unit, end)):
            failed = first.failures() or {"disagreed": "the model's answer names none of the "
                                                        "values of the line it was shown"}
            return runtime.text, _record(Grounding(True, "extractive", failed,
                                                   original=original))
    if first.supported and not _labelled(question, answer.text, first.unit, spans, layout):
        first = Support(False, off_topic=True)
    wrong_kind = first.supported and not _of_asked_kind(question, answer.text, first.unit,
                                                        chain_end)
    if wrong_kind:
        first = Support(False)
    side = change_side(question, answer.text) if first.supported else None
    if first.supported and side == answer.text:
        return answer.text, _record(Grounding(True, "checked", original=(
            original if original != answer.text else None)))
    if side:  # the side of the change ("from 2.1.1 to 2.1.2") the question asks about
        return side, _record(Grounding(True, "checked", original=original))
    two_sides = first.supported  # "from 2.1.1 to 2.1.2", and the question picks neither
    first = Support(False) if two_sides else first
    failed = first.failures()
    if wrong_kind:
        failed = {"wrong_kind": "the answer is not of the kind asked (a person for 'who', a "
                                "phone number, a count), or its line does not say what is asked"}
    if two_sides:
        failed = {"two_values": "the answer names both the old and the new value of a change"}
    if shaped is None:
        failed = {"not_an_answer": "a record row, markup or the prompt said back, not a value"}
    if await asyncio.to_thread(copied_field_holds, rc, question, answer):
        return answer.text, _record(Grounding(True, "extractive", failed))
    if shaped is not None and _computed_by_code(answer, first, texts):
        return answer.text, _record(Grounding(True, "computed", failed))
    if units:
        quoted = await reask(rc, answer, question, units)
        quoted = as_answer(question, quoted) if quoted else None
        again = check_support(quoted, question, pool, pool_units, chain_end,
                              long_form) if quoted else None
        if (quoted and again is not None and again.supported
                and _labelled(question, quoted, again.unit, spans, layout)
                and _of_asked_kind(question, quoted, again.unit, chain_end)):
            return quoted, _record(Grounding(True, "reasked", failed, original=original))
        # A line that only says the question's words back (a heading) answers nothing, nor
        # does one without what is asked ("Safe to skip for a day" for "which port").
        best = [(text, unit) for _, unit in best_units(question, units, 3)
                if (text := as_answer(question, unit.text.strip())) is not None
                and not is_echo(text, question) and answers_kind(question, unit)
                and _labelled(question, text, unit, spans, layout)
                and _of_asked_kind(question, text, unit, chain_end)]
        sides = [side for text, _ in best if (side := change_side(question, text))]
        if sides:
            return sides[0], _record(Grounding(True, "extractive", failed, original=original))
    closest = await asyncio.to_thread(_closest, rc, question, spans, texts, units)
    return NOT_FOUND, _record(Grounding(False, "not_found", failed, closest, original))


def _says_more(question: str, theirs: Unit | None, ours: Unit | None) -> bool:
    """The model's unit holds more of the question's words, its own (not its heading's),
    than the unit the runtime copied from, and is not a heading (which names the subject
    in the question's words and answers nothing)."""
    if theirs is None or ours is None or any(
            part.strip() and part.strip() in theirs.norm
            for part in normalise(theirs.scope).split(" / ")):
        return False
    asked = list(dict.fromkeys(stems(question)))
    return (len(shared_words(asked, theirs.own_stems))
            > len(shared_words(asked, ours.own_stems)))


def _labelled(question: str, answer: str, unit: Unit | None, spans: list[SpanRef],
              layout: Layout | None) -> bool:
    """The label over the answer's value in its unit (its record's column, its `key:
    value` line) says what the question asks for (`clauses.labelled_as_asked`)."""

    if unit is None or layout is None:
        return True
    ref = spans[unit.source] if unit.source < len(spans) else None
    record = record_at(layout, ref.doc_id, ref.start + unit.start) if ref else None
    return labelled_as_asked(question, answer, unit.text, record.fields if record else None)


def _of_asked_kind(question: str, answer: str, unit: Unit | None,
                   chain_end: str | None) -> bool:
    """The answer is of the kind asked (`kinds.fits_kind`: a person for "who", a phone
    number for "number for the secretary"), and for "who" its line says something of what is
    asked beyond the entities named (a line naming both teams is no referee's). A chain's
    line is about the entity it reached, so only the kind is judged there."""
    if alternative_sums(question, answer):  # "£145 for a householder, £298 otherwise"
        return False
    if not (fits_kind(question, answer) if unit is None
            else fits_kind_in(question, answer, unit.text, unit.scope)):
        return False
    if unit is not None and not chain_end and named_as_reference(question, unit.text):
        return False  # "Rise of 23 from 0h sample" gives no value of the 0h sample
    if unit is not None and other_end(question, unit.text):
        return False  # "the first Saturday journey" says nothing of the last one
    if unit is not None and _bridge_line(question, unit, chain_end):
        return False  # the bridge's own line ("Dip at S09: 2.31 m") is no RL of the manhole
    if unit is None or chain_end or not asks_person(question):
        return True
    return says_act(question, unit, entities(question))


def _bridge_line(question: str, unit: Unit, chain_end: str | None) -> bool:
    """The unit is the line the question's bridge describes, not one saying what is asked:
    it holds a value the bridge gives ("the manhole where the dip was 2.31 m"), or names no
    chain's end, and says none of the asked words ("RL")."""
    asked = asked_phrase(question)
    if not asked or not has_bridge(question) or any(has_word(w, unit.stem_set) for w in asked):
        return False
    given = [v for v in values(question) if any(c.isdigit() for c in v)]
    return not chain_end or any(contains(unit.norm, v) for v in given)


_STRING_LITERAL = re.compile(r"([\"'])(.*?)(?<!\\)\1", re.DOTALL)


def _computed_by_code(answer: AgentAnswer, first: Support, texts: list[str]) -> bool:
    """A REPL answer its code produced from what it read: the code is its plan. The code
    read the documents, the answer's words are in what it cited, and neither the answer nor
    a value missing from them is typed in the code itself (the model wrote those)."""
    code = answer.extra.get("code")
    # The code must have read the documents: cited spans, or `context` (str.count cites none).
    if code is None or not (any(texts) or "context" in code) or first.echo:
        return False
    if first.missing_words and any(texts):
        return False
    # What the model typed is in the code's string literals ("n = 0" computes; FINAL("42")
    # does not).
    typed = normalise(" ".join(m.group(2) for m in _STRING_LITERAL.finditer(code)))
    if normalise(answer.text.strip()) in typed:
        return False
    return all(value not in typed for value in first.missing_values)


def _record(grounding: Grounding) -> Grounding:
    """The run's trace keeps the outcome, content-free: no value or word of the answer."""
    trajectory.describe(trajectory.active(), grounding={
        "grounded": grounding.grounded, "method": grounding.method,
        "failed": sorted(grounding.failed)})
    return grounding


def said_before(rc: RunContext) -> list[str]:
    """The person's earlier messages in this conversation (not the question just asked)."""
    if rc.memory is None:
        return []
    records = rc.memory.lcm.store.messages(rc.memory.conversation_id)
    users = [r.content for r in records if r.role == "user"]
    return users[:-1]


def _cited_texts(rc: RunContext
                 ) -> tuple[list[SpanRef], list[str], list[list[Scope]], list[str]]:
    """Every span the run cited, merged, its text, the headings over it and what names its
    whole document (`document_names`: a heading names what the lines under it are about;
    read in a worker thread)."""
    spans = rc.citations.merged()
    docs = {d.id: d for d in rc.store.documents(rc.session_id)} if spans else {}
    whole = {doc_id: rc.store.text(doc) for doc_id, doc in docs.items()
             if any(s.doc_id == doc_id for s in spans)}
    texts = [whole[s.doc_id][s.start:s.end] if s.doc_id in whole else "" for s in spans]
    scopes = [scopes_for(whole[s.doc_id], s.start, s.end) if s.doc_id in whole else []
              for s in spans]
    titles = [document_names(whole[s.doc_id]) if s.doc_id in whole else "" for s in spans]
    return spans, texts, scopes, titles


def _closest(rc: RunContext, question: str, spans: list[SpanRef], texts: list[str],
             units: list[Unit] | None = None) -> list[dict[str, Any]]:
    """The passages nearest the question: cited units and the index's best hits."""
    refs, pool = list(spans), list(texts)
    try:
        hits, _, _, docs = search_session(rc.store, rc.session_id, question, "bm25", limit=5)
    except InvalidArgs:  # a question with no searchable word
        hits, docs = [], {}
    for hit in hits:
        refs.append(SpanRef(doc_id=hit.doc_id, start=hit.highlight_start, end=hit.highlight_end))
        pool.append(rc.store.text(docs[hit.doc_id])[hit.highlight_start:hit.highlight_end])
    offset = len(texts)
    found = [Unit(u.source + offset, u.start, u.end, u.text) for u in split_units(pool[offset:])]
    candidates = (units if units is not None else split_units(texts)) + found
    sources = {d.id: d.source for d in rc.store.documents(rc.session_id)}
    out, seen = [], set()
    for _, unit in best_units(question, candidates, _CLOSEST * 3, strict=False):
        ref = refs[unit.source]
        start = ref.start + unit.start
        if (ref.doc_id, start) in seen:
            continue
        seen.add((ref.doc_id, start))
        out.append({"doc_id": ref.doc_id, "source": sources.get(ref.doc_id), "start": start,
                    "end": ref.start + unit.end, "text": unit.text.strip()[:_CLOSEST_CHARS]})
        if len(out) == _CLOSEST:
            break
    return out


def check_client_answer(rc: RunContext, question: str | None, answer: str) -> Grounding:
    """A runtime-mode answer (the client's code called FINAL): checked against the spans the
    run read, as every strategy's answer is, but never replaced (the client drives the run,
    and no model of ours is asked again). Ungrounded, it says what failed and the closest
    passages, beside the answer. Blocking: call it in a thread."""
    spans, texts, scopes, titles = _cited_texts(rc)
    units = split_units(texts, scopes, titles)
    support = check_support(answer, question or "", texts, units)
    if support.supported:
        return _record(Grounding(True, "checked"))
    closest = _closest(rc, question or answer, spans, texts, units)
    return _record(Grounding(False, "not_found", support.failures(), closest))
