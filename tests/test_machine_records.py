"""Machine-written sources read as records: SQL dumps (a real SQLite `.dump`, MySQL's
multi-row inserts, PostgreSQL's COPY blocks). Each row is a record with its table's column
names, cited where it is written; a question naming one row's values gets its asked field."""

from __future__ import annotations

import sqlite3

import pytest

from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.sqldump import dump_records

MYSQL = """-- MySQL dump 10.13
-- Host: db01    Database: allotments

DROP TABLE IF EXISTS `plots`;
CREATE TABLE `plots` (
  `plot_code` varchar(8) NOT NULL,
  `holder` varchar(80) DEFAULT NULL,
  `size_m2` decimal(6,1) DEFAULT NULL,
  `soil` enum('clay','loam','sand') DEFAULT NULL,
  `notes` text,
  PRIMARY KEY (`plot_code`),
  KEY `by_holder` (`holder`)
) ENGINE=InnoDB;

LOCK TABLES `plots` WRITE;
INSERT INTO `plots` VALUES ('A-01','Wendell Okafor',125.0,'loam','shed, water butt (2)'),\
('A-02','Fern O''Hagan',62.5,'clay',NULL),('B-07',NULL,250.0,'sand','vacant; \\'overgrown\\'');
UNLOCK TABLES;
"""

POSTGRES = """--
-- PostgreSQL database dump
--
SET statement_timeout = 0;

CREATE TABLE public.hives (
    hive_id integer NOT NULL,
    apiary text,
    queen_marked text,
    last_inspected date
);

COPY public.hives (hive_id, apiary, queen_marked, last_inspected) FROM stdin;
14\tOrchard Row\tblue\t2026-05-02
15\tChurch Meadow\t\\N\t2026-05-09
16\tOrchard Row\tgreen\t2026-04-28
\\.

ALTER TABLE ONLY public.hives ADD CONSTRAINT hives_pkey PRIMARY KEY (hive_id);
"""


def _sqlite_dump() -> str:
    """A dump written by SQLite itself (`iterdump`, what `.dump` prints)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE ferries (route TEXT, vessel TEXT, departs TEXT, fare_gbp REAL)")
    db.executemany("INSERT INTO ferries VALUES (?, ?, ?, ?)", [
        ("Oban - Craignure", "MV Isle of Mull", "07:45", 4.10),
        ("Ullapool - Stornoway", "MV Loch Seaforth, relief", "09:30", 10.60),
        ("Kennacraig - Port Askaig", "MV Finlaggan", "13:00", None),
    ])
    db.commit()
    return "\n".join(db.iterdump())


def test_mysql_rows_take_the_tables_column_names_and_keep_quoted_commas():
    rows = dump_records(MYSQL)
    assert rows is not None and len(rows) == 3
    fields = [f for _, _, f in rows]
    assert fields[0] == {"table": "plots", "plot_code": "A-01", "holder": "Wendell Okafor",
                         "size_m2": "125.0", "soil": "loam", "notes": "shed, water butt (2)"}
    assert fields[1]["holder"] == "Fern O'Hagan" and "notes" not in fields[1]  # NULL
    assert "holder" not in fields[2] and fields[2]["notes"] == "vacant; 'overgrown'"
    start, end, _ = rows[1]
    assert MYSQL[start:end] == "('A-02','Fern O''Hagan',62.5,'clay',NULL)"


def test_a_copy_block_is_read_line_by_line_up_to_its_end_mark():
    rows = dump_records(POSTGRES)
    assert rows is not None
    assert [f.get("queen_marked") for _, _, f in rows] == ["blue", None, "green"]
    assert rows[1][2] == {"table": "hives", "hive_id": "15", "apiary": "Church Meadow",
                          "last_inspected": "2026-05-09"}
    start, end, _ = rows[2]
    assert POSTGRES[start:end] == "16\tOrchard Row\tgreen\t2026-04-28"


def test_a_dump_written_by_sqlite_is_read_with_its_columns():
    text = _sqlite_dump()
    layout = read_layout([("ferries.sql", text)], {"ferries.sql": "ferries.sql"})
    assert layout.formats["ferries.sql"] == "sql"
    assert [r.fields.get("vessel") for r in layout.records] == [
        "MV Isle of Mull", "MV Loch Seaforth, relief", "MV Finlaggan"]
    assert "fare_gbp" not in layout.records[2].fields


@pytest.mark.parametrize(("question", "key", "value"), [
    ("What is the fare on the Oban to Craignure route?", "fare_gbp", "4.1"),
    ("size of Fern O'Hagan's plot", "size_m2", "62.5"),
    ("When was the Church Meadow hive last inspected?", "last_inspected", "2026-05-09"),
])
def test_a_question_naming_a_row_gets_its_asked_column(question, key, value):
    docs = [("plots.sql", MYSQL), ("hives.sql", POSTGRES), ("ferries.sql", _sqlite_dump())]
    layout = read_layout(docs, {d: d for d, _ in docs})
    found = lookup(question, layout.records, layout.titles)
    assert found is not None, question
    record, field = found
    assert (field, record.fields[field]) == (key, value)


def test_prose_quoting_an_insert_or_two_is_not_a_dump():
    tutorial = ("Adding rows\n\nTo add a member, write a statement such as the one below and\n"
                "run it in the console. The values go in brackets, one per column.\n\n"
                "    INSERT INTO members VALUES (1, 'Ada'), (2, 'Brook');\n\n"
                "Check the result by listing the table again, then commit your work.\n"
                "If the console complains, read the message: it names the bad column.\n")
    assert dump_records(tutorial) is None
