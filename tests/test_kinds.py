"""Answer kinds: "who" wants a person (a firm only when one is asked for), a phone number
for "number for <someone>", a count for "how many"; judged by shape and label."""

from __future__ import annotations

import pytest

from rlm_recursive.agent.answers.kinds import fits_kind, fits_kind_in, only_when_and_who
from rlm_recursive.agent.answers.persons import asks_org, asks_person


@pytest.mark.parametrize("question, org", [
    ("Who is adjudicating the schools' debating final?", False),
    ("who umpired Westbury v Kingsdown on Saturday", False),
    ("Who is the treasurer of the allotment society?", False),
    ("Who caters the spring dinner?", True),
    ("Who is the contractor for the roof repairs?", True),
    ("who hosted the under-12 tournament", True),
])
def test_a_firm_answers_only_a_question_that_asks_for_one(question, org):
    assert asks_org(question) is org
    assert asks_person(question) is not org


@pytest.mark.parametrize("answer", [
    "Westbury Cricket Club",                       # a club
    "The answer is: Kingsdown Wanderers.",         # a team, in the model's prose
    "Title: Quiz night in aid of the roof fund",   # a title line names an event
    "EVENT=Harvest supper; VENUE=Millbrook Parish Hall",
    "Kingsdown Rec, 14:00",                        # a place and a time
    "ORGANISER;CN=Mohan Varghese",                 # another role's key
    "organiser.name: Mohan Varghese",              # a record's nested field
])
def test_who_is_not_answered_by_a_firm_a_title_a_place_or_another_role(answer):
    assert not fits_kind("Who is adjudicating the quiz night?", answer)


@pytest.mark.parametrize("answer", [
    "Adjudicator: Fenella Brightwater-Oduya",
    "Ms Okonkwo",
    "Oduya",
    "the deputy head",                             # a role-holder
    "K. L. Abernathy will adjudicate",
])
def test_who_is_answered_by_a_person_or_a_role_holder(answer):
    assert fits_kind("Who is adjudicating the quiz night?", answer)


def test_a_firm_answers_who_supplies():
    assert fits_kind("Who supplies the marquee?", "Harlow Canvas Ltd")


def test_a_clause_is_judged_with_the_key_its_line_gives_it():
    line = "ORGANISER;CN=Mohan Varghese:mailto:quiz@example.org"
    assert fits_kind("Who is adjudicating the quiz night?", "CN=Mohan Varghese")
    assert not fits_kind_in("Who is adjudicating the quiz night?", "CN=Mohan Varghese",
                            f"TITLE:Quiz night\n{line}")


@pytest.mark.parametrize("question, answer, ok", [
    ("Number for the club's membership secretary?", "by 18:00 on Friday", False),
    ("Number for the club's membership secretary?", "Priya Nair (01632 960 123)", True),
    ("What's Odette Lasalle's mobile?", "on 2025-06-14", False),
    ("What's Odette Lasalle's mobile?", "+44 7700 900 412", True),
    ("which extension do I ring for the porters' lodge", "ext 3391", True),
    ("which extension do I ring for the porters' lodge", "Lodge B", False),
    ("What is the account number for Brightwell Farm?", "BW-20418", True),  # a code
    ("How many chairs are booked?", "forty", False),
    ("How many chairs are booked?", "twelve", True),
    ("How many chairs are booked?", "36 chairs", True),
])
def test_numbers_of_the_kind_asked(question, answer, ok):
    assert fits_kind(question, answer) is ok


@pytest.mark.parametrize("answer, ok", [
    ("image: registry.example.org/platform/mailer", False),
    ("mailer tag in production: 3.1.4", True),
    ("v12", True),
])
def test_which_version_wants_a_version(answer, ok):
    assert fits_kind("Which image version is the mailer on?", answer) is ok


@pytest.mark.parametrize("question, answer, ok", [
    # A sum of money wants a number standing alone, not a reference code's digits.
    ("What is the annual premium on the boat policy?", "£612.40 a year, paid monthly", True),
    ("What is the annual premium on the boat policy?", "Read with the wording (ref BQ-POL-0417)",
     False),
    ("how much is the oak dresser insured for", "'INV.1907.022','Oak dresser','pine top'",
     False),
    ("how much is the oak dresser insured for", "Oak dresser: 4,250", True),
    ("what's the cost centre for the night ward", "CC-NW-07", True),
    # A numbered thing wants some digits.
    ("flight no. for the Oslo to Bergen leg", "SK4161 Oslo - Bergen", True),
    ("flight no. for the Oslo to Bergen leg", "the Oslo-Bergen flight run by Widerøe", False),
    ("what exit code does backupd return when the disk is full", ".TP\n.B TZ\nIgnored.", False),
    ("what exit code does backupd return when the disk is full", "4  the disk is full", True),
    ("the number of spare keys", "three spare keys", True),
    # "which day" wants a weekday or a date.
    ("Which day is the recycling collected in Upper Wyke?", "<entry><title>News</title>", False),
    ("Which day is the recycling collected in Upper Wyke?", "Recycling: every Tuesday", True),
])
def test_sums_numbered_things_and_days_of_the_kind_asked(question, answer, ok):
    assert fits_kind(question, answer) is ok


