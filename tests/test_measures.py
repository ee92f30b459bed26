"""The kind of quantity asked, and whether an answer carries one: over documents of several
layouts (a spec sheet, a ledger, a timetable, a room list), asked in several wordings."""

from __future__ import annotations

import pytest

from rlm_recursive.agent.answers.kinds import fits_kind, fits_kind_in
from rlm_recursive.agent.answers.measures import (
    alternative_sums,
    asked_measures,
    asks_capacity,
    states_count,
)

SPEC = ("Model ............ Breeze 300\n"
        "Mass ............. 11.2 kg (with stand 14 kg)\n"
        "Sound level ...... 42 dB at 1 m\n"
        "Max speed ........ 2,400 rpm\n"
        "List price ....... £349.00, spare filter £24.50\n")
LEDGER = ("Refund R-20331 raised 4 March 2025 for order 7781\n"
          "  Order placed 1 March 2025, 09:14; dispatched 3 days late\n"
          "  Outcome: refunded 18.40 to card on 9 March 2025\n")


@pytest.mark.parametrize(("question", "kinds"), [
    ("how heavy is the Breeze 300", {"weight"}),
    ("What does the fan weigh with its stand?", {"weight"}),
    ("how noisy is it at full power", {"loudness"}),
    ("how late was the 07:10 on Monday", {"duration"}),
    ("how long is the warranty", {"duration", "length"}),
    ("what compensation was paid for order 7781", {"money"}),
    ("how much did the refund come to", {"money"}),
    ("How many delegates can the Tamar Suite seat?", {"capacity"}),
    ("in what year was the mill built", {"year"}),
    ("how much was the bill for the Trek service", {"money"}),
    ("What's the quote for re-roofing the porch?", {"money"}),
    ("what is the quote of the week in the newsletter", set()),
    ("what is the account number of the supplier", set()),
    ("how many orders were refunded", set()),
])
def test_the_kind_asked_is_told_from_the_question_words(question, kinds):
    assert {m.name for m in asked_measures(question)} == kinds


@pytest.mark.parametrize(("question", "answer"), [
    ("how heavy is the Breeze 300", "11.2 kg"),
    ("what is the mass of the Breeze 300", "Mass: 11.2"),
    ("how loud is it, in decibels", "42 dB at 1 m"),
    ("how fast does the blade turn", "2,400 rpm"),
    ("what is the price of a spare filter", "£24.50"),
    ("how much was refunded on R-20331", "refunded 18.40 to card"),
    ("How many people can the Tamar Suite hold?", "Tamar Suite: seats 60 theatre-style"),
    ("What is the seating capacity of the Long Room?", "capacity 120"),
    ("how long was the delay on order 7781", "dispatched 3 days late"),
    ("what year was the chapel rebuilt", "rebuilt in 1887 after the fire"),
    ("what time does the first X5 leave on Sundays", "X5  0715 0815 0915"),
    ("at what time was the side gate opened", "side gate opened 22:04:11"),
    ("how long is the lease", "a 99-year lease"),
])
def test_an_answer_of_the_kind_asked_fits(question, answer):
    assert fits_kind(question, answer)


@pytest.mark.parametrize(("question", "answer"), [
    ("how heavy is the spare filter", "spare filter £24.50"),  # a price, no weight
    ("how much was paid out on refund R-20331", "Refund R-20331 raised 4 March 2025"),
    ("how late was order 7781 dispatched", "Order placed 1 March 2025, 09:14"),
    ("How many people can the Undercroft hold?", "3"),
    ("how loud is it on boost", "Suction power 150 AW (boost)"),
    ("what did the 2021 service cost", "Service 2021: odometer 41,200 mi"),
    ("what time does the first X5 leave on Sundays", "Route X5, Sundays and bank holidays"),
])
def test_a_value_of_another_kind_is_no_answer(question, answer):
    assert not fits_kind(question, answer)


def test_a_bare_number_fits_when_its_line_says_the_kind():
    assert fits_kind_in("how late was order 7781 dispatched", "3", LEDGER)
    assert fits_kind_in("how much was refunded for order 7781", "18.40", LEDGER)
    # A number of the line that is not the one of the kind asked: the order's date.
    assert not fits_kind_in("how much was refunded for order 7781", "4", LEDGER)
    assert not fits_kind_in("how heavy is the Breeze 300", "349.00", SPEC)
    assert fits_kind_in("how heavy is the Breeze 300", "11.2", SPEC)


@pytest.mark.parametrize(("question", "asks"), [
    ("How many people can the Undercroft hold?", True),
    ("how many seats are there in the room where the keynote is given", True),
    ("how many guests does the barn accommodate", True),
    ("What is the capacity of the Long Room?", True),
    ("how many seats were booked for the Friday show", False),
    ("How many of the rooms can hold more than 50 people?", False),
])
def test_a_capacity_is_asked_as_a_stated_number(question, asks):
    assert asks_capacity(question) is asks


