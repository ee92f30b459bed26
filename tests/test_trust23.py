"""Spreadsheet exports as people get them: a title and a blank row above the header, a
second table under its own header, sums written with a decimal comma, column names in the
language the records are kept in, and file names that all carry the year."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rlm_recursive.agent.counting.item_kinds import narrowed_records
from rlm_recursive.agent.counting.plan_words import negated_scopes
from rlm_recursive.agent.counting.terms import answer_units, month_words
from rlm_recursive.corpus.aggregate import number_of
from rlm_recursive.corpus.narrow import narrowed
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.word_stems import names_key, words
from tests.strategy_support import counted_by_code, search_answer


def _sheet(rows: list[list[str]]) -> str:
    """Rows written by the csv module, padded to one width as a spreadsheet saves them."""
    width = max(len(r) for r in rows)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([r + [""] * (width - len(r)) for r in rows])
    return out.getvalue()


DUES = _sheet([
    ["Club de Remo Ría de Vigo"],
    ["LISTADO DE CUOTAS - FEBRERO 2026"],
    ["Cuota: 45,00 € al mes. Plazo: 10.02.2026"],
    [],
    ["Nº", "Socio", "Cuota", "Pagado", "Fecha pago", "Forma"],
    ["1", "Lucía Ferreiro", "45,00", "45,00", "03.02.2026", "T"],
    ["2", "Brais Otero", "45,00", "20,00", "09.02.2026", "E"],
    ["3", "Uxía Pazos", "45,00", "45,00", "05.02.2026", "T"],
    ["", "TOTAL", "135,00", "110,00"],
    [],
    ["", "PENDIENTES DE ENERO"],
    ["Nº", "Socio", "", "Pagado", "Fecha pago", "Forma"],
    ["1", "Brais Otero", "", "25,00", "12.02.2026", "E"],
])

OUTINGS = _sheet([
    ["Tipo", "Fecha", "Embarcación", "Distancia", "Tiempo", "Notas"],
    ["Skiff", "2026-03-28 08:10", "Lúa", "12,40", "01:05:12", ""],
    ["Yola", "2026-02-21 09:00", "Cíes", "18,25", "01:40:03", "mar picada"],
    ["Skiff", "2026-02-14 08:30", "Lúa", "10,50", "00:58:40", ""],
    ["Skiff", "2026-02-07 08:45", "Ons", "11,75", "01:01:09", "viento norte"],
    ["Yola", "2026-01-31 09:10", "Cíes", "16,00", "01:31:55", ""],
    ["Skiff", "2026-01-24 08:20", "Lúa", "9,80", "00:55:30", ""],
])


def test_a_title_and_a_blank_row_above_the_header_are_no_rows():
    layout = read_layout([("d", DUES)])
    rows = [r.fields for r in layout.records]
    assert {"Socio": "Uxía Pazos", "Pagado": "45,00", "Fecha pago": "05.02.2026"}.items() <= (
        rows[2].items())
    # The banner lines and blank rows are no records; the arrears keep their own header,
    # which has no Cuota column.
    assert not any(set(r) <= {"Nº"} or "LISTADO" in " ".join(r.values()) for r in rows)
    arrears = rows[-1]
    assert arrears["Pagado"] == "25,00" and "Cuota" not in arrears
    assert "Socio" not in [v for r in rows for v in r.values()]


def test_a_decimal_comma_is_read_as_europe_writes_it():
    assert number_of("45,00") == 45.0 and number_of("1 110,50") == 1110.5
    assert number_of("3.388,72") == 3388.72
    # An English thousand stays a thousand.
    assert number_of("1,150") == 1150.0 and number_of("£2,400.50") == 2400.5


def test_a_column_named_in_its_own_language():
    assert names_key("Distância", "distance") and names_key("distancia", "distance")
    assert not names_key("Distância", "time")


def test_a_sum_over_a_spanish_export_in_one_month(tmp_path: Path, monkeypatch: Any):
    # Every file name carries the year: "2026" names none of them in particular.
    result = counted_by_code(tmp_path, monkeypatch,
                             {"remo_salidas_2026-01_a_03.csv": OUTINGS,
                              "cuotas_2026-02.csv": DUES},
                             "Total distance rowed in the skiff in February 2026, in km?")
    assert result.grounded and result.exact
    assert result.answer.startswith("22.25 ")  # 10,50 + 11,75


def test_a_negation_ends_where_a_second_wording_begins():
    question = "number of intakes graded as not usable / sent to textile recycling"
    negated = {words(question)[i] for scope in negated_scopes(question) for i in scope}
    assert negated == {"usable"}
    question = "how many rows show a shortage - not the total line"
    assert {words(question)[i] for scope in negated_scopes(question) for i in scope} == {
        "the", "total", "line"}


def test_the_unit_a_sum_is_asked_in_is_no_word_to_match():
    question = "total still owed on the accounts at 31/12 (euros)"
    assert {words(question)[i] for i in answer_units(question)} == {"euros"}
    question = "Total distance ridden in May, in km?"
    assert {words(question)[i] for i in answer_units(question)} == {"in", "km"}


SHOE_REPAIRS = """\
KOVÁCS CIPŐJAVÍTÁS - munkalapok, 2026. február
MUNKA:     T = talpalás        S = sarokcsere       K = kopogó       V = varrás
FIZETÉS:   K = készpénz   B = bankkártya   U = utalás

