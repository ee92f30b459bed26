"""Machine-written sources read as records and as the text a reader sees: SQL dumps (a real
SQLite `.dump`, MySQL's multi-row inserts, PostgreSQL's COPY blocks), each row a record with
its table's column names, cited where it is written, a question naming one row's values
getting its asked field; man pages without troff and feeds without escaped HTML, at the
source's offsets."""

from __future__ import annotations

import sqlite3

import pytest

from rlm_recursive.corpus.gherkin import feature_records
from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.markup import element_records
from rlm_recursive.corpus.reading import reading_text, shown
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.search import PassageIndex
from rlm_recursive.corpus.sqldump import dump_records
from rlm_recursive.corpus.unit_split import split_units

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
    assert _looked_up(docs, question) == (key, value)


def _looked_up(docs: list[tuple[str, str]], question: str) -> tuple[str, str]:
    """The field and value `lookup` reads for the question over the documents' records."""
    layout = read_layout(docs, {d: d for d, _ in docs})
    found = lookup(question, layout.records, layout.titles)
    assert found is not None, question
    record, field = found
    return field, record.fields[field]


def test_prose_quoting_an_insert_or_two_is_not_a_dump():
    tutorial = ("Adding rows\n\nTo add a member, write a statement such as the one below and\n"
                "run it in the console. The values go in brackets, one per column.\n\n"
                "    INSERT INTO members VALUES (1, 'Ada'), (2, 'Brook');\n\n"
                "Check the result by listing the table again, then commit your work.\n"
                "If the console complains, read the message: it names the bad column.\n")
    assert dump_records(tutorial) is None


MAN_PAGE = r""".\" Manpage for tidewatch.
.TH TIDEWATCH 8 "June 2026" "tidewatch 1.4" "System Administration"
.SH NAME
tidewatch \- poll tide gauges and raise flood alerts
.SH OPTIONS
.TP
.BR \-i ", " \-\-interval =\fISECONDS\fR
Poll every \fISECONDS\fR seconds.
Default: \fB300\fR.
.TP
.B \-\-quiet
Print nothing unless an alert is raised.
.SH EXIT STATUS
.TP
.B 0
All gauges answered.
.TP
.B 7
A gauge stopped answering for longer than \fB\-\-stale\fR allows.
"""

FEED = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel>
  <title>Oakmere Library news</title>
  <item>
    <title>Summer reading challenge</title>
    <description>&lt;p&gt;Sign-up opens on &lt;em&gt;Saturday 11 July&lt;/em&gt;
    at the &lt;a href="/branches/oakmere"&gt;Oakmere branch&lt;/a&gt; &amp;amp; online.&lt;/p&gt;
    </description>
  </item>
  <item>
    <title>Closed for rewiring</title>
    <description><![CDATA[<p>The <b>Fernhill</b> branch shuts from 3 to 14 August.</p>]]>
    </description>
  </item>
</channel></rss>
"""


def test_a_man_page_reads_as_printed_words_at_the_source_offsets():
    seen = reading_text(MAN_PAGE)
    assert len(seen) == len(MAN_PAGE)
    assert "Manpage" not in seen and ".TH" not in seen and "\\f" not in seen
    assert "tidewatch - poll tide gauges" in seen
    # An item's tag labels its body, on one line, as a definition list prints it.
    lines = [" ".join(line.split()) for line in seen.splitlines()]
    assert "-i, --interval=SECONDS: Poll every SECONDS seconds." in lines
    assert "7: A gauge stopped answering for longer than --stale allows." in lines
    # Every line that is not an item's head keeps its place: a unit is cited where it is.
    at = MAN_PAGE.index("Default:")
    assert seen[at:at + len("Default: 300.")] == "Default: 300."


def test_a_man_page_item_is_one_unit_that_holds_its_tag():
    units = split_units([MAN_PAGE])
    exit_unit = next(u for u in units if "stopped answering" in u.text)
    assert exit_unit.text.split(":")[0].strip() == "7"
    assert MAN_PAGE[exit_unit.start:exit_unit.end].count("stopped answering") == 1


def test_escaped_html_and_cdata_read_as_their_text():
    seen = reading_text(FEED)
    assert len(seen) == len(FEED)
    assert "&lt;" not in seen and "CDATA" not in seen
    words = " ".join(seen.split())
    assert words.count("Sign-up opens on Saturday 11 July at the Oakmere branch") == 1
    rows = element_records(FEED)
    assert rows is not None
    assert [f["description"] for _, _, f in rows] == [
        "Sign-up opens on Saturday 11 July at the Oakmere branch & online.",
        "The Fernhill branch shuts from 3 to 14 August."]


def test_text_with_no_machine_markup_is_left_as_it_is():
    prose = ("Bins: black on Monday, blue on Thursday.\n.5 litres of oil; the a < b rule.\n"
             "Run it with -v to see more, or \\d+ as the pattern.\n")
    assert reading_text(prose) == prose
    assert reading_text("Fisk &amp; Sons") == "Fisk &     Sons"


FEATURE = """# language: en
@lending
Feature: Borrowing tools from the Hollins Lane tool library
  Members borrow tools for a week at a time.

  Background:
    Given the shelf holds:
      | tool         | deposit |
      | belt sander  | 40.00   |
      | wallpaper steamer | 25.00 |

  Rule: late returns are charged per day

    @fees
    Scenario: A sander brought back two days late
      Given I borrowed the "belt sander" on "2026-05-04"
      When I return it on "2026-05-13"
      Then the late fee should be "3.00"

    Scenario Outline: Members on a concession pay less
      Given I hold a "<membership>" membership
      When I borrow the "belt sander"
      Then the deposit taken should be "<deposit>"

      Examples: current bands
        | membership | deposit |
        | standard   | 40.00   |
        | student    | 20.00   |
