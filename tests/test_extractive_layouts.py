"""Extraction and grounding on layouts where the context of a line is another line (fake
provider; real SQLite and tantivy): a settings file's `[section]` over its `key = value`
lines, a transcript's speaker before what they say, a line ending in a colon over the list
it introduces, a table's header over its rows. And the words that pick one of several
siblings ("the lower boiler", "a double room") or say what is asked ("bleep number"): a
value beside a sibling, or under another label, is not the answer. The fake model answers
with a neighbour's value, as small models do; the runtime's copy must win or "not found"."""

from __future__ import annotations

import pytest
from strategy_support import ask, load

from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.evidence import qualifiers, split_units, stems
from rlm_recursive.corpus.sections import headings
from rlm_recursive.corpus.speakers import speaker
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Note {i}: the canal towpath was quiet and the lock gates were shut.\n\n"
                 for i in range(50))
PLANT_INI = ("# plantroom controller, exported by facilities\n\n"
             "[site]\nname = Orchard Street Depot\ntz = UTC\n\n"
             "[boiler.upper]\nmodel = Vantec 40\nserial = VT-55012\npressure_limit_bar = 2.8\n"
             "; serviced in March\nflow_temp_c = 72\n\n"
             "[boiler.lower]\nmodel = Vantec 60\nserial = VT-60877\npressure_limit_bar = 2.5\n"
             "flow_temp_c = 68\n")
TRANSCRIPT = ("Marsh Lane Campsite - volunteers' meeting, recording notes\n\n"
              "[00:02:10] Nora Quill (bookings): We have had forty-one enquiries since Easter. "
              "I'd like the website updated before May.\n\n"
              "[00:03:45] Tomas Reyes (warden): Fine by me. If anyone needs me over the "
              "weekend, I'm on pitch 4, the one by the hedge.\n\n"
              "[00:04:20] Ada Finch: And I'm on pitch 9 from Friday. The gas order is "
              "twelve bottles this time.\n")
FEES = ("Lab induction pack\n\n"
        "3.1 Inductions run on Tuesdays.\n"
        "3.2 A returnable fee is charged on loan of:\n"
        "    (a) a locker key - £15;\n"
        "    (b) a dissecting microscope - £90;\n"
        "    (c) a lab coat - no fee.\n"
        "3.3 Fees come back within a week of return.\n")
BROKERS = ("## Consumers\n\n| consumer | broker host | port | team |\n|---|---|---|---|\n"
           "| billing consumer | mq-01 | 5541 | Ledger |\n"
           "| audit consumer | mq-02 | 5544 | Trust |\n"
           "| email consumer | mq-02 | 5547 | Comms |\n\nAll consumers restart nightly.\n")
DELIVERIES = ("Deliveries this week\n\n"
              "  - Harlow Farms, order 5521: 40 crates of apples, lot QX-19, due Monday.\n"
              "  - Benning & Co, order 5530: 25 crates of pears, lot QX-22, due Wednesday.\n")
ROOMS = ("Guest house tariff\n\nSingle rooms cost £60 a night including breakfast and "
         "double rooms £85. Parking is free.\n")
CONTACTS = ("Ward contacts\n\nDr Ana Ruiz, Respiratory, ext 5120, mob 07700 900111.\n"
            "Dr Bo Lind, Cardiology, bleep 3345.\n")


def _neighbour(request):
    """A small model's habit: a value from the line beside the one asked about."""
    if "[Excerpt 1]" not in request.messages[-1].content:  # grounding's re-ask
        return reply("NOT FOUND")
    return reply("It is 2.8, pitch 9, £15, 5541, 5521, £60 or 3345.")