sorsz. | dátum  | ügyfél              | munka | ár Ft  | fiz.
-------+--------+---------------------+-------+--------+-----
 201   | 02.02  | Nagy Ilona          | T     | 6 500  | K
 202   | 02.03  | Szabó Péter         | K     | 1 800  | B
 203   | 02.05  | Tóth Anna           | S     | 3 200  | K
 204   | 02.06  | Kiss Gábor          | V     | 2 400  | U
 205   | 02.09  | Varga Réka          | K     | 1 800  | K
 206   | 02.10  | Nagy Ilona          | T+S   | 9 200  | B
"""

DINNER_FEES = _sheet([
    ["Escola Bressol Els Pins"],
    ["QUOTES DE MENJADOR - MARÇ 2026"],
    [],
    ["Núm.", "Nen/a", "Import", "Data pagament", "Forma"],
    ["1", "Pau Soler", "96,00", "02.03.2026", "E"],
    ["2", "Aina Roca", "96,00", "03.03.2026", "T"],
    ["3", "Martí Vila", "48,00", "03.03.2026", "E"],
    ["4", "Júlia Puig", "96,00", "05.03.2026", "D"],
    ["5", "Nil Ferrer", "96,00", "06.03.2026", "T"],
    [],
    ["", "Forma: E - efectiu (secretaria), T - transferència, D - domiciliació"],
])


def test_a_payment_code_its_key_defines_is_counted_in_its_own_column(
        tmp_path: Path, monkeypatch: Any):
    # "K" is cash under FIZETÉS (payment) and a heel tip under MUNKA: the column holding
    # the payment codes is counted, not the work column.
    result = counted_by_code(tmp_path, monkeypatch, {"munkalapok_2026-02.txt": SHOE_REPAIRS},
                    "How many repairs were paid in cash?")
    assert result.grounded and result.exact and result.answer.startswith("3 ")
    assert "fiz.=K" in result.answer  # the plan names the column it counted


def test_a_key_written_with_dashes_in_a_spreadsheets_last_row(tmp_path: Path, monkeypatch: Any):
    result = counted_by_code(tmp_path, monkeypatch, {"menjador_2026-03.csv": DINNER_FEES},
                    "how many children's fees were paid by bank transfer")
    assert result.grounded and result.exact and result.answer.startswith("2 ")


MAIL_BOOK = """\
No.       Date        Chan  From                 Subject
-----------------------------------------------------------------------
2026/101  02/03/2026  D     Halvard Moen         Hedge complaint, Birch Row
2026/102  02/03/2026  W     Lakeside School      Minibus booking for 14/03
2026/103  02/03/2026  M     County Roads Dept    Resurfacing notice, west side
                                                 of Mill Lane
