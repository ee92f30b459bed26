"""A value labelled as another field's identifier is no answer (agent/labelled.py, kinds)."""

from __future__ import annotations

import pytest

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.agent.answers.labelled import other_fields_only, without_times

# A staff roster line, a container manifest and a parts ticket: several labelled identifiers each.
ROSTER = "Staff no. 4471   OKONJO, Grace   Ward: Maple"
MANIFEST = 'BASE_IMAGE_VERSION="3.19.1"   # pinned by ops'
TICKET = "Part no 88-2210   Supplier ref QX/5521   (pump impeller)"


@pytest.mark.parametrize(("question", "answer"), [
    ("what pension scheme number is Grace Okonjo in", ROSTER),
    ("which python version does the worker run", MANIFEST),
    ("what's the warranty code for the pump", TICKET),
])
def test_a_value_labelled_as_another_field_is_refused(question: str, answer: str) -> None:
    assert other_fields_only(question, answer)
    assert not fits_kind(question, answer)


@pytest.mark.parametrize(("question", "answer"), [
    ("what is Grace Okonjo's staff number", ROSTER),  # the label is the asked field
    ("which base image version is pinned", MANIFEST),
    ("supplier reference for the pump part", TICKET),
    ("part number of the impeller", TICKET),
    # "stf" is short for staff: an abbreviated label still names the asked field.
    ("staff number for Grace", "Stf no 4471 OKONJO, Grace"),
    # A value outside every label may be the asked one.
    ("what pension scheme number is Grace in", "PS-20931 Staff no. 4471 OKONJO, Grace"),
    # "PID" is one word, not a "P" id; a segment's components are values of their own.
    ("what is the health card number of Ines Duarte",
     "PID|1||K2231^^^WARD^MR~HC77120^^^CARD^NH||DUARTE^INES"),
    # No field word in the question: nothing to judge here.
    ("when does Grace start", ROSTER),
])
def test_the_asked_field_or_an_unlabelled_value_passes(question: str, answer: str) -> None:
    assert not other_fields_only(question, answer)


def test_a_clock_time_is_no_number_of_a_thing() -> None:
    question = "claim number for Osei v Northgate Haulage?"
    assert not fits_kind(question, "09:45 Northgate Haulage Ltd (respondent)")
    assert fits_kind(question, "09:45 3304117/2024 Mr K Osei v Northgate Haulage Ltd")
    # A version's dotted digits are no clock time.
    assert without_times("9:05 then 2024-03-01, v20.11").split() == ["then", ",", "v20.11"]


@pytest.mark.parametrize(("question", "answer", "fits"), [
    # The later state asked, the earlier one labelled: no answer.
    ("what grade did the boiler get after the second inspection",
     "Previous grade: C (inspected 3 March)", False),
    ("what is the current overdraft limit", "Old limit = 500 (changed 4 June)", False),
    ("what was the overdraft limit before June", "New limit: 750 from 4 June", False),
    # Both sides labelled, or the asked side: the value may be there.
    ("what is the current overdraft limit", "Old limit: 500; new limit: 750", True),
    ("what is the current overdraft limit", "Current limit: 750", True),
])
def test_a_value_labelled_as_the_other_state_is_no_answer(question, answer, fits):
    assert fits_kind(question, answer) is fits


def test_a_name_alone_is_no_topic() -> None:
    assert not fits_kind("the closing speaker chairs a panel too - what's the panel about",
                         "Prof. Amara Whitlock")
    assert fits_kind("what's the panel about", "Coastal flood forecasting with Prof. Whitlock")
    assert fits_kind("who chairs the panel on coastal flooding", "Prof. Amara Whitlock")
