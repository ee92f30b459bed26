"""Multi-hop chains the runtime follows for small models (fake model that knows nothing;
real SQLite and tantivy; the email is written by the standard library's email package).

- Bridges beyond relative pronouns: a participle with its object ("the person chairing the
  panel"), a reduced relative clause ("the building Owen Fairweather manages"); routing
  and the chain read them alike.
- The names a bridge's line introduces are tried nearest first to the bridge's words
  ("Carla noted that Ingrid Solberg manages ..."), names of fields ("Office:") are skipped,
  an entry's label keeps its number ("Boiler 3").
- The heading of the bridge's line names what it is about when the line names nothing new.
- In a letter, "me" and "my" are its author.
- A record field reached by a chain is grounded against the chain's last entity.
"""

from __future__ import annotations

import pytest
from fact_support import FILLER, email, knows_nothing
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.lookups.bridges import bridge_span, bridge_spans, role_spans
from rlm_recursive.agent.routing import has_bridge

MINUTES = (
    "Estates Committee minutes, 3 April\n\n"
    "1. Roof repairs at the Calder Library\n"
    "Owen reported that the contractor, Halden Roofing, found wet rot in two joists.\n\n"
    "2. Lift replacement, Ashdown Building\n"
    "Tenders close on 30 April. Naledi will chair the tender panel; Rhys and Carla will sit\n"
    "on it.\n\n"
    "3. Any other business\n"
    "Carla noted that Ingrid Solberg manages the Pellow Building and asked that she be sent\n"
    "the energy figures. The Calder Library is managed by Owen Fairweather.\n")
DIRECTORY = (
    "Facilities staff directory\n\n"
    "Carla Benedetti — Director of Estates. Office: Ashdown Building, room 301. Extension 5120.\n"
    "Owen Fairweather — Buildings Manager, libraries. Office: Calder Library, room B04.\n"
    "Extension 5134. Mobile 07700 300 118.\n"
    "Naledi Khumalo — Buildings Manager, teaching estate. Extension 5141.\n"
    "Ingrid Solberg — Buildings Manager, science estate. Office: Pellow Building.\n"
    "Extension 5163. Her deputy is Tomasz Wilk (extension 5168).\n")
BOILERS = (
    "Boiler house weekly checks\n\n"
    "Boiler 2 — Pressure 1.2 bar; topped up to 1.5 bar. Engineer: D. Marsh.\n"
    "Boiler 3 — Hamworthy Wessex. Out of service since 2 April awaiting a new fan;\n"
    "part ordered from Nordvent. Engineer: P. Gill.\n")
STATUS = (
    "# Capital projects\n\n"
    "## Harbour Steps\n\nResurfacing of the steps. Kwame Boateng runs the site. Crane hire is\n"
    "confirmed, ETA 20 June.\n\n"
    "## Mill Race\n\nFlood defence wall. Hannah Osei runs the site from a cabin at the north\n"
    "gate. Crane hire is confirmed, ETA 3 June.\n")


def _email() -> str:
    return email("Field trip - final details", (
        "Group leaders are Mr Okafor (groups A and B), Ms Lindqvist (groups C and D) and\n"
        "me (group E). If your child is unwell, phone the attendance line on 01632 448 210;\n"
        "my own mobile on the day is 07700 900 512.\n\nKind regards,\nRosalind Achterberg\n"))



@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("question", "bridge"), [
    ("What extension does the person chairing the lift tender panel have?",
     "the person chairing the lift tender panel"),
    ("Which contractor is repairing the roof of the building Owen Fairweather manages?",
     "the building Owen Fairweather manages"),
    ("What is the extension of the person who manages the Pellow Building?",
     "the person who manages the Pellow Building"),
    # A participle whose object is a name: "taking Bed 7's notes".
    ("What is the bleep of the porter taking Bed 7's notes down to theatre?",
     "the porter taking Bed 7's notes down to theatre"),
])
def test_participles_and_reduced_relative_clauses_are_bridges(question, bridge):
    span = bridge_span(question)
    assert span is not None and question[span[0]:span[1]] == bridge
    assert has_bridge(question)