@pytest.mark.parametrize(("doc", "question", "holds", "not_holds"), [
    (PLANT_INI, "What is the pressure limit on the lower boiler?", "2.5", "2.8"),
    (TRANSCRIPT, "Which pitch is Tomas Reyes on?", "4", "9"),
    (FEES, "What fee is charged to borrow a microscope?", "£90", "£15"),
    (BROKERS, "Which port does the audit consumer listen on?", "5544", "5541"),
    (DELIVERIES, "Which order number is the Benning delivery on?", "5530", "5521"),
    (ROOMS, "How much is a double room a night?", "£85", "£60"),
])
async def test_the_line_that_gives_the_context_picks_the_value(small_rt, doc, question, holds,
                                                               not_holds):
    sid = load(small_rt, FILLER, doc)
    result, _ = await ask(small_rt, sid, question, "search", _neighbour)
    assert holds in result.answer and not_holds not in result.answer
    assert result.grounded and result.grounding["method"] == "extractive"


@pytest.mark.parametrize(("doc", "question"), [
    (PLANT_INI, "What is the serial of the middle boiler?"),  # upper and lower only
    (TRANSCRIPT, "Which pitch is Nora Quill on?"),  # she speaks, but of no pitch
    (CONTACTS, "What is Ana Ruiz's bleep number?"),  # her ext and mobile are no bleep
    (BROKERS, "Which port does the nightly restart job listen on?"),
])
async def test_a_sibling_or_another_label_is_not_the_answer(small_rt, doc, question):
    sid = load(small_rt, FILLER, doc)
    result, _ = await ask(small_rt, sid, question, "search", _neighbour)
    assert result.answer == NOT_FOUND and result.grounded is False


def test_a_settings_section_heads_its_key_value_lines():
    found = [h[2] for h in headings(PLANT_INI)]
    assert "boiler upper" in found and "boiler lower" in found
    units = split_units([PLANT_INI])
    block = next(u for u in units if u.text.startswith("[boiler.upper]"))
    # A block of `key = value` lines is one record, its comment line and all; its lines are
    # not joined as wrapped prose.
    assert block.record and "flow_temp_c = 72" in block.text
    assert not any(u.text.startswith("[boiler.lower]") and "72" in u.text for u in units)


def test_a_speakers_turn_is_a_unit_and_their_i_is_them():
    assert speaker("[00:03:45] Tomas Reyes (warden): Fine by me.") == "Tomas Reyes"
    assert speaker("NORA: Thanks all.") == "NORA"
    assert speaker("Owner: Club Captain.") == ""  # a `Key: value` line names no speaker
    units = split_units([TRANSCRIPT])
    assert {u.author for u in units if "pitch 9" in u.text} == {"Ada Finch"}
    assert any(u.text.startswith("[00:03:45]") and "pitch 4" in u.text for u in units)


def test_a_line_ending_in_a_colon_introduces_the_items_under_it():
    units = split_units([FEES])
    item = next(u for u in units if "microscope" in u.text)
    assert item.lead == "3.2 A returnable fee is charged on loan of:"
    assert "fee" in item.own_stems
    # The line after the list is not an item of it.
    assert next(u for u in units if u.text.startswith("3.3")).lead == ""


def test_a_contrast_word_is_required_only_when_the_text_has_its_sibling():
    assert qualifiers("What does the east kiln reach?", frozenset(stems("north kiln"))) == {
        "east"}
    # "the warm fridge" with no other fridge: the text may say it another way.
    assert qualifiers("What did the warm fridge read?", frozenset(stems("fridge 9.4C"))) == set()


def test_a_prose_answer_needs_most_of_its_words_in_the_one_unit_that_names_the_entity():
    from rlm_recursive.corpus.evidence import check_support

    question = "Which pitch is Nora Quill on?"
    units = split_units([TRANSCRIPT])
    # Nora's turn says "enquiries"; the bottles are Ada's: one shared word is no backing.
    invented = check_support("The pitch near the gas bottles and the enquiries.", question,
                             [TRANSCRIPT], units)
    assert not invented.supported
    said = check_support("The website, before the enquiries.", "What does Nora Quill want "
                         "updated?", [TRANSCRIPT], units)
    assert said.supported
