"""A register as people keep it: sections set apart by rules ("C. FEES RECEIVED — MARCH
2026"), the same pupil paying in two months, a column for a reference or a cheque number, and
a question that names the month and the way of paying ("PayPal ref no. for ... March")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.agent.counting.item_kinds import named_kind
from rlm_recursive.agent.counting.plan_words import stated_comparisons
from rlm_recursive.corpus.asked import label_says
from rlm_recursive.corpus.evidence import entities
from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.sections import headings
from tests.strategy_support import counted_by_code, search_answer

RULE = "-" * 86
FEES = f"""FERNHILL PIANO STUDIO  —  lessons for all ages, Upper Wensley
Teacher: Mrs Judith Okafor-Reed      Studio phone: 01632 960 418
FEE REGISTER — SPRING TERM 2026

{RULE}
A. PUPILS
{RULE}
Code   Pupil                    Day    Length   Termly fee
FP-04  Imogen Carter            Tue    30 min   £168
FP-05  Isobel Carter            Tue    45 min   £240
FP-09  Rafael Mendes            Thu    30 min   £168

{RULE}
B. FEES RECEIVED — FEBRUARY 2026
{RULE}
Date      Code   Pupil               Amount   Mode      Ref / Chq no.      Note
03/02/26  FP-04  Imogen Carter        56.00   PayPal    7TK40211LX93
05/02/26  FP-09  Rafael Mendes        56.00   Cheque    Chq 100482         mother's account
06/02/26  FP-05  Isobel Carter        80.00   Bank      FERNHILL CARTER

