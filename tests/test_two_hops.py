"""Two hops through a name the question gives: the inner fact ("the owner of Kittiwake")
read from a record's field or a sentence, the outer one about its value, both cited; and the
refusals (two owners, a bridge the outer span does not say, a one-hop question)."""

from __future__ import annotations

from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.lookups.two_hops import inner_ask, two_hop
from rlm_recursive.corpus.relations import aliases, field_of, related
from rlm_recursive.providers.base import ChatRequest
from rlm_recursive.providers.fake import reply, tool_reply

_REGISTER = """\
WESTERLY SAILING CLUB - BOAT REGISTER 2027

Boat: Kittiwake
Class: Wayfarer        Sail no: 10442
Owner: Ann Pryce
Mooring: B7

Boat: Puffin
Class: Laser           Sail no: 201877
Owner: Idris Vane
Mooring: A2
"""

_CREW = """\
CREW LIST - SUMMER SERIES

Member: Ann Pryce
Role: helm             Phone: 01632 960 511
Crew status: Active

Member: Idris Vane
Role: crew             Phone: 01632 960 733
Crew status: Lapsed
"""

_SPARES = """\
PUMP SPARES - NOTES FROM THE WORKSHOP
The 90 mm bronze impeller (PT-3301) is supplied by Mercer & Hold.
The 110 mm bronze impeller (PT-3302) is supplied by Tarn Fixings. Shaft seals come from either.
"""

_SUPPLIERS = """\
APPROVED SUPPLIERS

Supplier: Tarn Fixings
Account no: TF-88120   Lead time: 10 days
Contact: Bryony Hale

Supplier: Mercer & Hold
Account no: MH-20417   Lead time: 3 days
Contact: Osman Reyes
"""

_AWARD = """\
ARBITRATION 27/114 - FINAL AWARD

Representation
Ms Petra Lund (instructed by Arden Cole LLP) for the Claimant
Mr Yusuf Hale (instructed by Brindle Marsh) for the Respondent

1. I refer to the claimant, Harbourlight Marine Ltd, as "Harbourlight" and to the
respondent, Quayside Fuels Ltd, as "Quayside".

2. Quayside operates the fuel berth at Pier 4. Harbourlight operates the slipway at
Pier 2 and the crane store.
"""


def test_the_inner_ask_is_cut_from_the_outer() -> None:
    ask_ = inner_ask("What is the phone number of the owner of Kittiwake?")
    assert ask_ is not None and (ask_.entity, ask_.relation, ask_.agent) == (
        "Kittiwake", "own", True)
    ask_ = inner_ask("which bin holds whoever supplies PT-3302")
    assert ask_ is not None and ask_.entity == "PT-3302" and ask_.agent
    ask_ = inner_ask("what lead time has the ticket that T-9 is a duplicate of")
    assert ask_ is not None and (ask_.entity, ask_.agent, ask_.preposition) == (
        "T-9", False, "of")
    # One hop: nothing is asked around the inner ask.
    assert inner_ask("Who is the owner of Kittiwake?") is None
    assert inner_ask("What is the phone number of Ann Pryce?") is None


def test_a_records_field_leads_to_another_records_field() -> None:
    docs = [("register", _REGISTER), ("crew", _CREW)]
    owner = field_of(docs, "Kittiwake", ("owner",))
    assert owner is not None and owner.value == "Ann Pryce"
    status = field_of(docs, "Ann Pryce", ("status",))
    assert status is not None and status.value == "Active"
    # A record that only mentions the name is not its record.
    assert field_of([("crew", _CREW + "\nMember: Ola Dunn\nNote: swaps with Ann Pryce\n"
                               "Crew status: Reserve\n")], "Ann Pryce", ("status",)).value \
        == "Active"


def test_a_sentence_gives_the_agent_before_the_verb_or_after_by() -> None:
    assert related([("spares", _SPARES)], "PT-3302", "suppli", agent=True).value == \
        "Tarn Fixings"
    text = "Quayside operates the fuel berth at Pier 4. Harbourlight runs Pier 2."
    assert related([("a", text)], "Pier 4", "oper", agent=True).value == "Quayside"
    # The relation in another sentence than the name says nothing of it.
    assert related([("a", "Quayside operates the cafe. Pier 4 is shut.")], "Pier 4", "oper",
                   agent=True) is None
    ticket = "[T-9] Duplicate of T-4 (double refund)\nStatus: Closed\n"
    assert related([("t", ticket)], "T-9", "duplic", agent=False,
                   preposition="of").value == "T-4"


def test_two_readings_of_the_inner_fact_give_nothing() -> None:
    text = _SPARES + "Since March, PT-3302 is supplied by Mercer & Hold.\n"
    assert related([("spares", text)], "PT-3302", "suppli", agent=True) is None


def test_the_role_a_document_calls_a_party_by() -> None:
    found = aliases([("award", _AWARD)], "Quayside")
    assert [a.value for a in found] == ["the respondent"]
    assert aliases([("award", _AWARD)], "Pier 4") == []


