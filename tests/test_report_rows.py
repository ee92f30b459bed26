"""Rows of a paged fixed-width report read as records: header words one space apart over
columns two apart, a code column one space before a title of several words, page banners,
a key glossing a column by its name; and "who" with a later sentence asking for a number."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.agent.answers.persons import asks_who
from rlm_recursive.agent.lookups.record_hops import record_hop
from rlm_recursive.corpus.grid_cells import grid_cell
from rlm_recursive.corpus.grid_links import grid_link
from rlm_recursive.corpus.grid_tables import grids
from tests.strategy_support import load, small_runtime

_HEADER = f"{'LOT':<9}{'VARIETY':<27}{'GROWER':<14}{'GR':<3}{'SH':<5}{'BATCH':<10}{'PRICE':>5}"
_RULE = "-" * len(_HEADER)


def _sheet(n: int, rows: list[tuple[str, ...]]) -> str:
    """A sheet of the report: its banner, the header between rules, rows set to the header."""
    lines = [f"FENWORTH SEED COOPERATIVE        STOCKLIST RUN 4        SHEET {n}", _RULE,
             _HEADER, _RULE]
    lines += [f"{lot:<9}{variety:<27}{grower:<14}{gr:<3}{sh:<5}{batch:<10}{price:>5}"
              for lot, variety, grower, gr, sh, batch, price in rows]
    return "\n".join(lines) + "\n"


_DEPOTS = ("SHED DIRECTORY\n"
           "CODE  SHED NAME             TEL\n"
           "NW    Northwick Barn        0117 496 0311\n"
           "SE    Southend Polytunnel   0117 496 0488\n"
           "NE    Nettlebed Store       0117 496 0520\n")


REPORT = (_sheet(1, [("55120041", "Purple Sprouting Kale", "Ambler, J.", "A1", "NW", "K77120",
                      "4.10"),
                     ("55120042", "Early Nantes Carrot", "Ambler, J.", "A2", "NW", "K77121",
                      "2.35"),
                     ("55120043", "Golden Ball Turnip", "Corrie, T.", "A1", "SE", "K77122",
                      "3.05")])
          + "\n  -- more on next sheet --\n\n"
          + _sheet(2, [("55120044", "Scarlet Emperor Bean", "Dunn, M.", "B1", "SE", "K77123",
                        "5.80"),
                       ("55120045", "Early Nantes Carrot", "Esk, P.", "A2", "NE", "K77124",
                        "2.40"),
                       ("55120046", "Winter Density Lettuce", "Esk, P.", "B2", "NE", "K77125",
                        "1.95")])
          + "\nKEY\n  PRICE  per packet, members' discount deducted at the till\n")


def _ask(question: str) -> str | None:
    found = grid_cell(question, [("stock", REPORT)])
    return found.value if found else None


def test_header_words_one_space_apart_name_their_own_columns():
    first = grids("stock", REPORT)[0]
    assert first.heads == ("LOT", "VARIETY", "GROWER", "GR", "SH", "BATCH", "PRICE")
    assert [c.text for c in first.rows[0].cells][:2] == ["55120041", "Purple Sprouting Kale"]


def test_a_title_of_several_words_names_the_row_case_insensitive():
    assert _ask("batch for purple sprouting kale") == "K77120"
    assert _ask("Who grows the Winter Density Lettuce? I need the grower.") == "Esk, P."


def test_a_word_of_the_columns_key_is_the_columns():
    assert _ask("price deducted on scarlet emperor bean") == "5.80"


def test_two_rows_of_one_title_give_nothing():
    assert _ask("batch of Early Nantes Carrot") is None


def test_a_who_question_asking_after_for_a_number_wants_the_number():
    asked = "Who has the Scarlet Emperor Bean seed? Give me the grower code."
    assert not asks_who(asked)
    assert fits_kind(asked, "K77123")
    assert asks_who("Who grows the Scarlet Emperor Bean? Its batch is K77123.")


def test_a_rows_code_reaches_the_row_another_grid_keys_by_it():
    docs = [("stock", REPORT), ("depots", _DEPOTS)]
    found = grid_link("What is the phone number of the shed storing the Golden Ball Turnip "
                      "seed?", docs)
    assert found is not None and (found.value, found.code) == ("0117 496 0488", "SE")


def test_no_hop_from_a_title_two_rows_hold():
    docs = [("stock", REPORT), ("depots", _DEPOTS)]
    assert grid_link("phone number of the shed storing Early Nantes Carrot", docs) is None


def test_record_hop_cites_both_rows_and_bridges_by_the_code(tmp_path: Path, monkeypatch: Any):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, REPORT, _DEPOTS)
        chain = record_hop(runtime.store, sid, "What is the phone number of the shed storing "
                           "the Golden Ball Turnip seed?")
        assert chain is not None
        assert chain.found.answer == "TEL: 0117 496 0488"
        assert chain.bridges == ["SE"]
        cited = {runtime.store.text(d)[r.start:r.end] for d in runtime.store.documents(sid)
                 for r in chain.links if r.doc_id == d.id}
        assert any(c.startswith("SE ") for c in cited)
        assert any("Golden Ball Turnip" in c for c in cited)
    finally:
        runtime.close()
