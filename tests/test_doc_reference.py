"""A question's closing reference to a file by its name ("... in the NAS", "according to the
station log") is not a name its answer's record must say; grounding checks it against the
file's name."""

from __future__ import annotations

from strategy_support import ask, load_named, small_runtime

from rlm_recursive.agent.copied_check import _name_only
from rlm_recursive.corpus.doc_reference import without_document_reference
from rlm_recursive.providers.fake import reply

_SOURCES = ["/srv/reports/san_disk_report.txt", "kiln_station_log.csv"]


def test_a_reference_by_file_name_is_dropped() -> None:
    assert without_document_reference("firmware of the Toshiba N300 in the SAN?",
                                      _SOURCES) == "firmware of the Toshiba N300?"
    assert without_document_reference("Which kiln fired cone 6, according to the station "
                                      "log?", _SOURCES) == "Which kiln fired cone 6?"
    # A place no file is named for stays: it may be what picks the record.
    assert without_document_reference("Who keeps the key in the boiler room?",
                                      _SOURCES) == "Who keeps the key in the boiler room?"


async def test_a_fact_is_found_in_the_file_the_question_names(tmp_path, monkeypatch) -> None:
    report = ("== /dev/sdc ==\nModel Family:     Toshiba N300\nSerial Number:    X9TQ71\n\n"
              "== /dev/sdd ==\nModel Family:     Seagate Exos\nSerial Number:    ZA44K0P\n")
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"san_disk_report.txt": report, "memo.txt": "Backups nightly.\n"})
    result, _ = await ask(runtime, sid, "What is the serial number of the Seagate Exos in "
                          "the SAN?", "auto", lambda request: reply("Not found."))
    assert result.grounded and "ZA44K0P" in result.answer, result.answer
    runtime.close()


def test_a_file_name_vouches_only_for_names_its_text_never_says() -> None:
    # The feed's text names "Kiln Talk" in its title: the answer must be cited with it.
    feed = "<title>Kiln Talk</title>\n<item><title>Ep 4</title></item>\n"
    assert _name_only("How long is the Kiln Talk episode on glazes?", "kiln-talk-feed.xml",
                      feed) == ""
    # A sample config never says the product's name; its file name does.
    assert _name_only("Default port of the Kilnd sample?", "kilnd.conf.sample",
                      "#port = 8611\n") == "kilnd conf sample"
