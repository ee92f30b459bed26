"""Extractive answering for small models (fake provider; real SQLite and tantivy): the
runtime finds the unit that holds the question's entities, shows it to the model first, and
keeps its own copy of the answer. Grounding takes the runtime's copy when the model's answer
is not backed or names none of its values (the neighbour's value, an invention); a model
answer that agrees is kept. Nothing naming the question's entities is "not found" with no
model call."""

from __future__ import annotations

import csv
import io

import pytest
from strategy_support import ask, load

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.evidence import split_units
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Paragraph {i} is about the weather over the hills and nothing more.\n\n"
                 for i in range(60))
BOARD = ("Kennel board, Saturday\n\n"
         "Run 1 — Bramble, collie, 6. Dry food 250 g twice daily; no treats.\n"
         "Run 2 — Pickle, dachshund, 11. Arthritis: metacam 1.5 ml with breakfast. Owner\n"
         "collects Sunday 16:00.\n"
         "Run 5 — Juno, greyhound, 7. Medication: none. Owner collects Monday 10:30.\n")
MINUTES = ("The contractor for the quay is Brannock Civil; the pontoon supplier is Solent "
           "Floats. The new phones go live on 16 June: the front desk line becomes 01632 960 "
           "455 and the pharmacy line becomes 01632 960 457.\n")


def _shipments() -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["shipment", "origin", "carrier", "weight_kg"])
    for i, (origin, carrier) in enumerate([("Rotterdam", "Maersk"), ("Antwerp", "DFDS"),
                                           ("Hamburg", "CMA CGM"), ("Antwerp", "Maersk"),
                                           ("Rotterdam", "DFDS"), ("Hamburg", "Maersk")]):
        writer.writerow([f"SH-{1001 + i}", origin, carrier, 500 + 10 * i])
    return out.getvalue()


def _never(request):
    raise AssertionError("the model was asked with nothing to answer from")


def _neighbour(request):
    """A small model's habit: the value of the line beside the one asked about."""
    prompt = request.messages[-1].content
    if "[Excerpt 1]" not in prompt:  # grounding's re-ask: it quotes nothing
        return reply("NOT FOUND")
    return reply("It is 250 g, Sunday 16:00, Brannock Civil, 960 457, DFDS, 322 or 310.")


@pytest.mark.parametrize(("question", "holds", "not_holds"), [
    ("How much metacam does Pickle get?", "1.5 ml", "250 g"),
    ("When is Juno's owner collecting her?", "Monday 10:30", "Sunday 16:00"),
    ("Who supplies the pontoons?", "Solent Floats", "Brannock"),
    ("What will the front desk line be?", "01632 960 455", "960 457"),
])
async def test_prose_and_board_entries_are_copied_from_the_entity_line(small_rt, question, holds,
                                                                        not_holds):
    sid = load(small_rt, FILLER + BOARD + FILLER, MINUTES)
    result, fake = await ask(small_rt, sid, question, "search", _neighbour)
    assert holds in result.answer and not_holds not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"
    assert len(fake.requests) == 1
    # The entity's line was the first excerpt the model was shown.
    shown = fake.requests[0].messages[-1].content.split("[Excerpt 2]")[0]
    assert holds in " ".join(shown.split())
    assert all(verify_citation(small_rt.store, sid, c)["valid"] for c in result.citations)
    cited = " ".join(verify_citation(small_rt.store, sid, c)["text"] for c in result.citations)
    assert holds in " ".join(cited.split())


async def test_a_csv_field_is_named_by_its_column(small_rt):
    sid = load(small_rt, FILLER, _shipments())
    result, _ = await ask(small_rt, sid, "Which carrier is moving shipment SH-1003?", "search",
                          _neighbour)
    assert result.answer == "carrier: CMA CGM" and result.grounded
    assert result.grounding["method"] == "extractive"


async def test_a_model_answer_that_agrees_is_kept(small_rt):
    sid = load(small_rt, FILLER + BOARD, MINUTES)
    result, _ = await ask(small_rt, sid, "How much metacam does Pickle get?", "search",
                          lambda r: reply("1.5 ml"))
    assert result.answer == "1.5 ml" and result.grounding["method"] == "checked"


async def test_an_entity_the_text_never_names_is_not_found_without_the_model(small_rt):
    sid = load(small_rt, FILLER + BOARD, _shipments())
    result, fake = await ask(small_rt, sid, "Which carrier handles shipment SH-1020?", "search",
                             _never)
    assert result.answer == NOT_FOUND and result.grounded is False and fake.requests == []
    # Bramble is named, but no line says when her owner collects: the model's neighbour
    # value is not backed, and the runtime has nothing to copy.
    result, _ = await ask(small_rt, sid, "When does Bramble's owner collect her?", "search",
                          _neighbour)
    assert result.answer == NOT_FOUND and result.grounded is False
    assert "Sunday" not in result.answer