def test_a_count_looked_up_must_state_the_count_of_what_is_asked():
    asked = "how many plots are vacant"
    assert states_count(asked, "6", "Summary: 6 plots vacant at the spring inspection")
    # One record's own number ("Plot 14") says nothing of how many are vacant.
    assert not states_count(asked, "14", "Plot 14  A. Moss  hens kept")
    assert not states_count("how many boxes are closed to readers", "1 box",
                            "Letters of the Pryce family, 1 box")
    assert states_count("How many beds does the Oak ward have?", "Beds ..... 24",
                        "Oak ward\nBeds ..... 24")


@pytest.mark.parametrize(("question", "answer", "fits"), [
    ("Which room is the pottery class in?", "Kiln Room, ground floor", True),
    ("which room is the pottery class in", "19:30 (C) Class C2", False),
    ("what floor is the archive on", "the lower ground floor", True),
    ("what floor is the archive on", "Archive: open 10-4", False),
    ("which box holds the parish maps", "Box 12, shelf 3", True),
    ("which box holds the parish maps", "P/ST/2/1 1840 Tithe map 1 roll", False),
])
def test_a_place_asked_by_its_kind_is_named_by_it(question, answer, fits):
    assert fits_kind(question, answer) is fits


def test_a_count_stated_under_its_heading_fits():
    # The recipe's heading says what the list is of: "20 chicken thighs" is its count.
    assert states_count("how many eggs go in Mary's sponge", "6 eggs", "  6 eggs, beaten",
                        "4. VICTORIA SPONGE (Mary Hale)")
    assert not states_count("how many eggs go in Mary's sponge", "6 eggs", "  6 eggs, beaten",
                            "5. CHEESE SCONES (Mary Hale)")


def test_a_count_wrapped_over_two_lines_or_in_a_field_name_is_still_stated():
    minutes = "The treasurer, Ann Roe, reported 2,310\nmembers renewed in March."
    assert states_count("How many members did the treasurer report renewed?", "2,310", minutes)
    assert states_count("How many pump hours has the north borehole run?", "pump_hours: 912",
                        "[borehole.north]\nsite = north borehole\npump_hours: 912")


def test_a_money_word_inside_a_name_asks_no_sum():
    assert asked_measures("Which port does the fare-sync worker listen on?") == []
    # A money word naming a reference, a status or a date asks for that, not a sum.
    assert asked_measures("refund reference for the customer charged twice") == []
    assert asked_measures("what is the payment status of the premium request") == []
    assert fits_kind("Which port does the price-feed service use?", "port: 9301")


@pytest.mark.parametrize(("question", "answer", "alternatives"), [
    # Which sum applies is the question's to say; the line gives both.
    ("how much is the permit for a commercial van", "£40 for a private car, £95 otherwise", True),
    ("how much is the garden shredder", "£84.99 (was £119.99)", True),
    ("what's the fare to the airport", "Single £4.20 or £7.00 return", True),
    # The parts of one bill, or one sum, are no alternatives.
    ("how much was the invoice for the boiler repair",
     "Amount due: £312.00 (parts £190.00, labour £122.00)", False),
    ("what's the fee for a replacement card", "Replacement card fee £10", False),
    # No sum asked: two weights are not judged here.
    ("how much does the crate weigh", "12 kg or 14 kg", False),
])
def test_two_sums_given_as_alternatives_answer_nothing(question, answer, alternatives):
    assert alternative_sums(question, answer) is alternatives


@pytest.mark.parametrize(("question", "answer"), [
    ("how much is the council requesting from the lottery fund", "requested 14 March"),
    ("how much was the travel bursary awarded for", "[2025-06-02 Mon 10:40]"),
    ("how much did the insurer pay out", "settled 09:30 on 3 May"),
])
def test_a_date_or_a_clock_time_is_never_a_sum(question, answer):
    assert not fits_kind(question, answer)
    assert fits_kind(question, answer.split()[0] + " £12,500")


def test_a_bare_two_decimal_number_is_no_sum_where_the_text_marks_its_sums():
    card = ("Done: new tyres, pads (wear 0.45)\n"
            "Parts £61.20 | Labour £30.00 | TOTAL £91.20\n")
    question = "how much was the bill for the tyre job"
    assert not fits_kind_in(question, "pads (wear 0.45)", card)
    assert fits_kind_in(question, "TOTAL £91.20", card)
    # A till roll that marks no sum: its bare "4.35" is one.
    assert fits_kind_in(question, "4.35", "Oat milk 1.20\nBread 3.15\nTOTAL 4.35\n")


@pytest.mark.parametrize(("question", "money"), [
    ("What did the tenant pay for the boiler repair?", True),
    ("how much are we asking the trust for", True),
    ("when is the rent due", False),
    ("what is the pay date for November", False),
    ("who is in charge of the night shift", False),
    ("how much memory for the build runner", False),
])
def test_money_is_asked_by_its_words_not_by_a_date_or_a_name_they_form(question, money):
    assert ("money" in {m.name for m in asked_measures(question)}) is money
