"""Questions asked in words that records abbreviate ("original gravity" over "OG", "the KB
elevation" over "KELLY BUSHING ELEVATION"); a document about one thing names it once, in
the fields at its top, for every line below; an answer that only says a word of the question
back is no answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.corpus.acronyms import as_written
from rlm_recursive.corpus.asked import asked_head, asked_phrase
from rlm_recursive.corpus.doc_titles import front_fields
from rlm_recursive.corpus.evidence import is_echo
from tests.strategy_support import search_answer

KILN_LOG = """\
KILN FIRING RECORD - transcribed from the clipboard
Kiln: North (gas, 1.2 m3)        Potter on duty: Ruth Amadi
Cone ref: SW = setpoint wait, PCE = pyrometric cone equivalent

FIRING 2291  stoneware glaze
  Loaded 06:40, 38 pots, shelves 1-5
  PCE 10 reached at 15:55 (cone 10 flat)
  SW 1285 C held 20 min
  Unloaded Fri, 2 crawled glazes

FIRING 2292  bisque
  Loaded 07:15, 61 pots
  PCE 06 reached at 13:10
  SW 1000 C held 10 min
"""

SCAN_REPORT = """\
====================================================
  DIAGSCAN 4 - VEHICLE REPORT
  Garage   : Pell & Daughters, Brindle Yard
  Report   : PD-0442          Date: 14/10/2026
====================================================
VEHICLE
  Make/Model : Vauxhall Corsa E 1.4
  Reg        : YX15 KTA
  Odometer   : 61,870 mi
----------------------------------------------------
MODULES
  ECM   Engine Control        FAULT   2
  BCM   Body Control          OK      0
----------------------------------------------------
TECHNICIAN NOTES
  - Battery tested 388 CCA against 540 CCA rated, replace.
  - Rear wiper arm loose, tightened.
  - Next service due at 70,000 mi.
"""

REGISTER = """\
Name: Agnes Moor
Room: 4
Name: Basil Fenn
Room: 9
"""


@pytest.mark.parametrize(("question", "written"), [
    # Defined on a line: "SW = setpoint wait".
    ("What setpoint wait did firing 2291 hold?", "What SW did firing 2291 hold?"),
    # Never spelled out, and written beside a number ("388 CCA"): three words or more.
    ("How many cold cranking amps did the battery test at?",
     "How many CCA did the battery test at?"),
    # An abbreviation the documents never write, as their one capitalised run.
    ("What is the NSD for the Corsa?", "What is the next service due for the Corsa?"),
])
def test_questions_read_in_the_documents_abbreviations(question: str, written: str):
    due = SCAN_REPORT.replace("Next service due at", "Next Service Due:")
    assert as_written(question, [KILN_LOG, due]) == written


@pytest.mark.parametrize("question", [
    # Two letters no line defines are chance ("body control" is not the BCM... nor any "BC").
    "Which module handles body control?",
    # A row's far cell is no definition ("ECM ... Engine Control" defines ECM, not "EC").
    "When was the engine control checked?",
    # A name's capitals are no run of words.
    "Who is Ruth Amadi?",
    # Function words spell nothing ("... how many pots ..." is not "HMP").
    "how many pots were loaded for firing 2292",
])
def test_anything_less_certain_is_left_as_asked(question: str):
    assert as_written(question, [KILN_LOG, SCAN_REPORT]) == question


def test_a_file_name_part_is_not_spelled_out():
    """"the LAS file" names the file, however its text spells L-A-S out."""
    text = "VERS. 2.0 : Log ASCII Standard - version 2.0\n"
    assert as_written("depth steps in the LAS file", [text], ["well_b4.las"]) == (
        "depth steps in the LAS file")
    assert as_written("depth steps in the LAS file", [text]) == (
        "depth steps in the log ascii standard file")


def test_the_top_fields_name_the_document_until_its_entries_begin():
    assert any("YX15 KTA" in f for f in front_fields(SCAN_REPORT))
    assert front_fields(REGISTER) == []  # "Name:" again: each entry's, not the document's
    assert not any("Loaded" in f for f in front_fields(KILN_LOG))


def test_a_reading_on_a_line_that_names_nothing_answers_for_the_car_the_top_names(
        tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, SCAN_REPORT,
                           "How many cold cranking amps did the YX15 KTA battery test at?")
    assert result.grounded and "388" in result.answer and "540" not in result.answer


def test_the_title_pins_the_document_not_the_line(tmp_path: Path, monkeypatch: Any):
    """A line named only by the top fields must say all that is asked: "Date:" of the
    report is no date of the next service."""
    result = search_answer(tmp_path, monkeypatch, SCAN_REPORT,
                           "What is the MOT expiry date for YX15 KTA?")
    assert not result.grounded and "14/10/2026" not in result.answer


def test_a_defined_abbreviation_answers_the_words_it_stands_for(
        tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, KILN_LOG,
                           "What pyrometric cone equivalent did firing 2292 reach?")
    assert result.grounded and "PCE 06" in result.answer and "15:55" not in result.answer


@pytest.mark.parametrize(("answer", "question", "echo"), [
    ("WELL", "What was the spud date recorded for well B4?", True),
    ("Venus", "Which is closer to the sun, Venus or Mars?", False),
    ("North", "Which kiln fired batch 7?", False),
])
def test_a_word_of_the_question_said_back_offers_nothing(answer: str, question: str,
                                                          echo: bool):
    assert is_echo(answer, question) is echo


def test_a_participle_before_a_preposition_ends_what_is_asked():
    assert asked_phrase("What was the BHT recorded for well B4?") == ["bht"]
    assert asked_head("What was the BHT recorded for well B4?") == "bht"
    assert asked_head("What is the fixed rate for plot 9?") == "rate"


BREW_LOG = """\
CRANBROOK ALES - BREW SHEETS, MARCH

