"""Sections and word forms for extraction and grounding (fake small model; real SQLite and
tantivy; the email is written by the standard library's email package, the TSV by csv).

- A heading, an email's subject or a document's title names what the lines under it are
  about: the entity named only there still finds its line, the answer is grounded and the
  heading is cited; an entity no heading or line names is still not found.
- Abbreviations and British spellings match the words a question uses.
- The clause of the kind asked: a number, a new name, the event a "when" question names;
  clauses are not cut inside brackets or after an initial.
- A question asking for a name takes the record's one field holding a name.
"""

from __future__ import annotations

import csv
import io

import pytest
from fact_support import FILLER, email, knows_nothing
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.evidence import check_support, split_units, stems
from rlm_recursive.corpus.sections import headings, scopes_for
from rlm_recursive.providers.fake import reply

MINUTES = (
    "Estates Committee minutes, 3 April\n\n"
    "Present: Carla Benedetti (chair), Owen Fairweather, Naledi Khumalo.\n\n"
    "1. Roof repairs at the Calder Library\n"
    "Owen reported that the contractor found wet rot in two joists. The revised quote is\n"
    "£38,400, up from £31,900. The committee approved it.\n\n"
    "2. Lift replacement, Ashdown Building\n"
    "The lift has failed four times since January. Tenders close on 30 April.\n\n"
    "3. Energy\n"
    "Gas use is down 11% against last year.\n")
BOILERS = (
    "Boiler house weekly checks\n\n"
    "Boiler 2 — Flow temperature 71 °C. Pressure 1.2 bar; topped up to 1.5 bar.\n"
    "Boiler 3 — Out of service since 2 April awaiting a new fan; part ordered from\n"
    "Nordvent, ETA 16 April. Engineer: P. Gill.\n")


def _email() -> str:
    return email("Geography field trip to Malham Cove - final details", (
        "Dear parents and carers,\n\nThank you for returning the consent forms.\n\n"
        "The coach leaves the main gate at 07:45 and is due back at about 17:30. The cost\n"
        "of the trip is £18.50, payable by Tuesday.\n\n"
        "Group leaders are Mr Okafor (groups A and B), Ms Lindqvist (groups C and D) and\n"
        "me (group E).\n\nKind regards,\nRosalind Achterberg\n"))


def _bookings() -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(["booking", "room", "guest", "nights", "channel"])
    for i, (room, guest) in enumerate([("101", "Keller"), ("204", "Moreno"),
                                       ("206", "Sato"), ("102", "Ansari")]):
        writer.writerow([f"B-77{i + 1:02d}", room, guest, str(i + 1), "direct"])
    return out.getvalue()



