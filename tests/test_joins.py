"""A hop across records (agent/joins): the record the question describes holds a key that
picks out another record, which holds what is asked. Real readers (CSV, JSON lines), real
SQLite and tantivy for the strategy runs."""

from __future__ import annotations

import json

from fact_support import knows_nothing
from strategy_support import ask, load_named, small_runtime

from rlm_recursive.agent.lookups.joins import follow_join
from rlm_recursive.corpus.records import read_layout

_COSTUMES = """code,description,rail,value
COS-11,Victorian ballgown,R3,220
COS-12,Pirate captain coat,R1,85
COS-14,Tudor doublet,R2,140
COS-15,Flapper dress,R3,60
"""
_BORROWINGS = """ref,code,borrower,taken,brought_back
B-901,COS-12,Odile Brennan,2026-05-02,2026-05-09
B-902,COS-14,Odile Brennan,2026-06-11,
B-903,COS-11,Jarvis Pike,2026-06-12,2026-06-20
B-904,COS-15,Jarvis Pike,2026-06-14,
"""
_WORKS = "".join(json.dumps(entry) + "\n" for entry in (
    {"kind": "article", "authors": "Okafor, Ngozi and Lindqvist, Sven", "year": "2015",
     "venue": "Coastal Engineering", "title": "Wave run-up on shingle"},
    {"kind": "article", "authors": "Okafor, Ngozi and Ferreira, Luis", "year": "2018",
     "venue": "Coastal Engineering", "title": "Groyne spacing revisited"},
    {"kind": "book", "authors": "Lindqvist, Sven", "year": "2020",
     "title": "Beaches That Move", "isbn": "978-1-78427-301-6"},
    {"kind": "book", "authors": "Ferreira, Luis", "year": "2021",
     "title": "Harbour Walls", "isbn": "978-0-19-887112-4"}))


def _layout(files: dict[str, str]):
    return read_layout(list(files.items()), {name: name for name in files})


def test_a_row_the_question_describes_points_to_the_row_that_answers():
    layout = _layout({"costumes.csv": _COSTUMES, "borrowings.csv": _BORROWINGS})
    chain = follow_join("Which rail does the costume Odile Brennan hasn't brought back hang "
                        "on?", layout)
    assert chain is not None
    assert chain.found.answer == "rail: R2" and chain.bridges == ["COS-14"]
    assert _BORROWINGS[chain.links[0].start:chain.links[0].end].startswith("B-902")
    # Jarvis Pike's costume still out is another one, on another rail.
    other = follow_join("which rail does the costume Jarvis Pike has not brought back "
                        "hang on", layout)
    assert other is not None and other.found.answer == "rail: R3"


def test_a_description_that_fits_two_rows_gives_nothing():
    layout = _layout({"costumes.csv": _COSTUMES, "borrowings.csv": _BORROWINGS.replace(
        "2026-05-02,2026-05-09", "2026-05-02,")})
    assert follow_join("Which rail does the costume Odile Brennan hasn't brought back hang "
                       "on?", layout) is None
    # No record names the borrower at all.
    assert follow_join("Which rail does the costume Maud Hartley hasn't brought back hang "
                       "on?", _layout({"costumes.csv": _COSTUMES,
                                       "borrowings.csv": _BORROWINGS})) is None


def test_a_listed_value_is_a_key_the_question_does_not_give():
    # The co-author is the author list's other name; his book's entry has the ISBN.
    layout = _layout({"works.jsonl": _WORKS})
    chain = follow_join("ISBN of the book by the person who co-wrote the 2015 Coastal "
                        "Engineering paper with Ngozi Okafor", layout)
    assert chain is not None
    assert chain.found.answer == "isbn: 978-1-78427-301-6"
    assert chain.bridges == ["Lindqvist, Sven"]


async def test_search_grounds_a_joined_answer(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"costumes.csv": _COSTUMES, "borrowings.csv": _BORROWINGS})
    result, _ = await ask(runtime, sid, "Which rail does the costume Odile Brennan hasn't "
                          "brought back hang on?", "search", knows_nothing)
    runtime.close()
    assert result.grounded is True and "R2" in result.answer and "R1" not in result.answer


def test_a_value_records_share_is_no_key():
    # Ada's row has no trade; Bram, born in the same town, has one: a birthplace is not a
    # key that names his row, so Ada's trade is not found.
    people = "name,born,trade\nAda Quill,Kelso,\nBram Quill,Kelso,Cooper\n"
    assert follow_join("What was Ada Quill's trade?", _layout({"people.csv": people})) is None
    # A code that names one row does.
    orders = "order,customer,part\nOR-71,Ada Quill,PT-9\nOR-72,Bram Quill,PT-4\n"
    parts = "part,bin\nPT-4,Bin 12\nPT-9,Bin 30\n"
    chain = follow_join("Which bin holds the part Ada Quill ordered?",
                        _layout({"orders.csv": orders, "parts.csv": parts}))
    assert chain is not None and chain.found.answer == "bin: Bin 30"
