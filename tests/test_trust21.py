"""Reports as software prints them (a centred title, groups of rows with subtotals between,
an entry's notes hanging under its own column) and questions as people type them (a name
clause, a dash, then what is asked; "at what time"; an invoice named by its type column)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.agent.answers.clauses import answer_clause
from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.corpus.asked import asked_phrase
from rlm_recursive.corpus.evidence import is_echo, split_units
from rlm_recursive.corpus.naming import says
from rlm_recursive.corpus.rows import ruled_rows
from rlm_recursive.corpus.sections import title
from rlm_recursive.corpus.units import normalise
from tests.strategy_support import search_answer

AGED_DEBTS = """\
                         Tarnwell Glazing & Joinery Ltd
                           Customer Balance Detail
                            As at 30 September 2026

  Type        Date        No.     Customer                  Job                        Amount Due
  ----------  ----------  ------  ------------------------  -------------------------  ----------
Not yet due
  Invoice     09/12/2026  71830   Castle Mews Dental        Sash cords, 4 windows          316.00
  Invoice     09/19/2026  71844   Orchard Vets              Door closer fitted             148.50
Total Not yet due                                                                          464.50

Overdue 1 - 45 days
  Invoice     08/14/2026  71790   Brookside Nursery         Replacement fire door        1,905.00
  Credit      08/20/2026  CR-31   Orchard Vets              Refund, wrong hinge            -42.00
  Invoice     08/28/2026  71811   Pemberton, Alan           Conservatory roof seal         512.25
Total Overdue 1 - 45                                                                     2,375.25

Overdue over 45 days
  Invoice     07/02/2026  71702   Saltmarsh Inn             Bar hatch rebuilt              880.00
Total Overdue over 45                                                                      880.00

Account notes
  Brookside Nursery     09/03  Manager (Ines) queried the fire door certificate. Sent copy
                               09/05. 09/24 passed to Fenwick Recoveries under file FR-20417.
                               Hold all new quotes.
  Pemberton, Alan       09/10  Paying in two halves, second by 10/15.
"""

WINTER_LOG = """\
PARISH ROADS - GRITTING BOOK
Depot: Lowfold Lane

--------------------------------------------------------
Run #31 - Wed Dec 9 2026
 Lorry G2  Tom Varley   A-roads   out 04:10  in 07:55  salt 6.0 t
Property damage: 14 Mill Lane (G2, plough blade). Resident rang at 08:20.

--------------------------------------------------------
Run #32 - Sat Dec 12 2026
 Lorry G3  Ann Birch    estates   out 05:00  in 07:30  salt 2.5 t
Property damage: 7 Kiln Road (G3) - fence post leaning.

--------------------------------------------------------
Run #33 - Mon Dec 14 2026
 Lorry G2  Tom Varley   A-roads   out 03:50  in 06:40  salt 5.5 t
No damage reported.
"""

LIFEGUARD_LOG = """\
PORTHCAVE LIFEGUARD CLUB INC.
Beach log, summer 2026

SAT 4 JUL 2026 - Captain: Reza Malik
 1120  FA  woman approx 70, dizzy at the cafe - phoned 999 at 1124, kept shaded, \
Paramedic arrived 1141, taken to hospital.
 1530  PA  paddlers moved back from the outflow