BREW 311   "Longstop" Amber Ale
Brewer: Femi
OG 1.050, 1000 L into FV2
Yeast: house strain repitched from 304, 25 L slurry

BREW 312   "Nightjar" Porter
Brewer: Ola
OG 1.058, 980 L into FV3
Yeast: dry S-04, 10 packs

BREW 313   "Longstop" Amber Ale
Brewer: Femi
OG 1.049, 1010 L into FV2
Yeast: house strain gen 4 from brew 311, 24 L slurry
"""


def test_the_entities_a_question_only_describes_by():
    from rlm_recursive.corpus.naming import described
    assert described("The brew that used yeast from brew 311 - what OG did it reach?") == [
        "brew 311"]
    assert described("What OG did brew 311 reach?") == []


def test_a_setting_asked_as_how_many_is_a_look_up():
    from rlm_recursive.agent.routing import route
    assert route("How many cycles is read 2 set to in the run sheet?", None)[0] == "search"
    assert route("How many alarms were set to priority 1?", None)[0] == "count"


@pytest.mark.parametrize(("question", "answer", "fits"), [
    # A unit of measure named: a number, not a sample's code beside the question's lot.
    ("nitrate mg/L borehole lot 5520", "W-26-118 borehole lot 5520", False),
    ("nitrate mg/L borehole lot 5520", "Nitrate 41.5 mg/L", True),
    # An IP address asked: an address, not a printer's display name.
    ("What is the IP address of the printer in Ms Okoro's office?",
     '"Display Name"="Okoro office printer"', False),
    ("What is the IP address of the printer in Ms Okoro's office?", "IP: 192.0.2.44", True),
    # A date asked: a date, not the order's header segment.
    ("order KD-0042 - requested delivery date?", "BGM+220+KD-0042+9'", False),
    ("order KD-0042 - requested delivery date?", "DTM+2:20260314:102", True),
])
def test_the_kind_asked_by_its_words(question: str, answer: str, fits: bool):
    from rlm_recursive.agent.answers.kinds import fits_kind
    assert fits_kind(question, answer) is fits


@pytest.mark.parametrize(("answer", "question"), [
    ("Title: 2-bromo-4'-fluorobiphenyl", "Boiling point of 2-bromo-4'-fluorobiphenyl?"),
    ('"Display Name"="Ana Ruiz"', "Which printer is Ana Ruiz's default?"),
])
def test_a_label_over_the_questions_own_name_is_an_echo(answer: str, question: str):
    assert is_echo(answer, question)


WATER_LAB = """\
WATER TESTING - SAMPLE REGISTER
Injection  4   Vial: A-04   Sample: W-26-118 borehole lot 5520
Injection  5   Vial: A-05   Sample: W-26-119 spring lot 5521