def _chain(tmp_path, monkeypatch, question: str, *texts: str):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, *texts)
        chain = two_hop(runtime.store, sid, question)
        whole = {d.id: runtime.store.text(d) for d in runtime.store.documents(sid)}
        return chain, whole
    finally:
        runtime.close()


def test_two_records_answer_and_both_are_cited(tmp_path, monkeypatch) -> None:
    chain, whole = _chain(tmp_path, monkeypatch, "What is the crew status of the owner of "
                          "Puffin?", _REGISTER, _CREW)
    assert chain is not None and chain.found.answer.endswith(": Lapsed")
    assert chain.bridges == ["Idris Vane"]
    cited = [whole[r.doc_id][r.start:r.end] for r in chain.links]
    assert "Boat: Puffin" in cited[0] and "Owner: Idris Vane" in cited[0]
    assert "Member: Idris Vane" in cited[-1] and "Lapsed" in cited[-1]


def test_a_sentence_then_a_record(tmp_path, monkeypatch) -> None:
    chain, _ = _chain(tmp_path, monkeypatch, "What is the lead time for the supplier of "
                      "PT-3301?", _SPARES, _SUPPLIERS)
    assert chain is not None and chain.found.answer.endswith("3 days")
    assert chain.bridges == ["Mercer & Hold"]


def test_the_outer_fact_is_said_of_the_bridges_role(tmp_path, monkeypatch) -> None:
    chain, whole = _chain(tmp_path, monkeypatch, "Which firm instructed counsel for the "
                          "operator of Pier 4?", _AWARD)
    assert chain is not None and chain.found.answer.endswith(": Brindle Marsh")
    assert chain.bridges == ["Quayside", "the respondent"]
    cited = [whole[r.doc_id][r.start:r.end] for r in chain.links]
    assert "Quayside operates the fuel berth at Pier 4" in cited[0]
    assert "the\nrespondent, Quayside" in cited[1] or "respondent, Quayside" in cited[1]
    assert cited[-1].startswith("Mr Yusuf Hale")


def test_a_bridge_the_outer_span_does_not_say_answers_nothing(tmp_path, monkeypatch) -> None:
    # Without the line that calls Quayside the respondent, no counsel line says Quayside.
    award = _AWARD.replace('and to the\nrespondent, Quayside Fuels Ltd, as "Quayside"', "")
    chain, _ = _chain(tmp_path, monkeypatch, "Which firm instructed counsel for the operator "
                      "of Pier 4?", award)
    assert chain is None
    # The crew list does not list the owner: no status of someone else's is given.
    crew = _CREW.replace("Idris Vane", "Ifan Vaughan")
    chain, _ = _chain(tmp_path, monkeypatch, "What is the crew status of the owner of "
                      "Puffin?", _REGISTER, crew)
    assert chain is None


def test_two_owners_answer_nothing(tmp_path, monkeypatch) -> None:
    register = _REGISTER + "\nKittiwake is owned by Idris Vane since the spring.\n"
    chain, _ = _chain(tmp_path, monkeypatch, "What is the crew status of the owner of "
                      "Kittiwake?", register, _CREW)
    assert chain is None


def _not_found(request: ChatRequest):
    if request.tools:
        return tool_reply(request.tools[0].name, {})
    return reply("Not found.")


async def test_a_small_model_gets_the_two_hop_answer_grounded(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, _AWARD, _REGISTER, _CREW)
        result, _ = await ask(runtime, sid, "Which firm instructed counsel for the operator "
                              "of Pier 4?", "auto", _not_found)
        assert "Brindle Marsh" in result.answer and "Arden Cole" not in result.answer
        assert result.grounded
        result, _ = await ask(runtime, sid, "What is the phone number of the owner of "
                              "Kittiwake?", "auto", _not_found)
        assert "01632 960 511" in result.answer and result.grounded
        # The iterative strategy (a question with a bridge) takes the same chain.
        result, _ = await ask(runtime, sid, "Which firm instructed counsel for whoever "
                              "operates Pier 4?", "iterative", _not_found)
        assert "Brindle Marsh" in result.answer and result.grounded
    finally:
        runtime.close()


_MOORINGS = """\
MOORINGS 2027

Boat          Class       Holder          Berth
------------  ----------  --------------  -----
Kittiwake     Wayfarer    Ann Pryce       B7
Puffin        Laser       Idris Vane      A2
"""


def test_a_table_row_the_name_opens_gives_its_cell() -> None:
    found = field_of([("moorings", _MOORINGS)], "Puffin", ("holder",))
    assert found is not None and found.value == "Idris Vane"
    assert field_of([("moorings", _MOORINGS)], "Idris Vane", ("berth",)) is None


def test_a_table_row_then_a_record(tmp_path, monkeypatch) -> None:
    chain, _ = _chain(tmp_path, monkeypatch, "What is the crew status of the holder of "
                      "Kittiwake?", _MOORINGS, _CREW)
    assert chain is not None and chain.found.answer.endswith(": Active")
    assert chain.bridges == ["Ann Pryce"]
