"""Dates as one entity in any written form; values' shapes answer the words asking for them."""

from rlm_recursive.corpus.dates import said_dates
from rlm_recursive.corpus.naming import entities, says
from rlm_recursive.corpus.units import kind_words, stems


def test_a_question_date_is_one_entity_matched_in_other_forms():
    named = entities("Which ferry sailed on 4 February 2024 from Oban?")
    assert "4 february 2024" in named and "4" not in named
    assert says("dep 04 feb 2024 09:10 oban", "4 february 2024")
    assert says("sailing 04/02/2024 oban", "4 february 2024")
    assert not says("sailing 04/02/2023 oban", "4 february 2024")
    assert not says("sailing 05/02/2024 oban", "4 february 2024")


def test_said_dates_reads_day_first_and_skips_versions():
    assert [d for _, _, d in said_dates("due 03.10.2026")] == [(3, 10, 2026)]
    assert said_dates("release v1.2.2024") == []


def test_shapes_answer_kind_words():
    assert set(stems("fee")) <= set(kind_words("Locker hire €12.50 a term"))
    assert "code" in kind_words("  K7  East stair") and "code" not in kind_words("sha 9ab3f1")
    assert set(stems("evening")) <= set(kind_words("dep 19:05 Leeds"))