@pytest.fixture
def rt(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    yield runtime
    runtime.close()


def test_headings_of_minutes_an_email_and_a_board():
    assert [h[2] for h in headings(MINUTES)] == [
        "Estates Committee minutes, 3 April", "Roof repairs at the Calder Library",
        "Lift replacement, Ashdown Building", "Energy"]
    assert [h[2] for h in headings(_email())] == [
        "Geography field trip to Malham Cove - final details"]
    # Entries of a board ("Boiler 2 — ...") and a `Key: value` line are not headings.
    assert [h[2] for h in headings(BOILERS)] == ["Boiler house weekly checks"]
    at = MINUTES.index("Tenders close")
    assert scopes_for(MINUTES, at, at + 10) == [(-1, "Lift replacement, Ashdown Building", "")]


def test_a_unit_under_a_heading_grounds_an_answer_about_what_the_heading_names():
    at = MINUTES.index("Tenders close")
    cited = MINUTES[at:at + 30]
    question = "When do the tenders for the Ashdown lift close?"
    # The line alone does not name the Ashdown lift; under its heading it does.
    assert not check_support("30 April", question, [cited]).supported
    units = split_units([cited], [scopes_for(MINUTES, at, at + 30)])
    assert check_support("30 April", question, [cited], units).supported
    # Another section's heading does not lend its entity.
    other = MINUTES.index("Gas use")
    units = split_units([MINUTES[other:]], [scopes_for(MINUTES, other, len(MINUTES))])
    assert not check_support("11%", "How much is gas use down at the Ashdown Building?",
                             [MINUTES[other:]], units).supported


@pytest.mark.parametrize(("question", "holds", "not_holds"), [
    ("How much is the revised quote for the Calder Library roof?", "38,400", "31,900"),
    ("When do the tenders for the Ashdown lift close?", "30 April", "January"),
])
async def test_an_entity_named_only_in_a_section_heading_finds_its_line(rt, question, holds,
                                                                        not_holds):
    sid = load(rt, FILLER, MINUTES)
    result, _ = await ask(rt, sid, question, "search", knows_nothing)
    assert holds in result.answer and not_holds not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"
    cited = [verify_citation(rt.store, sid, c) for c in result.citations]
    assert all(c["valid"] for c in cited)
    heading = next(h for h in ("Calder Library", "Ashdown Building") if h in question
                   or h.split()[0] in question)
    assert any(heading in c["text"] for c in cited)  # the heading is cited with the line


async def test_an_email_subject_names_what_its_body_is_about(rt):
    sid = load(rt, FILLER, _email())
    result, _ = await ask(rt, sid, "How much does the Malham Cove trip cost?", "search",
                          knows_nothing)
    assert "18.50" in result.answer and result.grounded
    # A trip the email does not name is still not found, and the model is not asked.
    result, fake = await ask(rt, sid, "How much does the Whitby Abbey trip cost?", "search",
                             knows_nothing)
    assert result.answer == NOT_FOUND and result.grounded is False and not fake.requests


async def test_a_letter_label_is_an_entity_and_brackets_stay_with_their_name(rt):
    sid = load(rt, FILLER, _email())
    result, _ = await ask(rt, sid, "Which group leader looks after groups C and D?", "search",
                          knows_nothing)
    assert "Lindqvist" in result.answer and "Okafor" not in result.answer
    assert result.grounded


def test_abbreviations_and_british_spellings_match_the_questions_words():
    assert set(stems("When is the part expected to arrive?")) >= {"expect"}
    assert {"expect", "arriv"} <= set(stems("part ordered, ETA 16 April"))
    assert "extens" in stems("Ext. 5120") and "telephon" in stems("Tel 0113 496 0275")
    assert stems("the colour of the centre") == stems("the color of the center")
    assert stems("organise the catalogue") == stems("organize the catalog")
    assert "eta" in stems("Eta Carinae")  # a name, not the abbreviation


@pytest.mark.parametrize(("question", "holds", "not_holds"), [
    ("When is the new fan for boiler 3 expected?", "16 April", "2 April"),
    ("Who is the engineer for boiler 3?", "P. Gill", "16 April"),
])
async def test_the_clause_of_the_kind_asked(rt, question, holds, not_holds):
    sid = load(rt, FILLER, BOILERS)
    result, _ = await ask(rt, sid, question, "search", knows_nothing)
    assert holds in result.answer and not_holds not in result.answer and result.grounded


async def test_a_name_asked_for_is_the_records_one_name_field(rt):
    sid = load(rt, FILLER, _bookings())
    result, _ = await ask(rt, sid, "Under what name is booking B-7703?", "search",
                          knows_nothing)
    assert result.answer == "guest: Sato" and result.grounded
    assert result.grounding["method"] == "extractive"


HANDOVER = ("Outstanding jobs for the day team\n"
            "- Bed 6: repeat U&Es at noon, chase potassium result.\n"
            "Bleep for the cardiology registrar on call today is 4471. The outreach team\n"
            "can be reached on extension 2290.\n")


async def test_with_no_entity_the_head_of_what_is_asked_about_must_be_said(rt):
    sid = load(rt, FILLER, HANDOVER)
    result, _ = await ask(rt, sid, "Which bleep do I use for today's on-call cardiology "
                          "registrar?", "search", knows_nothing)
    assert "4471" in result.answer and result.grounded
    # The consultant is not the registrar: the registrar's bleep is no answer about them,
    # from the runtime or from a model that offers it.
    for model in (knows_nothing, lambda r: reply("4471")):
        result, _ = await ask(rt, sid, "What is the bleep for the cardiology consultant on "
                              "call?", "search", model)
        assert result.answer == NOT_FOUND and result.grounded is False


def test_a_thread_of_several_senders_has_no_one_author():
    from rlm_recursive.corpus.sections import author
    one = email("Trip", "My mobile is 07700 900 512.\n\nKind regards,\nRosalind Achterberg\n")
    assert author(one) == "Rosalind Achterberg"
    reply_text = email("Re: Trip", "My mobile is 07700 900 999.\n\nThanks,\nSam Okafor\n")
    assert author(one + "\n" + reply_text.replace("Rosalind Achterberg", "Sam Okafor")) == ""


def test_a_banner_framed_by_rules_is_a_heading_and_a_rule_is_none():
    text = ("Depot stock report\n\n"
            "----------------------------------------\n"
            "  NORTH YARD   site 2\n"
            "----------------------------------------\n"
            "Pallets in: 40\nPallets out: 12\n\n"
            "----------------------------------------\n"
            "  SOUTH YARD   site 5\n"
            "----------------------------------------\n"
            "Pallets in: 7\n"
            "========================================\n"
            "  Grand total ............ 47\n"
            "  Carried over ........... 3\n")
    found = [h for _, _, h in headings(text)]
    assert "NORTH YARD   site 2" in found and "SOUTH YARD   site 5" in found
    assert not any(set(h) <= set("-= ") for h in found)
    # A line under a rule that runs on into others is a row, not a banner.
    assert not any("Grand total" in h for h in found)
    start = text.index("Pallets in: 7")
    assert scopes_for(text, start, start + 10)[0][1] == "SOUTH YARD   site 5"