{RULE}
C. FEES RECEIVED — MARCH 2026
{RULE}
Date      Code   Pupil               Amount   Mode      Ref / Chq no.      Note
02/03/26  FP-05  Isobel Carter        80.00   Bank      FERNHILL CARTER
07/03/26  FP-04  Imogen Carter        56.00   PayPal    9QD17730MB05       paid late, no fee
09/03/26  FP-09  Rafael Mendes        56.00   Cash      —                  in envelope
"""


def test_a_banner_set_apart_by_rules_is_a_heading_though_it_holds_a_dash():
    found = [text for _, _, text in headings(FEES)]
    assert "C. FEES RECEIVED — MARCH 2026" in found or "FEES RECEIVED — MARCH 2026" in found
    assert not any(t.startswith("03/02/26") for t in found)


def test_a_month_and_a_section_pick_one_of_a_pupils_two_payments():
    layout = read_layout([("d", FEES)])
    question = "PayPal ref no. for Imogen Carter's March lesson payment"
    found = lookup(question, layout.records, layout.titles, layout.sections)
    assert found is not None
    record, key = found
    assert key == "Ref / Chq no." and record.fields[key] == "9QD17730MB05"
    # The February payment is picked by its own month.
    found = lookup("PayPal ref no. for Imogen Carter's February payment", layout.records,
                   layout.titles, layout.sections)
    assert found is not None and found[0].fields["Ref / Chq no."] == "7TK40211LX93"


def test_a_kind_qualified_by_a_value_of_the_record_is_the_column_of_that_kind():
    question = "PayPal ref no. for Imogen Carter's March lesson payment"
    assert not label_says(question, "Ref / Chq no.")
    assert label_says(question, "Ref / Chq no.", "07/03/26 FP-04 Imogen Carter 56.00 PayPal")
    assert not label_says(question, "Ref / Chq no.", "02/03/26 FP-05 Isobel Carter 80.00 Bank")


def test_a_label_of_two_kinds_written_with_a_slash_says_either():
    question = "PayPal ref no. for Imogen Carter's March lesson payment"
    assert fits_kind(question, "Ref / Chq no.: 9QD17730MB05")
    assert not fits_kind("what is the tax code on her payslip", "Emp. no / Chq no.: 00301")


def test_the_register_answers_the_month_and_the_way_of_paying(tmp_path: Path,
                                                              monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, FEES,
                           "PayPal ref no. for Imogen Carter's March lesson payment")
    assert result.grounded and "9QD17730MB05" in result.answer
    assert "7TK40211LX93" not in result.answer


LUNCHES = """Colegio Rosalía de Castro,,,,,
PAGOS DE COMEDOR - MARZO 2026,,,,,
,,,,,
Nº,Alumno,Curso,Importe,Fecha pago,Forma
1,Otero Brais,3A,"92,40",02.03.2026,T
2,Otero Breixo,5B,"92,40",06.03.2026,E
3,Pazos Uxía,3A,"46,20",03.03.2026,T
"""


def test_a_keyword_query_in_the_records_language_ends_its_asked_words_at_a_preposition():
    layout = read_layout([("d", LUNCHES)])
    found = lookup("importe para comedor - Pazos Uxía", layout.records, layout.titles,
                   layout.sections)
    assert found is not None and found[1] == "Importe" and found[0].fields["Importe"] == "46,20"
    # Keywords, a dash and whose they are: the name is no part of what is asked.
    found = lookup("Importe - Otero Breixo", layout.records, layout.titles, layout.sections)
    assert found is not None and found[0].fields[found[1]] == "92,40"
    assert found[0].fields["Alumno"] == "Otero Breixo"


def _tsv(rows: list[list[str]]) -> str:
    return "\n".join("\t".join(r) for r in rows) + "\n"


PADDLES = "\n".join([
    "# LOCH ARKAIG SEA KAYAKS — TRIP REGISTER",
    "# Base: the old pier shed, Achnacarry · bookings desk 01632 960 771",
    "# Typed up nightly by the duty guide",
    "# Period: 01/06/2026 - 07/06/2026",
    "#",
    "# TRIP CODES",
    "#   HD = half-day paddle (incl.)        FD = full-day paddle + lunch (incl.)",
    "#   NP = night paddle, GBP 40 pp        SP = sunset paddle, GBP 30 pp",
    "# GUIDES   AM = Ailsa Munro · AMc = Angus McColl · RB = Rona Bain",
    "# Boats: doubles D1-D4, singles S1-S8",
    "#",
    "# Notes: wind readings are the pier anemometer's, in knots",
    "#",
]) + "\n" + _tsv([
    ["Date", "Party", "Pax", "Trip", "Guide", "Out", "In", "GBP", "Remarks"],
    ["01/06/2026", "Hendry", "2", "HD", "AM", "09:30", "13:00", "incl", "otters at the inlet"],
    ["02/06/2026", "Hendry", "2", "NP", "RB", "21:45", "23:30", "80", "bioluminescence!"],
    ["03/06/2026", "Okoro", "3", "NP", "AMc", "22:00", "23:40", "120", "calm, clear"],
    ["03/06/2026", "Lindqvist", "1", "FD", "AM", "09:00", "16:30", "incl", "lunch on the island"],
    ["04/06/2026", "Okoro", "3", "SP", "RB", "20:15", "22:00", "90", "swell 1 m"],
    ["05/06/2026", "Ferreira", "4", "NP", "AMc", "22:10", "23:50", "160", ""],
    ["06/06/2026", "Ferreira", "4", "NP", "RB", "22:05", "23:35", "160", "mist at the narrows"],
    ["07/06/2026", "Hendry", "2", "HD", "AM", "10:00", "13:30", "incl", "departure day"],
])


def test_a_tsv_under_many_comment_lines_is_read_as_a_table():
    layout = read_layout([("d", PADDLES)], {"d": "arkaig_trip_register_jun2026.tsv"})
    rows = [r.fields for r in layout.records]
    assert len(rows) == 8 and rows[0]["Trip"] == "HD" and rows[-1]["Party"] == "Hendry"


def test_days_of_one_month_between_two_numbers_are_a_date_range(tmp_path: Path,
                                                                monkeypatch: Any):
    assert not stated_comparisons("how many trips went out between 3 and 5 June 2026")
    assert len(stated_comparisons("how many parcels weigh between 20 and 30 kg")) == 2
    result = counted_by_code(tmp_path, monkeypatch,
                             {"arkaig_trip_register_jun2026.tsv": PADDLES},
                             "How many night paddles went out between 3 and 5 June 2026?")
    assert result.exact and result.answer.startswith("2 ")  # the 3rd and the 5th: not the 2nd, 6th


KIOSK = """HARBOUR KIOSK — DAILY TAKINGS, JUNE 2026
Kiosk keys: Morag (spare set in the office)

