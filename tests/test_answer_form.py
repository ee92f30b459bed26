"""Is a text an answer at all (`agent.answer_form`), and grounding with the fake model: a
record row, markup or the prompt said back holds the question's words, so the text backs
it, yet answers nothing. It is narrowed to the value it wraps, or the answer is the
runtime's copy of the right line, or "not found": never a grounded row of another record."""

from __future__ import annotations

import pytest
from strategy_support import answers, ask, load, small_runtime

from rlm_recursive.agent.answers.answer_form import as_answer, row_fields
from rlm_recursive.corpus.reading import plain


@pytest.mark.parametrize("row", [
    "(17,'Tenor horn, silver plated','Boosey & Hawkes','1961','brass',400),",
    "2025-11-02,WARN,ledger,slow query on accounts,812",
    "R-0042\tMeadow Lane depot\tforklift\t2019\tavailable",
    "| BK-118 | Ferris, Anna | Room 4 | 09:30 |",
])
def test_a_row_of_many_fields_is_a_row(row):
    assert row_fields(row) is not None
    assert as_answer("What is the serial number of the red forklift?", row) is None


@pytest.mark.parametrize("prose", [
    "We stock apples, pears, plums and cherries in season.",
    "Met on 3 May, 4 June, 5 July, and 6 August.",
    "GBP 1,834,280.00",
    "Ward 4B, bay 2",
])
def test_prose_with_commas_and_a_number_with_separators_are_no_rows(prose):
    assert row_fields(prose) is None
    assert as_answer("What was it?", prose) == prose


def test_a_row_with_no_header_is_narrowed_to_the_value_its_asked_label_sits_before():
    segment = "RES|2|NM|GLU^Fasting glucose^LN||6.4|mmol/L|3.9-5.5|H|||F"
    assert as_answer("fasting glucose for ward 9 patient?", segment) == "6.4 mmol/L"
    # Two rows name glucose: the one holding more of the question's words is picked.
    two = ("RES|1|NM|GLU^Glucose random^LN||8.1|mmol/L||H\n"
           "RES|2|NM|GLU^Glucose fasting^LN||6.4|mmol/L||H")
    assert as_answer("What was the fasting glucose?", two) == "6.4 mmol/L"
    # No field says what is asked: no answer.
    assert as_answer("Who took the sample?", segment) is None


@pytest.mark.parametrize(("said", "value"), [
    ("The answer is: 42", "42"),
    ("Answer: Thursdays", "Thursdays"),
    ("Refill interval: \\fB21\\fR days.", "Refill interval: 21 days."),
    ("<td>Thursday</td>", "Thursday"),
    ("Orme &amp; Daughters", "Orme & Daughters"),
    ("&lt;p&gt;Collections move to Tuesdays&lt;/p&gt;", "Collections move to Tuesdays"),
])
def test_a_value_wrapped_in_markup_or_a_prompt_stem_is_the_value(said, value):
    assert as_answer("Which day are recycling bins collected?", said) == value


@pytest.mark.parametrize("said", [
    "Answer:",
    '<item>\n<title>Parish news</title>\n<link>https://example.org/news</link>\n</item>',
    ".SH OPTIONS\n.TP\n.B \\-q\nQuiet mode.\n.TP\n.B \\-v\nVerbose.",
])
def test_a_prompt_stem_alone_or_a_dump_of_markup_is_no_answer(said):
    assert as_answer("Which day are recycling bins collected?", said) is None


def test_a_snippet_reads_as_the_search_shows_it_roff_tags_and_escaped_html_away():
    # An item's tag reads as the label of its body, as a man page prints it.
    assert plain(".TP\n.B \\-\\-retries\nRetry \\fIN\\fR times.") == "--retries: Retry N times."
    assert plain("&lt;b&gt;Closed&lt;/b&gt; on Mondays") == "Closed on Mondays"
    assert plain("<?xml version='1.0'?><note>Bins on <b>Thursday</b></note>") == \
        "Bins on Thursday"


FILLER = "".join(f"Note {i}: the stock check of shelf {i} found nothing missing.\n\n"
                 for i in range(30))
DUMP = (
    "-- instrument register export\n"
    "INSERT INTO instruments VALUES\n"
    "(1,'INV-7731','Cornet in B flat','Besson','silver plated',2010),\n"
    "(2,'INV-7732','Tenor horn','Yamaha','brass lacquer',2014),\n"
    "(3,'INV-7733','Baritone horn','Besson','silver plated',1998);\n")


@pytest.fixture
def band(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load(runtime, FILLER + DUMP + FILLER)
    yield runtime, sid
    runtime.close()


async def test_another_records_row_is_never_a_grounded_answer(band):
    runtime, sid = band
    # The row names the maker the question names, but it is the baritone's, not the cornet's.
    row = "(3,'INV-7733','Baritone horn','Besson','silver plated',1998);"
    result, _ = await ask(runtime, sid, "inventory number of the Besson cornet", "search",
                          answers(row, reasked=row))
    assert result.answer not in (row, row.rstrip(";"))
    assert result.grounded is False or "INV-7731" in result.answer


async def test_a_row_said_back_on_re_ask_is_no_quote_either(band):
    runtime, sid = band
    row = "(2,'INV-7732','Tenor horn','Yamaha','brass lacquer',2014),"
    result, _ = await ask(runtime, sid, "what year was the Yamaha tenor horn bought", "search",
                          answers("The answer is:", reasked=row))
    assert result.answer not in (row, row.rstrip(","))
    assert result.grounded is False or "2014" in result.answer


def test_a_metric_description_is_no_value() -> None:
    question = "kiln-2 chamber temperature right now"
    assert as_answer(question, "# HELP kiln_chamber_celsius Chamber temperature.") is None
    assert as_answer(question, "# TYPE kiln_chamber_celsius gauge") is None
    assert as_answer(question, 'kiln_chamber_celsius{kiln="2"} 1180.5') is not None