2026/104  03/03/2026  W     Ingrid Holm          Street light out
2026/105  03/03/2026  D     Ingrid Holm          Copy of the deed
"""


def test_rows_after_a_cell_carried_onto_the_next_line_keep_their_header():
    rows = [r.fields for r in read_layout([("d", MAIL_BOOK)]).records if r.fields]
    assert [r.get("Chan") for r in rows if r.get("No.", "").startswith("2026/")] == [
        "D", "W", "M", "W", "D"]
    assert rows[-1]["From"] == "Ingrid Holm" and rows[-1]["Subject"] == "Copy of the deed"


REPAIR_CAFE = "[\n" + ",\n".join("  " + json.dumps(dict(zip(
    ("ticket", "date", "owner", "item", "fault", "checked_by", "result"), row, strict=True)))
    for row in (("RC-0411", "2026-03-07", "Mr Alan Pike", "toaster", "no heat", "Gwen Price",
                 "fixed"),
                ("RC-0412", "2026-03-07", "Ms Dora Lyle", "lamp", "flickers", "Tom Hale",
                 "fixed"),
                ("RC-0413", "2026-03-07", "Mrs Ann Pike", "kettle", "leaks", "Ravi Shah",
                 "not repairable"))) + "\n]\n"
"""An export's records one to a line, each indented inside the array."""


def test_an_indented_json_records_field_answers(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, REPAIR_CAFE,
                           "Who checked the toaster brought in by Alan Pike?")
    assert result.grounded and "Gwen Price" in result.answer
    assert "Alan Pike" not in result.answer


def test_a_surname_holding_a_months_letters_names_no_month():
    catches = _sheet([["Povolenka", "Jméno", "Datum", "Druh", "Hmotnost kg"],
                      ["061/24", "Novák Josef", "03.11.2024", "KP", "4,10"],
                      ["062/24", "Nováková Eva", "12.07.2024", "KP", "3,25"]])
    records = read_layout([("d", catches)]).records
    months, _ = month_words("total weight of carp kept by Josef Novák in 2024", records, set())
    assert months == []
    months, _ = month_words("total weight of carp kept in Nov 2024", records, set())
    assert months == [11]


SUBS = """\
Member              Cat   Sub    Paid        How        Notes
-----------------   ---   ----   ---------   --------   ---------------------------
Ian Sinclair         F     95    02/10/25    Cash
Neil Fotheringham    S     70    09/10/25    Chq 100234 knee op, may miss games
Callum Baird         F     95    o/s                    reminded 20/11
Jean Duthie          S     70    16/10/25    Cash       says the ice was poor in Nov
"""


def test_a_column_headed_by_a_small_word_is_not_named_by_the_question():
    layout = read_layout([("d", SUBS)])
    assert {"How", "Notes"} <= set(layout.fields)
    _, _, narrowed = narrowed_records(
        "How many members complained in their notes about the state of the ice?", layout)
    assert "a value in Notes" in narrowed and "How" not in narrowed


COLOUR_CARD = """\
CLIENT CARD - Ms Nora Flynn
Patch test: 02/03/25 neg (AB) · redone 19/01/26 neg (AB)
Last colour: 14/01/26 root tint 6/0 + 20 vol
"""


def test_a_when_questions_verb_picks_its_date_from_a_line_of_two(
        tmp_path: Path, monkeypatch: Any):
    assert narrowed("When was the boiler serviced?",
                    "Installed 03/02/2019, serviced 14/05/2025 by Gas Co") == "serviced 14/05/2025"
    result = search_answer(tmp_path, monkeypatch, COLOUR_CARD,
                           "when was Nora Flynn's patch test redone")
    assert result.grounded and "19/01/26" in result.answer and "02/03/25" not in result.answer