@pytest.mark.parametrize("question", [
    "What rate is the heparin running at for Mrs Whitlock?",  # the question's own verb
    "When is the new fan for boiler 3 expected?",
    "Which room is the Calder Library's manager in?",
    "What is the booking reference for Mr Sato?",
    # Prepositions that end in -ing are not participles (the README's quickstart question).
    "What is the door keypad code for the chlorine room during an emergency?",
    "Which fees are listed including the VAT?",
])
def test_plain_look_ups_have_no_bridge(question):
    assert not has_bridge(question)


@pytest.mark.parametrize(("question", "value", "not_values"), [
    # Carla speaks first, Ingrid Solberg is beside "manages".
    ("What is the extension of the person who manages the Pellow Building?", "5163",
     ("5120", "5168")),
    ("What is the extension of the deputy of the person who manages the Pellow Building?",
     "5168", ("5163", "5120")),
    ("What extension does the person chairing the lift tender panel have?", "5141",
     ("5120", "5134")),
    # The directory's "Buildings Manager" is the bridge's own words, and "Office:" a field.
    ("What is the mobile number of the buildings manager whose office is in the Calder "
     "Library?", "07700 300 118", ("5134",)),
    # The minutes name the contractor under the heading, not beside the library's name.
    ("Which contractor is repairing the roof of the building Owen Fairweather manages?",
     "Halden Roofing", ()),
])
async def test_chains_over_minutes_and_a_directory(rt, question, value, not_values):
    sid = load(rt, FILLER, MINUTES, DIRECTORY)
    result, _ = await ask(rt, sid, question, "iterative", knows_nothing)
    assert value in result.answer and result.grounded
    assert not any(v in result.answer for v in not_values)


async def test_an_entry_label_with_its_number_is_a_link(rt):
    sid = load(rt, FILLER, BOILERS)
    result, _ = await ask(rt, sid, "Who is the engineer for the boiler that is out of "
                          "service?", "iterative", knows_nothing)
    assert "P. Gill" in result.answer and "Marsh" not in result.answer and result.grounded


async def test_a_label_with_its_letter_is_a_link(rt):
    plan = ("Lifting plan, week 12\n"
            "Monday: the mobile crane sets the steel canopy over Gate B.\n"
            "Tuesday: deliveries only, no lifts.\n")
    wardens = ("Fire wardens by gate\n"
               "For Gate A the warden is Dominika, on radio channel 3.\n"
               "For Gate B the warden is Tobias, on radio channel 6.\n")
    sid = load(rt, FILLER, plan, wardens)
    result, _ = await ask(rt, sid, "Which radio channel is the warden on for the gate that's "
                          "getting its steel canopy set?", "iterative", knows_nothing)
    assert "6" in result.answer and "3" not in result.answer and result.grounded


async def test_the_heading_of_the_bridges_line_is_the_link(rt):
    sid = load(rt, FILLER, STATUS)
    result, _ = await ask(rt, sid, "When is the crane expected at the site Hannah Osei "
                          "runs?", "iterative", knows_nothing)
    assert "3 June" in result.answer and "20 June" not in result.answer and result.grounded


def test_i_will_is_no_name():
    from rlm_recursive.agent.lookups.chain import _names
    line = "I'll send those up with the porter; I'm out after 3 but Rhian Pugh can sign."
    assert _names(line, "Who is sending the porter?") == ["Rhian Pugh"]


async def test_me_in_a_letter_is_its_author(rt):
    sid = load(rt, FILLER, _email())
    result, _ = await ask(rt, sid, "What is the mobile number of the teacher who leads "
                          "group E?", "iterative", knows_nothing)
    assert "07700 900 512" in result.answer and "448 210" not in result.answer
    assert result.grounded


SUPPLIERS = ("# Approved suppliers\n\n| Supplier | Account manager | Our account ref |\n"
             "|---|---|---|\n| Greenacre Produce | Sally Ormerod | GAP-77120 |\n"
             "| Northern Fish Co. | Bríd Ní Fhaoláin | NFC-2207 |\n\n"
             "Deliveries: Greenacre delivers daily. Northern Fish Co. delivers Tuesdays and "
             "Fridays.\n")