Headcount (1300): 410 / 95
"""


def test_a_row_in_a_later_group_of_a_report_is_still_the_tables():
    rows = ruled_rows(AGED_DEBTS)
    by_number = {f.get("No."): f for _, _, f in rows}
    assert by_number["71702"]["Amount Due"] == "880.00"
    assert by_number["71702"]["group"] == "Overdue over 45 days"
    assert by_number["71830"]["group"] == "Not yet due"
    assert by_number["CR-31"]["Type"] == "Credit"
    # The rules over totals are no rows; the notes after the table are not its rows.
    assert not any(set(f.values()) <= {"----------"} for _, _, f in rows)
    assert not any(f.get("Type") == "Brookside Nursery" for _, _, f in rows)


def test_a_table_ends_where_a_new_header_begins():
    text = AGED_DEBTS + "\n  Code   Name          Rate\n  -----  ------------  ----\n" \
                        "  A1     Standard      20.0\n"
    rows = ruled_rows(text)
    assert any(f.get("Code") == "A1" for _, _, f in rows)
    assert not any(f.get("Type") == "Code" for _, _, f in rows)


def test_a_centred_title_and_a_firms_full_stop_are_titles():
    assert title(AGED_DEBTS) == "Tarnwell Glazing & Joinery Ltd"
    assert title(LIFEGUARD_LOG) == "PORTHCAVE LIFEGUARD CLUB INC."
    assert title("He left early.\nThe rest stayed.\n") == ""


@pytest.mark.parametrize(("line", "entity", "said"), [
    ("  Invoice     09/12/2026  71830   Castle Mews Dental", "invoice #71830", True),
    ("  Invoice     09/12/2026  71830   Castle Mews Dental", "invoice 71844", False),
    ("  Credit      08/20/2026  71830", "invoice 71830", False),
    ("Ward 3: 7 beds free", "ward 7", False),  # a short number only beside its noun
])
def test_a_rows_type_and_its_number_name_the_thing(line: str, entity: str, said: bool):
    assert says(normalise(line), entity) is said


def test_an_invoice_named_by_its_type_column_answers_from_its_row(
        tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, AGED_DEBTS,
                           "Tarnwell Joinery: how much is still due on invoice #71702?")
    assert result.grounded and "880.00" in result.answer and "2,375.25" not in result.answer


def test_notes_hanging_under_their_column_are_about_the_entrys_label(
        tmp_path: Path, monkeypatch: Any):
    units = split_units([AGED_DEBTS])
    hung = next(u for u in units if "FR-20417" in u.text)
    assert "Brookside Nursery" in hung.lead
    result = search_answer(tmp_path, monkeypatch, AGED_DEBTS,
                           "What file number did Fenwick give the Brookside Nursery debt?")
    assert result.grounded and "FR-20417" in result.answer


def test_the_question_after_a_dash_is_what_is_asked():
    asked = "Whose fence got hit by the gritter on December 12th - what's the address?"
    assert asked_phrase(asked) == ["address"]
    assert fits_kind(asked, "7 Kiln Road")
    assert asked_phrase("Whose fence got hit by the gritter?") == []


def test_an_address_asked_under_a_dated_heading(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, WINTER_LOG,
                           "Whose property took damage from the plough blade on December 9th "
                           "— what's the address?")
    assert result.grounded and "14 Mill Lane" in result.answer
    assert "7 Kiln Road" not in result.answer


@pytest.mark.parametrize(("answer", "fits"), [
    ("Paramedic arrived 1141", True),
    ("at 21:40", True),
    ("6:40am", True),
    ("Headcount (1300): 410 / 95", False),
    ("410 people", False),
])
def test_a_time_of_day_is_asked_by_what_time(answer: str, fits: bool):
    assert fits_kind("At what time did the paramedic reach the woman?", answer) is fits


def test_the_clause_saying_the_questions_subject_answers():
    unit = split_units([LIFEGUARD_LOG.splitlines()[4]])[0]
    question = "At what time did the paramedic get to the woman who felt dizzy?"
    assert "1141" in answer_clause(question, unit)


def test_a_count_line_is_no_time(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, LIFEGUARD_LOG,
                           "At what time did the paramedic get to the beach for the dizzy "
                           "woman at Porthcave?")
    assert "410" not in result.answer
    assert not result.grounded or "1141" in result.answer


DUTY_BOOK = """\
HARBOUR WATCH BOOK
Legend: WO = Watch Officer, DH = deck hand

==============================================
MON 3 AUG 2026 - WO: Ingrid Salo   DH: Tomas Reyes
Weather: NW 10 kn, clear
 0900  Pontoon C gate jammed, freed with oil
 1420  Yacht "Kestrel" moored on visitor berth 4

==============================================
TUE 4 AUG 2026 - WO: Pavel Novak   DH: Tomas Reyes
Weather: SW 25 kn, rain squalls
 0715  Harbour CLOSED to small craft - gale warning
 1600  Fuel berth reopened
"""


def test_who_held_a_role_on_the_day_something_happened(tmp_path: Path, monkeypatch: Any):
    """"On the day ..." is a bridge: the day's line, then the role its block opens with."""
    assert asked_phrase("Who was watch officer on the day the harbour was closed?") == [
        "watch", "offic"]
    assert asked_phrase("Who was late on the day the gate jammed?") == []
    result = search_answer(tmp_path, monkeypatch, DUTY_BOOK,
                           "Who was watch officer on the day the harbour was closed to small "
                           "craft because of the gale warning?", strategy="auto")
    assert result.grounded and "Pavel Novak" in result.answer
    assert "Ingrid" not in result.answer


@pytest.mark.parametrize(("answer", "echo"), [
    ("WO: Pavel Novak", False),  # whose the role is
    ("WO = Watch Officer", True),  # what the letters stand for
])
def test_a_role_and_its_holder_is_no_legend(answer: str, echo: bool):
    assert is_echo(answer, "Who was WO on the day the harbour closed?") is echo