Inj  Sample ID     Nitrate mg/L   Status
  4  W-26-118      41.5           OK
  5  W-26-119      12.0           OK
"""


def test_words_of_the_name_as_written_are_not_what_is_asked(tmp_path: Path,
                                                           monkeypatch: Any):
    """"borehole lot 5520" is the sample's name on its register line: the line says no
    nitrate, so it gives no nitrate figure."""
    result = search_answer(tmp_path, monkeypatch, WATER_LAB, "nitrate mg/L borehole lot 5520")
    assert "W-26-118 borehole" not in result.answer


QUAKES = """\
MONTHLY SEISMIC SUMMARY - REGIONAL NETWORK (RNX)
Date        Time      Mag   Region
2026-09-03  04:12     3.1   Upper Kell Valley
2026-09-17  22:40     4.6   Marrow Basin
2026-09-25  11:05     3.9   Lowfield Ridge
"""


def test_a_rank_is_read_by_comparing_not_off_a_line(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, QUAKES,
                           "In which region did the second-strongest earthquake occur?")
    assert "REGIONAL NETWORK" not in result.answer


NOTEBOOK = """\
=====================================
RK-2-014   2026-10-02
Title: amide coupling, HATU
flask cracked in the oil bath at 60 C, lost everything. near miss NM-26-040.
Conclusion: FAILED.

=====================================
RK-2-015   2026-10-05
Title: repeat of 014 (new flask)
as 014. column. white solid 0.91 g = 68 %
Conclusion: good.
"""


@pytest.mark.parametrize(("text", "question", "wrong", "right"), [
    # Brew 311's own OG is no answer about the brew whose yeast came from brew 311.
    (BREW_LOG, "The brew that used house yeast repitched from brew 311 - what OG did it "
               "reach?", "1.050", "1.049"),
    # The repeat's header line gives its date, not its yield.
    (NOTEBOOK, "what yield came from the repeat of the experiment where the flask cracked?",
     "2026-10-05", "68"),
])
def test_a_thing_found_through_another_is_answered_from_its_own_record(
        tmp_path: Path, monkeypatch: Any, text: str, question: str, wrong: str, right: str):
    result = search_answer(tmp_path, monkeypatch, text, question, strategy="iterative")
    assert wrong not in result.answer
    assert not result.grounded or right in result.answer


def test_a_row_does_not_say_its_rank():
    from rlm_recursive.corpus.evidence import check_support
    question = "In which region did the strongest earthquake of September occur?"
    row = "Earthquake of 17 September occurred in the Marrow Basin region (M 4.6)"
    said = "The strongest earthquake of September was in the Marrow Basin region."
    assert not check_support("Marrow Basin", question, [row]).supported
    assert check_support("Marrow Basin", question, [said]).supported


RINGING = """\
FÅGELRINGMÄRKNING - Strandby fågelstation, fältprotokoll 2026-10-03
Tid    Ringnr     Art     Ålder  Vinge  Vikt   Anm
07.10  CX 5510    BLMES   1K     64     11.2
07.25  CX 5511    BLMES   2K+    63     10.9   fästing vid öga
07.40  DX 2204    TALGO   1K     78     17.5
"""


@pytest.mark.parametrize(("question", "gold", "other"), [
    ("What was the weight of CX 5511?", "10.9", "11.2"),
    ("What remark was noted for CX 5511?", "fästing vid öga", "11.2"),
])
def test_a_label_in_another_language_says_its_english_words(
        tmp_path: Path, monkeypatch: Any, question: str, gold: str, other: str):
    result = search_answer(tmp_path, monkeypatch, RINGING, question)
    assert result.grounded and gold in result.answer and other not in result.answer, result.answer


def test_a_word_that_is_english_too_keeps_its_english_sense():
    from rlm_recursive.corpus.glossary import glossed
    from rlm_recursive.corpus.units import stems
    assert glossed(stems("Vikt Anm"), stems) >= set(stems("weight note"))
    assert not glossed(stems("alder loon art"), stems)
    # A compound label of two words: "km-Stand" is the odometer, "stand" alone nothing.
    assert glossed(stems("km-Stand Ende"), stems) >= set(stems("odometer"))
    assert not glossed(stems("stand by"), stems)


FIELD_BOOK = """\
LEVELLING FIELD BOOK - Brook Lane culvert, 12 Mar 2026
Method: rise & fall.  RL = reduced level (m AOD)

 Station   BS      FS      RL       Remarks
 MH-A1     1.204           48.205   manhole A1, lid
 MH-A2             2.310   47.099   manhole A2, lid, invert via dip 1.85 below lid

