"""Keyed records and the field a question asks of the one it names (`corpus.keyed_records`,
`corpus.record_fields`), on documents written for these tests in layouts of their own."""

from __future__ import annotations

import pytest
from strategy_support import ask, first_excerpt_line, load, small_runtime

from rlm_recursive.corpus.keyed_records import keyed_records, preamble
from rlm_recursive.corpus.record_fields import record_field
from rlm_recursive.corpus.record_units import line_fields

KENNEL = """\
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  OAKAPPLE BOARDING KENNELS - STAY SHEET
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Sheet No : 7731        Pen   : 12
Dog      : BISCUIT (owner MRS PAULA LANGLEY)
In       : 03/11/26    Out   : 09/11/26
Vacc. ref: VX-20931    Diet  : grain free
--------------------------------------------------
03/11/26  Boarding, large pen                 22.00
06/11/26  Grooming (full)                     35.00
--------------------------------------------------
                         Total to pay      167.00

~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  OAKAPPLE BOARDING KENNELS - STAY SHEET
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Sheet No : 7740        Pen   : 4
Dog      : MOSS (owner MR IAN LANGLEY)
In       : 05/11/26    Out   : 07/11/26
Vacc. ref: VX-18844    Diet  : raw
--------------------------------------------------
05/11/26  Boarding, small pen                 18.00
--------------------------------------------------
                         Total to pay       36.00

~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  OAKAPPLE BOARDING KENNELS - STAY SHEET
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Sheet No : 7744        Pen   : 9
Dog      : PEPPER (owner DR OMAR HALLIDAY)
In       : 06/11/26    Out   : 10/11/26
Vacc. ref: VX-30112    Diet  : senior
--------------------------------------------------
06/11/26  Boarding, large pen                 22.00
--------------------------------------------------
                         Total to pay       88.00
"""

PROXY = """\
# proxy front end, edited by hand
Listen 443

<Site docs>
    Host docs.example.test
    Forward / http://192.0.2.14:7000/
    HeaderMax 8k
</Site>

<Site billing>
    Host billing.example.test
    Forward / http://192.0.2.21:7100/
    # old billing kept for exports
    Forward /archive/ http://127.0.0.1:7199/
</Site>

<Site status>
    Host status.example.test
    Root /srv/status
</Site>
"""

COUNT = """\
PARISH POLL, 4 MARCH
Counting officer's sheet

==========================================
AREA: NORTH MEADOWS          Voters: 2,110
==========================================
RESULTS                      Votes
ABBOTT, Jenna (Green)          412
PRYCE, Colin (Independent)     377
Spoilt                          9
Share voting: 37.6%
Winner: ABBOTT. Lead 35.

==========================================
AREA: SOUTH QUAY             Voters: 1,874
==========================================
RESULTS                      Votes
FENN, Ada (Labour)             301
OKAFOR, Tunde (Green)          296
Spoilt                         14
Share voting: 32.9%
Winner: FENN. Lead 5.

Notes
Postal votes were counted with each area.
"""


def _docs(**texts: str) -> list[tuple[str, str]]:
    return list(texts.items())


def test_a_batch_of_sheets_is_read_as_records_from_their_banner_to_the_next():
    groups = keyed_records("kennel", KENNEL)
    sheets = next(g for g in groups if len(g) == 3)
    assert [u.text.count("Dog      :") for u in sheets] == [1, 1, 1]
    # Each sheet runs from its banner's rule to the end of its totals.
    assert sheets[0].text.startswith("~~~") and sheets[0].text.rstrip().endswith("167.00")
    assert "MOSS" in sheets[1].text and "BISCUIT" not in sheets[1].text


def test_tag_blocks_end_at_their_closing_tag_and_a_trailing_section_is_no_records():
    sites = next(g for g in keyed_records("proxy", PROXY) if len(g) == 3)
    assert all(u.text.rstrip().endswith("</Site>") for u in sites)
    areas = next(g for g in keyed_records("count", COUNT) if len(g) == 2)
    assert "Postal votes" not in areas[1].text  # "Notes" after a blank line is its own part
    assert preamble(COUNT, areas).startswith("PARISH POLL")


def test_the_field_after_a_label_of_the_record_the_question_names():
    docs = _docs(kennel=KENNEL)
    assert record_field("what pen was moss in", docs).value == "4"
    assert record_field("total to pay for Biscuit's stay", docs).value == "167.00"
    # An abbreviated label ("Vacc. ref") says the question's words.
    assert record_field("pepper vaccination ref", docs).value == "VX-30112"


def test_an_ip_address_or_port_asked_by_kind_and_told_apart_by_the_line_s_words():
    docs = _docs(proxy=PROXY)
    assert record_field("docs.example.test backend IP", docs).value == "192.0.2.14"
    assert record_field("which local port serves the old billing archive", docs
                        ).value == "7199"