"""


def test_a_feature_file_gives_scenarios_example_rows_and_table_rows():
    layout = read_layout([("tools.feature", FEATURE)], {"tools.feature": "tools.feature"})
    assert layout.formats["tools.feature"] == "feature"
    by_text = {FEATURE[r.start:r.end].strip().split("\n")[0]: r.fields for r in layout.records}
    late = by_text["Scenario: A sander brought back two days late"]
    assert late["the late fee should be"] == "3.00" and late["tags"] == "@fees"
    assert late["rule"] == "late returns are charged per day"
    student = by_text["| student    | 20.00   |"]
    # The outline's steps are read with the row's cells.
    assert student["the deposit taken should be"] == "20.00"
    assert student["I hold a"] == "student"
    assert by_text["| wallpaper steamer | 25.00 |"]["deposit"] == "25.00"


@pytest.mark.parametrize(("question", "key", "value"), [
    ("what late fee do the tests expect for the sander brought back two days late",
     "the late fee should be", "3.00"),
    ("deposit taken from a student member", "the deposit taken should be", "20.00"),
])
def test_a_question_naming_a_scenario_gets_its_quoted_value(question, key, value):
    assert _looked_up([("tools.feature", FEATURE)], question) == (key, value)


def test_text_that_only_mentions_a_feature_is_not_a_feature_file():
    notes = ("Release notes\n\nFeature: dark mode. Scenario: the user toggles it.\n"
             "Then nothing else changed.\n")
    assert feature_records(notes) is None


def test_search_finds_words_that_troff_and_escaped_html_wrap(tmp_path):
    page = MAN_PAGE + ".SH FILES\n.I /var/lib/tidewatch/gauges.db\nThe \\fBsqlite\\fR cache.\n"
    with PassageIndex(tmp_path / "idx") as index:
        index.add_documents([("man", page), ("feed", FEED)])
        for query, doc_id, word in (("sqlite", "man", "sqlite"),
                                    ("Saturday sign-up", "feed", "Saturday")):
            hits, _ = index.search(query, limit=3, text_of={"man": page, "feed": FEED}.get)
            assert hits and hits[0].doc_id == doc_id, query
            text = page if doc_id == "man" else FEED
            # The hit is at the source's offsets: its highlight holds the word as written.
            assert word in text[hits[0].highlight_start:hits[0].highlight_end]


def test_an_html_page_reads_as_its_text_with_blocks_on_lines_of_their_own():
    page = ("<!DOCTYPE html>\n<html><head><title>Hours</title><style>p {color: red}</style>"
            "</head><body><h1>Opening hours</h1><p>The <b>Fernhill</b> branch opens at "
            "9&nbsp;am.</p><table><tr><td>Monday</td><td>09:00</td></tr></table>"
            "<script>var opens = 'never';</script></body></html>\n")
    seen = reading_text(page)
    assert len(seen) == len(page)
    lines = [" ".join(line.split()) for line in seen.splitlines() if line.strip()]
    assert lines == ["Opening hours", "The Fernhill branch opens at 9 am.", "Monday 09:00"]
    unit = next(u for u in split_units([page]) if "Fernhill" in u.text)
    assert "Fernhill" in page[unit.start:unit.end]


LATEX = r"""\documentclass{article}
\usepackage[utf8]{inputenc}
% draft: do not circulate
\begin{document}
\section{Fees}
Members pay \textbf{40} pounds a year; students pay 50\% of that.
\begin{tabular}{ll}
Day & Opens \\
Monday & 09:00 \\
\end{tabular}
\end{document}
"""

POD = """=head1 NAME

tidy - clean a folder

=head1 OPTIONS

=over 4

=item B<--keep> I<N>

Keep I<N> files. Default: B<14>. Run C<< tidy --keep 3 >> to keep three.

=back

=cut
"""


@pytest.mark.parametrize(("source", "lines"), [
    (LATEX, ["Fees", "Members pay 40 pounds a year; students pay 50% of that.",
             "Day Opens", "Monday 09:00"]),
    (POD, ["NAME", "tidy - clean a folder", "OPTIONS", "--keep N",
           "Keep N files. Default: 14 . Run tidy --keep 3 to keep three."]),
])
def test_latex_and_pod_sources_read_as_their_words(source, lines):
    seen = reading_text(source)
    assert len(seen) == len(source)
    assert [" ".join(line.split()) for line in seen.splitlines() if line.strip()] == lines


def test_a_passage_is_shown_to_a_model_without_its_syntax():
    at = MAN_PAGE.index(".SH EXIT STATUS")
    passage = shown(MAN_PAGE, at, len(MAN_PAGE))
    assert passage.splitlines()[0] == "EXIT STATUS"
    assert "7: A gauge stopped answering for longer than --stale allows." in passage
    assert ".TP" not in passage and "\\f" not in passage
    plain = "Bins:  black on Monday.\n\n\nBlue on Thursday."
    assert shown(plain, 0, len(plain)) == plain  # no syntax: shown as written
