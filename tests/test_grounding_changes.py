"""Answers that name two candidates or another thing's value (fake provider; real SQLite and
tantivy): both sides of a change ("from 3.4.0 to 3.5.1") answer only the side asked; a value
measured from the asked entity ("up 6 since the May reading") is no value of it; a row of times
is no phone number; a list's bare number ("7.") is no answer; the model's answer from a line
saying more of the question than the runtime's copy is kept."""

from __future__ import annotations

import pytest
from strategy_support import ask, load

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.agent.answers.sides import change_side, named_as_reference
from rlm_recursive.agent.grounding import NOT_FOUND, _says_more
from rlm_recursive.corpus.evidence import split_units
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Item {i}: the office kettle was descaled and the rota updated again.\n\n"
                 for i in range(40))
RELEASES = ("Release notes, Kestrel build tools\n\n"
            "Upgrade pydantic from version 2.6.4 to 2.7.1 across all services.\n"
            "The CI image moved to Debian 12 after the old mirror closed.\n")
READINGS = ("Borehole BH3, Hatchmere site\n"
            "In June the water table was up 0.42 m since the May reading, after rain.\n"
            "The cap was replaced and the logger battery was changed in June.\n")


@pytest.mark.parametrize(("question", "expected"), [
    ("pydantic was upgraded to which version", "2.7.1"),
    ("what was the old pydantic version", "2.6.4"),
    ("which pydantic version is in the release notes", None),
    ("what did pydantic go to after 2.6.4", "Upgrade pydantic from 2.6.4 to 2.7.1"),
])
def test_a_change_answers_only_the_side_asked(question, expected):
    assert change_side(question, "Upgrade pydantic from 2.6.4 to 2.7.1") == expected
    assert change_side(question, "pydantic 2.7.1 is pinned") == "pydantic 2.7.1 is pinned"


def test_an_entity_named_only_as_a_reference_point_gives_no_value_of_its_own():
    line = "Water table up 0.42 m on BH3 since the May reading."
    assert named_as_reference("what was the level at the May reading", line)
    assert not named_as_reference("what was the level at BH3", line)
    assert not named_as_reference("what is the water table", line)


@pytest.mark.parametrize(("answer", "phone"), [
    ("The 0715 (12) does not stop at the depot.", False),
    ("0716  0801  0846", False),
    ("Departures 0840 0940 1040", False),
    ("Call the depot on 01632 960 118.", True),
    ("(0161) 496 0021", True),
    ("+44 (0)20 7946 0312", True),
])
def test_a_phone_number_is_groups_of_digits_not_a_row_of_times(answer, phone):
    assert fits_kind("what is the phone number for the depot", answer) is phone


def test_a_list_number_alone_is_no_unit():
    texts = [u.text.strip() for u in split_units(["7. LEMON CURD   (Ada Hale)\nMakes 3\n"])]
    assert "7." not in texts and "LEMON CURD   (Ada Hale)" in texts


def test_the_line_saying_more_of_the_question_is_preferred_unless_it_is_a_heading():
    text = ("OAT BISCUITS\n\n  250 g rolled oats, toasted\n  90 g golden syrup, warmed\n")
    units = {u.text.strip(): u for u in split_units([text], [[(0, "OAT BISCUITS", "")]])}
    oats, syrup = units["250 g rolled oats, toasted"], units["90 g golden syrup, warmed"]
    question = "how many grams of rolled oats for the biscuits"
    assert _says_more(question, oats, syrup) and not _says_more(question, syrup, oats)
    heading = units["OAT BISCUITS"]
    assert not _says_more("how much syrup in the oat biscuits", heading, syrup)


def _first_line(request):
    prompt = request.messages[-1].content
    if "[Excerpt 1]" not in prompt:
        return reply("NOT FOUND")
    return reply(prompt.split("[Excerpt 1]\n", 1)[1].split("\n", 1)[0])


async def test_a_change_line_is_cut_to_the_side_asked_or_not_found(small_rt):
    sid = load(small_rt, FILLER + RELEASES + FILLER)
    result, _ = await ask(small_rt, sid, "pydantic was upgraded to which version?",
                          "search", _first_line)
    assert result.answer == "2.7.1" and result.grounded
    result, _ = await ask(small_rt, sid, "Which pydantic version was the upgrade?",
                          "search", _first_line)
    assert "2.6.4" not in result.answer or "2.7.1" not in result.answer


async def test_a_change_measured_from_the_asked_reading_is_not_its_value(small_rt):
    sid = load(small_rt, FILLER + READINGS + FILLER)
    result, _ = await ask(small_rt, sid, "What was the BH3 water table at the May reading?",
                          "search", _first_line)
    assert result.answer == NOT_FOUND and result.grounded is False