TIMESHEETS = """\
ShiftBook Export | Approved timesheets
Business: Quarry Lane Bakehouse Pty Ltd

==================================================================
EMP 201  Okoye, Ada           Head Baker      Full-time   Base $33.10/hr
------------------------------------------------------------------
Date        Start  End    Hours
02/11/2026  03:00  11:30  8.00
==================================================================
EMP 207  Lund, Pia            Counter         Casual      Base $27.45/hr
------------------------------------------------------------------
Date        Start  End    Hours
02/11/2026  07:00  13:00  6.00
"""


@pytest.mark.parametrize(("text", "entity", "said"), [
    ("Z-RAPPORT NR. 2235   vrijdag 06-11-2026", "friday", True),
    ("Z-RAPPORT NR. 2235   vrijdag 06-11-2026", "6 november 2026", True),
    ("Z-RAPPORT NR. 2235   vrijdag 06-11-2026", "thursday", False),
    ("lundi 2 mars", "monday", True),
    ("scores 10-12-14 in three rounds", "10 december 2014", False),  # a run of scores
])
def test_weekdays_in_other_languages_and_dashed_dates(text: str, entity: str, said: bool):
    assert says(normalise(text), entity) is said


def test_a_rate_is_read_by_its_shape(tmp_path: Path, monkeypatch: Any):
    """"Base $33.10/hr" is the head baker's hourly rate, though no label says "rate"."""
    result = search_answer(tmp_path, monkeypatch, TIMESHEETS,
                           "What is the head baker's hourly rate at Quarry Lane Bakehouse?")
    assert result.grounded and "$33.10" in result.answer and "27.45" not in result.answer


def test_a_number_sign_ends_no_sentence():
    units = split_units(["Z-RAPPORT NR. 2235   vrijdag 06-11-2026"])
    assert [u.text for u in units] == ["Z-RAPPORT NR. 2235   vrijdag 06-11-2026"]


DEBTORS = """\
                         Fenwick Electrical Ltd
                          Debtors by age

  Type        Date        No.     Customer                  Job                        Amount Due
  ----------  ----------  ------  ------------------------  -------------------------  ----------
Current
  Invoice     09/12/2026  5530    Greyfriars Surgery        Light fittings, 4 rooms        316.00
  Invoice     09/19/2026  5541    Mill House Hotel          Fire alarm test                148.50
Total Current                                                                              464.50

31 - 60 days
  Invoice     08/14/2026  5480    Greyfriars Surgery        Emergency lights             1,205.00
  Invoice     08/28/2026  5495    Pemberton, Alan           Consumer unit                  512.25
Total 31 - 60                                                                            1,717.25

----------------------------------------------------------------------------------------------
Debtors Summary                          Current     31 - 60       TOTAL
  Greyfriars Surgery                      316.00    1,205.00    1,521.00
  Mill House Hotel                        148.50        0.00      148.50
  Pemberton, Alan                           0.00      512.25      512.25

Account notes
  Greyfriars Surgery    09/20  AP contact changed to Lena Marsh, lmarsh@greyfriars.invalid.
  Mill House Hotel      09/22  Pays on the 1st.
"""


def test_an_ageing_summarys_buckets_are_its_columns():
    from rlm_recursive.corpus.records import read_layout
    layout = read_layout([("d", DEBTORS)])
    summary = next(r.fields for r in layout.records if r.fields.get("TOTAL") == "1,521.00")
    assert summary["31 - 60"] == "1,205.00" and summary["Debtors Summary"] == \
        "Greyfriars Surgery"


def test_a_bridge_that_opens_the_question_leads_to_the_total(
        tmp_path: Path, monkeypatch: Any):
    """The customer is found by its note ("AP contact" for accounts-payable contact, the
    note's label naming whose it is); their total is the summary's, not one invoice's."""
    result = search_answer(tmp_path, monkeypatch, DEBTORS,
                           "The customer whose accounts-payable contact is now Lena Marsh - "
                           "what is their total amount due?", strategy="auto")
    assert result.grounded and "1,521.00" in result.answer
    assert "316.00" not in result.answer and "1,205.00" not in result.answer


COUNT_SHEET = """\
PARISH BY-ELECTION - COUNT SHEET

FIRST COUNT                                    Bundles   Loose   Total
ASHBY, Ruth (Independent)                         3        12      312
MORLAND, Ken (Green Party)                        1        40      140
OKOYE, Dayo (Labour Party)                        4         5      405
"""


