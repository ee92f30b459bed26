"""A fact asked of map-reduce is grounded as a fact. A summary draws on every chunk, so its
values need only occur somewhere in what it cites; a single value asked ("how many files does
the recap show for it") must sit in one unit with what the question names, or a value of
another row ("10", two other servers' count) passes as the answer. And a report's section
called its "recap" or "summary" is no request for one: the question is routed as a look-up.
The documents are written here; the fake model answers what a small model said."""

from __future__ import annotations

from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.routing import asks_for_summary
from rlm_recursive.corpus.row_values import unnamed_row_value
from rlm_recursive.providers.fake import reply

_RUN = """NIGHTLY BACKUP RUN -- tape library TL-2, started 01:00
[nas-01.invalid] connected, 14 files to copy
[nas-02.invalid] connected, 10 files to copy
[nas-03.invalid] ERROR: connection refused on ssh port 22, host skipped
[nas-04.invalid] connected, 10 files to copy

RECAP
nas-01.invalid   : copied=14  skipped=2  errors=0
nas-02.invalid   : copied=10  skipped=1  errors=0
nas-03.invalid   : copied=6   skipped=0  errors=1
nas-04.invalid   : copied=10  skipped=3  errors=0
"""

_QUESTION = ("The server the backup could not reach over ssh: how many files does the recap "
             "say were copied for it?")


def test_a_section_called_recap_is_no_request_for_a_summary() -> None:
    assert not asks_for_summary(_QUESTION)
    assert not asks_for_summary("what does the recap show for nas-02?")
    assert asks_for_summary("Recap the backup run for me")
    assert asks_for_summary("Can you give me a quick recap of the run?")


async def test_a_fact_from_map_reduce_must_sit_beside_what_is_asked(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, _RUN)
        result, _ = await ask(runtime, sid, _QUESTION, "map-reduce",
                              lambda request: reply("The recap shows 10 copied."))
        assert result.grounded is False, result.answer
        assert "10" not in result.answer
        summary, _ = await ask(
            runtime, sid, "Recap the backup run", "map-reduce",
            lambda request: reply("Four servers were backed up to tape library TL-2; "
                                  "nas-03.invalid refused the connection on ssh port 22."))
        assert summary.grounded is True, summary.answer
    finally:
        runtime.close()


def test_a_row_value_is_pinned_only_by_naming_its_row() -> None:
    assert unnamed_row_value("The recap shows 10", _QUESTION, [_RUN]) == "10"
    assert unnamed_row_value("The recap shows 6", _QUESTION, [_RUN]) == "6"
    assert unnamed_row_value("nas-03.invalid: copied=6", _QUESTION, [_RUN]) is None
    assert unnamed_row_value("6", "how many files were copied for nas-03.invalid?",
                             [_RUN]) is None
    # A value no row gives (a figure of the prose) is for the other checks.
    assert unnamed_row_value("tape library TL-2", _QUESTION, [_RUN]) is None
