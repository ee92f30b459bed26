"""A bridge's record: the answer read from the block the bridge's line is in (agent/blocks)."""

from __future__ import annotations

from fact_support import knows_nothing
from strategy_support import ask, load, over_layout, small_runtime

from rlm_recursive.agent.lookups.blocks import block_around, follow_block

_PATCHES = """\
patch 4f1e20c
Submitter: Oona Castellanos <oona@quaywork.example>
Sent: 2026-03-02

    Correct the tide offset for the western gauge

    The offset was read in feet. Asked for by a lighthouse keeper in Mevagissey.

patch 77b0a91
Submitter: Idris Pemberton <idris.p@quaywork.example>
Sent: 2026-03-04

    Speed up the hourly summary

    Summaries now take a second instead of a minute. Suggested by the Penzance office.

patch 9c02d3e
Submitter: Oona Castellanos <o.castellanos@mailhub.example>
Sent: 2026-03-09

    Ship 2.4.0
"""

_CONTACTS = """\
BEGIN:VCARD
FN:Tamsin Greaves
ORG:Greaves & Daughters Bakery
TEL;TYPE=work:01632 960 118
NOTE:Runs the bakery on Quay Street. Bread for the harbour fair.
END:VCARD
BEGIN:VCARD
FN:Bartholomew Quist
ORG:Quist Chandlery
TEL;TYPE=work:01632 960 774
NOTE:Sells rope and fenders from the old net loft.
END:VCARD
BEGIN:VCARD
FN:Morwenna Tregear
ORG:Tregear Sailmakers
TEL;TYPE=work:01632 960 305
NOTE:Repairs sails in the loft above the fish market.
END:VCARD
"""

_BATCH = """\
HDR|BATCH|0093|20260511
PAT|RX5521^^^CLINIC|ADEYEMI^FOLA|BAY 3^CHAIR 2
RES|SODIUM|139|mmol/L
RES|POTASSIUM|6.2|mmol/L
HDR|BATCH|0094|20260511
PAT|RX7702^^^CLINIC|NORDGREN^ELSA|BAY 5^CHAIR 1
RES|SODIUM|141|mmol/L
RES|POTASSIUM|4.0|mmol/L
HDR|BATCH|0095|20260511
PAT|RX8120^^^CLINIC|OKONKWO^IFE|BAY 1^CHAIR 4
RES|SODIUM|136|mmol/L
RES|POTASSIUM|3.6|mmol/L
"""


def _chain(tmp_path, monkeypatch, text, question):
    return over_layout(tmp_path, monkeypatch, text, question, follow_block)


def test_a_block_runs_from_the_documents_first_key_to_the_next():
    at = _PATCHES.index("Speed up")
    start, end = block_around(_PATCHES, at)
    assert _PATCHES[start:].startswith("patch 77b0a91")
    assert _PATCHES[end:].startswith("patch 9c02d3e")
    # One-line records (a log) and prose are no blocks.
    log = "".join(f"worker ok job={n}\n" for n in range(20))
    assert block_around(log, 40) is None
    assert block_around("Minutes of the meeting.\nWe met.\nWe ate.\n", 30) is None


def test_the_asked_line_of_the_bridges_block_answers(tmp_path, monkeypatch):
    chain = _chain(tmp_path, monkeypatch, _PATCHES,
                   "Who submitted the change a lighthouse keeper in Mevagissey asked for?")
    assert chain is not None
    assert "Oona Castellanos <oona@quaywork.example>" in chain.found.answer
    assert "Pemberton" not in chain.found.answer
    block = _PATCHES[chain.found.ref.start:chain.found.ref.end]
    assert block.startswith("patch 4f1e20c") and "Mevagissey" in block


def test_a_value_shape_says_what_is_asked(tmp_path, monkeypatch):
    chain = _chain(tmp_path, monkeypatch, _PATCHES,
                   "e-mail address of the person who shipped the 2.4.0 release")
    assert chain is not None
    assert "o.castellanos@mailhub.example" in chain.found.answer
    assert "oona@quaywork" not in chain.found.answer


def test_a_keyed_line_with_parameters_answers(tmp_path, monkeypatch):
    chain = _chain(tmp_path, monkeypatch, _CONTACTS,
                   "What is the work telephone of the woman who runs the bakery on Quay Street?")
    assert chain is not None
    assert "960 118" in chain.found.answer and "960 774" not in chain.found.answer


def test_a_delimited_line_gives_its_cell(tmp_path, monkeypatch):
    chain = _chain(tmp_path, monkeypatch, _BATCH,
                   "which bay is the patient whose potassium came back at 6.2 in")
    assert chain is not None
    assert chain.found.answer == "PAT: BAY 3^CHAIR 2"


def test_a_block_that_does_not_say_what_is_asked_gives_nothing(tmp_path, monkeypatch):
    # No line of the block says a postcode.
    assert _chain(tmp_path, monkeypatch, _CONTACTS,
                  "What is the postcode of the woman who runs the bakery on Quay Street?") is None


def test_two_lines_that_say_it_equally_well_give_nothing(tmp_path, monkeypatch):
    two = _CONTACTS.replace("TEL;TYPE=work:01632 960 118",
                            "TEL;TYPE=work:01632 960 118\nTEL;TYPE=home:01632 960 555")
    assert _chain(tmp_path / "a", monkeypatch, two,
                  "What is the telephone of the woman who runs the bakery on Quay Street?") is None
    assert "960 118" in _chain(tmp_path / "b", monkeypatch, two, "What is the work telephone "
                               "of the woman who runs the bakery on Quay Street?").found.answer


async def test_the_iterative_strategy_grounds_the_blocks_answer(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _PATCHES)
    result, _ = await ask(runtime, sid, "What is the e-mail of the person who shipped the "
                          "2.4.0 release?", "iterative", knows_nothing)
    runtime.close()
    assert result.grounded is True
    assert "o.castellanos@mailhub.example" in result.answer


async def test_search_reads_the_block_when_the_line_found_is_the_bridges_own(tmp_path, monkeypatch):
    # The line that matches the question best says who asked for the change, not who made
    # it: its block's header does.
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _PATCHES)
    result, _ = await ask(runtime, sid, "Who submitted the change a lighthouse keeper in "
                          "Mevagissey asked for?", "search", knows_nothing)
    runtime.close()
    assert result.grounded is True
    assert "Oona Castellanos" in result.answer and "Pemberton" not in result.answer


def test_a_free_relative_is_a_bridge_and_a_keyed_value_is_read_with_its_key(tmp_path,
                                                                             monkeypatch):
    # "whoever sells rope": the person is no word the text says; the card's TEL line, with
    # its parameters, is given as "TEL: <number>" so grounding can read key and value.
    chain = _chain(tmp_path, monkeypatch, _CONTACTS,
                   "Can I get the phone number of whoever sells rope and fenders?")
    assert chain is not None
    assert chain.found.answer == "TEL: 01632 960 774"


async def test_search_grounds_a_free_relatives_block_answer(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, _CONTACTS)
    result, _ = await ask(runtime, sid, "Can I get the phone number of whoever repairs the "
                          "sails?", "search", knows_nothing)
    runtime.close()
    assert result.grounded is True and "960 305" in result.answer
    assert "960 774" not in result.answer and "960 118" not in result.answer