def test_a_labelled_entry_is_one_unit_and_a_semicolon_sentence_too():
    texts = [BOARD, "The vaccine arrives on 9 June; 420 doses are expected. Staff meet at 9."]
    units = [u.text for u in split_units(texts)]
    assert any(u.startswith("Run 2 — Pickle") and "metacam" in u for u in units)
    assert "420 doses are expected." in units  # the clause
    assert "The vaccine arrives on 9 June; 420 doses are expected." in units  # and its sentence
    assert not any("Staff" in u and "vaccine" in u for u in units)


BOARD_MINUTES = (
    "Minutes of the Harbour Trust board, 12 May\n\n"
    "The board agreed that the East Quay refurbishment will be led by the Operations\n"
    "Director. Marta Quintero is the Operations Director; Luis Abara is the Finance\n"
    "Director. The marina pontoon project is overseen by the Finance Director.\n"
    "Marta Quintero can be reached on extension 310 and Luis Abara on extension 322.\n")


@pytest.mark.parametrize(("question", "value", "neighbour", "last"), [
    ("What is the extension of the director who leads the East Quay refurbishment?",
     "310", "322", "Marta Quintero"),
    ("What extension does the director overseeing the marina pontoon project have?",
     "322", "310", "Luis Abara"),
])
async def test_a_chain_is_followed_by_the_runtime(small_rt, question, value, neighbour, last):
    sid = load(small_rt, FILLER, BOARD_MINUTES)
    result, _ = await ask(small_rt, sid, question, "iterative", lambda r: reply("NOT FOUND"))
    assert value in result.answer and neighbour not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"
    assert last in result.answer  # the chain's last link holds the answer


async def test_a_broken_chain_falls_back_to_the_model(small_rt):
    sid = load(small_rt, FILLER, BOARD_MINUTES)
    result, fake = await ask(small_rt, sid, "What is the extension of the director who leads the "
                             "West Pier repainting?", "iterative", lambda r: reply("NOT FOUND"))
    assert fake.requests  # the runtime found no chain: the model's loop ran
    assert "310" not in result.answer and "322" not in result.answer


SUPPLIERS = ("# Approved suppliers\n\n| Supplier | Contact | Our account ref |\n|---|---|---|\n"
             "| Greenfield Produce | Sam Orr | GP-771 |\n"
             "| Tallis Dairies | Kofi Mensah | TD-409 |\n"
             "| Crumb Bakery | Lotte Visser | CB-630 |\n\nDeliveries are daily except Sunday.\n")
DIRECTORY = ("Staff directory\n\n"
             "Carla Benedetti — Director of Estates. Office: Ashdown Building, room 301.\n"
             "Extension 5120.\n"
             "Rhys Pemberton — Energy Lead. Office: Pellow Building, room 2.17.\n"
             "Extension 5177.\n")


async def test_a_markdown_table_row_answers_by_its_column(small_rt):
    sid = load(small_rt, FILLER, SUPPLIERS)
    result, _ = await ask(small_rt, sid, "What's our account ref with Tallis Dairies?", "search",
                          _neighbour)
    assert result.answer == "Our account ref: TD-409" and result.grounded


async def test_an_entry_goes_on_over_its_next_lines(small_rt):
    sid = load(small_rt, FILLER, DIRECTORY)
    result, _ = await ask(small_rt, sid, "What is Rhys Pemberton's extension number?", "search",
                          _neighbour)
    assert "5177" in result.answer and "5120" not in result.answer and result.grounded


async def test_a_model_answer_naming_a_neighbours_value_too_is_replaced(small_rt):
    sid = load(small_rt, FILLER + BOARD, MINUTES)
    result, _ = await ask(small_rt, sid, "What will the front desk line be?", "search",
                          lambda r: reply("01632 960 455 or 01632 960 457"))
    assert "455" in result.answer and "457" not in result.answer


def test_a_family_named_in_the_plural_possessive_is_the_family():
    from rlm_recursive.corpus.evidence import entities
    assert "wolski" in entities("When does the Wolskis' lease end?")
    assert "james" in entities("Where is James's office?")


def test_table_rows_stay_apart_even_when_one_starts_in_lower_case():
    table = ("ref | site | units\nR-1 | north depot | 493\n"
             "remark | The heparin infusion for bed 4B was set at 1700 units per hour.\n"
             "R-2 | east annex | 502\n")
    units = [u.text for u in split_units([table])]
    assert "remark | The heparin infusion for bed 4B was set at 1700 units per hour." in units
    assert not any("R-1" in u and "heparin" in u for u in units)
