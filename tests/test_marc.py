"""MARC 21 records in their mnemonic text form (`corpus.marc`): fields named by what the
format defines each tag's subfield to hold, read by the record look-ups and count plans."""

from __future__ import annotations

import pytest
from strategy_support import ask, load_named, no_model, small_runtime

from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.marc import marc_records, marc_view
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.providers.fake import reply

_MRK = """\
; Harbourside School library: donated atlases and pilot books, lot 7
; reading-list code in 990 $a

=LDR  00000cam a2200000 i 4500
=001  hsl-2201
=005  20250302120000.0
=020  \\\\$a9780000000019$q(hardback)$c{dollar}42.00
=100  1\\$aOkonjo, Marisol,$d1955-$eauthor.
=245  14$aThe tidal atlas of the Sound /$cMarisol Okonjo.
=264  \\1$aPort Ellery :$bGull Lane Press,$c2018.
=300  \\\\$a96 pages :$bcharts ;$c31 cm
=650  \\0$aTides$zPort Ellery Sound$vMaps.
=852  \\\\$aHSL$bSeaward campus$hR 551.46 OKO
=876  \\\\$p40022000000112$c{dollar}42.00
=990  \\\\$aRL-GEO-3$bDonor: Ellery Yacht Club$cfolio

=LDR  00000cam a2200000 i 4500
=001  hsl-2202
=020  \\\\$a9780000000026$q(paperback)$c{dollar}18.50
=100  1\\$aBrandt, Ole,$d1970-$eauthor.
=245  10$aPilotage for small craft :$ba coastal handbook /$cOle Brandt.
=264  \\1$aLondon :$bHalyard Books,$c2021.
=650  \\0$aPilots and pilotage.
=852  \\\\$aHSL$bHilltop campus$h623.89 BRA
=876  \\\\$p40022000000129$c{dollar}18.50
=990  \\\\$aRL-NAV-1$bDonor: Ellery Yacht Club$cquarto

=LDR  00000cam a2200000 i 4500
=001  hsl-2203
=020  \\\\$a9780000000033$c{dollar}27.25
=100  1\\$aVesey, Anika.
=245  10$aLighthouses of the northern coast /$cAnika Vesey.
=264  \\1$aAberlyn :$bBeacon Hill,$c2015.
=650  \\0$aLighthouses$xHistory.
=852  \\\\$aHSL$bSeaward campus$h387.155 VES
=876  \\\\$p40022000000136$c{dollar}27.25
=990  \\\\$aRL-HIS-2$bDonor: Anika Vesey$cfolio
"""


def _fields() -> list[dict[str, str]]:
    found = marc_records(_MRK)
    assert found is not None
    return [fields for _, _, fields in found]


def test_each_record_names_its_fields_by_the_tag_table():
    first = _fields()[0]
    assert first["ISBN (hardback)"] == "9780000000019"  # named by its $q
    assert first["type of material"] == "book"  # the leader's "am"
    assert first["price"] == "$42.00"  # MarcEdit writes a literal dollar as {dollar}
    assert first["title"] == "The tidal atlas of the Sound"  # ISBD's " /" is no part of it
    assert first["author"] == "Okonjo, Marisol"
    assert first["publisher"] == "Gull Lane Press"
    assert first["publication date"] == "2018"
    assert first["branch location"] == "Seaward campus"
    assert first["barcode"] == "40022000000112"
    # A subject heading keeps its subdivisions, as a catalogue shows them.
    assert first["subject"] == "Tides -- Port Ellery Sound -- Maps"
    # Machine data (the leader, the 005 stamp) is no field a question asks.
    assert not any("20250302" in value for value in first.values())


def test_a_local_field_is_named_only_by_what_the_file_says_of_it():
    first = _fields()[0]
    assert first["reading-list code"] == "RL-GEO-3"  # declared in the file's notes
    assert first["Donor"] == "Ellery Yacht Club"  # the subfield's own label
    assert first["990$c"] == "folio"  # said nothing of: its tag and code


def test_a_subtitle_and_a_short_title_stay_apart():
    second = _fields()[1]
    assert second["title"] == "Pilotage for small craft"
    assert second["subtitle"] == "a coastal handbook"


@pytest.mark.parametrize("text", [
    "=== Minutes ===\n\n=1  first item\n=2  second item\n",
    "=245  10$aOnly one record /$cA. Writer.\n=100  1\\$aWriter, A.\n",
    "=020  \\\\$a9780000000019\n=245  10$aOne\n\nSome prose between records.\n\n"
    "=020  \\\\$a9780000000026\n=245  10$aTwo\n",
])
def test_text_that_is_not_a_marc_file_is_not_read_as_one(text):
    assert marc_records(text) is None


def test_the_layout_counts_one_record_per_book():
    layout = read_layout([("lot7.mrk", _MRK)])
    assert layout.formats["lot7.mrk"] == "marc"
    assert len(layout.records) == 3 and layout.unit == "record"


def test_the_displayed_record_says_its_words_and_names():
    start = _MRK.index("=LDR", _MRK.index("hsl-2201") - 60)
    end = _MRK.index("folio") + len("folio")
    shown, names = marc_view(_MRK, start, end)
    assert " The tidal atlas" in shown and "barcode" in names


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    rt = small_runtime(tmp_path, monkeypatch)
    yield rt
    rt.close()


def _not_found(request):
    return reply("Not found.")


@pytest.mark.parametrize(("question", "expected"), [
    ("barcode for the tidal atlas of the sound", "40022000000112"),
    ("What is the ISBN of the lighthouses book?", "9780000000033"),
    ("Which reading-list code was the pilotage handbook given?", "RL-NAV-1"),
])
async def test_a_field_of_the_record_a_question_names_is_answered_grounded(
        runtime, question, expected):
    sid = load_named(runtime, {"lot7.mrk": _MRK})
    result, _ = await ask(runtime, sid, question, "auto", _not_found)
    assert result.grounded is True, result.answer
    assert expected in result.answer


@pytest.mark.parametrize("question", [
    "What is the edition of the tidal atlas?",  # no 250
    "What is the paperback ISBN of the tidal atlas?",  # its ISBN is the hardback's
])
async def test_a_field_the_record_lacks_is_not_found(runtime, question):
    sid = load_named(runtime, {"lot7.mrk": _MRK})
    result, _ = await ask(runtime, sid, question, "auto", _not_found)
    assert result.grounded is False, result.answer


def test_a_field_named_as_another_kind_of_the_asked_thing_is_not_looked_up():
    rows = ("name,phone (home),email\nIvo Marsh,01632 960001,ivo@example.invalid\n"
            "Ada Lusk,01632 960002,ada@example.invalid\n")
    layout = read_layout([("staff.csv", rows)])
    found = lookup("What is the phone number of Ada Lusk?", layout.records)
    assert found is not None and found[0].fields[found[1]] == "01632 960002"
    assert lookup("What is the work phone of Ada Lusk?", layout.records) is None


async def test_books_going_to_one_campus_are_counted_by_code(runtime):
    sid = load_named(runtime, {"lot7.mrk": _MRK})
    result, _ = await ask(runtime, sid, "How many of the books go to the Seaward campus?",
                          "auto", no_model)
    assert result.strategy == "count" and result.answer.split()[0] == "2", result.answer
    assert result.exact is True and result.grounded is True