async def test_a_table_field_reached_by_a_chain_is_grounded_on_the_chains_end(rt):
    sid = load(rt, FILLER, SUPPLIERS)
    result, _ = await ask(rt, sid, "Who is the account manager for the supplier that "
                          "delivers on Tuesdays and Fridays?", "iterative", knows_nothing)
    assert "Bríd Ní Fhaoláin" in result.answer and "Ormerod" not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"


BULLETIN = (
    "Riverside Health Centre - practice bulletin\n\n"
    "Dr Amelia Crane is back from leave on Monday and takes the Tuesday morning clinics.\n"
    "Her room is number 12 on the first floor. Dr Felix Moreau runs the diabetic clinic in\n"
    "room 7. Dr Sunil Varma is the safeguarding lead; his deputy is Dr Amelia Crane.\n")


async def test_a_role_the_question_describes_is_looked_up_first(rt):
    sid = load(rt, FILLER, BULLETIN)
    result, _ = await ask(rt, sid, "Which room does the deputy safeguarding lead take clinics "
                          "in?", "search", knows_nothing)
    # Varma is the lead, Crane his deputy; "Her room" is about the sentence before it.
    assert "12" in result.answer and "7" not in result.answer and result.grounded
    result, _ = await ask(rt, sid, "Which room does the deputy fire marshal take clinics in?",
                          "search", knows_nothing)
    assert not result.grounded and "12" not in result.answer


LAB = ("# Core facility: who to call\n\n"
       "| instrument | room | owning team |\n|---|---|---|\n"
       "| mass spectrometer | B12 | Proteomics |\n| imaging suite | B07 | Imaging |\n"
       "| sequencer | B03 | Genomics |\n\n"
       "## Out of hours\n\n| team | duty lead | mobile |\n|---|---|---|\n"
       "| Proteomics | Ines Duarte | 07700 900 201 |\n| Imaging | Tom Reyes | 07700 900 377 |\n"
       "| Genomics | Ada Mensah | 07700 900 412 |\n")


async def test_a_tables_column_says_which_cell_the_bridge_leads_to(rt):
    # "Imaging" is the bridge's own word, but it sits under "owning team": the team.
    sid = load(rt, FILLER, LAB)
    result, _ = await ask(rt, sid, "What's the mobile of the duty lead for the team that owns "
                          "the imaging suite?", "iterative", knows_nothing)
    assert "07700 900 377" in result.answer and result.grounded
    assert not any(v in result.answer for v in ("900 201", "900 412", "Tom Reyes"))


HALL = ("Allotment society AGM\n\n"
        "The treasurer election was chaired by Dev Patel; Lena Brook won it.\n\n"
        "Dev Patel said the plots by the gate flood in winter.\n\n"
        "Lena Brook said she is on plot 22C, Sam Hurst on plot 7.\n")


def test_a_role_ends_in_its_noun():
    question = "Which locker does the newly elected bookings secretary have?"
    roles = [question[a:b] for a, b in role_spans(question)]
    assert "the newly elected bookings secretary" in roles
    assert not any(r.endswith(("elected", "newly")) for r in roles)


async def test_a_line_without_a_value_ends_no_chain(rt):
    # The chair is named nearest the election; his line on plots gives no plot: Lena's does.
    sid = load(rt, FILLER, HALL)
    result, _ = await ask(rt, sid, "Which plot does the elected treasurer have?", "search",
                          knows_nothing)
    assert "22C" in result.answer and result.grounded
    assert "flood" not in result.answer and "7" not in result.answer


def _parcel(order: str, member: str, tier: str, note: str) -> str:
    return (f"order: {order}\nmember: {member}\ntier: {tier}\nnote: {note}\n\n")


