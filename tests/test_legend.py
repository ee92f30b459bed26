"""The last hop of a "who" question: a line names its person by a code or a role, and a key
elsewhere in the documents says who that is."""

from __future__ import annotations

from fact_support import knows_nothing
from strategy_support import ask, load, small_runtime, tool_name

from rlm_recursive.agent.answers.extractive import Extract
from rlm_recursive.agent.lookups.chain import Chain
from rlm_recursive.agent.lookups.legend import asks_who, resolve_person
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import reply, tool_reply
from rlm_recursive.types import SpanRef

_COLD_ROOM = ("Cold store log, block C (week 12)\n"
              "Shift codes: N1 = K. Adeyemi, N2 = L. Fontaine, D1 = chief technician "
              "P. Oyelaran.\n\n"
              "Mon  0200-0600 N1  Freezer 2 defrost cycle ran long, checked seals.\n"
              "Mon  0600-1000 D1  Delivery of 40 racks signed in.\n"
              "Tue  0200-0600 N2  Freezer 3 door alarm at 0412, door found ajar, reset.\n"
              "Tue  0600-1000 D1  Nothing to report.\n")
_ALARM = "Tue  0200-0600 N2  Freezer 3 door alarm at 0412, door found ajar, reset."

_ALLOTMENT = ("Site rules\n\n"
              "7. Keys to the tractor shed are signed out only with the Grounds Steward's "
              "consent, and must be back by dusk.\n"
              "8. Bonfires are not allowed between May and September.\n\n"
              "Committee: Chair - Bernard Ashworth. Grounds Steward - Odette Marchetti. "
              "Treasurer - Wen Li Tan.\n")


def _chain_at(runtime, sid: str, line: str) -> Chain:
    doc = runtime.store.documents(sid)[0]
    start = runtime.store.text(doc).index(line)
    return Chain(Extract(line, SpanRef(doc_id=doc.id, start=start, end=start + len(line))),
                 [], [])


def test_who_questions_are_told_apart():
    assert asks_who("who was on shift when freezer 3 alarmed")
    assert asks_who("Name of the technician that found the leak?")
    assert asks_who("Which engineer signed the permit?")
    assert not asks_who("What is the door alarm code for freezer 3?")
    assert not asks_who("What probe is in the freezer whose door alarmed?")
    assert not asks_who("What is the extension of the person who manages the cold store?")


def test_a_code_in_a_log_row_is_read_from_the_key(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _COLD_ROOM)
    question = "Who was on shift when freezer 3's door alarm went off?"
    keyed = resolve_person(runtime.store, sid, question, _chain_at(runtime, sid, _ALARM))
    assert keyed is not None
    assert keyed.found.answer == "N2: L. Fontaine" and keyed.bridges == ["N2"]
    text = runtime.store.text(runtime.store.documents(sid)[0])
    assert "N2 = L. Fontaine" in text[keyed.found.ref.start:keyed.found.ref.end]
    # The row it left is cited with the key.
    assert [text[r.start:r.end] for r in keyed.links] == [_ALARM]
    runtime.close()


def test_no_key_is_read_when_the_question_asks_no_who_or_the_line_names_them(
        tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _COLD_ROOM + "Wed  0200-0600 N2  L. Fontaine Freezer 1 probe swapped.\n")
    alarm = _chain_at(runtime, sid, _ALARM)
    assert resolve_person(runtime.store, sid, "When did the freezer 3 door alarm go off?",
                          alarm) is None
    named = _chain_at(runtime, sid, "Wed  0200-0600 N2  L. Fontaine Freezer 1 probe swapped.")
    assert resolve_person(runtime.store, sid, "Who swapped the freezer 1 probe?", named) is None
    runtime.close()


def test_a_code_whose_key_names_no_person_is_left_alone(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, "Codes: N2 = night shift two, D1 = day shift one.\n\n" + _ALARM + "\n")
    assert resolve_person(runtime.store, sid, "Who was on shift when freezer 3 alarmed?",
                          _chain_at(runtime, sid, _ALARM)) is None
    runtime.close()


def _quotes_the_line(line: str):
    """A small model that copies the line it is shown, as SmolLM2 does."""
    def script(request: ChatRequest) -> ChatResult:
        if tool_name(request) == "rlm_hop":
            return tool_reply("rlm_hop", {"fact": "", "can_answer": True, "answer": line,
                                          "next_lookup": "NONE"})
        return reply(line)
    return script


async def test_search_answers_the_person_a_row_code_stands_for(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _COLD_ROOM)
    result, _ = await ask(runtime, sid, "Who was on shift when the freezer 3 door alarm went "
                          "off?", "search", _quotes_the_line(_ALARM))
    runtime.close()
    assert result.grounded and "L. Fontaine" in result.answer
    assert "Adeyemi" not in result.answer and "Oyelaran" not in result.answer


async def test_a_role_in_a_rule_is_answered_with_the_person_who_holds_it(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _ALLOTMENT)
    line = ("7. Keys to the tractor shed are signed out only with the Grounds Steward's "
            "consent, and must be back by dusk.")
    keyed = resolve_person(runtime.store, sid, "Whose consent is needed to sign out the "
                           "tractor shed keys?", _chain_at(runtime, sid, line))
    runtime.close()
    assert keyed is not None and keyed.found.answer == "Grounds Steward: Odette Marchetti"


async def test_iterative_follows_the_chain_on_to_the_key(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _COLD_ROOM)
    result, _ = await ask(runtime, sid, "Name of the technician who found the door of "
                          "freezer 3 ajar?", "iterative", _quotes_the_line(_ALARM))
    runtime.close()
    assert result.grounded and "L. Fontaine" in result.answer


async def test_a_role_line_found_by_its_words_leads_to_the_person(tmp_path, monkeypatch):
    # The rule names no one, so extraction has no line for "which person": the lines that
    # best match the question are read for a role the committee list names.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _ALLOTMENT)
    result, _ = await ask(runtime, sid, "Which person has to consent before the tractor "
                          "shed keys are signed out?", "search", knows_nothing)
    runtime.close()
    assert result.grounded and "Odette Marchetti" in result.answer
    assert "Ashworth" not in result.answer and "Wen Li Tan" not in result.answer


def test_a_line_that_names_its_person_reads_no_key(tmp_path, monkeypatch):
    # The line answers "who" itself (Jonah Pike); the committee list's Grounds Steward is
    # someone else, and "Jonah Pike - Operations Lead" names a role, no person, for him.
    runtime = small_runtime(tmp_path, monkeypatch)
    line = "While Rosa Lindqvist (Grounds Steward) is away, her deputy is Jonah Pike."
    sid = load(runtime, _ALLOTMENT + "\nRota\n\n" + line + "\nJonah Pike - Operations Lead.\n")
    keyed = resolve_person(runtime.store, sid, "Who covers for Rosa Lindqvist while she is "
                           "away?", _chain_at(runtime, sid, line))
    runtime.close()
    assert keyed is None