Date        Item                 Amount   Mode   Note
01/06/26    teas & cakes          46.50   Cash
01/06/26    ice creams            31.00   Card   kiosk freezer defrosted after
02/06/26    teas & cakes          52.20   Card   kiosk till roll changed
03/06/26    bait & tackle         18.00   Cash   kiosk shut 14:00-15:00
04/06/26    teas & cakes          61.80   Cash
05/06/26    ice creams            27.50   Card
06/06/26    teas & cakes          38.90   Card   kiosk awning torn
"""
SUBS = """LOCHSIDE ROWING CLUB — SUBSCRIPTIONS 2026

Member               Cat   Paid   Date        How
Hamish Reid          F     95     02/06/26    Cash
Isla Reid            F     95     02/06/26    Cash
Calum Baird          S     70     09/06/26    Cash
Mhairi Baird         J     35     09/06/26    Cash
Donald Gunn          F     95     16/06/26    Chq 100234
"""


def test_a_word_of_one_files_name_no_other_file_says_names_that_file(
        tmp_path: Path, monkeypatch: Any):
    result = counted_by_code(
        tmp_path, monkeypatch, {"harbour_kiosk_takings_jun2026.txt": KIOSK,
                                "lochside_rowing_subs_2026.txt": SUBS},
        "how many June kiosk sales came in as cash")
    assert result.exact and result.answer.startswith("3 ")  # not the club's four cash subs


def test_a_year_in_a_tables_title_names_no_kind_of_item():
    texts = [("d", FEES)]
    layout = read_layout(texts)
    assert named_kind("How many guided walks in 2026 mentioned rain?", layout, texts) is None
    kind = named_kind("How many fees received noted a late payment?", layout, texts)
    assert kind is not None and "FEES RECEIVED" in kind.name


HIRE_BOOK = """ST BRENDAN'S SILVER BAND — INSTRUMENT HIRE BOOK 2025/26
Kept by the band librarian. Deposit returned at season end if the instrument comes back G or W.

Condition codes (write on return):
   G  = good, complete
   W  = worn / scratched, no repair needed
   R  = needs repair  -> to Hallam Brass workshop!
   M  = missing parts (mouthpiece, lyre, case)
   -  = still out

No.  Inv.    Instrument              Borrower          Out         Back        Cond.  Note
1    SB-03   Bb cornet               Aoife Daly        06/09/25    20/06/26    G
2    SB-14   Eb tenor horn           Ciarán Daly       06/09/25    20/06/26    W      case zip gone
3    SB-41   Eb tenor horn           Niamh Daly        13/09/25    27/06/26    R      valve 2 stuck
4    SB-22   Bb baritone             Sorcha Keane      13/09/25    07/03/26    R      dent in bell
5    SB-17   Flugelhorn              Eoin Keane        20/09/25    20/06/26    M      no mouthpiece
6    SB-30   Bb tenor trombone       Padraig Nolan     20/09/25    -           -
7    SB-09   Eb bass                 Roisin Nolan      04/10/25    27/06/26    R      bell dented
8    SB-11   Bb cornet               Tadhg Hayes       04/10/25    20/06/26    G
"""


def test_a_key_written_down_the_page_counts_its_code_in_the_records_column(
        tmp_path: Path, monkeypatch: Any):
    result = counted_by_code(tmp_path, monkeypatch, {"sbsb_hire_book_2025-26.txt": HIRE_BOOK},
                             "how many instruments came back needing repair")
    assert result.exact and result.answer.startswith("3 ")
    assert "R = needs repair" in result.answer


SLIPS = """HOLLOWAY GRAIN STORE — INTAKE SLIPS, HARVEST 2026
Graders: P.M. = Pat Mahon · S.O. = Sinead Ong

