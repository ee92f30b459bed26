"""Grounding with the fake model: an answer of the wrong kind is no answer, though its
words are in the text. A title line or a club for "who", a time for "number for the
secretary", a name from a line that says nothing of what is asked: each becomes the
runtime's own copy of the right line, or "not found", never a grounded invention."""

from __future__ import annotations

import pytest
from strategy_support import answers, ask, load, load_named, small_runtime

from rlm_recursive.agent.copied_check import verify_extract
from rlm_recursive.agent.grounding import NOT_FOUND, quoted_reply

FILLER = "".join(f"Item {i}: the minutes of meeting {i} were read and approved.\n\n"
                 for i in range(30))
EVENTS = (
    "# Millbrook Parish Hall - June lettings\n\n"
    "## Saturday 14 June\n"
    "- Title: Kingsdown Quiz League grand final\n"
    "- Room: Upper Room\n"
    "- Booked by: Mohan Varghese (league organiser)\n"
    "- Notes: tables of six, bar until 23:00\n\n"
    "## Sunday 15 June\n"
    "- Title: Summer dinner of the Millbrook Bowls Club\n"
    "- Room: Main Hall\n"
    "- Notes: Harlow Kitchens Ltd caters the summer dinner; 80 covers\n")
RESULTS = (
    "KINGSDOWN & DISTRICT CRICKET LEAGUE - DIVISION 3\n"
    "Sat 7 June\n"
    "  Westbury CC 212/6 v Kingsdown CC 188 - Westbury won by 24 runs (Kingsdown Rec)\n"
    "  Millbrook Athletic 143 v Ashcombe Town 144/3 - Ashcombe won by 7 wickets\n"
    "  Top scorers: Ahmed 84 (Westbury CC), Lindqvist 51 (Kingsdown CC), "
    "Fairweather 66 (Ashcombe Town)\n\n"
    "NOTICES\n"
    "* Renewals must reach the membership secretary by 18:00 on 30 June.\n"
    "* Membership secretary: Priya Nair, 01632 960 123.\n")


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, FILLER + EVENTS + FILLER, RESULTS)
    yield runtime, sid
    runtime.close()


@pytest.mark.parametrize("said", [
    "The answer is: Ashcombe Town.",  # a club, on the line naming both sides
    "Ahmed",                               # a person, from a line that says no umpire
])
async def test_a_team_or_a_player_is_no_umpire(corpus, said):
    runtime, sid = corpus
    result, _ = await ask(runtime, sid, "who umpired Westbury CC v Kingsdown CC?", "search",
                          answers(said, reasked=said))
    assert result.answer == NOT_FOUND and result.grounded is False
    assert "wrong_kind" in result.grounding["failed"]
    assert result.grounding["original_answer"] == said


async def test_a_title_line_is_not_who_runs_the_event(corpus):
    runtime, sid = corpus
    said = "Title: Kingsdown Quiz League grand final"
    result, _ = await ask(runtime, sid, "Who is the organiser of the quiz league grand final?",
                          "search", answers(said, reasked=said))
    # The runtime's own copy of the right line, or nothing: never the title.
    assert result.answer != said
    assert result.grounded is False or "Mohan Varghese" in result.answer


async def test_a_time_in_a_line_naming_the_secretary_is_no_number_for_them(corpus):
    runtime, sid = corpus
    result, _ = await ask(runtime, sid, "Number for the league's membership secretary?",
                          "search", answers("18:00"))
    assert result.grounded is True, result.grounding
    assert "01632 960 123" in result.answer and "18:00" not in result.answer


async def test_a_firm_answers_who_caters(corpus):
    runtime, sid = corpus
    result, _ = await ask(runtime, sid, "Who caters the summer dinner?", "search",
                          answers("Harlow Kitchens Ltd"))
    assert result.grounded is True and result.answer == "Harlow Kitchens Ltd"



@pytest.mark.parametrize("reply_text, quote", [
    ("[2] mailer tag in production: 3.1.4", "mailer tag in production: 3.1.4"),
    ('"mailer tag in production: 3.1.4"', "mailer tag in production: 3.1.4"),
    ("[1] mailer image: registry.example.org/platform/mailer\n[2] Release notes, week 23.",
     None),
    ("NOT FOUND", None),
])
def test_a_re_ask_that_copies_the_passage_list_back_is_no_quote(reply_text, quote):
    assert quoted_reply(reply_text) == quote


LETTINGS = "\n".join([
    '{"event": "Spring quiz final", "room": "Upper Room", "organiser": "Mohan Varghese", '
    '"notes": "Quizmaster: Odile Fontaine. Tables of six, bar until 23:00."}',
    '{"event": "Bowls club dinner", "room": "Main Hall", "organiser": "Ruth Abiodun", '
    '"notes": "Harlow Kitchens Ltd caters; 80 covers."}',
    '{"event": "Toddler music", "room": "Garden Room", "organiser": "Sian Pryce", '
    '"notes": "Own instruments."}'])


async def test_the_field_naming_someone_under_the_role_asked_answers_who(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"notes.txt": FILLER, "lettings.jsonl": LETTINGS})
    result, _ = await ask(runtime, sid, "Who is the quizmaster for the spring quiz final?",
                          "search", answers("Mohan Varghese"))  # the organiser, beside it
    runtime.close()
    assert result.grounded is True, result.grounding
    assert "Odile Fontaine" in result.answer and "Varghese" not in result.answer


def test_a_value_folded_over_lines_is_read_back_unfolded():
    event = ("BEGIN:VEVENT\nSUMMARY:Photo contest\n"
             "DESCRIPTION:Judge: Ines Okafor. Prints on boards. Fee £25.\n 00.\nEND:VEVENT")
    assert verify_extract("who is judging the photo contest",
                          "DESCRIPTION: Judge: Ines Okafor. Prints on boards. Fee £25.00.",
                          event, "")
    assert not verify_extract("who is judging the photo contest",
                              "DESCRIPTION: Judge: Ines Okafor. Fee £35.00.", event, "")
