"""Grounding with the fake model: a model's answer that the text backs but that is not the
value asked becomes "not found" (or is narrowed to the one value asked), never a grounded
wrong answer:
- a line of sibling measures each named by the word before it ("Summer 3.8 m and Winter
  5.2 m"), for a question that names neither;
- a line of several labelled people, for "who was <role>": narrowed to the name under the
  role's label;
- a sentence with no date, for "on what date";
- a grid row's number that is no sum ("21 Sea kale soup" beside "4.50  6.75");
- the asked role said back in a capitalised address ("Quay Head" for the head baker);
- a sum and an aside for another case ("£40 a year (£22 for pensioners)").
"""

from __future__ import annotations

import pytest
from strategy_support import answers, ask, load, small_runtime

from rlm_recursive.agent.answers.kinds import fits_kind_in
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.narrow import narrowed

FILLER = "".join(f"Note {i}: the volunteers' rota for week {i} was agreed without change.\n\n"
                 for i in range(30))
BULLETIN = (
    "GULLROCK HARBOUR VOLUNTEERS - AUTUMN BULLETIN\n\n"
    "The depth at Gullrock Pier runs to Summer 3.8 m and Winter 5.2 m at low water.\n\n"
    "Gullrock night walk of 3 Oct 2026. Distance 12.1 km, climb 240 m. Walk leader: "
    "Ines Marr. Back marker: Oskar Bell. Start at the kiosk.\n\n"
    "Mr Penhale told us that the Gullrock Harbour Board had written to him about the kiosk "
    "awning, asking for it to be cut back to 1.5 metres.\n\n"
    "Membership: £40 a year (£22 for pensioners), paid to the treasurer.\n\n")
CAFE = (
    "GULLROCK LIGHTHOUSE CAFE\n"
    "Quay Head, Gullrock GR1 4ZZ\n\n"
    "----------------------------------------------------------\n"
    " CODE  DISH                          SMALL   LARGE\n"
    "----------------------------------------------------------\n"
    " 21    Sea kale soup                 4.50    6.75\n"
    " 22    Crab and fennel broth         5.20    7.90\n"
    " 23    Smoked mackerel pate          4.10    6.30\n"
    "----------------------------------------------------------\n\n"
    "Menu written by Ada Quill (pastry chef).\n")


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, FILLER + BULLETIN + FILLER, CAFE)
    yield runtime, sid
    runtime.close()


async def _asked(corpus, question: str, said: str):
    runtime, sid = corpus
    result, _ = await ask(runtime, sid, question, "search", answers(said, reasked=said))
    return result


async def test_sibling_measures_the_question_does_not_pick_are_no_answer(corpus):
    said = "The depth at Gullrock Pier runs to Summer 3.8 m and Winter 5.2 m at low water."
    result = await _asked(corpus, "typical depth at gullrock pier at low water", said)
    assert result.answer == NOT_FOUND and result.grounded is False


async def test_the_sibling_the_question_names_is_the_answer(corpus):
    said = "The depth at Gullrock Pier runs to Summer 3.8 m and Winter 5.2 m at low water."
    result = await _asked(corpus, "winter depth at gullrock pier", said)
    assert result.grounded is True, result.grounding
    assert "5.2" in result.answer and "3.8" not in result.answer


def test_who_was_a_role_is_the_name_under_its_label():
    # A record's note read as one line (a GPX <desc>): its sentences label several people.
    line = ("Gullrock night walk of 3 Oct 2026. Distance 12.1 km, climb 240 m. Walk leader: "
            "Ines Marr. Back marker: Oskar Bell. Start at the kiosk.")
    assert narrowed("who was back marker on the gullrock night walk", line) == (
        "Back marker: Oskar Bell")
    assert narrowed("who was the walk leader on the night walk", line) == (
        "Walk leader: Ines Marr.")


async def test_a_sentence_with_no_date_answers_no_on_what_date(corpus):
    said = "that the Gullrock Harbour Board had written to him about the kiosk awning"
    result = await _asked(corpus, "On what date did the Gullrock Harbour Board write to Mr "
                                  "Penhale about the awning?", said)
    assert result.answer == NOT_FOUND and result.grounded is False


def test_a_rows_code_beside_its_prices_is_no_price():
    row = " 21    Sea kale soup                 4.50    6.75"
    question = "how much is a large bowl of the sea kale soup"
    assert not fits_kind_in(question, "21 Sea kale soup", row)
    assert fits_kind_in(question, "6.75", row)
    # A label the question says before a bare number makes it the sum asked.
    assert fits_kind_in("how much is the fine", "500", "Fine: 500 (plus £2.50 admin)")


async def test_the_rows_price_is_still_a_price(corpus):
    result = await _asked(corpus, "how much is a large bowl of the sea kale soup", "6.75")
    assert result.grounded is True, result.grounding
    assert "6.75" in result.answer


async def test_the_role_said_back_in_an_address_names_no_one(corpus):
    result = await _asked(corpus, "Who is the head baker at the Gullrock Lighthouse Cafe?",
                          "Quay Head")
    assert result.answer == NOT_FOUND and result.grounded is False


async def test_an_aside_for_the_case_asked_is_the_answer(corpus):
    said = "£40 a year (£22 for pensioners)"
    result = await _asked(corpus, "yearly membership for pensioners?", said)
    assert "40" not in result.answer
    assert result.grounded is False or "22" in result.answer


def test_sibling_measures_beside_other_figures_leave_the_line_answerable():
    line = "Kiln B: top 980 °C, base 940 °C. Door gap 4 mm; shimmed to 2 mm."
    assert narrowed("what is the door gap on kiln B", line) is not None


def test_a_number_the_question_says_is_no_sum():
    question = "how much is a large (500ml) jug of the sea kale soup"
    assert not fits_kind_in(question, "500ml.", " 21    Sea kale soup   4.50    6.75")
    assert fits_kind_in(question, "6.75", " 21    Sea kale soup   4.50    6.75")