def test_one_row_of_the_thing_named_is_looked_up_not_counted():
    from rlm_recursive.agent.routing import route
    from rlm_recursive.corpus.records import read_layout
    layout = read_layout([("d", COUNT_SHEET)])
    strategy, why = route("how many votes did Ken Morland get", layout, [COUNT_SHEET])
    assert strategy == "search", why
    # Counting the rows is still counting: how many candidates stood for a party.
    assert route("how many candidates stood for the Green Party", layout,
                 [COUNT_SHEET])[0] != "search"


def test_a_plural_of_another_language_names_the_thing():
    from rlm_recursive.corpus.naming import written_forms
    assert any(says(normalise("SPENDENQUITTUNGEN (Zuwendungsbestätigungen) im Quartal"), form)
               for form in written_forms("zuwendungsbestätigung"))


@pytest.mark.parametrize(("label", "word"), [
    ("van rego 1XY-4KT", "registr"),  # Australian for the registration
    ("Metacam 1.4 ml in his supper", "dose"),
    ("Base $31.85/hr", "hour"),
    ("Kennzeichen: B-KX 204", "registr"),
])
def test_words_a_label_or_a_values_shape_says(label: str, word: str):
    from rlm_recursive.corpus.asked import label_words
    assert word in label_words(label)


PO_FILE = """\
# Danish translation for till-app (self-service checkout terminal).
# This file is distributed under the same license as the till package.
#
#: screens/pay.py:12
msgid "Card declined"
msgstr "Kortet blev afvist"

#: screens/pay.py:30
msgid "You have reached your spending limit"
msgstr ""
"""


def test_a_file_with_no_rules_has_no_block_over_its_lines(tmp_path: Path, monkeypatch: Any):
    """An untranslated message has no Danish text: the file's first line, which says
    "Danish", is no block's banner over it."""
    from rlm_recursive.agent.lookups.hops import hop_through
    from tests.strategy_support import load, small_runtime
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, PO_FILE)
        question = "What is the Danish text for 'You have reached your spending limit'?"
        assert hop_through(runtime.store, sid, question) is None
    finally:
        runtime.close()


WELL_LOG = """\
~Curve Information
DEPT .M      : DEPTH
GR   .GAPI   : GAMMA RAY
~ASCII
   DEPT       GR       RHOB
   1200.0     88.10    2.41
   1200.5    104.70    2.44
   1201.0    131.20    2.39
   1201.5     97.90    2.47
"""


def test_a_comparison_is_about_the_words_just_before_it():
    """"depth samples have a GR above 100 GAPI": GR is compared, not the depth the counted
    noun names; "GAPI", which no row says, is the number's unit, not a word to find."""
    from rlm_recursive.agent.counting.plan_words import comparisons
    from rlm_recursive.corpus.records import read_layout
    layout = read_layout([("d", WELL_LOG)])
    found = comparisons("how many depth samples have a GR above 100 GAPI?", layout)
    assert [(c.field, c.op, c.value) for c, _ in found] == [("GR", ">", 100.0)]
    said = {i for _, at in found for i in at}
    assert 9 in said  # "GAPI" (word 9 from 0) belongs to the comparison


CONSUMER_GROUPS = """\
GROUP           TOPIC         PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG
search-indexer  catalog       0          1200            1500            300
search-indexer  catalog       1          1100            1150            50

GROUP           TOPIC         PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG
billing         invoices      0          900             905             5
billing         invoices      1          700             700             0
"""


def test_a_header_printed_again_is_no_row():
    from rlm_recursive.corpus.grid_tables import grid_rows
    rows = [fields for _, _, fields in grid_rows(CONSUMER_GROUPS)]
    assert len(rows) == 4 and not any(f.get("PARTITION") == "PARTITION" for f in rows)


def test_a_sum_of_a_column_the_selected_records_do_not_hold_is_no_sum():
    """Another document's MIN column is no car park's maximum stay."""
    from rlm_recursive.agent.routing import route
    from rlm_recursive.corpus.records import read_layout
    clinic = ("TIME   PATIENT          MIN  STATUS\n09:00  Ada Ross          30  Arrived\n"
              "09:30  Ben Ola           45  Booked\n10:15  Cy Dunne          20  Arrived\n")
    parking = "Library car park: max stay 240 minutes, free after 18:00.\n"
    layout = read_layout([("a", clinic), ("b", parking)])
    strategy, why = route("maximum stay allowed at the Library car park, in minutes?", layout,
                          [clinic, parking])
    assert strategy != "count", why