def test_sections_of_a_count_sheet_give_their_own_figures():
    docs = _docs(count=COUNT)
    assert record_field("share voting south quay", docs).value == "32.9%"
    assert record_field("number of spoilt papers in North Meadows", docs).value == "9"
    assert record_field("what was the lead in the area where Tunde Okafor stood", docs
                        ).value == "5"


def test_nothing_is_read_when_the_record_does_not_give_what_is_asked():
    kennel, proxy, count = _docs(kennel=KENNEL), _docs(proxy=PROXY), _docs(count=COUNT)
    # The status site has no backend: another site's address is not its answer.
    assert record_field("status.example.test backend IP", proxy) is None
    # A field no record names.
    assert record_field("what is Paula Langley's bank sort code", kennel) is None
    # Asked directly of a row of the sheet: the votes are on the row, not on "Spoilt".
    assert record_field("how many votes did Colin Pryce get", count) is None or record_field(
        "how many votes did Colin Pryce get", count).value == "377"
    # Two Langleys: the first name the question gives picks one; without it, none.
    assert record_field("what pen was the langley dog in", kennel) is None


BILL = """\
              RIVERSIDE WATER & HEAT
Account: RW-55120            Statement date: 2 February 2027
Supply address: 12 Mill Lane, Eastwick

WATER - Plan: Metered Standard
  Meter serial W7Q-118204 (read remotely)
  Used this period     41 m3
  Volume   41 m3 x 218.4p/m3                           £89.54

HEAT - Plan: Community Network
  Meter serial HN-3390127
  Used this period     612 kWh
  Energy   612 kWh x 9.87p/kWh                         £60.40

IF YOU SWITCH
  Our standard plan would charge heat at 11.02p/kWh.
"""


@pytest.mark.asyncio
async def test_search_answers_a_keyed_field_named_above_its_record_and_grounds_it(
        tmp_path, monkeypatch):
    """The address is said once above the fuels' parts: the heat meter's serial is read
    from the HEAT part, cited with what is above it, and grounded though the model only
    says the first line it is shown."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, BILL)
        serial, _ = await ask(runtime, sid, "serial number of the heat meter at 12 Mill Lane",
                              "search", first_excerpt_line)
        rate, _ = await ask(runtime, sid, "heat unit rate right now (p per kWh)", "search",
                            first_excerpt_line)
        other, _ = await ask(runtime, sid, "serial number of the gas meter at 12 Mill Lane",
                             "search", first_excerpt_line)
    finally:
        runtime.close()
    assert serial.grounded is not False and "HN-3390127" in serial.answer, serial.answer
    assert rate.grounded is not False and "9.87" in rate.answer, rate.answer
    # No gas part: neither meter's serial is the gas meter's.
    assert other.grounded is False or not any(
        s in other.answer for s in ("HN-3390127", "W7Q-118204")), other.answer


CARDS = """\
Thornfield Primary - Spring progress cards (Year 5)

----------------------------------------------------------
CHILD: Ulrika Ross        Class: 5W (Miss T. Wren)     UPN Q551203
Attendance 96.2%   Reading age: 11y 2m
Maths       working towards
Writing     expected
----------------------------------------------------------
CHILD: Ulysses Rossi      Class: 5M (Mr D. Moyo)       UPN Q551219
Attendance 91.0%   Reading age: 9y 8m
Maths       expected
Writing     working towards
"""


@pytest.mark.asyncio
async def test_search_reads_the_asked_label_on_the_line_that_names_the_record(
        tmp_path, monkeypatch):
    """The line naming the child also holds other fields: the asked one is read by its
    label, not the first words after the name."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, CARDS)
        upn, _ = await ask(runtime, sid, "ulysses rossi UPN", "search", first_excerpt_line)
        reading, _ = await ask(runtime, sid, "what is Ulrika Ross's reading age", "search",
                               first_excerpt_line)
    finally:
        runtime.close()
    assert upn.grounded is not False and "Q551219" in upn.answer, upn.answer
    assert reading.grounded is not False and "11y 2m" in reading.answer, reading.answer



def test_a_ratio_or_a_clock_gives_no_first_figure_as_a_value():
    from rlm_recursive.corpus.field_values import _VALUE

    assert _VALUE.match("2:1 syrup: east hive 5 L") is None  # "Fed 2:1 syrup" is no "Fed: 2"
    assert _VALUE.match("10:30 start") is None
    assert _VALUE.match("5 kg, west hive").group() == "5 kg"


def test_a_grid_rows_name_cell_labels_no_figure() -> None:

    # A short line: the label cell and the figure beside it.
    line = "Overtime hours        12.5"
    assert [(k, v) for k, v, _, _ in line_fields(0, len(line), line)] == [
        ("Overtime hours", "12.5")]
    # A schedule's row: "Holly (Ilex aquifolium)" names the hedge, not its height.
    row = ("H4   Holly (Ilex aquifolium)          2.2  1.5  40   C    Roadside, flailed.")
    assert line_fields(0, len(row), row) == []