Notes:
 - Dip at A2: 1.85 m lid to invert, dry.
"""


def test_the_bridges_own_line_is_no_answer(tmp_path: Path, monkeypatch: Any):
    """"the manhole where the dip was 1.85 m" is found by the dip's line; that line gives no
    reduced level of the manhole."""
    result = search_answer(tmp_path, monkeypatch, FIELD_BOOK,
                           "Reduced level at the manhole where the dip to invert was 1.85 m?",
                           strategy="iterative")
    assert "Dip at A2" not in result.answer
    assert not result.grounded or "47.099" in result.answer


def test_the_trace_shows_the_question_as_read(tmp_path: Path, monkeypatch: Any):
    import asyncio

    from rlm_recursive.providers.fake import reply
    from rlm_recursive.store.trajectory import load_events
    from tests.strategy_support import ask, load, small_runtime

    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, KILN_LOG)
        result, _ = asyncio.run(ask(runtime, sid, "What setpoint wait did firing 2292 hold?",
                                    "search", lambda request: reply("Not found.")))
        runtime.store.writer.flush()
        steps = [e for e in load_events(runtime.store.sql, result.run_id)
                 if e["name"] == "read_question"]
    finally:
        runtime.close()
    assert "1000 C" in result.answer and "1285" not in result.answer
    assert len(steps) == 1
    assert steps[0]["output"] == {"question_as_read": "What SW did firing 2292 hold?"}


LEDGER = """\
; Huishoudboekje 2026 - ledger-cli journal
2026/04/24 * Salaris Ines  -- Bakkerij Vos BV
    Assets:Bank:Betaal                       € 2.914,66
    Income:Salaris:Ines

2026/04/25 * Salaris Ruud  -- Dijkstra Techniek BV  ; incl. overwerk
    Assets:Bank:Betaal                       € 3.388,72
    Income:Salaris:Ruud
"""


def test_a_continental_sum_keeps_its_cents(tmp_path: Path, monkeypatch: Any):
    """"€ 3.388,72" is three thousand and more, not 3.388: a year-first ledger's entry."""
    from rlm_recursive.corpus.units import MONEY_SUM
    assert MONEY_SUM.search("Betaal € 3.388,72").group() == "€ 3.388,72"
    assert MONEY_SUM.search("fee £1,250 paid").group() == "£1,250"
    result = search_answer(tmp_path, monkeypatch, LEDGER,
                           "how much net pay did Ruud get in april 2026 (incl overtime)")
    assert "3.388,72" in result.answer or not result.grounded
    assert "2.914,66" not in result.answer and not result.answer.rstrip().endswith("3.388")