PARCELS = ("Courier claims, March\n\n"
           + _parcel("OR-5101", "Ines Moreau", "Gold", "asked for a new delivery slot")
           + _parcel("OR-5102", "Ayla Demir", "Gold", "parcel arrived crushed, photos sent")
           + _parcel("OR-5103", "Tomasz Wrona", "Silver", "wrong size sent")
           + _parcel("OR-5104", "Bea Lund", "Gold", "late by four days")
           + "Claims desk, notes\n\n"
           "Gold tier claims are settled within 24 hours, refund code RC-7000 on the form.\n"
           "Ayla Demir was paid back in full, refund code RC-3321.\n")


async def test_a_value_many_records_share_is_no_bridge(rt):
    # The crushed parcel's record says "tier: Gold", as two other records do: a kind, not
    # the member the question means, so the chain goes through Ayla Demir, not "Gold".
    sid = load(rt, FILLER, PARCELS)
    result, _ = await ask(rt, sid, "What refund code did the member whose parcel arrived "
                          "crushed get?", "iterative", knows_nothing)
    assert "RC-7000" not in result.answer
    assert "RC-3321" in result.answer and result.grounded


def _ticket(number: str, customer: str, subject: str, body: str) -> str:
    return (f'  {{"ticket": "{number}", "customer": "{customer}", "subject": "{subject}", '
            f'"body": "{body}"}},\n')


TICKETS = ("[\n"
           + _ticket("T-3301", "Marlow Bakeries", "Oven app frozen",
                     "The oven timer app froze twice during the morning bake.")
           + _ticket("T-3302", "Pemberly Dairy", "Direct debit taken two times",
                     "Our bank shows the May direct debit was taken two times.")
           + _ticket("T-3315", "Pemberly Dairy", "Refund for T-3302 still missing",
                     "Still waiting, please chase.")
           + _ticket("T-3320", "Halden Joinery", "Invoice layout",
                     "Can the logo go on the left?")
           + "]\n")


async def test_an_answer_naming_the_bridges_own_record_back_is_no_answer(rt):
    # The chain reaches Pemberly Dairy; its later ticket's subject names the first ticket
    # back ("Refund for T-3302 ..."): no refund reference, so not found, not that line.
    sid = load(rt, FILLER, TICKETS)
    question = "refund reference for the customer whose direct debit was taken two times"
    result, _ = await ask(rt, sid, question, "iterative", knows_nothing)
    assert "T-3302" not in result.answer
    # With the reference written elsewhere, the chain goes on to it.
    sid = load(rt, FILLER, TICKETS, "Billing notes\n\nRefund reference RF-20417 went to "
               "Pemberly Dairy for the duplicate debit.\n")
    result, _ = await ask(rt, sid, question, "iterative", knows_nothing)
    assert "RF-20417" in result.answer and result.grounded


def test_a_bridge_before_the_main_verb_may_end_at_any_of_its_last_words():
    # "does <bridge> <verb> ...": where the verb is is not known; a cut never splits a
    # capitalised name, never leaves a function word at the end, and leaves the clause its
    # verb and a word after it. Longest first (the chain picks: `tightest`).
    question = "what bait does the angler who won the Easter match use for his carp"
    assert [question[a:b] for a, b in bridge_spans(question)] == [
        "the angler who won the Easter match use", "the angler who won the Easter match",
        "the angler who won the Easter"]
    named = "What extension does the director who leads the North Pier rebuild have?"
    assert [named[a:b] for a, b in bridge_spans(named)] == [
        "the director who leads the North Pier rebuild", "the director who leads the North Pier"]
    short = "Which room does the man who runs the gym teach in?"
    assert [short[a:b] for a, b in bridge_spans(short)] == [
        "the man who runs the gym teach", "the man who runs the gym"]
    # A clause ends at a colon or a dash.
    colon = "About the nurse who took the bloods on ward 6: what bleep is she on?"
    assert colon[slice(*bridge_span(colon))] == "the nurse who took the bloods on ward 6"
    # A free relative is a bridge.
    free = "Phone number of whoever is running the raffle?"
    assert free[slice(*bridge_span(free))] == "whoever is running the raffle"