------------------------------------------------------------
 Slip no.: 26/0112      Date: 04/08/2026     Time in: 07:55
 Grower: DUNNE, KEVIN          Crop: WINTER BARLEY
 Gross weight ......   18.420 kg
 Tare ..............    7.980 kg
 NET WEIGHT ........   10.440 kg
 Moisture .......... 14,6 %
 Grader: P.M.
------------------------------------------------------------
 Slip no.: 26/0113      Date: 04/08/2026     Time in: 08:40
 Grower: DUNNE, KIERAN         Crop: WINTER WHEAT
 Gross weight ......   21.050 kg
 Tare ..............    8.110 kg
 NET WEIGHT ........   12.940 kg
 Moisture .......... 15,1 %
 Grader: S.O.
------------------------------------------------------------
"""


def test_a_forms_dotted_leaders_give_its_fields():
    layout = read_layout([("d", SLIPS)])
    slips = [r.fields for r in layout.records if "Slip no." in r.fields]
    assert [s["NET WEIGHT"] for s in slips] == ["10.440 kg", "12.940 kg"]
    assert slips[1]["Moisture"] == "15,1 %"


def test_a_code_written_with_a_slash_is_the_entity_by_itself(tmp_path: Path, monkeypatch: Any):
    assert entities("moisture slip 26/0113") == ["26/0113"]
    assert entities("who is the nurse on ward 7") == ["ward 7"]
    result = search_answer(tmp_path, monkeypatch, SLIPS, "moisture slip 26/0113")
    assert result.grounded and "15,1" in result.answer and "14,6" not in result.answer


QIF = """!Account
NTallow Lane Allotment Society - Current ****4471
TBank
^
!Type:Bank
D03/04/2026
T-86.00
CX
N000311
PBrennan Timber Supplies
Mraised bed boards
LExpenses:Materials
^
D09/04/2026
T150.00
CX
PKillowen Women's Guild
Mdonation
LIncome:Donations
^
D14/04/2026
T-40.00
CX
N000312
PSeed Savers Ireland
Mheritage seed order
LExpenses:Seeds
^
D02/05/2026
T-86.00
C*
N000313
PBrennan Timber Supplies
Mcompost bin slats
LExpenses:Materials
^
D20/05/2026
T-86.00
NPOS
PBrennan Timber Supplies
Mtwine, stakes
LExpenses:Materials
^
"""


def test_a_qif_exports_transactions_are_records_with_the_formats_field_names(
        tmp_path: Path, monkeypatch: Any):
    layout = read_layout([("d", QIF)], {"d": "tallow_lane_current_2026.qif"})
    assert layout.formats["d"] == "qif"
    payees = [r.fields.get("payee") for r in layout.records]
    assert payees.count("Brennan Timber Supplies") == 3 and len(payees) == 5
    assert layout.records[2].fields["cheque number"] == "000312"
    result = search_answer(tmp_path, monkeypatch, QIF,
                           "date the Killowen Women's Guild donation came in")
    assert result.grounded and "09/04/2026" in result.answer


def test_payments_to_one_payee_in_a_qif_export_are_counted(tmp_path: Path, monkeypatch: Any):
    result = counted_by_code(tmp_path, monkeypatch, {"tallow_lane_current_2026.qif": QIF},
                             "How many payments went to Brennan Timber Supplies in May?")
    assert result.exact and result.answer.startswith("2 ")


def test_two_months_and_every_one_between_are_a_date_range(tmp_path: Path, monkeypatch: Any):
    files = {"tallow_lane_current_2026.qif": QIF}
    for question in ("How many payments went to Brennan Timber Supplies between April and "
                     "May 2026?", "How many payments to Brennan Timber Supplies Apr-May 2026?",
                     "How many payments went to Brennan Timber Supplies from April to May?"):
        result = counted_by_code(tmp_path, monkeypatch, files, question)
        assert result.exact and result.answer.startswith("3 "), (question, result.answer)


def test_what_someone_decided_is_no_field_sharing_one_word(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, SLIPS,
                           "What did the store manager decide about Kieran Dunne's disputed "
                           "weight?")
    assert not result.grounded and "kg" not in result.answer