@pytest.mark.parametrize("question, answer, ok", [
    # A measure is no number of a thing: "8 kg" is the bag allowance, not the flight.
    ("flight no. for the Oslo to Bergen leg", "cabin bags over 8 kg go in the hold", False),
    ("booking ref for the Bergen hotel", "check-in after 15h, 2 nights", False),
    ("booking ref for the Bergen hotel", "Booking ref 88213, 2 nights", True),
    # A percentage is asked: the scenario's own tag is no discount.
    ("what % off does the loyalty code in the @smoke-17 scenario give", "@smoke-17", False),
    ("what % off does the loyalty code in the @smoke-17 scenario give", "a 12% discount", True),
    ("what percentage of the grant went on staff", "62 per cent", True),
    # "which day": a date's shape, not any digit (a URL's, a time's).
    ("Which day does the library van call?", "https://example.org/2026/01/library", False),
    ("Which day does the library van call?", "From 12 March, fortnightly", True),
    ("Which day does the library van call?", "10:30 outside the shop", False),
])
def test_measures_percentages_and_dates_of_the_kind_asked(question, answer, ok):
    assert fits_kind(question, answer) is ok


@pytest.mark.parametrize("question", [
    "which judge heard the appeal of Nkemelu v Sandford Haulage",
    "what chairperson runs the Thursday session",
    "which tester signed off the Corsa's MOT",
])
def test_a_role_of_people_asks_for_a_person(question):
    assert asks_person(question)


def test_the_person_the_question_names_with_a_title_is_no_answer_to_who_else():
    question = "which judge decided Amina Nkemelu's claim against Sandford Haulage"
    listing = "2504417/2025  Ms Amina Nkemelu v Sandford Haulage Services Ltd"
    assert not fits_kind(question, listing)  # the claimant, not the judge
    assert fits_kind(question, "Employment Judge Okonjo")
    assert fits_kind("who is the tutor for 4B", "Mr Alan Pryce")


def test_where_and_when_alone_is_no_value_asked() -> None:
    # The entry's time and the client's name answer no "which gauge" or "what reading".
    assert not fits_kind("Which gauge was the Ferris-Lowe boiler set to on the 3rd of May?",
                         "- 10.40 Mrs Ferris-Lowe")
    assert not fits_kind("lead reading at the scullery sink", "scullery sink 04/05/2026 10:15")
    # Asked when, the date and time are the answer; a value beside them is one too.
    assert only_when_and_who("When was the scullery sink sampled?",
                             "scullery sink 04/05/2026 10:15") is False
    assert fits_kind("lead reading at the scullery sink", "scullery sink 04/05/2026: 7.2 ug/l")
    # A value beside the time is what is asked.
    assert fits_kind("how much bran does Pip eat", "Eats 200 g bran at 07:30")
    # A version or a reading with two decimals is no clock time.
    assert fits_kind("caddy version installed by the role", "Install caddy: 2.10.0")
    assert fits_kind("pH at the scullery sink", "scullery sink 6.30")


def test_which_kind_asks_for_a_name_of_that_kind_when_the_line_writes_one() -> None:
    line = "  03/06/2026 09:15  Dunmere Sorting Office   Recipient moved: 14 Quarry Lane"
    question = "Which sorting office handled the parcel whose recipient had moved?"
    assert not fits_kind_in("Which office handled the parcel whose recipient had moved?",
                            "14 Quarry Lane", line)
    assert fits_kind_in("Which office handled the parcel whose recipient had moved?",
                        "Dunmere Sorting Office", line)
    # "the contractor" names no contractor: the answer may be the name beside it.
    assert fits_kind_in("Which contractor is fixing the gutter?", "Brack Gutters",
                        "Ola said that the contractor, Brack Gutters, starts Monday.")
    # A line naming no office by the word leaves the answer to other checks.
    assert fits_kind_in(question.replace("sorting office", "van"), "14 Quarry Lane", line)
